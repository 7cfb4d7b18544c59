/**
 * The one Middy stack every HTTP handler uses. A route file declares its group, its valibot schemas
 * and one function; this module adds, in order:
 *  1. Powertools logger context (Lambda request id and, as correlation_id, API Gateway's request id
 *     on every log line);
 *  2. header normalisation (lowercase names) and HTTP API 2.0 event normalisation;
 *  3. CORS headers on every response (shared/http/cors.ts);
 *  4. the error responder: validation and domain errors become the group's 4xx, anything else a
 *     logged 500 that leaks nothing;
 *  5. for routes with a body: a size limit and the JSON body parser;
 *  6. valibot validation of path, query (repeats read from rawQueryString) and body. A failure
 *     throws before the handler body runs, listing every failing value (every unknown parameter of a
 *     strict object too, where valibot itself stops at the first).
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as v from 'valibot';
import { corsMiddleware } from './cors';
import { BusyError, DomainError, type DomainErrorKind } from '../errors';
import { HttpError, RequestValidationError, type RequestIssue, type RequestPart } from './errors';
import { errorBody, VALIDATION_STATUS, type ApiGroup } from './groups';
import { logger } from '../observability/logger';
import { queryForValidation } from './query';
import { toHttpResponse, type JsonResult } from './response';

export const MAX_BODY_BYTES = 64 * 1024;

type AnySchema = v.GenericSchema<unknown, unknown>;
type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export interface HandlerSpec<P extends AnySchema | undefined, Q extends AnySchema | undefined, B extends AnySchema | undefined> {
  group: ApiGroup;
  /** Path parameters. */
  path?: P;
  /** Query parameters; see `repeatable`. */
  query?: Q;
  /** Query parameters that may repeat and reach the schema as arrays of strings. */
  repeatable?: readonly string[];
  /** JSON body. A route with a body requires `content-type: application/json`. */
  body?: B;
  /** The success response's schema: not checked at run time, read by tests and the OpenAPI generator. */
  response?: AnySchema;
  handle: (request: ValidatedRequest<Out<P>, Out<Q>, Out<B>>) => Promise<JsonResult>;
}

export interface ValidatedRequest<P, Q, B> {
  path: P;
  query: Q;
  body: B;
  /** Lowercase header names. */
  headers: Record<string, string | undefined>;
  event: APIGatewayProxyEventV2;
  context: Context;
}

export type HttpHandler = middy.MiddyfiedHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context> & {
  spec: HandlerSpec<AnySchema | undefined, AnySchema | undefined, AnySchema | undefined>;
};

export function httpHandler<
  P extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  B extends AnySchema | undefined = undefined,
>(spec: HandlerSpec<P, Q, B>): HttpHandler {
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(correlationId())
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(corsMiddleware())
    .use(errorResponder(spec.group));
  if (spec.body) handler.use(bodyLimit(MAX_BODY_BYTES)).use(httpJsonBodyParser());
  handler.use(requestValidator(spec as HandlerSpec<AnySchema | undefined, AnySchema | undefined, AnySchema | undefined>));
  const wrapped = handler.handler(async (event, context) => {
    const validated = (event as unknown as { validated: ValidatedRequest<Out<P>, Out<Q>, Out<B>> }).validated;
    return toHttpResponse(await spec.handle({ ...validated, event, context }));
  }) as HttpHandler;
  wrapped.spec = spec as HttpHandler['spec'];
  return wrapped;
}

/** Validates path, query and body with the route's schemas and attaches the typed values to the event. */
function requestValidator(spec: HandlerSpec<AnySchema | undefined, AnySchema | undefined, AnySchema | undefined>): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async (request) => {
      const event = request.event;
      const issues: RequestIssue[] = [];
      const parse = (part: RequestPart, schema: AnySchema | undefined, input: unknown): unknown => {
        if (!schema) return undefined;
        const result = v.safeParse(schema, input, { abortEarly: false });
        if (result.success) return result.output;
        issues.push(...requestIssues(part, schema, input, result.issues));
        return undefined;
      };
      const path = parse('path', spec.path, event.pathParameters ?? {});
      const query = parse('query', spec.query, queryForValidation(event.rawQueryString, event.queryStringParameters, spec.repeatable));
      const body = parse('body', spec.body, event.body);
      if (issues.length > 0) throw new RequestValidationError(issues);
      (event as unknown as { validated: unknown }).validated = {
        path,
        query,
        body,
        headers: (event.headers ?? {}) as Record<string, string | undefined>,
      };
    },
  };
}

/**
 * The issues of one request part. valibot reports only the first unknown key of a strict object; a
 * client fixing its request wants them all, so for a top-level strict object every unknown key of the
 * input becomes its own issue.
 */
