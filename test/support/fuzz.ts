/**
 * Generated bad input (issue 10): fast-check generators of hostile requests per API group, built from
 * the route table (every route, its example request, the query keys its handler's schema knows), and
 * the property every request must keep:
 *  - it is answered (no hang: a per-request timeout; no dropped connection over HTTP);
 *  - the answer is a 2xx or a 4xx, never a 5xx; a 4xx is JSON in the error format of the path's group
 *    (2xx bodies are checked by the contract check, test/support/contract.ts, on every response);
 *  - a rejected write (a 4xx to a POST on a write route's path) leaves the table as it was.
 * Most requests go through `dispatch` (in process); a share goes over a raw socket to the local
 * gateway, so bytes no JSON string can carry (invalid UTF-8, odd content types, huge bodies) reach it.
 *
 * Shared by the test suite (test/fuzz/requests.test.ts, a fixed-seed sample) and `npm run fuzz`
 * (scripts/fuzz.ts, any size). It imports nothing from vitest, so the script can load it.
 */
import net from 'node:net';
import fc from 'fast-check';
import * as v from 'valibot';
import { dispatch, loadHandler, type LocalResponse } from '../../scripts/lib/dispatch';
import { GATEWAY_MAX_BODY_BYTES, isTextContentType } from '../../scripts/lib/gateway';
import { ERROR_BODIES } from '../../shared/http/error-schemas';
import { API_OF_GROUP, type ApiGroup, type ApiName, groupOfPath } from '../../shared/http/groups';
import type { HttpHandler } from '../../shared/http/handler';
import { apisOf, errorGroupOf, EXAMPLE_SECRET_KEY, matchRoute, type Route, routes, routesOf } from '../../shared/routes';

export const FUZZ_GROUPS: readonly ApiGroup[] = ['explorer', 'insights', 'orders', 'collections'];

/** One generated request, as bytes would leave a client. */
export interface FuzzRequest {
  api: ApiName;
  /** The route whose example the request was built from; absent for a path made up from scratch. */
  from?: string;
  method: string;
  /** Path and query exactly as sent (already percent-encoded, or deliberately not). */
  target: string;
  /** Header names and values in order; a name may repeat. */
  headers: [string, string][];
  /** A text body, or raw bytes (invalid UTF-8 and the like). */
  body?: string | Uint8Array;
  transport: 'dispatch' | 'http';
}

export interface FuzzAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

// ---------------------------------------------------------------------------------------------------
// Values

export const INHERITED_NAMES = [
  'toString',
  'constructor',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__defineGetter__',
  '__lookupSetter__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
];

const NUMBERS = [
  '0',
  '-1',
  '-0',
  '1.5',
  '1e3',
  '1e308',
  '1e309',
  '0x10',
  '+1',
  ' 1',
  '1 ',
  '00000000001',
  'NaN',
  'Infinity',
  '-Infinity',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '18446744073709551616',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
  '-99999999999999999999999999',
  '9'.repeat(400),
];

const INJECTIONS = [
  "' OR '1'='1",
  '"; DROP TABLE items; --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection, sent as text
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../../etc/passwd',
  '..',
  '.',
  '\u0000',
  '\\',
  '%',
  '%zz',
  '%E0%A4%A',
  '&',
  '=',
  '#',
  '?',
  ',',
  ',,,',
  ' ',
  '',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '{"$gt":""}',
  'a'.repeat(5000),
  '\u202e\u0301\ud83d\ude00',
  '\ud800',
  'ＡＢＣ',
  'İı',
];

/** aggregate values: the grammar's valid forms, near misses and injection-looking text. */
const AGGREGATES = [
  'count()',
  'count() AS n',
  'COUNT(DISTINCT from_address) AS senders',
  'sum(value) AS total',
  'avg(gas_used)',
  'min(block_number) AS first',
  'max(block_timestamp) AS last',
  'toStartOfDay(block_timestamp) AS day',
  'toDate(toDateTime(block_timestamp))',
  'count() AS __proto__',
  'count() AS constructor',
  'sum(toString) AS hasOwnProperty',
  'count(*)',
  'sum(value) AS total; DROP TABLE x',
  'sum(sum(value))',
  'count() AS a AS b',
  'sum(',
  'sum)',
  'count() --',
  'sleep(10)',
  'arrayJoin(topics)',
  `count() AS ${'x'.repeat(70)}`,
  `count() AS ${'x'.repeat(64)}`,
  'count() AS n, sum(value) AS m',
  Array.from({ length: 40 }, (_, i) => `count() AS a${i}`).join(','),
  `${'('.repeat(500)}count()${')'.repeat(500)}`,
];

