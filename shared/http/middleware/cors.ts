/**
 * CORS for every HTTP response, route handlers and the unknown-route fallback alike. Allowed origins
 * come from CORS_ALLOWED_ORIGINS (comma-separated; `*` allows any origin): an allowed origin is echoed,
 * any other origin gets no `Access-Control-Allow-Origin` at all. Preflight requests (OPTIONS) match no
 * route and are answered by the fallback (functions/platform/route-not-found.ts) with the methods the
 * path really accepts.
 */
import httpCors from '@middy/http-cors';
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
/** Methods a browser may use cross-origin. */
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'OPTIONS'] as const;
/** How long a browser may cache a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 600;

export function corsMiddleware(origins: string[] = platformConfig().corsAllowedOrigins) {
  // With one fixed origin the answer still depends on the request's Origin (echoed or absent), so
  // caches must key on it; middy adds `Vary: Origin` by itself only for several or wildcard origins.
  const singleFixedOrigin = origins.length === 1 && !origins[0]!.includes('*');
  // `vary` is a runtime option of @middy/http-cors that its type definitions do not list.
  const options: Parameters<typeof httpCors>[0] & { vary?: string } = {
    origins,
    headers: CORS_ALLOWED_HEADERS,
    methods: CORS_ALLOWED_METHODS.join(','),
    exposeHeaders: CORS_EXPOSED_HEADERS,
    vary: singleFixedOrigin ? 'Origin' : undefined,
  };
  return httpCors(options);
}