export function requestIssues(part: RequestPart, schema: AnySchema, input: unknown, issues: readonly v.BaseIssue<unknown>[]): RequestIssue[] {
  const result = issues.map((issue) => toRequestIssue(part, issue));
  const entries = (schema as { type?: string; entries?: Record<string, unknown> }).type === 'strict_object' ? (schema as { entries?: Record<string, unknown> }).entries : undefined;
  if (!entries || typeof input !== 'object' || input === null) return result;
  const reported = new Set(result.filter((issue) => issue.message.startsWith('Unexpected field')).map((issue) => issue.key));
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(entries, key) && !reported.has(key)) result.push(toRequestIssue(part, unknownKeyIssue(key)));
  }
  return result;
}

function unknownKeyIssue(key: string): v.BaseIssue<unknown> {
  return {
    kind: 'schema',
    type: 'strict_object',
    input: key,
    expected: 'never',
    received: `"${key}"`,
    message: `Invalid key: Expected never but received "${key}"`,
    path: [{ type: 'object', origin: 'key', input: {}, key, value: undefined }],
  } as v.BaseIssue<unknown>;
}

/** One issue per failing value; an unknown key of a strict object names that key. */
export function toRequestIssue(part: RequestPart, issue: v.BaseIssue<unknown>): RequestIssue {
  const path = (issue.path ?? []).map((item) => String((item as { key?: unknown }).key));
  if (issue.type === 'strict_object' && issue.expected === 'never' && path.length > 0) {
    const key = path.join('.');
    // Blockscout (OpenApiSpex) titles every cast error "Invalid value"; the detail says what is wrong.
    return { part, key, message: `Unexpected field: ${key}` };
  }
  if (issue.type === 'strict_object' && path.length > 0) {
    // A strict object reports a missing required key as its own issue: say so plainly.
    return { part, key: path.join('.'), message: 'is required' };
  }
  return { part, key: path.join('.'), message: issue.message };
}

/** Rejects bodies over `limit` bytes with 413 before they are parsed. */
function bodyLimit(limit: number): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async ({ event }) => {
      if (typeof event.body !== 'string') return;
      const bytes = event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body);
      if (bytes > limit) throw new HttpError(413, `Request body is larger than ${limit} bytes`);
    },
  };
}

/** Turns any error into the group's response. Only errors meant for the client keep their message. */
function errorResponder(group: ApiGroup): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: async (request) => {
      const error = request.error as (Error & { statusCode?: number; expose?: boolean }) | null;
      const response = errorResponse(group, error, request.context?.awsRequestId);
      request.response = toHttpResponse(response);
    },
  };
}

/** The status of each kind of domain error, in every group. */
const DOMAIN_STATUS: Record<DomainErrorKind, number> = { invalid: 400, 'not-found': 404, conflict: 409, busy: 503 };

export function errorResponse(group: ApiGroup, error: (Error & { statusCode?: number; expose?: boolean }) | null, requestId?: string): JsonResult & { statusCode: number } {
  if (error instanceof RequestValidationError) {
    const statusCode = VALIDATION_STATUS[group];
    return { statusCode, body: errorBody(group, statusCode, error.message, error.issues) };
  }
  if (error instanceof HttpError) {
    return { statusCode: error.statusCode, body: errorBody(group, error.statusCode, error.message) };
  }
  if (error instanceof DomainError) {
    const statusCode = DOMAIN_STATUS[error.kind];
    const headers = error instanceof BusyError ? { 'retry-after': String(error.retryAfterSeconds) } : undefined;
    return { statusCode, body: errorBody(group, statusCode, error.message), headers };
  }
  // Errors created by middy's own middleware (@middy/util createError): client errors meant to be shown.
  if (error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 && error.expose === true) {
    const { statusCode, message } = clientErrorOfMiddy(error.statusCode, error.message);
    return { statusCode, body: errorBody(group, statusCode, message) };
  }
  logger.error('Unhandled error', { error: error ?? undefined, requestId });
  const message = `Internal server error${requestId ? ` (request id ${requestId})` : ''}`;
  return { statusCode: 500, body: errorBody(group, 500, message) };
}

/**
 * The JSON body parser answers 415 both for a wrong content type and for a body that is not JSON; to
 * a client the second is a bad request (400). Both get a message that says what to fix.
 */
function clientErrorOfMiddy(statusCode: number, message: string): { statusCode: number; message: string } {
  if (statusCode === 415 && /malformed JSON/i.test(message)) return { statusCode: 400, message: 'The request body is not valid JSON' };
  if (statusCode === 415) return { statusCode, message: 'Unsupported Media Type: send the body as JSON with content-type: application/json' };
  return { statusCode, message };
}

/** Adds API Gateway's request id (what a client and the access log see) to every log line as correlation_id. */
function correlationId(): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async ({ event }) => {
      const requestId = event.requestContext?.requestId;
      if (requestId) logger.setCorrelationId(requestId);
    },
  };
}