const GROUP_BYS = [
  'block_number',
  'from_address',
  'chain_id',
  'day',
  'n',
  '__proto__',
  'constructor',
  'toString',
  'block_number; DROP',
  'a,b,c',
  'block_number,block_number',
  '1',
  '(select 1)',
  'topic_0',
  'address',
  '',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/vnd.api+json',
  'application/jsonp',
  'application/merge-patch+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/xml',
  'image/png',
  '*/*',
  '',
  ';',
  'application/json, text/plain',
];

/** Strings of any code point (lone surrogates included), some short, some long. */
const unicodeText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }),
);

const hexText = fc
  .integer({ min: 0, max: 70 })
  .chain((length) =>
    fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length, maxLength: length }).map((hex) => `0x${hex}`),
  );

/** A mutation of a valid value: near misses find more than noise. */
function mutatedValue(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(valid),
    fc.constant(valid.toUpperCase()),
    fc.constant(valid.toLowerCase()),
    fc.integer({ min: 0, max: Math.max(0, valid.length) }).map((cut) => valid.slice(0, cut)),
    fc.tuple(fc.nat({ max: Math.max(0, valid.length) }), unicodeText).map(([at, text]) => valid.slice(0, at) + text + valid.slice(at)),
    fc.constantFrom(' ', '0', 'z', '\u0000', '%', ',', '\ud800').map((suffix) => valid + suffix),
    fc.constant(`${valid},${valid}`),
    fc.constant(valid.repeat(50)),
  );
}

/** Any value a query parameter, a path segment or a header may carry. */
function anyValue(valid: readonly string[]): fc.Arbitrary<string> {
  const parts: fc.Arbitrary<string>[] = [
    fc.constantFrom(...INHERITED_NAMES),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom(...INJECTIONS),
    unicodeText,
    hexText,
  ];
  if (valid.length > 0) parts.push(fc.constantFrom(...valid).chain(mutatedValue), fc.constantFrom(...valid));
  return fc.oneof(...parts);
}

// ---------------------------------------------------------------------------------------------------
// Encoding

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD's bytes, as a browser sends). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Mostly encoded properly; sometimes as typed, reserved characters and bad escapes included. */
const encoding = fc.constantFrom<'encoded' | 'raw'>('encoded', 'encoded', 'encoded', 'raw');
const encode = (text: string, how: 'encoded' | 'raw') => (how === 'encoded' ? percentEncode(text) : text);

// ---------------------------------------------------------------------------------------------------
// Routes, examples and the keys their schemas know

export interface RouteFacts {
  route: Route;
  api: ApiName;
  /** Query keys the handler's schema names (and the example's). */
  queryKeys: string[];
}

/** Walks a valibot schema for the keys of its objects (through pipes, wrappers and unions). */
export function schemaKeys(schema: unknown, depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 6) return [];
  const node = schema as { entries?: Record<string, unknown>; pipe?: unknown[]; wrapped?: unknown; options?: unknown[] };
  const keys: string[] = [];
  if (node.entries && typeof node.entries === 'object') keys.push(...Object.keys(node.entries));
  for (const child of [...(node.pipe ?? []).slice(1), node.wrapped, ...(Array.isArray(node.options) ? node.options : [])]) {
    if (child !== schema) keys.push(...schemaKeys(child, depth + 1));
  }
  return [...new Set(keys)];
}

/** The routes answering in a group's format on its base URL (the platform routes of that URL included). */
export async function routeFacts(group: ApiGroup): Promise<RouteFacts[]> {
  const api = API_OF_GROUP[group];
  const own = routesOf(api).filter((route) => errorGroupOf(route, api) === group);
  return Promise.all(
    own.map(async (route) => {
      const handler = (await loadHandler(route.handler)) as unknown as Partial<HttpHandler>;
      const queryKeys = [...new Set([...schemaKeys(handler.spec?.query), ...Object.keys(route.example.query ?? {})])];
      return { route, api, queryKeys };
    }),
  );
}

/** The example's query as ordered key / value pairs (arrays become repeats). */
function exampleQuery(route: Route): [string, string][] {
  return Object.entries(route.example.query ?? {}).flatMap(([key, value]) =>
    (typeof value === 'string' ? [value] : [...value]).map((item): [string, string] => [key, item]),
  );
}

