/**
 * The `$default` route of each HTTP API: a request that matches no route answers 404 JSON, or 405
 * with an `Allow` header when the path exists with another method, in the format of the path's group.
 * OPTIONS answers 204 with the methods the path accepts when it exists, and a CORS preflight (Origin
 * and Access-Control-Request-Method) of any path answers 204 as API Gateway's CORS configuration does.
 * Every answer carries the CORS headers of shared/http/cors.ts, so a browser can read the error.
 * The API it serves comes from requestContext.apiId locally (buildApiEvent sets it to the API's name)
 * and from API_NAME (set by the stack) in AWS (shared/http/api-name.ts). Counted in the per-route
 * metrics under the route `$default`.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CORS_ALLOWED_METHODS, CORS_MAX_AGE_SECONDS, corsMiddleware } from '../../shared/http/middleware/cors';
import { apiNameOf } from '../../shared/http/api-name';
import { errorBody, groupOfPath } from '../../shared/http/groups';
import { toHttpResponse } from '../../shared/http/response';
import { requestTimer, routeMetricsPlugin } from '../../shared/observability/route-metrics';
import { tracing } from '../../shared/observability/tracing';
import { matchRoute } from '../../shared/routes';

async function routeNotFound(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const api = apiNameOf(event);
  const method = (event.requestContext?.http?.method ?? 'GET').toUpperCase();
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const group = groupOfPath(api, path);
  const { allowedMethods } = matchRoute(api, method, path);
  // Like API Gateway's own CORS preflight answer, which in AWS answers before this function would:
  // any path, with the methods the path accepts when it exists.
  const preflight = method === 'OPTIONS' && Boolean(event.headers?.origin && event.headers?.['access-control-request-method']);
  if (method === 'OPTIONS' && (allowedMethods.length > 0 || preflight)) {
    const methods = (allowedMethods.length > 0 ? [...allowedMethods, 'OPTIONS'] : CORS_ALLOWED_METHODS).join(', ');
    return {
      statusCode: 204,
      // Canonical names: the CORS middleware keeps headers already set under these names.
      headers: { allow: methods, 'Access-Control-Allow-Methods': methods, 'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS) },
    };
  }
  if (allowedMethods.length > 0) {
    const message = `Method ${method} is not allowed on ${path}; allowed: ${allowedMethods.join(', ')}`;
    return toHttpResponse({ statusCode: 405, body: errorBody(group, 405, message), headers: { allow: allowedMethods.join(', ') } });
  }
  return toHttpResponse({ statusCode: 404, body: errorBody(group, 404, `No route for ${method} ${path}`) });
}

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(routeMetricsPlugin())
  .use(requestTimer())
  .use(tracing())
  .use(httpHeaderNormalizer())
  .use(corsMiddleware())
  .handler(routeNotFound);
