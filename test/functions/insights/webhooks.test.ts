/**
 * Insight's webhook routes through their real handlers and the embedded table: who may do what (no key,
 * a malformed, unknown or revoked key: 401; another project's webhook: 404), what a webhook is once
 * created, changed and deleted (and the filter index delivery reads: H4), the filters and URLs refused
 * with a clear 400 that changes nothing, the per-project limit (403) and the per-key rate (429).
 */
process.env.WEBHOOKS_PER_PROJECT = '3';
process.env.WEBHOOK_API_REQUESTS_PER_MINUTE = '30';

import { toEventSelector, toFunctionSelector } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../scripts/lib/dispatch';
import { queryAll, rangeQuery } from '../../../shared/db/operations';
import { registerChain } from '../../../shared/ingest/ingest';
import { createApiKey, revokeApiKey } from '../../../shared/insights/api-keys';
import { FILTER_LIMITS } from '../../../shared/insights/webhook-filters';
import { webhookKeys } from '../../../shared/table/keys';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('webhooks');
const CHAIN = 8453;
const TOKEN = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const TRANSFER = 'event Transfer(address indexed from, address indexed to, uint256 value)';
const TRANSFER_ABI = JSON.stringify({
  type: 'event',
  name: 'Transfer',
  inputs: [
    { type: 'address', name: 'from', indexed: true },
    { type: 'address', name: 'to', indexed: true },
    { type: 'uint256', name: 'value', indexed: false },
  ],
});
const TRANSFER_TOPIC = toEventSelector(TRANSFER);

let alpha: string;
let beta: string;

interface Sent {
  status: number;
  body: any;
  headers: Record<string, string>;
}

