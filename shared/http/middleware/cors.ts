/**
 * CORS for every HTTP response, route handlers and the unknown-route fallback alike. Allowed origins
 * come from CORS_ALLOWED_ORIGINS (comma-separated; `*` allows any origin): an allowed origin is echoed,
 * any other origin gets no `Access-Control-Allow-Origin` at all. Preflight requests (OPTIONS) match no
 * route and are answered by the fallback (functions/platform/route-not-found.ts) with the methods the
 * path really accepts.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { platformConfig } from '../../config';

/**
 * Request headers a browser may send cross-origin (besides the CORS-safelisted ones): the JSON body's
 * type, the orders' idempotency key, the headers the published clients add (thirdweb's Insight client:
 * `x-client-id` / `x-secret-key` once configured; AnySpend's: the Fingerprint visitor headers on order
 * creation). The service ignores the client ones, but a browser refusing the preflight would fail the call.
 */
export const CORS_ALLOWED_HEADERS =
  'content-type,idempotency-key,x-client-id,x-secret-key,x-fingerprint-request-id,x-fingerprint-visitor-id';
/**
 * Response headers a browser script may read (besides the CORS-safelisted ones): the orders' replay
 * flag, the explorer's indexing headers (shared/explorer/indexing-status.ts), which tell a front-end
 * how current the data is, and its counters' cap (X-Counters-Capped).
 */
export const CORS_EXPOSED_HEADERS =
  'idempotent-replayed,x-indexed-block,x-indexed-block-time,x-indexing-state,x-indexing-lag-blocks,x-counters-capped';
/** Methods a browser may use cross-origin (PATCH and DELETE: Insight's webhook routes). */
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** How long a browser may cache a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * The CORS headers of every response, as @middy/http-cors writes them with these options (no
 * credentials, max age or cache control on ordinary responses): the allowed headers, methods and
 * exposed headers, the origin (echoed when listed or matching a `*` pattern, `*` for any origin,
 * absent otherwise) and `Vary: Origin` when the answer depends on the Origin header. Headers the
 * response already sets under these (canonical) names are kept. The origins are parsed once per
 * container, and the response's headers are copied, not deep-cloned, per request.
 */
export function corsMiddleware(
  origins: string[] = platformConfig().corsAllowedOrigins,
): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  let anyOrigin = false;
  // With several origins, a pattern, or one fixed origin the answer depends on the request's Origin
  // (echoed or absent), so caches must key on it.
  let varies = origins.length > 1;
  const listed = new Set<string>();
  const patterns: RegExp[] = [];
  for (const origin of origins) {
    if (!origin) continue;
    if (origin === '*') anyOrigin = true;
    else if (!origin.includes('*')) listed.add(origin);
    else {
      varies = true;
      patterns.push(new RegExp(`^${origin.replaceAll('.', '\\.').replaceAll('*', '[^.]*')}$`));
    }
  }
  const singleFixedOrigin = origins.length === 1 && !origins[0]!.includes('*');
  const allowedOrigin = (incoming: string | undefined): string | undefined => {
    if (origins.length === 0) return undefined;
    if (incoming !== undefined && listed.has(incoming)) return incoming;
    if (anyOrigin) return '*';
    if (patterns.some((pattern) => pattern.test(incoming as string))) return incoming;
    return undefined;
  };
  const methods = CORS_ALLOWED_METHODS.join(',');
  const after = async (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>): Promise<void> => {
    const response = normalised(request);
    const headers: Record<string, string | number | boolean> = { ...response.headers };
    const has = (name: string) => Object.hasOwn(headers, name);
    if (!has('Access-Control-Allow-Headers')) headers['Access-Control-Allow-Headers'] = CORS_ALLOWED_HEADERS;
    if (!has('Access-Control-Allow-Methods')) headers['Access-Control-Allow-Methods'] = methods;
    let origin: string | undefined;
    if (!has('Access-Control-Allow-Origin')) {
      const eventHeaders = request.event.headers ?? {};
      origin = allowedOrigin(eventHeaders.Origin ?? eventHeaders.origin);
      if (origin) headers['Access-Control-Allow-Origin'] = origin;
    }
    if (!headers.Vary && singleFixedOrigin) addHeaderPart(headers, 'Vary', 'Origin');
    if (varies || (anyOrigin && origin !== '*')) addHeaderPart(headers, 'Vary', 'Origin');
    if (!has('Access-Control-Expose-Headers')) headers['Access-Control-Expose-Headers'] = CORS_EXPOSED_HEADERS;
    response.headers = headers;
  };
  return {
    after,
    onError: async (request) => {
      if (request.response === undefined) return;
      await after(request);
    },
  };
}

/** The response as a structured result with headers (what a handler returned, wrapped when it returned a bare body). */
function normalised(
  request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>,
): APIGatewayProxyStructuredResultV2 & { headers: Record<string, string | number | boolean> } {
  let response = request.response as APIGatewayProxyStructuredResultV2 | undefined;
  if (response === undefined) response = {};
  else if (response.statusCode === undefined && response.body === undefined && response.headers === undefined)
    response = { statusCode: 200, body: response as unknown as string };
  response.statusCode ??= 500;
  response.headers ??= {};
  request.response = response;
  return response as APIGatewayProxyStructuredResultV2 & { headers: Record<string, string | number | boolean> };
}

/** Appends `value` to a header's list, under its lowercase name when the response uses that one. */
function addHeaderPart(headers: Record<string, string | number | boolean>, name: string, value: string): void {
  const key = headers[name.toLowerCase()] ? name.toLowerCase() : name;
  const current = headers[key];
  headers[key] = current ? `${current}, ${value}` : value;
}
