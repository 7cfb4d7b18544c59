/**
 * The chain client's transport (shared/chain/transport.ts, client.ts) against a real anvil behind the
 * JSON-RPC fault proxy: batch limits in every form a node uses, partial and oversized batch answers,
 * whole-batch refusals, batches not served at all, resets, and the first request of a process.
 */
import { createPublicClient, http, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import { isMethodUnsupportedError, withBackoff } from '../../../shared/chain/retry';
import { BATCH_LIMIT_FORMS, startRpcProxy, type RpcProxy } from '../../support/rpc-fault-proxy';

let anvil: Anvil;
let proxy: RpcProxy;
const FAST = { attempts: 6, baseDelayMs: 10, maxDelayMs: 50 };

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337 });
  await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x20'] }),
  });
  proxy = await startRpcProxy(anvil.rpcUrl);
});

afterEach(() => {
  proxy.clear();
  proxy.requests.length = 0;
});

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

const truthClient = () => createPublicClient({ transport: http(anvil.rpcUrl) });

/** 30 block reads in one tick: one viem batch. */
async function readBlocks(client: ReturnType<typeof createChainClient>) {
  const numbers = Array.from({ length: 30 }, (_, index) => BigInt(index + 1));
  const blocks = await Promise.all(numbers.map((blockNumber) => client.getBlock({ blockNumber })));
  return blocks.map((block) => [block.number, block.hash]);
}

async function expectedBlocks() {
  const client = truthClient();
  const numbers = Array.from({ length: 30 }, (_, index) => BigInt(index + 1));
  return (await Promise.all(numbers.map((blockNumber) => client.getBlock({ blockNumber })))).map((block) => [block.number, block.hash]);
}

const logOf = () => {
  const warnings: { message: string; details?: Record<string, unknown> }[] = [];
  return { warnings, log: { warn: (message: string, details?: Record<string, unknown>) => void warnings.push({ message, details }) } };
};

describe('a batch-size limit', () => {
  test.each(BATCH_LIMIT_FORMS)(
    'refused in form %s: the batch halves until accepted, every call answered right, logged once per size',
    async (form) => {
      proxy.inject({ kind: 'batchLimit', max: 10, form, count: Number.POSITIVE_INFINITY });
      const { warnings, log } = logOf();
      const client = createChainClient(proxy.url, { batchSize: 50, log });
      expect(await readBlocks(client)).toEqual(await expectedBlocks());
      const sizes = warnings.map((warning) => warning.details?.batchSize);
      expect(sizes.at(-1)).toBeLessThanOrEqual(10);
      expect(new Set(sizes).size).toBe(sizes.length);
      // Remembered: the next round sends no batch over the limit.
      proxy.requests.length = 0;
      expect(await readBlocks(client)).toEqual(await expectedBlocks());
      expect(Math.max(...proxy.requests.map((request) => request.size))).toBeLessThanOrEqual(10);
      expect(proxy.requests.every((request) => request.outcome === 'forwarded')).toBe(true);
    },
  );

  test('a node that serves no batches: one plain call per request', async () => {
    proxy.inject({ kind: 'batchLimit', max: 0, form: 'error-object', count: Number.POSITIVE_INFINITY });
    // The error object of this form names a size; a node that says "batch requests are not supported" goes straight to 1.
    const { log } = logOf();
    const client = createChainClient(proxy.url, { batchSize: 100, log });
    expect(await readBlocks(client)).toEqual(await expectedBlocks());
    proxy.requests.length = 0;
    await readBlocks(client);
    expect(proxy.requests.every((request) => !request.batch && request.size === 1)).toBe(true);
  });
});