// ---------------------------------------------------------------------------------------------------
// Path

function pathArbitrary(facts: RouteFacts, group: ApiGroup): fc.Arbitrary<string> {
  const { route } = facts;
  const segments = route.path.split('/').filter(Boolean);
  const segment = (template: string): fc.Arbitrary<string> => {
    if (!template.startsWith('{')) {
      return fc.oneof(
        { weight: 12, arbitrary: fc.constant(template) },
        { weight: 1, arbitrary: mutatedValue(template).map(percentEncode) },
      );
    }
    const name = template.slice(1, -1);
    const example = route.example.pathParameters?.[name] ?? 'x';
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant(percentEncode(example)) },
      { weight: 6, arbitrary: fc.tuple(anyValue([example]), encoding).map(([value, how]) => encode(value, how)) },
    );
  };
  const exact = fc.tuple(...segments.map(segment)).map((parts) => `/${parts.join('/')}`);
  const prefix = group === 'insights' ? '/insights/v1' : group === 'explorer' ? '/explorer' : '';
  return fc.oneof(
    { weight: 12, arbitrary: exact },
    // Around the template: one segment more or less, a trailing or doubled slash, an unknown path.
    { weight: 1, arbitrary: fc.tuple(exact, anyValue([])).map(([path, extra]) => `${path}/${percentEncode(extra)}`) },
    { weight: 1, arbitrary: exact.map((path) => path.split('/').slice(0, -1).join('/') || '/') },
    { weight: 1, arbitrary: exact.map((path) => `${path}/`) },
    { weight: 1, arbitrary: exact.map((path) => path.replace('/', '//')) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(anyValue(segments.filter((part) => !part.startsWith('{'))), encoding), { maxLength: 5 })
        .map((parts) => `${prefix}/${parts.map(([value, how]) => encode(value, how)).join('/')}`),
    },
  );
}

// ---------------------------------------------------------------------------------------------------
// Query

function queryArbitrary(facts: RouteFacts, group: ApiGroup): fc.Arbitrary<string> {
  const base = exampleQuery(facts.route);
  const knownKeys = facts.queryKeys;
  const keyArbitrary = fc.oneof(
    { weight: 4, arbitrary: knownKeys.length > 0 ? fc.constantFrom(...knownKeys) : fc.constantFrom(...INHERITED_NAMES) },
    { weight: 3, arbitrary: fc.constantFrom(...INHERITED_NAMES) },
    { weight: 1, arbitrary: unicodeText },
    { weight: 1, arbitrary: fc.constantFrom(...INJECTIONS) },
    {
      weight: group === 'insights' ? 2 : 0,
      arbitrary: fc
        .tuple(
          fc.constantFrom('block_number', 'block_timestamp', 'hash', 'from_address', 'value', 'topic_0', '__proto__', 'x'),
          fc.constantFrom('', '_gte', '_gt', '_lte', '_lt', '_eq', '_ne'),
        )
        .map(([field, op]) => `filter_${field}${op}`),
    },
  );
  const valueFor = (key: string): fc.Arbitrary<string> => {
    const valid = base.filter(([name]) => name === key).map(([, value]) => value);
    if (group === 'insights' && key === 'aggregate') return fc.oneof(fc.constantFrom(...AGGREGATES), anyValue(valid));
    if (group === 'insights' && key === 'group_by') return fc.oneof(fc.constantFrom(...GROUP_BYS), anyValue(valid));
    return anyValue(valid);
  };
  const pair = keyArbitrary.chain((key) => valueFor(key).map((value): [string, string] => [key, value]));
  type Edit =
    | { kind: 'drop'; at: number }
    | { kind: 'change'; at: number; value: string }
    | { kind: 'repeat'; at: number }
    | { kind: 'add'; pair: [string, string] };
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    fc.nat().map((at): Edit => ({ kind: 'drop', at })),
    fc.nat().chain((at) => {
      const key = base.length > 0 ? base[at % base.length][0] : 'x';
      return valueFor(key).map((value): Edit => ({ kind: 'change', at, value }));
    }),
    fc.nat().map((at): Edit => ({ kind: 'repeat', at })),
    { weight: 3, arbitrary: pair.map((added): Edit => ({ kind: 'add', pair: added })) },
  );
  const applied = fc.array(edit, { maxLength: 4 }).map((edits) => {
    const pairs = [...base];
    for (const step of edits) {
      if (step.kind === 'add') pairs.push(step.pair);
      else if (pairs.length === 0) continue;
      else if (step.kind === 'drop') pairs.splice(step.at % pairs.length, 1);
      else if (step.kind === 'change') pairs[step.at % pairs.length] = [pairs[step.at % pairs.length][0], step.value];
      else pairs.push(pairs[step.at % pairs.length]);
    }
    return pairs;
  });
  const serialised = fc
    .tuple(applied, encoding)
    .map(([pairs, how]) =>
      pairs
        .map(([key, value]) => (value === '' && how === 'raw' ? encode(key, how) : `${encode(key, how)}=${encode(value, how)}`))
        .join('&'),
    );
  return fc.oneof(
    { weight: 10, arbitrary: serialised },
    // Oddities of the query string itself.
    { weight: 1, arbitrary: fc.constantFrom('', '&', '&&&', '=', '==', '?', '%', '%zz=1', 'a=%E0%A4%A', '=1&=2', 'a&a&a', ';a=1') },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 2000 }).map((count) => Array.from({ length: count }, (_, i) => `k${i}=${i}`).join('&')),
    },
  );
}

