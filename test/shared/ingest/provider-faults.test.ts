/**
 * Real providers' behaviours between the ingest and a real anvil (the JSON-RPC fault proxy,
 * test/support/rpc-fault-proxy.ts): a batch-size limit, trace refusals in every form providers use,
 * 429 / 503 with and without Retry-After, the first request of a process rate limited, partial and
 * oversized batch answers, resets in the middle of an answer, slow answers. Each run ends with the
 * ingest finished and the table item-for-item equal to a clean ingest of the same chain (or, where
 * the node's capabilities differ, to the chain's truth). Then random faults (fast-check, seeded).
 * The chain has Multicall3 (set at its canonical address before the first block), so token reads go
 * through aggregate3 and the faults on eth_call hit it (an aggregate3 failed at the transport is
 * retried, never taken for the contracts' answers).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { MULTICALL3_ADDRESS } from '../../../shared/chain/abis';
import { createChainClient } from '../../../shared/chain/client';
import type { RetryPolicy } from '../../../shared/chain/retry';
import { ingestRange, type IngestResult } from '../../../shared/ingest/ingest';
import type { TraceMethod } from '../../../shared/ingest/fetch-block';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import {
  BATCH_LIMIT_FORMS,
  REFUSAL_FORMS,
  startRpcProxy,
  type FaultRule,
  type RefusalForm,
  type RpcProxy,
} from '../../support/rpc-fault-proxy';
import { installMulticall3 } from './support/multicall3';
import { expectImmutableItems, expectStateMatchesChain, publicClient, readChainTruth, type ChainTruth } from './support/truth';
import { variedActivity } from './support/varied-chain';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const table = useTestTable('provider');
const CHAIN_ID = 31337;
const FAST: RetryPolicy = { attempts: 20, baseDelayMs: 10, maxDelayMs: 100 };
let anvil: Anvil;
let head: number;
let truth: ChainTruth;
let clean: Record<string, unknown>[];
let tables = 0;

/** Items that say when they were written, not what the chain holds. */
const comparable = (items: Record<string, unknown>[]) =>
  items.map((item) => Object.fromEntries(Object.entries(item).filter(([key]) => !['updatedAt', 'writtenAt', 'ingestedAt'].includes(key))));

interface Run {
  result: IngestResult;
  tableName: string;
  proxy: RpcProxy;
  warnings: { message: string; details?: Record<string, unknown> }[];
  ms: number;
}

async function ingestThrough(
  faults: FaultRule[],
  options: { batchSize?: number; traceMethod?: TraceMethod; timeoutMs?: number } = {},
): Promise<Run> {
  const proxy = await startRpcProxy(anvil.rpcUrl, { faults });
  const warnings: Run['warnings'] = [];
  const log = {
    info: () => undefined,
    warn: (message: string, details?: Record<string, unknown>) => void warnings.push({ message, details }),
  };
  tables += 1;
  const tableName = `${table.name}-${tables}`;
  const started = Date.now();
  try {
    const result = await inTable(tableName, () =>
      ingestRange({
        chainId: CHAIN_ID,
        client: createChainClient(proxy.url, { timeoutMs: options.timeoutMs ?? 2_000, batchSize: options.batchSize, log, retry: FAST }),
        retry: FAST,
        log,
        from: 0,
        to: head,
        ...(options.traceMethod ? { traceMethod: options.traceMethod } : {}),
      }),
    );
    return { result, tableName, proxy, warnings, ms: Date.now() - started };
  } finally {
    await proxy.close();
  }
}

