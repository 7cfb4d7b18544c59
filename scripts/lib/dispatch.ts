/**
 * Routes one HTTP request to the handler module Lambda would run, through the route table, as API
 * Gateway HTTP API does: build the 2.0 event, invoke `handler`, return its structured result.
 * Used by the local gateway (`npm start`) and by the tests.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { buildApiEvent, localContext } from './api-event';
import type { ApiName } from '../../shared/http/groups';
import { FALLBACK_HANDLER, matchRoute } from '../../shared/routes';

export const REPOSITORY_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

const handlers = new Map<string, Promise<LambdaHandler>>();

/**
 * Loads a handler module once (as a warm Lambda container keeps it) and returns its `handler` export.
 * A module that fails to load is not cached, so the next request tries again.
 */
export function loadHandler(modulePath: string): Promise<LambdaHandler> {
  let loaded = handlers.get(modulePath);
  if (!loaded) {
    loaded = import(pathToFileURL(path.join(REPOSITORY_ROOT, modulePath)).href).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a function named handler`);
      return module.handler as LambdaHandler;
    });
    handlers.set(modulePath, loaded);
    loaded.catch(() => handlers.delete(modulePath));
  }
  return loaded;
}

/** How many handler modules this process has loaded (each one has created its DynamoDB client). */
export function loadedHandlerCount(): number {
  return handlers.size;
}

export interface LocalRequest {
  api: ApiName;
  method: string;
  /** Path and query as sent, e.g. `/collections?limit=5&chainId=1`. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** True when `body` is base64 (a body whose content type is not text). */
  isBase64Encoded?: boolean;
  sourceIp?: string;
}

export interface LocalResponse {
  statusCode: number;
  /** Lowercase names. */
  headers: Record<string, string>;
  /** `set-cookie` values from the result's `cookies`. */
  cookies: string[];
  body: string;
  /** True when `body` is base64 and must be decoded before it is sent. */
  isBase64Encoded: boolean;
}

/** A request turned into what API Gateway would hand to Lambda: the event and the function that gets it. */
export interface PreparedRequest {
  event: APIGatewayProxyEventV2;
  /** Handler module relative to the repository root. */
  modulePath: string;
  /** The route's id, or `<api>-route-not-found` for the fallback. */
  functionName: string;
  routeId?: string;
}

export function prepareRequest(request: LocalRequest): PreparedRequest {
  const { rawPath, rawQueryString } = splitUrl(request.url);
  const { match } = matchRoute(request.api, request.method, rawPath);
  const event = buildApiEvent({
    api: request.api,
    method: request.method,
    rawPath,
    routePath: match?.route.path,
    rawQueryString,
    pathParameters: match?.pathParameters,
    headers: request.headers,
    body: request.body,
    isBase64Encoded: request.isBase64Encoded,
    sourceIp: request.sourceIp,
  });
  return {
    event,
    modulePath: match ? match.route.handler : FALLBACK_HANDLER,
    functionName: match ? match.route.id : `${request.api}-route-not-found`,
    routeId: match?.route.id,
  };
}

/**
 * Sees every response a handler gave, before the caller does; it may throw to fail the request (the
 * tests' contract check, test/support/contract.ts, validates each response against its route's schema).
 */
export type ResponseObserver = (prepared: PreparedRequest, handler: LambdaHandler, response: LocalResponse) => void;

const observers: ResponseObserver[] = [];

export function observeResponses(observer: ResponseObserver): void {
  observers.push(observer);
}

/** Runs the prepared event through its handler module and reads the result as API Gateway does. */
export async function invoke(prepared: PreparedRequest): Promise<LocalResponse> {
  const handler = await loadHandler(prepared.modulePath);
  const response = readResult(await handler(prepared.event, localContext(prepared.functionName)));
  for (const observe of observers) observe(prepared, handler, response);
  return response;
}

export async function dispatch(request: LocalRequest): Promise<LocalResponse> {
  return invoke(prepareRequest(request));
}

/**
 * Payload format 2.0: a result with a `statusCode` is a structured response; anything else is a JSON
 * body with status 200.
 */
export function readResult(result: APIGatewayProxyResultV2): LocalResponse {
  if (typeof result !== 'object' || result === null || typeof (result as { statusCode?: unknown }).statusCode !== 'number') {
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      cookies: [],
      body: typeof result === 'string' ? result : JSON.stringify(result ?? null),
      isBase64Encoded: false,
    };
  }
  const structured = result as Exclude<APIGatewayProxyResultV2, string>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(structured.headers ?? {})) headers[name.toLowerCase()] = String(value);
  return {
    statusCode: structured.statusCode ?? 200,
    headers,
    cookies: structured.cookies ?? [],
    body: typeof structured.body === 'string' ? structured.body : '',
    isBase64Encoded: structured.isBase64Encoded === true,
  };
}

/** The path and the query string exactly as sent (no normalisation, no decoding), like `rawPath` and `rawQueryString`. */
export function splitUrl(url: string): { rawPath: string; rawQueryString: string } {
  const withoutFragment = url.split('#', 1)[0];
  const mark = withoutFragment.indexOf('?');
  const rawPath = mark === -1 ? withoutFragment : withoutFragment.slice(0, mark);
  return { rawPath: rawPath || '/', rawQueryString: mark === -1 ? '' : withoutFragment.slice(mark + 1) };
}

/** dispatch() for tests: the JSON body parsed. */
export async function requestJson<T = any>(
  api: ApiName,
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; sourceIp?: string } = {},
): Promise<{ status: number; headers: Record<string, string>; body: T }> {
  const hasBody = options.body !== undefined;
  const response = await dispatch({
    api,
    method,
    url,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body: hasBody ? (typeof options.body === 'string' ? options.body : JSON.stringify(options.body)) : undefined,
    sourceIp: options.sourceIp,
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: response.body ? (JSON.parse(response.body) as T) : (undefined as T),
  };
}
