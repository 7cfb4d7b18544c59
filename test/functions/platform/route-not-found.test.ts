/**
 * The `$default` fallback of each HTTP API, reached through the route table exactly as API Gateway
 * reaches it: unknown paths 404, known paths with another method 405 + Allow, CORS preflights 204.
 * The wrong-method cases iterate the route table, so every group gets covered as its routes arrive.
 */
import { describe, expect, it } from 'vitest';
import type { ApiGroup } from '../../../shared/http/groups';
import { apiOf, apisOf, errorGroupOf, matchRoute, routes, type Route } from '../../../shared/routes';
import { dispatch, requestJson } from '../../../scripts/lib/dispatch';
import { expectGroupError } from '../../shared/http/support';

/** A concrete path of a route: its example's path parameters, or a placeholder segment. */
function concretePath(route: Route): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(route.example.pathParameters?.[name] ?? 'x'));
}

const answer = async (api: 'base' | 'orders' | 'collections', method: string, url: string, headers: Record<string, string> = {}) => {
  const response = await requestJson(api, method, url, { headers });
  return { status: response.status, headers: response.headers, body: response.body, raw: JSON.stringify(response.body) };
};

describe('unknown routes: 404 JSON in the format of the path’s group', () => {
  const cases: [ApiGroup, 'base' | 'orders' | 'collections', string][] = [
    ['explorer', 'base', '/explorer/addresses/0x0000000000000000000000000000000000000001/unknown'],
    ['explorer', 'base', '/'],
    ['insights', 'base', '/insights/v1/no-such-thing'],
    ['orders', 'orders', '/orders/unknown/deeper'],
    ['collections', 'collections', '/no-such-path'],
  ];
  for (const [group, api, path] of cases) {
    it(`${api} ${path} -> ${group} 404`, async () => {
      const result = await answer(api, 'GET', path);
      expect(expectGroupError(group, result, 404)).toBe(`No route for GET ${path}`);
      expect(result.headers.allow).toBeUndefined();
    });
  }

  it('does not serve one API’s routes on another base URL', async () => {
    const route = routes.find((candidate) => !apisOf(candidate).includes('base'));
    expect(route, 'the route table has routes outside the base URL').toBeDefined();
    const result = await answer('base', route!.method, concretePath(route!));
    expectGroupError('explorer', result, 404);
  });
});

describe('a known path with a method it does not have: 405 with Allow', () => {
  for (const route of routes) {
    // A method the path does not have (webhook paths have DELETE and PATCH too).
    const api = apiOf(route);
    const path = concretePath(route);
    const method = (['DELETE', 'PUT', 'PATCH', 'POST'] as const).find(
      (candidate) => !matchRoute(api, candidate, path).allowedMethods.includes(candidate as never),
    )!;
    it(`${route.id}: ${method} ${route.path} -> 405 in the ${errorGroupOf(route)} format`, async () => {
      const result = await answer(api, method, path);
      const message = expectGroupError(errorGroupOf(route), result, 405);
      const allowed = matchRoute(api, method, path).allowedMethods;
      expect(allowed).toContain(route.method);
      expect(result.headers.allow.split(', ').sort()).toEqual([...allowed].sort());
      expect(message).toContain(method);
    });
  }
});

describe('CORS preflight', () => {
  const route = routes[0]!;

  it('answers OPTIONS on a known path with 204, the path’s methods and the CORS headers', async () => {
    const api = apiOf(route);
    const response = await dispatch({
      api,
      method: 'OPTIONS',
      url: concretePath(route),
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': route.method,
        'access-control-request-headers': 'content-type',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const methods = response.headers['access-control-allow-methods'].split(', ');
    expect(methods).toContain(route.method);
    expect(methods).toContain('OPTIONS');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-headers']).toContain('content-type');
    expect(Number(response.headers['access-control-max-age'])).toBeGreaterThan(0);
  });

  it('answers a preflight of an unknown path as API Gateway does (204, the configured methods), a plain OPTIONS with 404', async () => {
    const preflight = await dispatch({
      api: 'collections',
      method: 'OPTIONS',
      url: '/no-such-path',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST, PATCH, DELETE, OPTIONS');
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const plain = await answer('collections', 'OPTIONS', '/no-such-path');
    expectGroupError('collections', plain, 404);
  });

  it('lets a browser read 404 and 405 answers (CORS headers on errors)', async () => {
    const result = await answer('base', 'GET', '/nothing', { origin: 'https://app.example' });
    expect(result.headers['access-control-allow-origin']).toBe('*');
  });
});