async function expectSameAsClean(run: Run): Promise<void> {
  expect(run.result.advanced).toBe(head + 1);
  expect(comparable(await tableSnapshot(run.tableName))).toEqual(comparable(clean));
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await installMulticall3(anvil.rpcUrl);
  await variedActivity(anvil.rpcUrl, CHAIN_ID, 5);
  head = Number(await publicClient(anvil.rpcUrl).getBlockNumber());
  truth = await readChainTruth(anvil.rpcUrl, 0, head);
  // The clean run reads token state through aggregate3.
  let aggregateCalls = 0;
  const run = await ingestThrough([
    {
      kind: 'transform',
      method: 'eth_call',
      count: Number.POSITIVE_INFINITY,
      transform: (result, params) => {
        if (String((params?.[0] as { to?: string } | undefined)?.to).toLowerCase() === MULTICALL3_ADDRESS) aggregateCalls += 1;
        return result;
      },
    },
  ]);
  expect(aggregateCalls).toBeGreaterThan(0);
  clean = await tableSnapshot(run.tableName);
  await expectImmutableItems(run.tableName, truth);
  await expectStateMatchesChain(run.tableName, truth, anvil.rpcUrl);
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('a batch-size limit of 10 (the ingest sent ~50 a batch and retried that size forever)', () => {
  test.each(BATCH_LIMIT_FORMS)('refused as %s: the batch shrinks, the ingest finishes, the table equals a clean ingest', async (form) => {
    const run = await ingestThrough([{ kind: 'batchLimit', max: 10, form, count: Number.POSITIVE_INFINITY }], { batchSize: 100 });
    await expectSameAsClean(run);
    // A busy machine may spread the calls over more, smaller batches: when the node refused one, the
    // batch shrank to its limit (the transport's own tests refuse each form deterministically).
    const refused = run.proxy.requests.some((request) => request.outcome === 'batchLimit');
    const shrunk = run.warnings.filter((warning) => warning.message.includes('refused a batch'));
    expect(shrunk.length > 0).toBe(refused);
    if (refused) expect(shrunk.at(-1)!.details!.batchSize).toBeLessThanOrEqual(10);
    // Remembered for the process: once small enough, no batch over the limit is sent again.
    const last = run.proxy.requests.findLastIndex((request) => request.outcome === 'batchLimit');
    expect(run.proxy.requests.slice(last + 1).every((request) => request.size <= 10)).toBe(true);
  });
});

describe('trace refusals in the forms providers use fall back like -32601', () => {
  const traceForms = REFUSAL_FORMS;
  test.each(traceForms)('debug_traceBlockByNumber refused as %s: parity traces', async (form: RefusalForm) => {
    const run = await ingestThrough([{ kind: 'refuse', form, method: 'debug_traceBlockByNumber', count: Number.POSITIVE_INFINITY }]);
    expect(run.result.advanced).toBe(head + 1);
    expect(run.warnings.filter((warning) => warning.message === 'retrying block fetch')).toEqual([]);
    expect(run.proxy.calls.get('trace_block')).toBeGreaterThan(0);
    await expectImmutableItems(run.tableName, truth, { traces: true, errors: 'presence' });
    await expectStateMatchesChain(run.tableName, truth, anvil.rpcUrl);
  });

  test.each(['rpc-32600', 'rpc-32000', 'rpc-32603', 'http-403', 'http-501'] as const)(
    'both trace methods refused as %s: no traces, never retried',
    async (form) => {
      const run = await ingestThrough([
        { kind: 'refuse', form, method: ['debug_traceBlockByNumber', 'trace_block'], count: Number.POSITIVE_INFINITY },
      ]);
      expect(run.result.advanced).toBe(head + 1);
      await expectImmutableItems(run.tableName, truth, { traces: false });
      await expectStateMatchesChain(run.tableName, truth, anvil.rpcUrl);
      // Logged (once per block fetched before the source knew: the prefetch of 4).
      const logged = run.warnings.filter((warning) => warning.message.includes('neither debug_traceBlockByNumber nor trace_block'));
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.length).toBeLessThanOrEqual(4);
      // A refusal is an answer: no block fetch was retried.
      expect(run.warnings.filter((warning) => warning.message === 'retrying block fetch')).toEqual([]);
    },
  );

  test.each(['rpc-32600', 'rpc-32000', 'rpc-32603', 'http-404'] as const)(
    'eth_getBlockReceipts refused as %s: receipts one by one',
    async (form) => {
      const run = await ingestThrough([{ kind: 'refuse', form, method: 'eth_getBlockReceipts', count: Number.POSITIVE_INFINITY }]);
      await expectSameAsClean(run);
      expect(run.warnings.filter((warning) => warning.message === 'retrying block fetch')).toEqual([]);
      expect(run.proxy.calls.get('eth_getTransactionReceipt')).toBeGreaterThan(0);
    },
  );

  test.each([
    [-32000, 'header not found'],
    [-32000, 'missing trie node 5cb0... (path ) <nil>'],
    [-32603, 'Internal error'],
  ])('%i "%s" is transient: retried, never taken for a refusal', async (code, message) => {
    const run = await ingestThrough([{ kind: 'error', code, message, method: 'eth_getBlockReceipts', count: 3 }]);
    await expectSameAsClean(run);
    expect(run.proxy.served.error).toBe(3);
    expect(run.proxy.calls.get('eth_getTransactionReceipt') ?? 0).toBe(0);
  });
});

