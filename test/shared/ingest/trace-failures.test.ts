/**
 * A block's traces that keep failing, and fallbacks that are not for good (shared/ingest/fetch-block.ts),
 * between the ingest and a real anvil through the JSON-RPC fault proxy (test/support/rpc-fault-proxy.ts):
 *
 *  - one block whose debug_traceBlockByNumber answer always fails (an `{error: "execution timeout"}`
 *    entry, a -32000 "execution timeout", an answer over the size limit) used to stop the chain's
 *    ingest for good (RetriesExhaustedError on every run): now that block is stored without traces
 *    (logged), the others keep theirs, and a repair run re-reads them;
 *  - an outage answered in refusal-like words under HTTP 5xx used to switch traces off for the
 *    process; and any fallback (callTracer -> trace_block -> none, eth_getBlockReceipts -> one receipt
 *    per transaction) now tries the preferred method again every RETRY_PREFERRED_EVERY_BLOCKS blocks
 *    or RETRY_PREFERRED_EVERY_MS.
 */
import { storedEntriesOf } from '../../../shared/table/buckets';
import { createWalletClient, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import type { RetryPolicy } from '../../../shared/chain/retry';
import { BlockSource, RETRY_PREFERRED_EVERY_MS, TRACE_ATTEMPTS_PER_BLOCK } from '../../../shared/ingest/fetch-block';
import { ingestRange, type IngestResult } from '../../../shared/ingest/ingest';
import { expandInternalTransaction, expandTransaction } from '../../../shared/table/compact';
import { startRpcProxy, type FaultRule, type RpcProxy } from '../../support/rpc-fault-proxy';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { publicClient } from './support/truth';
import { variedActivity } from './support/varied-chain';

const table = useTestTable('tracefail');
const CHAIN_ID = 31337;
const FAST: RetryPolicy = { attempts: 20, baseDelayMs: 10, maxDelayMs: 100 };
let anvil: Anvil;
let head: number;
let clean: Record<string, unknown>[];
/** Blocks with transactions, and one of them whose transactions make internal calls (when the chain has one). */
let txBlocks: number[];
let victim: number;
let tables = 0;

type Warning = { message: string; details?: Record<string, unknown> };

const comparable = (items: Record<string, unknown>[]) =>
  items.map((item) => Object.fromEntries(Object.entries(item).filter(([key]) => !['updatedAt', 'writtenAt', 'ingestedAt'].includes(key))));

/** Items of one kind; internal transactions as records (their items are compacted: shared/table/compact.ts). */
const ofKind = (items: Record<string, unknown>[], kind: string) =>
  items
    .flatMap((item) => storedEntriesOf(item)) // internal transactions' block buckets (table/buckets.ts)
    .filter((item) => item.kind === kind)
    .map((item) => (kind === 'internalTransaction' ? (expandInternalTransaction(item) as unknown as Record<string, unknown>) : item));

/** The transactions as records (items are compacted: shared/table/compact.ts), one per hash. */
const transactionsOf = (items: Record<string, unknown>[]) => {
  const byHash = new Map<string, Record<string, unknown>>();
  for (const item of ofKind(items, 'transaction')) {
    const record = expandTransaction(item) as unknown as Record<string, unknown>;
    byHash.set(String(record.hash), record);
  }
  return [...byHash.values()];
};

async function ingestThrough(
  faults: FaultRule[],
  options: { maxResponseBytes?: number; tableName?: string; from?: number; to?: number; repair?: boolean } = {},
): Promise<{ result: IngestResult; tableName: string; proxy: RpcProxy; warnings: Warning[] }> {
  const proxy = await startRpcProxy(anvil.rpcUrl, { faults });
  const warnings: Warning[] = [];
  const log = {
    info: () => undefined,
    warn: (message: string, details?: Record<string, unknown>) => void warnings.push({ message, details }),
  };
  tables += 1;
  const tableName = options.tableName ?? `${table.name}-${tables}`;
  try {
    const result = await inTable(tableName, () =>
      ingestRange({
        chainId: CHAIN_ID,
        client: createChainClient(proxy.url, { timeoutMs: 5_000, log, retry: FAST, maxResponseBytes: options.maxResponseBytes }),
        retry: FAST,
        log,
        from: options.from ?? 0,
        to: options.to ?? head,
        repair: options.repair ?? false,
      }),
    );
    return { result, tableName, proxy, warnings };
  } finally {
    await proxy.close();
  }
}

/**
 * Internal transactions: a forwarder (raw bytecode: CALL(gas, recipient, callvalue, no data)) called
 * with value a few times, one block each.
 */
async function internalCalls(rpcUrl: string, times: number): Promise<void> {
  const account = privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]!);
  const recipient = privateKeyToAccount(ANVIL_PRIVATE_KEYS[2]!).address.slice(2).toLowerCase();
  const runtime = `600060006000600034${'73'}${recipient}5af100`;
  const init = `0x602180600b6000396000f3${runtime}` as Hex;
  const wallet = createWalletClient({ chain: { ...anvilChain, id: CHAIN_ID }, transport: http(rpcUrl) });
  const client = publicClient(rpcUrl);
  const deployed = await client.waitForTransactionReceipt({
    hash: await wallet.sendTransaction({ account, data: init }),
    pollingInterval: 20,
  });
  for (let time = 0; time < times; time += 1) {
    const hash = await wallet.sendTransaction({
      account,
      to: deployed.contractAddress!,
      value: parseEther('0.001') * BigInt(time + 1),
      gas: 100_000n,
    });
    await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await variedActivity(anvil.rpcUrl, CHAIN_ID, 3);
  await internalCalls(anvil.rpcUrl, 3);
  head = Number(await publicClient(anvil.rpcUrl).getBlockNumber());
  const run = await ingestThrough([]);
  clean = await tableSnapshot(run.tableName);
  txBlocks = [...new Set(transactionsOf(clean).map((item) => Number(item.blockNumber)))].sort((a, b) => a - b);
  const internal = ofKind(clean, 'internalTransaction').map((item) => Number(item.blockNumber));
  // A block in the middle, with internal transactions if the chain has any.
  victim = internal.find((number) => number > txBlocks[0]! && number < txBlocks.at(-1)!) ?? txBlocks[Math.floor(txBlocks.length / 2)]!;
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('one block whose traces always fail: stored without traces, the ingest finishes', () => {
  const cases: [string, () => FaultRule[], { maxResponseBytes?: number }][] = [
    [
      'an {error: "execution timeout"} entry in debug_traceBlockByNumber',
      () => [
        {
          kind: 'transform',
          method: 'debug_traceBlockByNumber',
          block: victim,
          count: Number.POSITIVE_INFINITY,
          transform: (result) => (result as { txHash: string }[]).map((entry) => ({ txHash: entry.txHash, error: 'execution timeout' })),
        },
      ],
      {},
    ],
    [
      'a -32000 "execution timeout" (the tracer timed out)',
      () => [
        {
          kind: 'error',
          code: -32000,
          message: 'execution timeout',
          method: 'debug_traceBlockByNumber',
          block: victim,
          count: Number.POSITIVE_INFINITY,
        },
      ],
      {},
    ],
    [
      'an answer over the response size limit',
      () => [
        {
          kind: 'oversized',
          extra: 'padding',
          bytes: 400_000,
          method: 'debug_traceBlockByNumber',
          block: victim,
          count: Number.POSITIVE_INFINITY,
        },
      ],
      { maxResponseBytes: 300_000 },
    ],
  ];

  test.each(cases)(
    '%s',
    async (_name, faults, options) => {
      const run = await ingestThrough(faults(), options);
      expect(run.result.advanced).toBe(head + 1);
      const items = await tableSnapshot(run.tableName);

      // The block's transactions: no traces (as on a node without a tracer), everything else as clean.
      const transactions = transactionsOf(items);
      const hit = transactions.filter((item) => item.blockNumber === victim);
      expect(hit.length).toBeGreaterThan(0);
      expect(hit.every((item) => item.tracesAvailable === false)).toBe(true);
      expect(transactions.filter((item) => item.blockNumber !== victim).every((item) => item.tracesAvailable === true)).toBe(true);

      // The other blocks keep their internal transactions.
      const others = (list: Record<string, unknown>[]) =>
        comparable(ofKind(list, 'internalTransaction').filter((item) => item.blockNumber !== victim));
      expect(others(clean).length, 'the chain has internal transactions in other blocks').toBeGreaterThan(0);
      expect(ofKind(clean, 'internalTransaction').some((item) => item.blockNumber === victim)).toBe(true);
      expect(others(items)).toEqual(others(clean));
      expect(ofKind(items, 'internalTransaction').filter((item) => item.blockNumber === victim)).toEqual([]);

      // Said once, naming the block.
      const warned = run.warnings.filter((warning) => warning.message.includes('stored without traces'));
      expect(warned).toHaveLength(1);
      expect(warned[0]!.details).toMatchObject({ blockNumber: victim, attempts: TRACE_ATTEMPTS_PER_BLOCK });
      expect(warned[0]!.message).toContain(`block ${victim}`);

      // A repair run over that block, once the node traces it, gives the table of a clean ingest.
      const repair = await ingestThrough([], { tableName: run.tableName, from: victim, to: victim, repair: true });
      expect(repair.result.repaired).toBe(1);
      expect(comparable(await tableSnapshot(run.tableName))).toEqual(comparable(clean));
    },
    120_000,
  );

  test('rate limits on the traces are not counted against the block: retried, traces kept', async () => {
    const run = await ingestThrough([
      { kind: 'rateLimit', status: 429, method: 'debug_traceBlockByNumber', block: victim, count: TRACE_ATTEMPTS_PER_BLOCK + 2 },
    ]);
    expect(run.result.advanced).toBe(head + 1);
    expect(run.proxy.served.rateLimit).toBe(TRACE_ATTEMPTS_PER_BLOCK + 2);
    expect(comparable(await tableSnapshot(run.tableName))).toEqual(comparable(clean));
  }, 120_000);
});

describe('fallbacks are not for good', () => {
  let proxy: RpcProxy;
  const warnings: Warning[] = [];
  const log = { warn: (message: string, details?: Record<string, unknown>) => void warnings.push({ message, details }) };

  beforeAll(async () => {
    proxy = await startRpcProxy(anvil.rpcUrl);
  });

  afterEach(() => {
    proxy.clear();
    proxy.calls.clear();
    warnings.length = 0;
    vi.useRealTimers();
  });

  afterAll(async () => {
    await proxy?.close();
  });

  const source = (every?: { blocks: number; ms: number }) =>
    new BlockSource(createChainClient(proxy.url, { log, retry: FAST }), FAST, log, undefined, every ? { retryPreferredEvery: every } : {});

  const outage = (status: number, body: unknown): FaultRule => ({
    kind: 'httpError',
    status,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    method: 'debug_traceBlockByNumber',
    count: 2,
  });

  test('an outage under HTTP 500 / 502 in refusal-like words is retried: traces stay with the callTracer', async () => {
    proxy.inject(
      outage(500, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'The API is not available right now' } }),
      outage(502, 'upstream api not available'),
    );
    const blocks = source();
    for (const number of txBlocks.slice(0, 3)) {
      const bundle = await blocks.fetch(BigInt(number));
      expect(bundle.traces).not.toBeNull();
    }
    expect(proxy.served.httpError).toBe(4);
    expect(blocks.capabilities().traceMethod).toBe('callTracer');
    expect(proxy.calls.get('trace_block') ?? 0).toBe(0);
  });

  test('a trace refusal that was wrong: callTracer is tried again after the period (blocks) and kept', async () => {
    proxy.inject({ kind: 'refuse', form: 'rpc-32601', method: 'debug_traceBlockByNumber', count: 1 });
    const blocks = source({ blocks: 4, ms: Number.POSITIVE_INFINITY });
    await blocks.fetch(BigInt(txBlocks[0]!));
    expect(blocks.capabilities().traceMethod).toBe('parity');
    for (const number of txBlocks.slice(1, 8)) await blocks.fetch(BigInt(number));
    expect(blocks.capabilities().traceMethod).toBe('callTracer');
    expect(warnings.some((warning) => warning.message.includes('debug_traceBlockByNumber is served again'))).toBe(true);
    const traces = (await blocks.fetch(BigInt(txBlocks[8]!))).traces;
    expect(traces).not.toBeNull();
  });

  test('neither trace method, then both again: found after RETRY_PREFERRED_EVERY_MS (the clock)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-01-01T00:00:00Z'));
    proxy.inject({ kind: 'refuse', form: 'rpc-32601', method: ['debug_traceBlockByNumber', 'trace_block'], count: 2 });
    const blocks = source();
    expect((await blocks.fetch(BigInt(txBlocks[0]!))).traces).toBeNull();
    expect(blocks.capabilities().traceMethod).toBe('none');
    expect((await blocks.fetch(BigInt(txBlocks[1]!))).traces).toBeNull();
    vi.setSystemTime(new Date(Date.now() + RETRY_PREFERRED_EVERY_MS));
    expect((await blocks.fetch(BigInt(txBlocks[2]!))).traces).not.toBeNull();
    expect(blocks.capabilities().traceMethod).toBe('callTracer');
  });

  test('a node that truly refuses: one refused try per period, the fallback answers meanwhile', async () => {
    proxy.inject({ kind: 'refuse', form: 'rpc-32601', method: 'debug_traceBlockByNumber', count: Number.POSITIVE_INFINITY });
    const blocks = source({ blocks: 3, ms: Number.POSITIVE_INFINITY });
    for (const number of txBlocks.slice(0, 7)) expect((await blocks.fetch(BigInt(number))).traces).not.toBeNull();
    expect(blocks.capabilities().traceMethod).toBe('parity');
    // The first read, then one try every 3 blocks.
    expect(proxy.calls.get('debug_traceBlockByNumber')).toBe(3);
  });

  test('eth_getBlockReceipts refused once: tried again after the period, and kept', async () => {
    proxy.inject({ kind: 'refuse', form: 'rpc-32601', method: 'eth_getBlockReceipts', count: 1 });
    const blocks = source({ blocks: 3, ms: Number.POSITIVE_INFINITY });
    await blocks.fetch(BigInt(txBlocks[0]!));
    expect(blocks.capabilities().blockReceipts).toBe(false);
    for (const number of txBlocks.slice(1, 6)) await blocks.fetch(BigInt(number));
    expect(blocks.capabilities().blockReceipts).toBe(true);
    proxy.calls.clear();
    await blocks.fetch(BigInt(txBlocks[6]!));
    expect(proxy.calls.get('eth_getTransactionReceipt') ?? 0).toBe(0);
  });
});
