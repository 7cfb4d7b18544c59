/**
 * The CORS middleware (shared/http/middleware/cors.ts) writes exactly the headers @middy/http-cors,
 * which it replaced, writes with the same options, for every kind of allowed-origins setting, request
 * Origin and response (a plain JSON result, a fallback that already set some CORS headers, a bare
 * body, an error answered by the error responder or none at all); and leaves the handler's own headers
 * object untouched.
 */
import type middy from '@middy/core';
import httpCors from '@middy/http-cors';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CORS_ALLOWED_HEADERS, CORS_ALLOWED_METHODS, CORS_EXPOSED_HEADERS, corsMiddleware } from '../../../shared/http/middleware/cors';
import { event } from './support';

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/** @middy/http-cors as the service configured it before. */
function middyCors(origins: string[]) {
  const singleFixedOrigin = origins.length === 1 && !origins[0]!.includes('*');
  const options: Parameters<typeof httpCors>[0] & { vary?: string } = {
    origins,
    headers: CORS_ALLOWED_HEADERS,
    methods: CORS_ALLOWED_METHODS.join(','),
    exposeHeaders: CORS_EXPOSED_HEADERS,
    vary: singleFixedOrigin ? 'Origin' : undefined,
  };
  return httpCors(options) as middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;
}

const SETTINGS = [
  ['*'],
  ['https://app.example'],
  ['https://app.example', 'https://admin.example'],
  ['https://*.example'],
  ['https://app.example', '*'],
  [],
];
const ORIGINS = [undefined, 'https://app.example', 'https://admin.example', 'https://evil.example', 'https://x.example', 'null'];
const RESPONSES: (() => unknown)[] = [
  () => ({ statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{}' }),
  () => ({
    statusCode: 204,
    headers: { allow: 'GET, OPTIONS', 'Access-Control-Allow-Methods': 'GET, OPTIONS', 'Access-Control-Max-Age': '600' },
  }),
  () => ({ statusCode: 200, headers: { 'Access-Control-Allow-Origin': 'https://fixed.example', vary: 'Accept' } }),
  () => ({ statusCode: 200, headers: { Vary: 'Accept' }, body: '' }),
  () => ({ ok: true }),
  () => undefined,
];

function requestOf(origin: string | undefined, response: unknown, error = false): Request {
  const input = event({ api: 'collections', rawPath: '/collections', headers: origin ? { origin } : {} });
  return { event: input, context: {} as never, response: response as never, error: error ? new Error('x') : null, internal: {} };
}

describe('corsMiddleware', () => {
  it('writes what @middy/http-cors wrote, for every setting, Origin and response', async () => {
    let cases = 0;
    for (const origins of SETTINGS) {
      const ours = corsMiddleware(origins);
      const theirs = middyCors(origins);
      for (const origin of ORIGINS) {
        for (const response of RESPONSES) {
          for (const phase of ['after', 'onError'] as const) {
            const [mine, reference] = [
              requestOf(origin, response(), phase === 'onError'),
              requestOf(origin, response(), phase === 'onError'),
            ];
            await ours[phase]?.(mine);
            await theirs[phase]?.(reference);
            expect(mine.response, JSON.stringify({ origins, origin, response: response(), phase })).toEqual(reference.response);
            cases += 1;
          }
        }
      }
    }
    expect(cases).toBe(SETTINGS.length * ORIGINS.length * RESPONSES.length * 2);
  });

  it("copies the response's headers instead of changing the handler's object", async () => {
    const headers = { 'content-type': 'application/json' };
    const request = requestOf('https://app.example', { statusCode: 200, headers, body: '{}' });
    await corsMiddleware(['*']).after?.(request);
    expect(headers).toEqual({ 'content-type': 'application/json' });
    expect(request.response?.headers?.['Access-Control-Allow-Origin']).toBe('*');
  });
});