/** The request a rate limit answered, and the next one that asked for the same block again (its retry). */
function retryOfRateLimited(run: Run) {
  const index = run.proxy.requests.findIndex((request) => request.outcome === 'rateLimit');
  const limited = run.proxy.requests[index]!;
  const block = limited.firstParams[limited.methods.indexOf('eth_getBlockByNumber')];
  const next = run.proxy.requests
    .slice(index + 1)
    .find((request) => request.methods.some((method, call) => method === 'eth_getBlockByNumber' && request.firstParams[call] === block))!;
  return { limited, next };
}

describe('rate limits', () => {
  test('429 with Retry-After: 2 is honoured (the wait measured at the node), then the ingest finishes', async () => {
    const run = await ingestThrough([{ kind: 'rateLimit', status: 429, retryAfter: '2', method: 'eth_getBlockByNumber', count: 1 }]);
    await expectSameAsClean(run);
    const { limited, next } = retryOfRateLimited(run);
    const waited = next.at - limited.at;
    expect(waited).toBeGreaterThanOrEqual(1_900);
    expect(waited).toBeLessThan(4_000);
  });

  test('503 with Retry-After as an HTTP date is honoured', async () => {
    const retryAfter = new Date(Date.now() + 3_000).toUTCString(); // whole seconds: 2-3 s from now
    const run = await ingestThrough([{ kind: 'rateLimit', status: 503, retryAfter, method: 'eth_getBlockByNumber', count: 1 }]);
    await expectSameAsClean(run);
    const { limited, next } = retryOfRateLimited(run);
    expect(next.at - limited.at).toBeGreaterThanOrEqual(1_000);
  });

  test('429 and 503 without Retry-After: the normal backoff (milliseconds here)', async () => {
    const run = await ingestThrough([
      { kind: 'rateLimit', status: 429, count: 3 },
      { kind: 'rateLimit', status: 503, count: 3 },
    ]);
    await expectSameAsClean(run);
    expect(run.proxy.served.rateLimit).toBe(6);
    expect(run.ms).toBeLessThan(20_000);
  });

  test('429 on the very first request of the ingest CLI: retried, the run finishes (it used to exit 1)', async () => {
    const proxy = await startRpcProxy(anvil.rpcUrl, { faults: [{ kind: 'rateLimit', status: 429, method: 'eth_chainId', count: 2 }] });
    try {
      const tableName = `${table.name}-cli`;
      const output = await new Promise<{ code: number | null; text: string }>((resolve) => {
        let text = '';
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            'scripts/ingest.ts',
            '--rpc-url',
            proxy.url,
            '--from-block',
            '0',
            '--to-block',
            String(head),
            '--rpc-batch-size',
            '10',
          ],
          { cwd: ROOT, env: { ...process.env, TABLE_NAME: tableName, POWERTOOLS_LOG_LEVEL: 'ERROR' }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.on('exit', (code) => resolve({ code, text }));
      });
      expect(output.text).toContain('retrying eth_chainId');
      expect(output.code, output.text).toBe(0);
      expect(proxy.served.rateLimit).toBe(2);
      expect(Math.max(...proxy.requests.map((request) => request.size))).toBeLessThanOrEqual(10);
      expect(comparable(await tableSnapshot(tableName))).toEqual(comparable(clean));
    } finally {
      await proxy.close();
    }
  }, 120_000);
});

describe('broken batch answers, resets and slow answers', () => {
  test.each([
    ['entries dropped', [{ kind: 'drop', entries: 2, count: 6 }]],
    ['entries of unknown ids', [{ kind: 'oversized', extra: 'unknownId', count: 6 }]],
    ['ids answered twice', [{ kind: 'oversized', extra: 'duplicateId', count: 6 }]],
    ['resets before the answer', [{ kind: 'reset', count: 4 }]],
    ['resets in the middle of a batch answer', [{ kind: 'reset', when: 'midAnswer', count: 4 }]],
    ['slow answers past the timeout', [{ kind: 'slow', ms: 1_200, count: 2 }]],
    ['answers that never come', [{ kind: 'hang', count: 2 }]],
  ] as [string, FaultRule[]][])('%s: retried, nothing lost or duplicated', async (_name, faults) => {
    const run = await ingestThrough(faults, { timeoutMs: 1_000 });
    await expectSameAsClean(run);
  });
});