describe('answers that do not match the calls', () => {
  test('plain viem takes another call’s answer when a batch answer carries an unknown id (why transport.ts checks ids)', async () => {
    proxy.inject({ kind: 'oversized', extra: 'unknownId' }, { kind: 'drop' });
    const plain = createPublicClient({ transport: http(proxy.url, { batch: true, retryCount: 0 }) });
    const blocks = await Promise.all([1n, 2n, 3n].map((blockNumber) => plain.getBlock({ blockNumber })));
    // Block 3's entry dropped, an entry of an unknown id added: the count matches, so viem sorts by id
    // and hands the answers out by position: block 3's call gets the stranger's answer (block 2).
    expect(blocks.map((block) => block.number)).toEqual([1n, 2n, 2n]);
  });

  test.each([
    ['entries dropped', { kind: 'drop', entries: 3, count: 2 }],
    ['an entry of an unknown id', { kind: 'oversized', extra: 'unknownId', count: 2 }],
    ['an id answered twice', { kind: 'oversized', extra: 'duplicateId', count: 2 }],
    ['an unknown id in place of a dropped entry', { kind: 'oversized', extra: 'unknownId', count: 1 }],
  ] as const)('%s: the missing calls are sent again, nothing is taken as another call’s answer', async (_name, fault) => {
    proxy.inject(fault);
    if (_name.includes('dropped entry')) proxy.inject({ kind: 'drop' });
    const client = createChainClient(proxy.url, { batchSize: 50 });
    expect(await readBlocks(client)).toEqual(await expectedBlocks());
  });

  test('calls never answered fail fast as a fault (no wait for the timeout), and are retried', async () => {
    proxy.inject({ kind: 'drop', count: Number.POSITIVE_INFINITY });
    const client = createChainClient(proxy.url, { batchSize: 50, timeoutMs: 30_000 });
    const started = Date.now();
    await expect(readBlocks(client)).rejects.toThrow(/unanswered/);
    expect(Date.now() - started).toBeLessThan(5_000);
    proxy.clear();
    expect(await withBackoff('blocks', FAST, () => readBlocks(client))).toEqual(await expectedBlocks());
  });
});

describe('whole-batch refusals and resets', () => {
  test.each(['http-400', 'http-403', 'http-404', 'http-405', 'http-500', 'http-501'] as const)(
    'a batch refused with %s because of one method: only that call is refused, as unsupported',
    async (form) => {
      proxy.inject({ kind: 'refuse', form, method: 'trace_block', count: Number.POSITIVE_INFINITY });
      const client = createChainClient(proxy.url, { batchSize: 50 });
      const trace = client
        .request({ method: 'trace_block' as 'eth_chainId', params: ['0x1'] as unknown as undefined })
        .catch((error: unknown) => error);
      const blocks = readBlocks(client);
      expect(await blocks).toEqual(await expectedBlocks());
      const error = await trace;
      expect(error).toBeInstanceOf(Error);
      expect(isMethodUnsupportedError(error)).toBe(true);
    },
  );

  test.each(['before', 'midAnswer'] as const)(
    'a reset (%s the answer) fails the whole batch; retried, every answer right',
    async (when) => {
      proxy.inject({ kind: 'reset', when, count: 2 });
      const client = createChainClient(proxy.url, { batchSize: 50 });
      expect(await withBackoff('blocks', FAST, () => readBlocks(client))).toEqual(await expectedBlocks());
      expect(proxy.served.reset).toBeGreaterThanOrEqual(2);
    },
  );

  test('an answer over the size limit: a batch is split; a single call over it is a fault', async () => {
    proxy.inject({ kind: 'oversized', extra: 'padding', bytes: 300_000, count: 1 });
    const { log } = logOf();
    const client = createChainClient(proxy.url, { batchSize: 50, maxResponseBytes: 200_000, log });
    expect(await readBlocks(client)).toEqual(await expectedBlocks());
    proxy.inject({ kind: 'oversized', extra: 'padding', bytes: 300_000, count: 1 });
    await expect(client.getBlock({ blockNumber: 1n })).rejects.toThrow(/over the limit|more than/);
  });
});