// ---------------------------------------------------------------------------------------------------
// Body

/** A JSON value of the wrong kind for any field. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2, '', [], {}, [null], { a: 1 }),
  fc.constantFrom(...NUMBERS, ...INJECTIONS, ...INHERITED_NAMES),
  unicodeText,
  fc.integer({ min: 1, max: 300 }).map((depth) => nest(depth)),
  fc.jsonValue({ maxDepth: 3 }),
);

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** Sets an own property, `__proto__` included (JSON.stringify writes it as any other key). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

function mutatedJson(example: unknown): fc.Arbitrary<string> {
  const object = example && typeof example === 'object' && !Array.isArray(example) ? (example as Record<string, unknown>) : {};
  const keys = Object.keys(object);
  type Edit = { kind: 'drop' | 'wrong' | 'add' | 'nested'; key: string; value: unknown };
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({
      kind: fc.constant<'drop'>('drop'),
      key: keys.length > 0 ? fc.constantFrom(...keys) : fc.constant('x'),
      value: fc.constant(undefined),
    }),
    fc.record({
      kind: fc.constant<'wrong'>('wrong'),
      key: keys.length > 0 ? fc.constantFrom(...keys) : fc.constant('x'),
      value: wrongValue,
    }),
    fc.record({ kind: fc.constant<'add'>('add'), key: fc.oneof(fc.constantFrom(...INHERITED_NAMES), unicodeText), value: wrongValue }),
    fc.record({ kind: fc.constant<'nested'>('nested'), key: fc.constantFrom(...INHERITED_NAMES), value: wrongValue }),
  );
  // Generated values are copied before use: a constant object (`{ a: 1 }`) edited in place would carry
  // one run's edits into the next, and a replay (--path) would not see them.
  const copy = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));
  return fc.array(edit, { minLength: 0, maxLength: 4 }).map((edits) => {
    const body: Record<string, unknown> = copy(object);
    for (const step of edits) {
      if (step.kind === 'drop') delete body[step.key];
      else if (step.kind === 'wrong' || step.kind === 'add') setOwn(body, step.key, copy(step.value));
      else {
        const inner = Object.entries(body).find(([, value]) => value && typeof value === 'object' && !Array.isArray(value));
        if (inner) setOwn(inner[1] as Record<string, unknown>, step.key, copy(step.value));
        else setOwn(body, step.key, { [step.key]: copy(step.value) });
      }
    }
    return JSON.stringify(body);
  });
}

const MIB = 1024 * 1024;

function bodyArbitrary(route: Route): fc.Arbitrary<string | Uint8Array | undefined> {
  const example = route.example.body;
  const exampleText = example === undefined ? '{}' : JSON.stringify(example);
  const invalidUtf8 = fc
    .tuple(
      fc.nat({ max: exampleText.length }),
      fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]),
    )
    .map(([at, bytes]) => {
      // Inside a string of the example where possible: the JSON stays well formed but not UTF-8.
      const quote = exampleText.indexOf('"', Math.min(at, exampleText.length - 1));
      const cut = quote === -1 ? at : quote + 1;
      return new Uint8Array(
        Buffer.concat([Buffer.from(exampleText.slice(0, cut)), Buffer.from(bytes), Buffer.from(exampleText.slice(cut))]),
      );
    });
  return fc.oneof(
    { weight: example === undefined ? 2 : 1, arbitrary: fc.constant(undefined) },
    { weight: example === undefined ? 0 : 2, arbitrary: fc.constant(exampleText) },
    { weight: example === undefined ? 1 : 8, arbitrary: mutatedJson(example) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'null',
        '[]',
        '1',
        '"text"',
        'true',
        '{',
        '}',
        '{"a":}',
        "{'a':1}",
        'NaN',
        '\ufeff{}',
        '{}{}',
        '{"a":1,}',
      ),
    },
    { weight: 1, arbitrary: fc.nat({ max: exampleText.length }).map((cut) => exampleText.slice(0, cut)) },
    { weight: 1, arbitrary: fc.constantFrom('garbage', ' trailing', '\u0000', ',"x":1}').map((tail) => exampleText + tail) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`) },
    { weight: 1, arbitrary: fc.constantFrom(64 * 1024 - 8, 64 * 1024 + 1, MIB).map((size) => `{"x":"${'a'.repeat(size)}"}`) },
    { weight: 1, arbitrary: invalidUtf8 },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  );
}

// ---------------------------------------------------------------------------------------------------
// Headers

const idempotencyKey = fc.oneof(
  fc.constantFrom('', ' ', 'key-1', 'key-1', 'key-2', '\t', 'a'.repeat(300), 'a'.repeat(10_000), ...INHERITED_NAMES),
  fc.constantFrom(...INJECTIONS),
  unicodeText,
  fc.uuid(),
);

/**
 * Header values with CR and LF: alone, as a line break with and without a following header line (an
 * injected header), and ending the header section early. Over the socket they are sent raw, so Node's
 * parser sees them as a client would send them; in process they reach the handler as a value.
 */