async function call(method: string, url: string, key?: string | { bearer: string }, body?: unknown): Promise<Sent> {
  const headers: Record<string, string> = {};
  if (typeof key === 'string') headers['x-secret-key'] = key;
  else if (key) headers.authorization = `Bearer ${key.bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await dispatch({
    api: 'base',
    method,
    url: `/insights${url}`,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined, headers: response.headers };
}

const transferFilters = (extra: Record<string, unknown> = {}) => ({
  'v1.events': { chain_ids: [String(CHAIN)], addresses: [TOKEN], signatures: [{ sig_hash: TRANSFER_TOPIC, abi: TRANSFER_ABI }], ...extra },
});

beforeAll(async () => {
  await registerChain(CHAIN, 1);
  alpha = (await createApiKey({ project: 'alpha' })).key;
  beta = (await createApiKey({ project: 'beta' })).key;
});

describe('secret keys', () => {
  it.each([
    ['no key', undefined],
    ['a malformed key', 'not-a-key'],
    ['a well-formed key never issued', `sk_alpha_${'A'.repeat(43)}`],
  ])("%s: 401 in Insight's error format on every webhook route", async (_name, key) => {
    for (const [method, url, body] of [
      ['GET', '/v1/webhooks', undefined],
      ['POST', '/v1/webhooks', { webhook_url: 'https://example.com/hook', filters: transferFilters() }],
      ['PATCH', '/v1/webhooks/some-id', { disabled: true }],
      ['DELETE', '/v1/webhooks/some-id', undefined],
      ['POST', '/service/webhooks/filters/validate', transferFilters()],
    ] as const) {
      const response = await call(method, url, key, body);
      expect(response.status, `${method} ${url}`).toBe(401);
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(response.body.error).toMatch(/^Unauthorized/);
    }
  });

  it('a key names its project only together with its hash: the same random part under another project is refused', async () => {
    const issued = await createApiKey({ project: 'gamma' });
    const forged = issued.key.replace('sk_gamma_', 'sk_alpha_');
    expect((await call('GET', '/v1/webhooks', forged)).status).toBe(401);
    expect((await call('GET', '/v1/webhooks', issued.key)).status).toBe(200);
  });

  it('a revoked key gets 401 from its next request; Authorization: Bearer works as x-secret-key does', async () => {
    const issued = await createApiKey({ project: 'delta', name: 'to revoke' });
    expect((await call('GET', '/v1/webhooks', { bearer: issued.key })).status).toBe(200);
    await revokeApiKey(issued.keyId);
    const response = await call('GET', '/v1/webhooks', { bearer: issued.key });
    expect(response.status).toBe(401);
    expect(response.body.error).toMatch(/revoked/);
  });

  it('a key past its requests a minute gets 429 with Retry-After, other keys do not', async () => {
    const minute = () => Math.floor(Date.now() / 60_000);
    // The limit counts a key's requests in each clock minute: a loop that a minute turns in is run
    // again with a new key (the count starts again at the turn, so it proves nothing).
    for (let attempt = 0; ; attempt++) {
      const issued = await createApiKey({ project: `epsilon${attempt}` });
      const started = minute();
      const statuses: number[] = [];
      for (let i = 0; i < 32; i++) statuses.push((await call('GET', '/v1/webhooks', issued.key)).status);
      const limited = await call('GET', '/v1/webhooks', issued.key);
      if (minute() !== started && attempt < 2) continue;
      expect(statuses.slice(0, 30)).toEqual(Array(30).fill(200));
      expect(statuses.slice(30)).toEqual([429, 429]);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.body.error).toMatch(/Rate limit/);
      break;
    }
    expect((await call('GET', '/v1/webhooks', beta)).status).toBe(200);
  });
});

describe('a webhook through its life', () => {
  it('is created with a signing secret, listed, read by id, changed, and deleted, with its filter index following', async () => {
    const created = await call('POST', '/v1/webhooks', alpha, {
      name: 'USDC transfers',
      webhook_url: 'https://receiver.example.com/hook',
      filters: transferFilters(),
    });
    expect(created.status).toBe(200);
    const webhook = created.body.data;
    expect(webhook).toMatchObject({
      team_id: 'alpha',
      project_id: 'alpha',
      name: 'USDC transfers',
      webhook_url: 'https://receiver.example.com/hook',
      filters: transferFilters(),
      disabled: false,
      suspended_at: null,
      suspended_reason: null,
      updated_at: null,
    });
    expect(webhook.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(webhook.created_at)).toBeGreaterThan(Date.now() - 60_000);

    const listed = await call('GET', '/v1/webhooks', alpha);
    expect(listed.body.data).toEqual([webhook]);
    expect((await call('GET', `/v1/webhooks?webhook_id=${webhook.id}`, alpha)).body.data).toEqual([webhook]);
    // The filter index delivery matches blocks against: under the one chain the filters name.
    const index = await queryAll(rangeQuery(webhookKeys.filterRange(CHAIN)));
    expect(index.items.map((item) => item.webhookId)).toEqual([webhook.id]);
    expect(index.items[0]!.filters).toMatchObject({
      events: { chainIds: [CHAIN], addresses: [TOKEN], signatures: [{ hash: TRANSFER_TOPIC }] },
    });

    // Changed: disabled, and filters on any chain move the index from the chain to `any`.
    const changed = await call('PATCH', `/v1/webhooks/${webhook.id}`, alpha, {
      disabled: true,
      filters: {
        'v1.transactions': { to_addresses: [TOKEN], signatures: [{ sig_hash: toFunctionSelector('function transfer(address,uint256)') }] },
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: webhook.id, disabled: true, webhook_secret: webhook.webhook_secret });
    expect(Date.parse(changed.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(webhook.created_at));
    expect((await queryAll(rangeQuery(webhookKeys.filterRange(CHAIN)))).items).toEqual([]);
    const anyChain = await queryAll(rangeQuery(webhookKeys.filterRange('any')));
    expect(anyChain.items.map((item) => [item.webhookId, item.disabled])).toEqual([[webhook.id, true]]);

    const deleted = await call('DELETE', `/v1/webhooks/${webhook.id}`, alpha);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual(changed.body.data);
    expect((await call('GET', '/v1/webhooks', alpha)).body.data).toEqual([]);
    expect((await queryAll(rangeQuery(webhookKeys.filterRange('any')))).items).toEqual([]);
    expect((await call('DELETE', `/v1/webhooks/${webhook.id}`, alpha)).status).toBe(404);
  });

  it("another project's webhook is a 404 to change or delete, and absent from its lists", async () => {
    const created = await call('POST', '/v1/webhooks', alpha, { webhook_url: 'https://a.example.com/', filters: transferFilters() });
    const id = created.body.data.id;
    const before = await tableSnapshot(table.name);
    for (const [method, body] of [
      ['PATCH', { disabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const response = await call(method, `/v1/webhooks/${id}`, beta, body);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Webhook not found' });
    }
    expect((await call('GET', '/v1/webhooks', beta)).body.data.map((hook: { id: string }) => hook.id)).not.toContain(id);
    expect((await call('GET', `/v1/webhooks?webhook_id=${id}`, beta)).body.data).toEqual([]);
    // Nothing changed but the keys' request counts.
    const withoutCounts = (snapshot: Awaited<ReturnType<typeof tableSnapshot>>) =>
      snapshot.filter((item: Record<string, unknown>) => !String(item.pk).startsWith('APIKEY#'));
    expect(withoutCounts(await tableSnapshot(table.name))).toEqual(withoutCounts(before));
    await call('DELETE', `/v1/webhooks/${id}`, alpha);
  });

  it('a project holds at most WEBHOOKS_PER_PROJECT webhooks (403), and a deletion frees a place', async () => {
    const key = (await createApiKey({ project: 'zeta' })).key;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await call('POST', '/v1/webhooks', key, { webhook_url: `https://r${i}.example.com/`, filters: transferFilters() });
      expect(response.status).toBe(200);
      ids.push(response.body.data.id);
    }
    const refused = await call('POST', '/v1/webhooks', key, { webhook_url: 'https://r3.example.com/', filters: transferFilters() });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/limit of 3 webhooks/);
    expect((await call('DELETE', `/v1/webhooks/${ids[0]}`, key)).status).toBe(200);
    expect((await call('POST', '/v1/webhooks', key, { webhook_url: 'https://r3.example.com/', filters: transferFilters() })).status).toBe(
      200,
    );
  });
});

