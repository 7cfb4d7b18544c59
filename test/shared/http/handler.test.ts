/**
 * The Middy stack of every HTTP handler, exercised with small handlers built here and real HTTP API
 * 2.0 events: what a client sends, what the handler body sees, and what the client gets back.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as v from 'valibot';
import { BusyError, ConflictError, InvalidRequestError, NotFoundError } from '../../../shared/errors';
import { httpHandler, MAX_BODY_BYTES } from '../../../shared/http/handler';
import { toRequestIssue } from '../../../shared/http/middleware/request-validator';
import { event, expectGroupError, GROUPS, invoke } from './support';

const ADDRESS = '0x00000000000000000000000000000000000000aa';
const addressHash = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'Invalid address hash'));
const integerString = v.pipe(v.string(), v.regex(/^\d+$/, 'Invalid integer'), v.transform(Number));

/** An explorer-style route: a path parameter and a strict query object. */
function explorerRoute(
  handle = vi.fn(async (request: { path: unknown; query: unknown }) => ({ body: { path: request.path, query: request.query } })),
) {
  const handler = httpHandler({
    group: 'explorer',
    path: v.object({ address_hash: addressHash }),
    query: v.strictObject({ filter: v.optional(v.picklist(['to', 'from'])), type: v.optional(v.string()) }),
    handle,
  });
  return { handler, handle };
}

/** An insights-style route with a repeatable parameter. */
function insightsRoute() {
  const handle = vi.fn(async (request: { query: unknown; headers: Record<string, string | undefined> }) => ({
    body: { query: request.query },
  }));
  const handler = httpHandler({
    group: 'insights',
    query: v.object({
      chain_id: v.optional(v.pipe(v.array(integerString), v.maxLength(55))),
      limit: v.optional(integerString),
      sort_order: v.optional(v.picklist(['asc', 'desc'])),
    }),
    repeatable: ['chain_id'],
    handle,
  });
  return { handler, handle };
}

const orderBody = v.object({ type: v.literal('swap'), srcAmount: v.pipe(v.string(), v.regex(/^\d+$/, 'Invalid amount')) });

/** A route with a JSON body, in the given group's format. */
function bodyRoute(group: 'orders' | 'collections' | 'insights' | 'explorer') {
  const handle = vi.fn(async (request: { body: unknown }) => ({ statusCode: 201, body: { received: request.body } }));
  return { handler: httpHandler({ group, body: orderBody, handle }), handle };
}

const explorerPath = (address: string) => ({
  rawPath: `/explorer/addresses/${address}/token-transfers`,
  pathParameters: { address_hash: address },
});

describe('requests reaching a handler', () => {
  it('lowercases header names before the handler sees them', async () => {
    const seen: Record<string, string | undefined>[] = [];
    const handler = httpHandler({
      group: 'collections',
      handle: async ({ headers }) => {
        seen.push(headers);
        return { body: {} };
      },
    });
    const input = event({ api: 'collections', rawPath: '/collections' });
    input.headers = { 'X-Client-Name': 'sdk', 'Accept-Language': 'en' };
    const answer = await invoke(handler, input);
    expect(answer.status).toBe(200);
    expect(seen[0]['x-client-name']).toBe('sdk');
    expect(seen[0]['accept-language']).toBe('en');
    expect(seen[0]['X-Client-Name']).toBeUndefined();
  });

  it('hands a repeated parameter to a repeatable key as every value, although queryStringParameters joins them', async () => {
    const { handler, handle } = insightsRoute();
    const input = event({ rawPath: '/insights/v1/blocks', rawQueryString: 'chain_id=1&chain_id=137&limit=5' });
    expect(input.queryStringParameters).toEqual({ chain_id: '1,137', limit: '5' });
    const answer = await invoke(handler, input);
    expect(answer.status).toBe(200);
    expect(answer.body.query).toEqual({ chain_id: [1, 137], limit: 5 });
    expect(handle).toHaveBeenCalledTimes(1);
  });

  it('hands a single value of a repeatable key as a one-element array', async () => {
    const { handler } = insightsRoute();
    const answer = await invoke(handler, event({ rawPath: '/insights/v1/blocks', rawQueryString: 'chain_id=8453' }));
    expect(answer.body.query).toEqual({ chain_id: [8453] });
  });

  it('joins a repeated non-repeatable parameter with commas, as API Gateway does, so it fails validation instead of losing a value', async () => {
    const { handler, handle } = insightsRoute();
    const answer = await invoke(handler, event({ rawPath: '/insights/v1/blocks', rawQueryString: 'limit=5&limit=7' }));
    const message = expectGroupError('insights', answer, 400);
    expect(message).toContain('limit');
    expect(handle).not.toHaveBeenCalled();
  });

  it('passes valid path and query values through the schemas', async () => {
    const { handler } = explorerRoute();
    const answer = await invoke(handler, event({ ...explorerPath(ADDRESS), rawQueryString: 'filter=to&type=ERC-20%2CERC-721' }));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual({ path: { address_hash: ADDRESS }, query: { filter: 'to', type: 'ERC-20,ERC-721' } });
  });
});