export const CRLF_VALUES = [
  'a\r\nb',
  'a\nb',
  'a\rb',
  '\r\n',
  'key-1\r\nx-injected: 1',
  'key-1\r\nIdempotency-Key: key-2',
  'x\r\n folded',
  'key-1\r\n\r\n',
  'key-1\n\nGET / HTTP/1.1',
] as const;

function headersArbitrary(route: Route): fc.Arbitrary<[string, string][]> {
  const exampleHeaders = Object.entries(route.example.headers ?? {});
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | undefined>(route.example.headers?.['content-type']) },
    { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
  );
  const extra = fc.array(
    fc.oneof(
      { weight: 4, arbitrary: idempotencyKey.map((value): [string, string] => ['Idempotency-Key', value]) },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constantFrom('origin', 'accept', 'x-forwarded-for', 'host', 'content-encoding', 'accept-encoding'),
          anyValue([]),
        ),
      },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...INHERITED_NAMES), anyValue([])) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Idempotency-Key', 'origin', 'x-note'), fc.constantFrom(...CRLF_VALUES)) },
    ),
    { maxLength: 3 },
  );
  return fc.tuple(contentType, extra).map(([type, added]) => {
    const headers = exampleHeaders.filter(([name]) => name.toLowerCase() !== 'content-type');
    if (type !== undefined) headers.push(['content-type', type]);
    return [...headers, ...added];
  });
}

// ---------------------------------------------------------------------------------------------------
// Requests

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** API Gateway's payload limit (the local gateway's too) plus one byte: made once, shared by every request that sends it. */
let overGatewayLimit: Uint8Array | undefined;
export function bodyOverGatewayLimit(): Uint8Array {
  overGatewayLimit ??= new Uint8Array(GATEWAY_MAX_BODY_BYTES + 1).fill(0x61);
  return overGatewayLimit;
}

/** Share of requests whose body is replaced by one over the gateway's 10 MiB limit (sent over HTTP when there is a gateway). */
const OVERSIZED_SHARE = 0.004;

