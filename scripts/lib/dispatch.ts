/**
 * Routes one HTTP request to the handler module Lambda would run, through the route table, as API
 * Gateway HTTP API does: build the 2.0 event, invoke `handler`, return its structured result.
 * Used by the local gateway (`npm start`) and by the tests.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { buildApiEvent, localContext } from '../../shared/http/api-event';
import type { ApiName } from '../../shared/http/groups';
import { FALLBACK_HANDLER, matchRoute } from '../../shared/routes';

export const REPOSITORY_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const handlers = new Map<string, Promise<LambdaHandler>>();

/** Loads a handler module once (as a Lambda container would) and returns its `handler` export. */
export function loadHandler(modulePath: string): Promise<LambdaHandler> {
  let loaded = handlers.get(modulePath);
  if (!loaded) {
    loaded = import(pathToFileURL(path.join(REPOSITORY_ROOT, modulePath)).href).then((module) => module.handler as LambdaHandler);
    handlers.set(modulePath, loaded);
  }
  return loaded;
}

export interface LocalRequest {
  api: ApiName;
  method: string;
  /** Path and query, e.g. `/collections?limit=5&chainId=1`. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
  sourceIp?: string;
}

export interface LocalResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export async function dispatch(request: LocalRequest): Promise<LocalResponse> {
  const url = new URL(request.url, 'http://local');
  const rawPath = url.pathname;
  const rawQueryString = url.search.startsWith('?') ? url.search.slice(1) : url.search;
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
    sourceIp: request.sourceIp,
  });
  const modulePath = match ? match.route.handler : FALLBACK_HANDLER;
  const handler = await loadHandler(modulePath);
  const result = await handler(event, localContext(match ? match.route.id : `${request.api}-route-not-found`));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  return { statusCode: result.statusCode ?? 200, headers, body: typeof result.body === 'string' ? result.body : '' };
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
  return { status: response.statusCode, headers: response.headers, body: response.body ? (JSON.parse(response.body) as T) : (undefined as T) };
}