describe('validation failures in each group format, before the handler body runs', () => {
  it('explorer: 422 with one JSON:API error per failing parameter, path parameters pointered as <name>_param', async () => {
    const { handler, handle } = explorerRoute();
    const answer = await invoke(handler, event({ ...explorerPath('0x123'), rawQueryString: 'filter=sideways' }));
    expectGroupError('explorer', answer, 422);
    expect(answer.body.errors).toHaveLength(2);
    expect(answer.body.errors).toContainEqual({
      title: 'Invalid value',
      source: { pointer: '/address_hash_param' },
      detail: 'Invalid address hash',
    });
    expect(answer.body.errors).toContainEqual({
      title: 'Invalid value',
      source: { pointer: '/filter' },
      detail: expect.stringContaining('sideways'),
    });
    expect(handle).not.toHaveBeenCalled();
  });

  it('explorer: every unknown query parameter of a strict query is its own entry', async () => {
    const { handler, handle } = explorerRoute();
    const answer = await invoke(handler, event({ ...explorerPath(ADDRESS), rawQueryString: 'filter=to&foo=1&bar=2&baz=3' }));
    expectGroupError('explorer', answer, 422);
    const pointers = answer.body.errors.map((error: { source: { pointer: string } }) => error.source.pointer);
    expect(pointers.sort()).toEqual(['/bar', '/baz', '/foo']);
    for (const error of answer.body.errors) {
      expect(error.title).toBe('Invalid value');
      expect(error.detail).toBe(`Unexpected field: ${error.source.pointer.slice(1)}`);
    }
    expect(handle).not.toHaveBeenCalled();
  });

  it('explorer: unknown parameters and invalid values are reported together', async () => {
    const { handler } = explorerRoute();
    const answer = await invoke(handler, event({ ...explorerPath('nope'), rawQueryString: 'filter=up&foo=1' }));
    const pointers = answer.body.errors.map((error: { source: { pointer: string } }) => error.source.pointer);
    expect(pointers.sort()).toEqual(['/address_hash_param', '/filter', '/foo']);
  });

  it('insights: 400 {"error"} naming every failing parameter', async () => {
    const { handler, handle } = insightsRoute();
    const answer = await invoke(
      handler,
      event({ rawPath: '/insights/v1/blocks', rawQueryString: 'chain_id=1&chain_id=abc&sort_order=up' }),
    );
    const message = expectGroupError('insights', answer, 400);
    expect(message).toContain('chain_id');
    expect(message).toContain('sort_order');
    expect(handle).not.toHaveBeenCalled();
  });

  it('insights: more values of a repeatable parameter than its schema allows is a 400', async () => {
    const { handler, handle } = insightsRoute();
    const query = Array.from({ length: 56 }, (_, index) => `chain_id=${index + 1}`).join('&');
    const answer = await invoke(handler, event({ rawPath: '/insights/v1/blocks', rawQueryString: query }));
    expect(expectGroupError('insights', answer, 400)).toContain('chain_id');
    expect(handle).not.toHaveBeenCalled();
  });

  for (const group of ['orders', 'collections'] as const) {
    it(`${group}: 400 {"success":false,"message","statusCode"} with the status repeated, for path, query and body`, async () => {
      const handle = vi.fn(async () => ({ body: {} }));
      const handler = httpHandler({
        group,
        path: v.object({ predictedAddress: addressHash }),
        query: v.object({ limit: v.optional(v.pipe(integerString, v.minValue(1))) }),
        body: orderBody,
        handle,
      });
      const answer = await invoke(
        handler,
        event({
          api: group,
          method: 'POST',
          rawPath: '/things/0x12',
          pathParameters: { predictedAddress: '0x12' },
          rawQueryString: 'limit=0',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'bridge', srcAmount: '12' }),
        }),
      );
      const message = expectGroupError(group, answer, 400);
      expect(message).toContain('predictedAddress');
      expect(message).toContain('limit');
      expect(message).toContain('type');
      expect(message).not.toContain('srcAmount');
      expect(handle).not.toHaveBeenCalled();
    });
  }
});

