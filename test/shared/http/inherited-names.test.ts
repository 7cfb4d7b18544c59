/**
 * Names every JavaScript object inherits (`toString`, `constructor`, `__proto__`, ...) are ordinary
 * client input: as query parameters on every route, and as body fields of every write route, they get
 * a 4xx in the group's error format, and a rejected write leaves the table as it was.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRawQuery, queryForValidation } from '../../../shared/http/query';
import { apiOf, errorGroupOf, EXAMPLE_SECRET_KEY, routes, type Route } from '../../../shared/routes';
import { registerApiKey } from '../../../shared/insights/api-keys';
import { dispatch, loadHandler } from '../../../scripts/lib/dispatch';
import type { HttpHandler } from '../../../shared/http/handler';
import { tableSnapshot, useTestTable } from '../../support/table';
import { expectGroupError } from './support';

const table = useTestTable('inherited-names');
// The webhook routes' examples carry npm start's demo key.
beforeAll(() => registerApiKey(EXAMPLE_SECRET_KEY, 'example key'));

const INHERITED = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf'];

function concretePath(route: Route): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(route.example.pathParameters?.[name] ?? 'x'));
}

async function send(route: Route, rawQuery: string, body?: string) {
  const response = await dispatch({
    api: apiOf(route),
    method: route.method,
    url: `${concretePath(route)}${rawQuery ? `?${rawQuery}` : ''}`,
    headers: { 'content-type': 'application/json', ...route.example.headers },
    body: body ?? (route.example.body === undefined ? undefined : JSON.stringify(route.example.body)),
  });
  const raw = response.body;
  const json = /^application\/json/.test(response.headers['content-type'] ?? '');
  return { status: response.statusCode, headers: response.headers, raw, body: raw && json ? JSON.parse(raw) : undefined };
}

describe('query parsing', () => {
  it('keeps inherited names as plain keys of an object without a prototype', () => {
    const parsed = parseRawQuery('toString=1&__proto__=2&constructor=3&toString=4');
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.entries(parsed)).toEqual([
      ['toString', ['1', '4']],
      ['__proto__', ['2']],
      ['constructor', ['3']],
    ]);
    const joined = queryForValidation('__proto__=a&__proto__=b&hasOwnProperty=c', undefined, ['hasOwnProperty']);
    expect(Object.entries(joined)).toEqual([
      ['__proto__', 'a,b'],
      ['hasOwnProperty', ['c']],
    ]);
  });
});

describe('an inherited name as a query parameter', () => {
  // Routes the service does not serve answer 501 whatever they are sent (contract-abi.test.ts).
  for (const route of routes.filter((candidate) => !candidate.notServed)) {
    for (const name of INHERITED) {
      it(`${route.id}: ?${name}=1 -> 400/422 in the ${errorGroupOf(route)} format, naming the parameter`, async () => {
        const before = route.method === 'GET' ? undefined : await tableSnapshot(table.name);
        const answer = await send(route, `${encodeURIComponent(name)}=1`);
        expect(answer.status, answer.raw).toBeLessThan(500);
        const { spec } = (await loadHandler(route.handler)) as unknown as HttpHandler;
        if (!spec.query) {
          // A route without query parameters ignores the query, as its reference does.
          if (answer.status >= 400) expectGroupError(errorGroupOf(route), answer, answer.status);
          return;
        }
        expect(answer.status, answer.raw).toBeGreaterThanOrEqual(400);
        expect(expectGroupError(errorGroupOf(route), answer, answer.status)).toContain(name);
        if (before) expect(await tableSnapshot(table.name)).toEqual(before);
      });
    }
  }
});

describe('an inherited name as a body field of a write route', () => {
  const writes = routes.filter((route) => route.example.body !== undefined && !route.notServed);
  it('covers every route with a body', () => {
    expect(writes.map((route) => route.id).sort()).toEqual([
      'CreateCheckoutSession',
      'CreateCollection',
      'CreateOrder',
      'CreateWebhook',
      'DecodeContractData',
      'TestWebhook',
      'UpdateWebhook',
      'ValidateWebhookFilters',
    ]);
  });
  for (const route of writes) {
    const example = JSON.stringify(route.example.body);
    const nestedKey = Object.entries(route.example.body as Record<string, unknown>).find(
      ([, value]) => typeof value === 'object' && value !== null && !Array.isArray(value),
    )?.[0];
    const bodies: [string, string, string][] = [
      ['__proto__ at the top', `{"__proto__":{"status":"executed","admin":true},${example.slice(1)}`, '__proto__'],
      ['constructor at the top', `{"constructor":{"prototype":{"x":1}},${example.slice(1)}`, 'constructor'],
      ['prototype at the top', `{"prototype":1,${example.slice(1)}`, 'prototype'],
    ];
    if (nestedKey) {
      const body = JSON.parse(example) as Record<string, Record<string, unknown>>;
      const inner = JSON.stringify(body[nestedKey]);
      const replaced = example.replace(inner, `{"__proto__":{"polluted":true},${inner.slice(1)}`);
      bodies.push([`__proto__ inside ${nestedKey}`, replaced, `${nestedKey}.__proto__`]);
    }
    for (const [what, raw, field] of bodies) {
      it(`${route.id}: ${what} is rejected as an unknown field and writes nothing`, async () => {
        const before = await tableSnapshot(table.name);
        const answer = await send(route, '', raw);
        if (route.id === 'ValidateWebhookFilters') {
          // Insight's filter check answers invalid filters with 200 { valid: false } naming what fails.
          expect(answer.status, answer.raw).toBe(200);
          expect(answer.body).toMatchObject({ valid: false, error: expect.stringContaining(field) });
        } else expect(expectGroupError(errorGroupOf(route), answer, 400)).toContain(field);
        // (A webhook route counts the request on its key's item, K1: request accounting, not data.)
        const data = (items: Record<string, unknown>[]) => items.filter((item) => !String(item.pk).startsWith('APIKEY#'));
        expect(data(await tableSnapshot(table.name))).toEqual(data(before));
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    }
  }
});