describe('bad filters and hostile URLs: a clear 400 that changes nothing', () => {
  const cases: [string, unknown, RegExp][] = [
    ['no filter at all', {}, /v1\.events.*v1\.transactions/],
    ['an unknown topic', { 'v1.logs': {} }, /v1\.logs|Invalid key/i],
    ['an address that is not one', { 'v1.events': { addresses: ['0x1234'] } }, /address/],
    ['a chain this service does not index', transferFilters({ chain_ids: ['1'] }), /chain 1 is not indexed/],
    ['an abi of another event', transferFilters({ signatures: [{ sig_hash: `0x${'ab'.repeat(32)}`, abi: TRANSFER_ABI }] }), /hash/],
    [
      'params without an abi',
      transferFilters({ signatures: [{ sig_hash: TRANSFER_TOPIC, params: { to: TOKEN } }] }),
      /params need the abi/,
    ],
    [
      'params naming no input',
      transferFilters({ signatures: [{ sig_hash: TRANSFER_TOPIC, abi: TRANSFER_ABI, params: { recipient: TOKEN } }] }),
      /no input named recipient/,
    ],
    ['a selector as an event signature', transferFilters({ signatures: [{ sig_hash: '0xa9059cbb' }] }), /topic0/],
    [
      'too many addresses',
      {
        'v1.events': { addresses: Array.from({ length: FILTER_LIMITS.addresses + 1 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`) },
      },
      /at most 100 addresses/,
    ],
    [
      'a param value too long',
      transferFilters({
        signatures: [{ sig_hash: TRANSFER_TOPIC, abi: TRANSFER_ABI, params: { to: 'x'.repeat(FILTER_LIMITS.paramValueLength + 1) } }],
      }),
      /at most 256 characters/,
    ],
    [
      'an oversized filter',
      {
        'v1.events': {
          addresses: [TOKEN],
          signatures: Array.from({ length: 20 }, () => ({ sig_hash: TRANSFER_TOPIC, abi: ' '.repeat(1800) + TRANSFER_ABI })),
        },
      },
      /at most 32768 bytes/,
    ],
  ];

  it.each(cases)('%s', async (_name, filters, message) => {
    // (A key of its own: the project's other keys keep their requests a minute.)
    const beta = (await createApiKey({ project: 'beta' })).key;
    const before = await tableSnapshot(table.name);
    const response = await call('POST', '/v1/webhooks', beta, { webhook_url: 'https://receiver.example.com/', filters });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toMatch(message);
    const counts = (snapshot: Awaited<ReturnType<typeof tableSnapshot>>) =>
      snapshot.filter((item: Record<string, unknown>) => !String(item.pk).startsWith('APIKEY#'));
    expect(counts(await tableSnapshot(table.name))).toEqual(counts(before));
    // The validate route answers the same filters with valid: false and where they fail.
    const validated = await call('POST', '/service/webhooks/filters/validate', beta, filters);
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(false);
    expect(validated.body.error).toMatch(message);
    expect(validated.body.details.length).toBeGreaterThan(0);
  });

  it('valid filters validate', async () => {
    const response = await call(
      'POST',
      '/service/webhooks/filters/validate',
      beta,
      transferFilters({ signatures: [{ sig_hash: TRANSFER_TOPIC, abi: TRANSFER_ABI, params: { to: TOKEN } }] }),
    );
    expect(response).toMatchObject({ status: 200, body: { valid: true } });
  });

  it.each([
    ['plain http', 'http://receiver.example.com/hook', /https/],
    ['the instance metadata address', 'https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
    ['a private address', 'https://10.1.2.3/hook', /10\.1\.2\.3/],
    ['loopback', 'https://127.0.0.1:8443/hook', /127\.0\.0\.1/],
    ['IPv6 loopback', 'https://[::1]/hook', /::1/],
    ['an IPv4-mapped private address', 'https://[::ffff:192.168.0.1]/hook', /192\.168\.0\.1/],
    ['localhost', 'https://localhost/hook', /public host/],
    ['a bare host name', 'https://intranet/hook', /public host/],
    ['credentials in the URL', 'https://user:pass@receiver.example.com/', /user name or password/],
    ['not a URL', 'receiver.example.com', /absolute URL/],
  ])('a receiver URL with %s', async (_name, url, message) => {
    const beta = (await createApiKey({ project: 'beta' })).key;
    const before = await tableSnapshot(table.name);
    const response = await call('POST', '/v1/webhooks', beta, { webhook_url: url, filters: transferFilters() });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    const counts = (snapshot: Awaited<ReturnType<typeof tableSnapshot>>) =>
      snapshot.filter((item: Record<string, unknown>) => !String(item.pk).startsWith('APIKEY#'));
    expect(counts(await tableSnapshot(table.name))).toEqual(counts(before));
  });
});