describe('errors thrown on purpose', () => {
  for (const group of GROUPS) {
    it(`${group}: domain errors become 404, 409, 400 and 503 with Retry-After, with their messages`, async () => {
      const errors = {
        '/missing': new NotFoundError('Collection not found'),
        '/taken': new ConflictError('Collection already exists'),
        '/bad': new InvalidRequestError('Unknown chain'),
        '/busy': new BusyError('Too busy; retry shortly', 2),
      };
      const handler = httpHandler({
        group,
        handle: async ({ event: input }) => {
          throw errors[input.rawPath as keyof typeof errors];
        },
      });
      expect(expectGroupError(group, await invoke(handler, event({ rawPath: '/missing' })), 404)).toBe('Collection not found');
      expect(expectGroupError(group, await invoke(handler, event({ rawPath: '/taken' })), 409)).toBe('Collection already exists');
      expect(expectGroupError(group, await invoke(handler, event({ rawPath: '/bad' })), 400)).toBe('Unknown chain');
      const busy = await invoke(handler, event({ rawPath: '/busy' }));
      expect(expectGroupError(group, busy, 503)).toBe('Too busy; retry shortly');
      expect(busy.headers['retry-after']).toBe('2');
    });
  }
});

describe('CORS', () => {
  const original = process.env.CORS_ALLOWED_ORIGINS;
  afterEach(() => {
    if (original === undefined) delete process.env.CORS_ALLOWED_ORIGINS;
    else process.env.CORS_ALLOWED_ORIGINS = original;
  });

  const answerFor = async (origin: string | undefined, fail = false) => {
    const handler = httpHandler({
      group: 'collections',
      handle: async () => {
        if (fail) throw new NotFoundError('Collection not found');
        return { body: { ok: true } };
      },
    });
    return invoke(handler, event({ api: 'collections', rawPath: '/collections', headers: origin ? { Origin: origin } : {} }));
  };

  it('echoes an allowed origin, on successes and on errors, and varies on Origin', async () => {
    process.env.CORS_ALLOWED_ORIGINS = 'https://app.example, https://admin.example';
    for (const fail of [false, true]) {
      const answer = await answerFor('https://admin.example', fail);
      expect(answer.status).toBe(fail ? 404 : 200);
      expect(answer.headers['access-control-allow-origin']).toBe('https://admin.example');
      expect(answer.headers.vary).toContain('Origin');
      expect(answer.headers['access-control-expose-headers']).toContain('idempotent-replayed');
      // A front-end reads how current the explorer's data is from these (indexing-status.ts).
      for (const name of ['x-indexed-block', 'x-indexing-state', 'x-indexing-lag-blocks'])
        expect(answer.headers['access-control-expose-headers']).toContain(name);
    }
  });

  it('gives a disallowed origin no Access-Control-Allow-Origin at all', async () => {
    process.env.CORS_ALLOWED_ORIGINS = 'https://app.example';
    const answer = await answerFor('https://evil.example');
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    // With a single allowed origin the answer still depends on Origin, so caches must key on it.
    expect(answer.headers.vary).toBe('Origin');
    const allowed = await answerFor('https://app.example');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(allowed.headers.vary).toBe('Origin');
  });

  it('answers any origin with * when configured with *', async () => {
    process.env.CORS_ALLOWED_ORIGINS = '*';
    expect((await answerFor('https://anyone.example')).headers['access-control-allow-origin']).toBe('*');
    expect((await answerFor(undefined)).headers['access-control-allow-origin']).toBe('*');
  });
});