/** Requests of one group, one route (weighted alike) at a time; `httpShare` of them go over a socket. */
export async function requestArbitrary(group: ApiGroup, options: { httpShare?: number } = {}): Promise<fc.Arbitrary<FuzzRequest>> {
  const httpShare = options.httpShare ?? 0.15;
  const perRoute = (await routeFacts(group)).map((facts) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 12, arbitrary: fc.constant(facts.route.method) },
          { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) },
        ),
        path: pathArbitrary(facts, group),
        query: queryArbitrary(facts, group),
        headers: headersArbitrary(facts.route),
        body: bodyArbitrary(facts.route),
        // Unbiased: fast-check's usual bias towards small values would send most requests over HTTP.
        overHttp: fc.noBias(fc.integer({ min: 0, max: 9999 })).map((draw) => draw < httpShare * 10_000),
        oversized: fc.noBias(fc.integer({ min: 0, max: 9999 })).map((draw) => draw < OVERSIZED_SHARE * 10_000),
      })
      .map(
        ({ method, path, query, headers, body, overHttp, oversized }): FuzzRequest => ({
          api: facts.api,
          from: facts.route.id,
          method,
          target: query ? `${path}?${query}` : path,
          headers,
          body: oversized ? bodyOverGatewayLimit() : body,
          transport: overHttp || (oversized && httpShare > 0) ? 'http' : 'dispatch',
        }),
      ),
  );
  return fc.oneof(...perRoute);
}

// ---------------------------------------------------------------------------------------------------
// Sending

/** The transport for the HTTP share: the base URLs of a running local gateway (startLocalService). */
export interface FuzzTarget {
  urls?: Record<ApiName, string>;
  /** Every item of the table, sorted: compared before and after a rejected write. */
  snapshot: () => Promise<unknown[]>;
  timeoutMs?: number;
}

export class FuzzFailure extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FuzzFailure(`no answer within ${ms} ms (${what})`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function bodyBytes(body: string | Uint8Array | undefined): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
}

/** In process, with the event the gateway would build from the same bytes. */
async function sendInProcess(request: FuzzRequest): Promise<FuzzAnswer> {
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of request.headers) {
    const key = name.toLowerCase();
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
  }
  const bytes = bodyBytes(request.body);
  const isText = bytes.length === 0 || isTextContentType(headers['content-type']);
  const response: LocalResponse = await dispatch({
    api: request.api,
    method: request.method,
    url: request.target,
    headers: { ...headers },
    body: bytes.length === 0 ? undefined : isText ? bytes.toString('utf8') : bytes.toString('base64'),
    isBase64Encoded: !isText,
  });
  const body = response.isBase64Encoded ? Buffer.from(response.body, 'base64').toString('utf8') : response.body;
  return { status: response.statusCode, headers: response.headers, body };
}

/** Over a raw socket: the request line, headers and body as bytes, read back until the server closes. */
function sendOverSocket(baseUrl: string, request: FuzzRequest): Promise<FuzzAnswer> {
  const { hostname, port } = new URL(baseUrl);
  // Header values go as generated, CR and LF included (CRLF_VALUES); in the request line and in header
  // names they would only make another request line or header, so they are escaped there.
  const clean = (text: string) => text.replace(/[\r\n]/g, (char) => (char === '\r' ? '%0D' : '%0A'));
  const bytes = bodyBytes(request.body);
  const head = [
    `${request.method} ${clean(request.target)} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    'connection: close',
    ...request.headers.filter(([name]) => name.toLowerCase() !== 'host').map(([name, value]) => `${clean(name)}: ${value}`),
    ...(bytes.length > 0 || request.method === 'POST' ? [`content-length: ${bytes.length}`] : []),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('connect', () => {
      socket.write(Buffer.from(head, 'utf8'));
      if (bytes.length > 0) socket.write(bytes);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      // The server may close after answering (an early 413) while we still write: keep what it said.
      if (chunks.length > 0) return;
      reject(new FuzzFailure(`connection error without an answer: ${error.message}`));
    });
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      if (split === -1) return reject(new FuzzFailure('the connection closed without an answer'));
      const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? raw.length);
      const body = raw.subarray(split + 4, split + 4 + length).toString('utf8');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

/** The request's route when its method and path match one (what a write check keys on). */
export function matchedRoute(request: FuzzRequest): Route | undefined {
  const path = request.target.split('?', 1)[0].split('#', 1)[0] || '/';
  return matchRoute(request.api, request.method, path).match?.route;
}

function isWrite(request: FuzzRequest): boolean {
  const route = matchedRoute(request);
  return route !== undefined && route.table.write.length > 0;
}

/** Why an answer breaks the property, or undefined when it keeps it. */
export function answerProblem(request: FuzzRequest, answer: FuzzAnswer): string | undefined {
  // A route the service does not serve (Route.notServed: prices, webhooks ...) answers 501 on purpose,
  // in its group's format (checked below like a 4xx).
  const notServed = answer.status === 501 && matchedRoute(request)?.notServed !== undefined;
  if (!Number.isInteger(answer.status) || answer.status < 200 || (answer.status >= 500 && !notServed)) return `status ${answer.status}`;
  if (answer.status < 400) return undefined;
  if (request.method === 'HEAD' || answer.status === 304) return undefined;
  if (!(answer.headers['content-type'] ?? '').startsWith('application/json')) {
    return `a ${answer.status} with content-type ${answer.headers['content-type'] ?? '(none)'}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `a ${answer.status} whose body is not JSON`;
  }
  const rawPath = request.target.split('?', 1)[0] || '/';
  const group = groupOfPath(request.api, rawPath);
  const { validation, other } = ERROR_BODIES[group];
  if (!v.is(v.union([validation, other]), body)) return `a ${answer.status} outside the ${group} error format`;
  if (group === 'orders' || group === 'collections') {
    if ((body as { statusCode?: number }).statusCode !== answer.status)
      return `a ${answer.status} whose body says ${(body as { statusCode?: number }).statusCode}`;
  }
  return undefined;
}