describe("a block whose answers take longer than the client's timeout", () => {
  /** The chain's block of the most transactions. */
  async function largestBlock(): Promise<{ number: number; transactions: number }> {
    let largest = { number: 0, transactions: -1 };
    for (let number = 0; number <= head; number += 1) {
      const block = await publicClient(anvil.rpcUrl).getBlock({ blockNumber: BigInt(number) });
      if (block.transactions.length > largest.transactions) largest = { number, transactions: block.transactions.length };
    }
    return largest;
  }

  test('its receipts get a timeout that grows with each timed-out attempt, its traces come from trace_block once the callTracer times out', async () => {
    const block = await largestBlock();
    expect(block.transactions).toBeGreaterThanOrEqual(1);
    // Longer than the client's timeout sized to this block (1,000 ms + 10 ms a transaction): a fixed
    // timeout met it on every attempt, and the chain's ingest stopped at this block.
    const slowMs = 1_000 + 10 * block.transactions + 600;
    const run = await ingestThrough(
      [
        { kind: 'slow', ms: slowMs, method: 'eth_getBlockReceipts', block: block.number, count: Number.POSITIVE_INFINITY },
        { kind: 'hang', method: 'debug_traceBlockByNumber', block: block.number, count: Number.POSITIVE_INFINITY },
      ],
      { timeoutMs: 1_000 },
    );
    await expectSameAsClean(run);
    const retries = run.warnings.filter(
      (warning) => warning.message === 'retrying block fetch' && warning.details?.blockNumber === block.number,
    );
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.details?.nextTimeoutMs).toBeGreaterThan(slowMs);
    expect(run.warnings.map((warning) => warning.message)).toContain(
      'block traces timed out with the callTracer: this block read with trace_block',
    );
    expect(run.proxy.calls.get('trace_block')).toBeGreaterThanOrEqual(1);
  }, 120_000);
});

describe('random provider faults (seeded property)', () => {
  const methods = [
    'eth_getBlockByNumber',
    'eth_getBlockReceipts',
    'debug_traceBlockByNumber',
    'eth_call',
    'eth_getCode',
    'eth_getBalance',
    undefined,
  ];
  const method = fc.constantFrom(...methods);
  const count = fc.integer({ min: 1, max: 3 });
  const fault: fc.Arbitrary<FaultRule> = fc.oneof(
    fc.record({
      kind: fc.constant('rateLimit' as const),
      status: fc.constantFrom(429 as const, 503 as const),
      retryAfter: fc.constantFrom(undefined, '0'),
      method,
      count,
    }),
    fc.record({ kind: fc.constant('reset' as const), when: fc.constantFrom('before' as const, 'midAnswer' as const), method, count }),
    fc.record({ kind: fc.constant('malformed' as const), method, count }),
    fc.record({ kind: fc.constant('drop' as const), entries: fc.integer({ min: 1, max: 3 }), method, count }),
    fc.record({
      kind: fc.constant('oversized' as const),
      extra: fc.constantFrom('unknownId' as const, 'duplicateId' as const),
      method,
      count,
    }),
    fc.record({ kind: fc.constant('slow' as const), ms: fc.integer({ min: 10, max: 300 }), method, count }),
    fc.record({ kind: fc.constant('hang' as const), method, count: fc.constant(1) }),
    // A JSON-RPC error for an eth_call (here an aggregate3): a fault of the provider, not the contracts' answer.
    fc.record({
      kind: fc.constant('error' as const),
      code: fc.constantFrom(-32005, -32603),
      message: fc.constantFrom('rate limit exceeded', 'request timed out'),
      method: fc.constant('eth_call'),
      count,
    }),
    fc.record({
      kind: fc.constant('batchLimit' as const),
      max: fc.integer({ min: 1, max: 20 }),
      form: fc.constantFrom(...BATCH_LIMIT_FORMS),
      count: fc.constant(Number.POSITIVE_INFINITY),
    }),
    // A method with a fallback that gives the same table.
    fc.record({
      kind: fc.constant('refuse' as const),
      form: fc.constantFrom(...REFUSAL_FORMS),
      method: fc.constant('eth_getBlockReceipts'),
      count: fc.constant(Number.POSITIVE_INFINITY),
    }),
  );

  test('random faults over a varied chain: the ingest finishes and the table equals a clean ingest, item for item', async () => {
    const seed = Number(process.env.FAULT_SEED ?? Date.now() % 2 ** 31);
    console.log(`random provider faults: seed ${seed} (FAULT_SEED=${seed} replays it)`);
    await fc.assert(
      fc.asyncProperty(fc.array(fault, { minLength: 1, maxLength: 5 }), fc.constantFrom(10, 50, 100), async (faults, batchSize) => {
        const run = await ingestThrough(structuredClone(faults), { batchSize, timeoutMs: 1_000 });
        expect(run.result.advanced).toBe(head + 1);
        expect(comparable(await tableSnapshot(run.tableName))).toEqual(comparable(clean));
      }),
      { seed, numRuns: 4, endOnFailure: true },
    );
  }, 240_000);
});
