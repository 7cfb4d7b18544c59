/**
 * The one Middy stack every HTTP handler uses. A route file declares its group, its valibot schemas
 * and one function; this module adds, in order:
 *  1. Powertools logger context (request ids on every log line);
 *  2. header normalisation (lowercase names) and HTTP API 2.0 event normalisation;
 *  3. CORS headers on every response (allowed origins from CORS_ALLOWED_ORIGINS);
 *  4. the error responder: validation and domain errors become the group's 4xx, anything else a
 *     logged 500 that leaks nothing;
 *  5. for routes with a body: a size limit and the JSON body parser;
 *  6. valibot validation of path, query (repeats read from rawQueryString) and body. A failure
 *     throws before the handler body runs.
 */
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as v from 'valibot';
import { platformConfig } from '../config';
import { HttpError, RequestValidationError, type RequestIssue, type RequestPart } from './errors';
import { errorBody, VALIDATION_STATUS, type ApiGroup } from './groups';
import { logger } from './logger';
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
  const origins = platformConfig().corsAllowedOrigins;
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(
      httpCors({
        origins,
        headers: 'content-type,idempotency-key',
        methods: 'GET,POST,OPTIONS',
        exposeHeaders: 'idempotent-replayed',
      }),
    )
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
        issues.push(...result.issues.map((issue) => toRequestIssue(part, issue)));
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

/** One issue per failing value; an unknown key of a strict object names that key. */
export function toRequestIssue(part: RequestPart, issue: v.BaseIssue<unknown>): RequestIssue {
  const path = (issue.path ?? []).map((item) => String((item as { key?: unknown }).key));
  if (issue.type === 'strict_object' && path.length > 0) {
    const key = path.join('.');
    return { part, key, message: `Unexpected field: ${key}`, title: 'Unexpected field' };
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

export function errorResponse(group: ApiGroup, error: (Error & { statusCode?: number; expose?: boolean }) | null, requestId?: string): JsonResult & { statusCode: number } {
  if (error instanceof RequestValidationError) {
    const statusCode = VALIDATION_STATUS[group];
    return { statusCode, body: errorBody(group, statusCode, error.message, error.issues) };
  }
  if (error instanceof HttpError) {
    return { statusCode: error.statusCode, body: errorBody(group, error.statusCode, error.message) };
  }
  // Errors created by middy's own middleware (http-errors): client errors with a safe message.
  if (error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 && error.expose !== false) {
    // The JSON body parser reports malformed JSON as 415; to a client that is a bad request.
    const statusCode = /malformed JSON/i.test(error.message) ? 400 : error.statusCode;
    return { statusCode, body: errorBody(group, statusCode, error.message) };
  }
  logger.error('Unhandled error', { error: error ?? undefined, requestId });
  const message = `Internal server error${requestId ? ` (request id ${requestId})` : ''}`;
  return { statusCode: 500, body: errorBody(group, 500, message) };
}