/** Sends one request and checks the property; throws a FuzzFailure naming what broke. Returns the status. */
export async function checkRequest(request: FuzzRequest, target: FuzzTarget): Promise<number> {
  const timeoutMs = target.timeoutMs ?? 15_000;
  const write = isWrite(request);
  const before = write ? await target.snapshot() : undefined;
  let answer: FuzzAnswer;
  if (request.transport === 'http' && target.urls) {
    answer = await withTimeout(sendOverSocket(target.urls[request.api], request), timeoutMs, 'over HTTP');
  } else {
    answer = await withTimeout(sendInProcess(request), timeoutMs, 'dispatch');
  }
  const problem = answerProblem(request, answer);
  if (problem) throw new FuzzFailure(`${problem}: ${answer.body.slice(0, 500)}`);
  if (before && answer.status >= 400) {
    const after = await target.snapshot();
    if (JSON.stringify(withoutRequestCounts(after)) !== JSON.stringify(withoutRequestCounts(before))) {
      throw new FuzzFailure(`a rejected write (${answer.status}) changed the table: ${after.length - before.length} items more`);
    }
  }
  return answer.status;
}

/** A short, readable form of a request (long strings cut) for reports. */
export function describeRequest(request: FuzzRequest): string {
  const cut = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text);
  const body =
    request.body === undefined
      ? '(no body)'
      : typeof request.body === 'string'
        ? cut(JSON.stringify(request.body))
        : `bytes ${cut(Buffer.from(request.body.subarray(0, 200)).toString('hex'), 200)} (${request.body.length} bytes)`;
  const headers = request.headers.map(([name, value]) => `${name}: ${cut(JSON.stringify(value), 80)}`).join('; ');
  return `${request.transport} ${request.api} ${request.method} ${cut(request.target)} [${headers}] ${body}`;
}

function fullRequest(request: FuzzRequest): NonNullable<GroupReport['failure']>['full'] {
  const { body, ...rest } = request;
  if (body === undefined) return rest;
  return typeof body === 'string' ? { ...rest, body } : { ...rest, bodyBase64: Buffer.from(body).toString('base64') };
}

// ---------------------------------------------------------------------------------------------------
// A run of one group

export interface GroupReport {
  group: ApiGroup;
  runs: number;
  statuses: Record<number, number>;
  http: number;
  failure?: {
    seed: number;
    path: string;
    /** The shrunk request, long strings cut. */
    request: string;
    /** The shrunk request in full (a body of bytes as base64), to send again by hand. */
    full: Omit<FuzzRequest, 'body'> & { body?: string; bodyBase64?: string };
    error: string;
  };
  ms: number;
}

export async function fuzzGroup(
  group: ApiGroup,
  target: FuzzTarget,
  options: { runs: number; seed: number; path?: string; httpShare?: number },
): Promise<GroupReport> {
  const started = performance.now();
  const arbitrary = await requestArbitrary(group, { httpShare: target.urls ? options.httpShare : 0 });
  const statuses: Record<number, number> = {};
  let runs = 0;
  let http = 0;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (request) => {
      runs += 1;
      if (request.transport === 'http' && target.urls) http += 1;
      const status = await checkRequest(request, target);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }),
    { numRuns: options.runs, seed: options.seed, path: options.path, endOnFailure: false, maxSkipsPerRun: 0 },
  );
  const report: GroupReport = { group, runs, statuses, http, ms: Math.round(performance.now() - started) };
  if (details.failed && details.counterexample) {
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    report.failure = {
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      request: describeRequest(details.counterexample[0]),
      full: fullRequest(details.counterexample[0]),
      error: error.slice(0, 2000),
    };
  }
  return report;
}

