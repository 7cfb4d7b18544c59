/**
 * The one Middy stack every HTTP handler uses. A route file declares its group, its valibot schemas
 * and one function; this module adds, in order, one middleware per job (shared/http/middleware/):
 *  1. Powertools logger context, and API Gateway's request id as correlation_id (correlation-id.ts);
 *  2. header normalisation (lowercase names) and HTTP API 2.0 event normalisation (middy's own);
 *  3. CORS headers on every response (cors.ts);
 *  4. the error responder: validation and domain errors become the group's 4xx, anything else a
 *     logged 500 that leaks nothing (error-responder.ts);
 *  5. for routes with a body: a size limit (body-limit.ts), a strict UTF-8 decoding of a base64 body
 *     (utf8-body.ts), middy's JSON body parser, and the refusal of strings that may not be stored
 *     (U+0000, unpaired surrogates: storable-strings.ts);
 *  6. valibot validation of path, query and body (request-validator.ts).
 * Around all of it, the X-Ray subsegment of the request when the tracer is on (observability/tracing.ts),
 * and a plugin that publishes the request's metrics once its response is final: latency,
 * status class, DynamoDB calls and consumed capacity, per route (shared/observability/route-metrics.ts).
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { logger } from '../observability/logger';
import { measuredWork, requestTimer, routeMetricsPlugin } from '../observability/route-metrics';
import { tracing } from '../observability/tracing';
import type { RouteGroup } from './groups';
import { bodyLimit } from './middleware/body-limit';
import { correlationId } from './middleware/correlation-id';
import { corsMiddleware } from './middleware/cors';
import { errorResponder } from './middleware/error-responder';
import { requestValidator, validatedParts } from './middleware/request-validator';
import { storableStrings } from './middleware/storable-strings';
import { utf8Body } from './middleware/utf8-body';
import { toHttpResponse, type JsonResult, type RawResult } from './response';

export const MAX_BODY_BYTES = 64 * 1024;

type AnySchema = v.GenericSchema<unknown, unknown>;
type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export interface HandlerSpec<P extends AnySchema | undefined, Q extends AnySchema | undefined, B extends AnySchema | undefined> {
  /** The error format; a platform route answers in the format of the path's group on each base URL. */
  group: RouteGroup;
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
  /** The success response's content type when it is not JSON (the handler returns a `RawResult`). */
  contentType?: string;
  handle: (request: ValidatedRequest<Out<P>, Out<Q>, Out<B>>) => Promise<JsonResult | RawResult>;
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
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>(routeMetricsPlugin())
    .use(requestTimer())
    .use(tracing())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(correlationId())
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(corsMiddleware())
    .use(errorResponder(spec.group));
  if (spec.body) handler.use(bodyLimit(MAX_BODY_BYTES)).use(utf8Body()).use(httpJsonBodyParser()).use(storableStrings());
  handler.use(requestValidator(spec));
  const wrapped = handler.handler(async (event, context) => {
    const validated = validatedParts(event) as Omit<ValidatedRequest<Out<P>, Out<Q>, Out<B>>, 'event' | 'context'>;
    return toHttpResponse(await measuredWork(context, () => spec.handle({ ...validated, event, context })));
  }) as HttpHandler;
  wrapped.spec = spec as HttpHandler['spec'];
  return wrapped;
}