describe('JSON request bodies', () => {
  const post = (group: 'orders' | 'collections' | 'insights' | 'explorer', body: string | undefined, contentType?: string) =>
    event({
      api: group === 'orders' || group === 'collections' ? group : 'base',
      method: 'POST',
      rawPath: '/orders',
      headers: contentType ? { 'Content-Type': contentType } : {},
      body,
    });

  it('parses a JSON body and hands it to the handler', async () => {
    const { handler } = bodyRoute('orders');
    const answer = await invoke(
      handler,
      post('orders', JSON.stringify({ type: 'swap', srcAmount: '1000' }), 'application/json; charset=utf-8'),
    );
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ received: { type: 'swap', srcAmount: '1000' } });
  });

  it('parses a base64-encoded JSON body', async () => {
    const { handler } = bodyRoute('orders');
    const input = post('orders', Buffer.from(JSON.stringify({ type: 'swap', srcAmount: '5' })).toString('base64'), 'application/json');
    input.isBase64Encoded = true;
    expect((await invoke(handler, input)).body).toEqual({ received: { type: 'swap', srcAmount: '5' } });
  });

  for (const group of GROUPS) {
    it(`${group}: wrong content type 415, malformed JSON 400, missing body 400, over ${MAX_BODY_BYTES} bytes 413`, async () => {
      const { handler, handle } = bodyRoute(group);
      const valid = JSON.stringify({ type: 'swap', srcAmount: '1' });
      expect(expectGroupError(group, await invoke(handler, post(group, valid, 'text/plain')), 415)).toMatch(/application\/json/);
      expect(expectGroupError(group, await invoke(handler, post(group, valid)), 415)).toMatch(/application\/json/);
      expect(expectGroupError(group, await invoke(handler, post(group, '{"type": "swap",', 'application/json')), 400)).toMatch(
        /not valid JSON/,
      );
      expect(expectGroupError(group, await invoke(handler, post(group, undefined, 'application/json')), 400)).toMatch(/not valid JSON/);
      const large = JSON.stringify({ type: 'swap', srcAmount: '1', padding: 'x'.repeat(MAX_BODY_BYTES) });
      expect(expectGroupError(group, await invoke(handler, post(group, large, 'application/json')), 413)).toContain(String(MAX_BODY_BYTES));
      expect(handle).not.toHaveBeenCalled();
    });
  }

  it('counts the limit in bytes, not characters', async () => {
    const { handler } = bodyRoute('collections');
    // 30,000 three-byte characters: 90,000 bytes, well under 64 Ki characters.
    const wide = JSON.stringify({ type: 'swap', srcAmount: '1', note: '€'.repeat(30_000) });
    expect(wide.length).toBeLessThan(MAX_BODY_BYTES);
    expectGroupError('collections', await invoke(handler, post('collections', wide, 'application/json')), 413);
    const fits = JSON.stringify({ type: 'swap', srcAmount: '1', note: '€'.repeat(20_000) });
    expect((await invoke(handler, post('collections', fits, 'application/json'))).status).toBe(201);
  });
});

describe('strict objects: missing versus unexpected keys', () => {
  it('reports a missing required key as required, not as unexpected', async () => {
    const result = v.safeParse(v.strictObject({ type: v.string() }), { extra: 1 }, { abortEarly: false });
    const issues = result.success ? [] : result.issues.map((issue) => toRequestIssue('body', issue));
    expect(issues).toContainEqual({ part: 'body', key: 'type', message: 'is required' });
    expect(issues).toContainEqual(expect.objectContaining({ key: 'extra', message: 'Unexpected field: extra' }));
  });
});