/** A table's items but the secret keys' (K1: each webhook request is counted on its key's item, request accounting, not data). */
const withoutRequestCounts = (items: readonly unknown[]) =>
  items.filter((item) => !String((item as { pk?: unknown }).pk).startsWith('APIKEY#'));

/**
 * Some data for the reads and conflicts for the writes: each write route's example, sent once through
 * `dispatch`. Throws when one is refused (the examples are valid requests).
 */
export async function seedExamples(): Promise<void> {
  // The webhook routes' examples carry npm start's demo key. (Imported here: the table layer binds its
  // endpoint when first loaded, which must be after the fuzz file's own service started.)
  const { registerApiKey } = await import('../../shared/insights/api-keys');
  await registerApiKey(EXAMPLE_SECRET_KEY, 'example key');
  // Routes that write (a POST that only reads, such as the insights decode route, seeds nothing).
  const writes = routes.filter(
    (candidate) => candidate.method === 'POST' && candidate.example.body !== undefined && candidate.table.write.length > 0,
  );
  for (const route of writes) {
    for (const api of apisOf(route)) {
      const response = await dispatch({
        api,
        method: route.method,
        url: route.path,
        headers: { 'content-type': 'application/json', ...route.example.headers },
        body: JSON.stringify(route.example.body),
      });
      if (response.statusCode >= 300) throw new Error(`seeding ${route.id}: ${response.statusCode} ${response.body.slice(0, 500)}`);
    }
  }
}

/**
 * The demo chain (a real anvil with the demo contracts and activity, test/support/demo-chain.ts)
 * ingested into the table the handlers use, so that explorer and insights requests reach real data
 * (and the route examples, which name the demo's accounts, answer 200). Returns its stop.
 */
export async function ingestDemoChain(): Promise<() => Promise<void>> {
  const { startDemoChain } = await import('./demo-chain');
  const { createChainClient } = await import('../../shared/chain/client');
  const { ingestRange, registerChain } = await import('../../shared/ingest/ingest');
  const chain = await startDemoChain();
  try {
    await registerChain(chain.anvil.chainId, 0);
    await ingestRange({
      chainId: chain.anvil.chainId,
      client: createChainClient(chain.anvil.rpcUrl),
      log: { info: () => {}, warn: () => {} },
    });
  } catch (error) {
    await chain.stop();
    throw error;
  }
  return () => chain.stop();
}

// ---------------------------------------------------------------------------------------------------
// Many at once

export interface ConcurrentReport {
  group: ApiGroup;
  runs: number;
  concurrency: number;
  statuses: Record<number, number>;
  /** The first requests that broke the property (no shrinking: they ran together). */
  failures: { request: string; error: string }[];
  ms: number;
}

/**
 * `runs` generated requests of a group (seeded, no shrinking), `concurrency` of them in flight at a time,
 * all over the socket when there is a gateway: each must be answered, 2xx or a 4xx in its group's
 * format, as under `fuzzGroup`. The table is not compared (concurrent writes change it by design).
 */
export async function fuzzConcurrently(
  group: ApiGroup,
  target: FuzzTarget,
  options: { runs: number; seed: number; concurrency: number },
): Promise<ConcurrentReport> {
  const started = performance.now();
  const arbitrary = await requestArbitrary(group, { httpShare: target.urls ? 1 : 0 });
  const requests = fc.sample(arbitrary, { numRuns: options.runs, seed: options.seed });
  const statuses: Record<number, number> = {};
  const failures: ConcurrentReport['failures'] = [];
  // No snapshots: under concurrent writes the table changes between any two of them.
  const unchecked: FuzzTarget = { ...target, snapshot: async () => [] };
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next] as FuzzRequest;
      next += 1;
      try {
        const status = await checkRequest(request, unchecked);
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch (error) {
        if (failures.length < 5)
          failures.push({ request: describeRequest(request), error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, requests.length) }, worker));
  return {
    group,
    runs: requests.length,
    concurrency: options.concurrency,
    statuses,
    failures,
    ms: Math.round(performance.now() - started),
  };
}