describe('a bare error object for a batch, and one answer over the size limit', () => {
  test('a batch answered with {"id":null,"error":{"code":-32600,"message":"invalid request"}}: shrunk, not retried as it was', async () => {
    proxy.inject({ kind: 'batchLimit', max: 10, form: 'invalid-request', count: Number.POSITIVE_INFINITY });
    const { warnings, log } = logOf();
    const client = createChainClient(proxy.url, { batchSize: 50, log });
    // No retries here: the first read must succeed.
    expect(await readBlocks(client)).toEqual(await expectedBlocks());
    expect(warnings.at(-1)?.details?.batchSize).toBeLessThanOrEqual(10);
    expect(proxy.requests.filter((request) => request.outcome === 'batchLimit').length).toBeLessThanOrEqual(3);
  });

  test('a rate limit or a 5xx as a bare error object does not shrink the batch', async () => {
    const rateLimited = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'request rate limited' } });
    const outage = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'The API is not available right now' } });
    proxy.inject({ kind: 'httpError', status: 200, body: rateLimited }, { kind: 'httpError', status: 500, body: outage });
    const { warnings, log } = logOf();
    const client = createChainClient(proxy.url, { batchSize: 50, log });
    expect(await withBackoff('blocks', FAST, () => readBlocks(client))).toEqual(await expectedBlocks());
    expect(warnings).toEqual([]);
  });

  test('an outage under HTTP 500 for one call of a request sent call by call stays a fault (never read as a refusal)', async () => {
    proxy.inject({ kind: 'batchLimit', max: 1, form: 'error-object', count: Number.POSITIVE_INFINITY });
    const { log } = logOf();
    const client = createChainClient(proxy.url, { batchSize: 50, log });
    await readBlocks(client); // the batch size is 1 from now on
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'The API is not available right now' } });
    const served = proxy.served.httpError ?? 0;
    proxy.inject({ kind: 'httpError', status: 500, body, method: 'trace_block', count: 1 });
    const [trace, blocks] = await withBackoff('trace and blocks', FAST, () =>
      Promise.all([
        client.request({ method: 'trace_block' as 'eth_chainId', params: ['0x1'] as unknown as undefined }),
        readBlocks(client),
      ]),
    );
    expect(Array.isArray(trace)).toBe(true);
    expect(blocks).toEqual(await expectedBlocks());
    expect(proxy.served.httpError).toBe(served + 1);
  });

  test('one call answered over the size limit in a batch: that call fails, the others get their answers', async () => {
    proxy.inject({ kind: 'oversized', extra: 'padding', bytes: 300_000, block: 5, count: Number.POSITIVE_INFINITY });
    const { log } = logOf();
    const client = createChainClient(proxy.url, { batchSize: 50, maxResponseBytes: 200_000, log });
    const numbers = Array.from({ length: 30 }, (_, index) => BigInt(index + 1));
    const settled = await Promise.allSettled(numbers.map((blockNumber) => client.getBlock({ blockNumber })));
    const expected = await expectedBlocks();
    settled.forEach((outcome, index) => {
      if (index === 4) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/over the limit|more than/);
      } else {
        expect(outcome.status).toBe('fulfilled');
        const block = (outcome as PromiseFulfilledResult<{ number: bigint; hash: Hex }>).value;
        expect([block.number, block.hash]).toEqual(expected[index]);
      }
    });
  });
});

describe('the first request of a process', () => {
  test('eth_chainId answered 429 (with and without Retry-After) and 503 is retried, not fatal', async () => {
    proxy.inject(
      { kind: 'rateLimit', status: 429, retryAfter: '1', method: 'eth_chainId' },
      { kind: 'rateLimit', status: 429, method: 'eth_chainId' },
      { kind: 'rateLimit', status: 503, method: 'eth_chainId' },
    );
    const client = createChainClient(proxy.url, { retry: FAST, log: logOf().log });
    const started = Date.now();
    expect(await client.getChainId()).toBe(31337);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(proxy.served.rateLimit).toBeGreaterThanOrEqual(3);
  });

  test('a chain id that is refused for good still fails (after the retries)', async () => {
    proxy.inject({ kind: 'rateLimit', status: 429, method: 'eth_chainId', count: Number.POSITIVE_INFINITY });
    const client = createChainClient(proxy.url, { retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 5 }, log: logOf().log });
    await expect(client.getChainId()).rejects.toThrow(/eth_chainId: failed after 3 attempts/);
  });
});

test('a hex answer shape check: eth_blockNumber through the transport', async () => {
  const client = createChainClient(proxy.url);
  expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(await truthClient().getBlockNumber({ cacheTime: 0 }));
  expect(typeof ((await client.request({ method: 'eth_blockNumber' })) as Hex)).toBe('string');
});
