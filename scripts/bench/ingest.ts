/**
 * `npm run bench:ingest [-- --blocks 2000] [--strict] [--out bench/results]`: how fast the ingest
 * writes a chain into the table, against how fast the same data can merely be read from the node.
 *
 * 1. History: a fresh anvil, the demo (deploy + activity, ~100 blocks), then blocks up to --blocks
 *    carrying 1 to 5 transactions each (native transfers, ERC-20 transfers between a few dozen
 *    holders, some ERC-721 mints), sent as one JSON-RPC batch per block and mined with evm_mine
 *    (automine off); a few short empty stretches with anvil_mine.
 * 2. Raw fetch (the baseline): for every block 1..N what the ingest reads of it (eth_getBlockByNumber
 *    with transactions; then, for blocks with transactions, eth_getBlockReceipts and
 *    debug_traceBlockByNumber with the callTracer), with the ingest's own JSON-RPC client
 *    (shared/chain/client.ts: batching) and its concurrency (4 blocks in flight), no validation.
 * 3. Ingest: `ingestRange` of blocks 1..N, with order deposit detection listening as in the Lambda,
 *    into a fresh table on the embedded DynamoDB, started in a
 *    process of its own (in memory; --table-in-process: in this one), timed. Observed, never changed:
 *    every DynamoDB command through an SDK middleware on the shared `db` client (which also asks for ReturnConsumedCapacity), every JSON-RPC
 *    HTTP request through a wrapper of global fetch. Those intervals give the phase timings: each
 *    instant of the ingest is charged to the most downstream activity in flight (state writes >
 *    immutable writes > table reads > state reads over RPC > other RPC > block fetch), and instants
 *    with nothing in flight to CPU (derive, item building, SDK marshalling).
 * 4. Derive: the ingest's own block reader (BlockSource, validated) reads every block again and
 *    deriveBlock + immutableItems are timed on it (pure CPU).
 *
 * 5. Table floor: every write the ingest sent, captured at the table's edge during step 3 (item
 *    images put, updates as the item's final image, deletes; lib/floor-writes.ts), put into an EMPTY
 *    table of a FRESH embedded DynamoDB in a process of its own (the ingest's table process is
 *    stopped first), nothing else running, with the table layer's bulk writer (writeItems) at each
 *    --floor-concurrency (default 16, the table layer's own, and 32 requests in flight; floor.ts, a
 *    child process); the floor is the fastest of them (a concurrency at which the table fails, e.g.
 *    requests timing out on a starved machine, is recorded and skipped).
 *
 * The throughput target (issue 15): ingest time <= 1.3 x the slowest unavoidable stage, the larger of
 * the raw fetch (2) and the table floor (5), both measured in this run. Reports blocks/s, DynamoDB
 * write units and calls per block, the ratio (PASS/FAIL; exit 1 only with --strict), and where the
 * ingest's time goes by stage (lib/stages.ts, observed by lib/ingest-probe.ts). Writes
 * bench/results/ingest-<time>.json and .md, and bench/results/ingest-latest.md. Not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serialize } from 'node:v8';
import cliProgress from 'cli-progress';
import {
  createPublicClient,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  parseEther,
  slice,
  toBytes,
  toHex,
  type Address,
  type Hex,
} from 'viem';
import { createChainClient, type ChainClient } from '../../shared/chain/client';
import { DEFAULT_RETRY_POLICY } from '../../shared/chain/retry';
import { ensureTable, localClient } from '../lib/local-table/ensure-table';
import { scanItems } from '../lib/local-table/scan';
import { startLocalDynamo } from '../lib/local-table/server';
import { startAnvil, type Anvil } from '../lib/anvil';
import { prng as random } from './dataset/chain';
import { startTableProcess } from '../lib/table-process';
import { measureBackfill } from './lib/backfill-speedup';
import { loadContracts } from '../lib/contracts';
import { deployDemoContracts, generateDemoActivity, type DemoManifest } from '../lib/demo-activity';
import { expiringStoredNote, familyMarkdown, itemSize, perUnit, recordWriteCommand, WriteLedger } from './lib/write-families';
import { captureWrite, emptyCapture, floorInput, type Item as FloorItem } from './lib/floor-writes';
import { installProbe } from './lib/ingest-probe';
import { STAGE_LABELS, stageTimes } from './lib/stages';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Ingest time over the slowest unavoidable stage, max(raw fetch, table floor) (issue 15). */
const TARGET_RATIO = 1.3;
const CHAIN_ID = 31337;
const IN_FLIGHT_BLOCKS = 4; // the ingest's default prefetch
const USAGE =
  'usage: npm run bench:ingest [-- --blocks N] [--strict] [--table-in-process] [--floor-concurrency 16,32] [--backfill-workers 1,2,4] [--out DIR]';

// ---------------------------------------------------------------------------------------------------
// Observation: intervals of RPC and DynamoDB work

type Category = 'stateWrites' | 'immutableWrites' | 'tableReads' | 'stateReadsRpc' | 'otherRpc' | 'fetchRpc';

/** Highest first: an instant with several activities in flight is charged to the first of them. */
const PRIORITY: Category[] = ['stateWrites', 'immutableWrites', 'tableReads', 'stateReadsRpc', 'otherRpc', 'fetchRpc'];

const CATEGORY_LABELS: Record<Category | 'cpu', string> = {
  stateWrites: 'state writes (TransactWriteItems / UpdateItem / PutItem: balances, holders, NFTs, collections, addresses, cursor)',
  immutableWrites: 'immutable writes (BatchWriteItem: manifest + block items)',
  tableReads: 'table reads (GetItem / BatchGetItem / Query: cursor, manifest, stored addresses and balances)',
  stateReadsRpc: 'state reads over RPC (eth_call balanceOf / ownerOf / tokenURI / probes, eth_getCode)',
  otherRpc: 'other RPC (eth_blockNumber, block hash checks)',
  fetchRpc: 'block fetch over RPC (block, receipts, traces), when the writer waited for it',
  cpu: 'no I/O in flight: CPU (derive, items, SDK marshalling) and event loop',
};

const FETCH_METHODS = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'debug_traceBlockByNumber',
  'trace_block',
  'eth_getTransactionReceipt',
]);
const STATE_RPC_METHODS = new Set(['eth_call', 'eth_getCode', 'eth_getBalance', 'eth_getStorageAt']);

interface Interval {
  category: Category;
  start: number;
  end: number;
}

class Observer {
  recording = false;
  /** Requests to this URL are the node's JSON-RPC. */
  rpcUrl: string | undefined;
  intervals: Interval[] = [];
  rpcMethods = new Map<string, number>();
  rpcRequests = 0;
  rpcBytes = 0;
  dynamoCalls = new Map<string, number>();
  /** Summed latency per command (calls overlap: concurrent writes each count their own time). */
  dynamoMs = new Map<string, number>();
  tableWcu = 0;
  itemsPut = 0;
  itemsPutBytes = 0;
  itemsDeleted = 0;
  updates = 0;
  /** Every write request, priced by item family at the end (lib/write-families.ts). */
  ledger = new WriteLedger();
  /** Every write request as sent, for the table floor (lib/floor-writes.ts). */
  capture = emptyCapture();

  reset(): void {
    this.intervals = [];
    this.rpcMethods.clear();
    this.rpcRequests = 0;
    this.rpcBytes = 0;
    this.dynamoCalls.clear();
    this.dynamoMs.clear();
    this.tableWcu = 0;
    this.itemsPut = 0;
    this.itemsPutBytes = 0;
    this.itemsDeleted = 0;
    this.updates = 0;
    this.ledger = new WriteLedger();
    this.capture = emptyCapture();
  }
}

const observer = new Observer();

/** Wraps global fetch (viem's HTTP transport uses it) to time each JSON-RPC request, body included. */
function observeRpc(): void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // Only the node's JSON-RPC: the embedded DynamoDB's front server also talks to dynalite over HTTP.
    if (!observer.recording || !observer.rpcUrl || !url.startsWith(observer.rpcUrl)) return original(input, init);
    const start = performance.now();
    const response = await original(input, init);
    const text = await response.text();
    const end = performance.now();
    let methods: string[] = [];
    try {
      const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as { method?: string } | { method?: string }[];
      methods = (Array.isArray(body) ? body : [body]).map((call) => call.method ?? '?');
    } catch {
      methods = ['?'];
    }
    for (const method of methods) observer.rpcMethods.set(method, (observer.rpcMethods.get(method) ?? 0) + 1);
    observer.rpcRequests += 1;
    observer.rpcBytes += text.length;
    const category: Category = methods.some((m) => FETCH_METHODS.has(m))
      ? 'fetchRpc'
      : methods.some((m) => STATE_RPC_METHODS.has(m))
        ? 'stateReadsRpc'
        : 'otherRpc';
    observer.intervals.push({ category, start, end });
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function observePut(item: Record<string, unknown>): void {
  observer.itemsPut += 1;
  observer.itemsPutBytes += itemSize(item);
}

type Json = Record<string, any>;

const WRITE_COMMANDS = new Set(['BatchWriteItem', 'TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem']);

function categoryOfCommand(command: string): Category {
  if (command === 'BatchWriteItem') return 'immutableWrites';
  if (WRITE_COMMANDS.has(command)) return 'stateWrites';
  return 'tableReads';
}

/** Observes every command of the shared document client: timing, calls, items written, consumed capacity. */
function observeDynamo(db: { middlewareStack: { add: (...args: any[]) => void } }): void {
  db.middlewareStack.add(
    (next: (args: { input: Json }) => Promise<{ output: Json }>, context: { commandName?: string }) => async (args: { input: Json }) => {
      if (!observer.recording) return next(args);
      const command = (context.commandName ?? '?').replace(/Command$/, '');
      if (WRITE_COMMANDS.has(command)) {
        args.input.ReturnConsumedCapacity ??= 'INDEXES';
        recordWrite(command, args.input);
      }
      const start = performance.now();
      const result = await next(args);
      const end = performance.now();
      observer.intervals.push({ category: categoryOfCommand(command), start, end });
      observer.dynamoCalls.set(command, (observer.dynamoCalls.get(command) ?? 0) + 1);
      observer.dynamoMs.set(command, (observer.dynamoMs.get(command) ?? 0) + (end - start));
      const consumed = result.output?.ConsumedCapacity as Json | Json[] | undefined;
      for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : [])
        observer.tableWcu += Number(entry.CapacityUnits ?? 0);
      return result;
    },
    { step: 'serialize', priority: 'high', name: 'benchObserver' },
  );
}

function recordWrite(command: string, input: Json): void {
  recordWriteCommand(observer.ledger, command, input);
  captureWrite(observer.capture, command, input);
  if (command === 'BatchWriteItem') {
    for (const requests of Object.values(input.RequestItems ?? {}) as Json[][]) {
      for (const request of requests) {
        if (request.PutRequest) observePut(request.PutRequest.Item);
        if (request.DeleteRequest) observer.itemsDeleted += 1;
      }
    }
  } else if (command === 'TransactWriteItems') {
    for (const action of (input.TransactItems ?? []) as Json[]) {
      if (action.Put) observePut(action.Put.Item);
      if (action.Update) observer.updates += 1;
      if (action.Delete) observer.itemsDeleted += 1;
    }
  } else if (command === 'PutItem') observePut(input.Item);
  else if (command === 'UpdateItem') observer.updates += 1;
  else if (command === 'DeleteItem') observer.itemsDeleted += 1;
}

/** Exclusive (by priority) and union time of each category over [from, to], in ms. */
function phaseTimings(intervals: Interval[], from: number, to: number) {
  const events: { time: number; category: Category; delta: number }[] = [];
  for (const interval of intervals) {
    const start = Math.max(from, interval.start);
    const end = Math.min(to, interval.end);
    if (end <= start) continue;
    events.push({ time: start, category: interval.category, delta: 1 }, { time: end, category: interval.category, delta: -1 });
  }
  events.sort((a, b) => a.time - b.time || a.delta - b.delta);
  const active = new Map<Category, number>(PRIORITY.map((category) => [category, 0]));
  const exclusive = new Map<Category | 'cpu', number>([...PRIORITY, 'cpu' as const].map((category) => [category, 0]));
  const union = new Map<Category, number>(PRIORITY.map((category) => [category, 0]));
  let last = from;
  const charge = (until: number) => {
    const span = until - last;
    if (span <= 0) return;
    const top = PRIORITY.find((category) => active.get(category)! > 0);
    exclusive.set(top ?? 'cpu', exclusive.get(top ?? 'cpu')! + span);
    for (const category of PRIORITY) if (active.get(category)! > 0) union.set(category, union.get(category)! + span);
  };
  for (const event of events) {
    charge(event.time);
    last = event.time;
    active.set(event.category, active.get(event.category)! + event.delta);
  }
  charge(to);
  return { exclusive: Object.fromEntries(exclusive), union: Object.fromEntries(union) };
}

// ---------------------------------------------------------------------------------------------------
// 1. History

interface History {
  head: number;
  manifest: DemoManifest;
  sent: { native: number; erc20: number; nftMint: number; setup: number };
  emptyBlocks: number;
  seconds: number;
}

async function buildHistory(rpcUrl: string, targetHead: number): Promise<History> {
  const started = performance.now();
  const client = createPublicClient({ transport: http(rpcUrl, { batch: { batchSize: 200, wait: 0 } }) });
  const call = (method: string, params: unknown[] = []) =>
    (client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });

  const deployment = await deployDemoContracts(rpcUrl);
  const manifest = await generateDemoActivity(rpcUrl, { deployment });
  const artifacts = await loadContracts();
  const accounts = ((await call('eth_accounts')) as Address[]).map((a) => getAddress(a));
  const recipients = [
    ...accounts,
    ...Array.from({ length: 40 }, (_, i) => getAddress(slice(keccak256(toBytes(`bench recipient ${i}`)), 12))),
  ];
  const nonces = new Map<Address, number>();
  for (const account of accounts) nonces.set(account, Number(await call('eth_getTransactionCount', [account, 'pending'])));
  const fees = { maxFeePerGas: toHex(50_000_000_000n), maxPriorityFeePerGas: toHex(1_000_000_000n) };
  const send = (from: Address, to: Address, gas: number, value: bigint, data?: Hex) => {
    const nonce = nonces.get(from)!;
    nonces.set(from, nonce + 1);
    return call('eth_sendTransaction', [{ from, to, gas: toHex(gas), value: toHex(value), nonce: toHex(nonce), data, ...fees }]);
  };
  const transfer = (to: Address, amount: bigint) =>
    encodeFunctionData({ abi: artifacts.DemoToken.abi, functionName: 'transfer', args: [to, amount] });

  const sent = { native: 0, erc20: 0, nftMint: 0, setup: 0 };
  let emptyBlocks = 0;
  await call('evm_setAutomine', [false]);
  // Setup block: the token's owner gives five more accounts DEMO to send around.
  const deployer = manifest.accounts.deployer;
  const holders = [manifest.accounts.busy, ...accounts.slice(5)];
  await Promise.all(
    accounts
      .slice(5)
      .map((holder) =>
        send(
          deployer,
          manifest.contracts.token,
          120_000,
          0n,
          encodeFunctionData({ abi: artifacts.DemoToken.abi, functionName: 'mint', args: [holder, parseEther('1000000')] }),
        ),
      ),
  );
  sent.setup += 5;
  await call('evm_mine');

  const next = random(20_261_122);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const senders = accounts.slice(2);
  let nftId = 1_000_000n;
  let head = Number(await call('eth_blockNumber'));
  const bar = new cliProgress.SingleBar(
    { format: 'history  |{bar}| block {value}/{total}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(targetHead, head);
  while (head < targetHead) {
    // A short empty stretch every 500 blocks (a real chain has some; anvil_mine makes them cheap).
    if (head % 500 === 250 && head + 10 <= targetHead) {
      await call('anvil_mine', [toHex(10)]);
      head += 10;
      emptyBlocks += 10;
      bar.update(head);
      continue;
    }
    const count = 1 + Math.floor(next() * 5);
    const requests: Promise<unknown>[] = [];
    for (let i = 0; i < count; i += 1) {
      const kind = next();
      if (kind < 0.45) {
        requests.push(send(pick(senders), pick(recipients), 21_000, parseEther('0.001') * BigInt(1 + Math.floor(next() * 100))));
        sent.native += 1;
      } else if (kind < 0.9) {
        requests.push(
          send(
            pick(holders),
            manifest.contracts.token,
            90_000,
            0n,
            transfer(pick(recipients), parseEther('0.01') * BigInt(1 + Math.floor(next() * 1000))),
          ),
        );
        sent.erc20 += 1;
      } else {
        nftId += 1n;
        const data = encodeFunctionData({ abi: artifacts.DemoNFT.abi, functionName: 'mint', args: [pick(recipients), nftId] });
        requests.push(send(deployer, manifest.contracts.nft, 250_000, 0n, data));
        sent.nftMint += 1;
      }
    }
    await Promise.all(requests);
    await call('evm_mine');
    head += 1;
    bar.update(head);
  }
  bar.stop();
  await call('evm_setAutomine', [true]);
  return { head, manifest, sent, emptyBlocks, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------------
// 2. Raw fetch

interface RawFetch {
  seconds: number;
  transactions: number;
  emptyBlocks: number;
  logs: number;
  erc20TransferLogs: number;
  traceFrames: number;
  reverted: number;
  rpcRequests: number;
  rpcCalls: number;
  responseBytes: number;
}

const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'));

async function rawFetch(client: ChainClient, from: number, to: number): Promise<RawFetch> {
  const call = (method: string, params: unknown[]) =>
    (client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });
  const totals = { transactions: 0, emptyBlocks: 0, logs: 0, erc20TransferLogs: 0, traceFrames: 0, reverted: 0 };
  const countFrames = (frame: { calls?: unknown[] } | undefined): number =>
    frame ? 1 + (frame.calls ?? []).reduce<number>((sum, child) => sum + countFrames(child as { calls?: unknown[] }), 0) : 0;
  const fetchBlock = async (number: number) => {
    const tag = toHex(number);
    const block = (await call('eth_getBlockByNumber', [tag, true])) as { transactions: unknown[] };
    if (block.transactions.length === 0) {
      totals.emptyBlocks += 1;
      return;
    }
    const [receipts, traces] = (await Promise.all([
      call('eth_getBlockReceipts', [tag]),
      call('debug_traceBlockByNumber', [tag, { tracer: 'callTracer' }]),
    ])) as [{ status: string; logs: { topics: string[] }[] }[], { result?: { calls?: unknown[] } }[]];
    totals.transactions += block.transactions.length;
    for (const receipt of receipts) {
      totals.logs += receipt.logs.length;
      totals.erc20TransferLogs += receipt.logs.filter((log) => log.topics[0] === TRANSFER_TOPIC && log.topics.length === 3).length;
      if (receipt.status !== '0x1') totals.reverted += 1;
    }
    for (const trace of traces) totals.traceFrames += countFrames(trace.result);
  };
  observer.reset();
  observer.recording = true;
  const bar = new cliProgress.SingleBar(
    { format: 'raw      |{bar}| block {value}/{total}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(to, from - 1);
  const started = performance.now();
  let nextBlock = from;
  await Promise.all(
    Array.from({ length: IN_FLIGHT_BLOCKS }, async () => {
      while (nextBlock <= to) {
        const number = nextBlock;
        nextBlock += 1;
        await fetchBlock(number);
        bar.increment();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  observer.recording = false;
  bar.stop();
  const rpcCalls = [...observer.rpcMethods.values()].reduce((sum, n) => sum + n, 0);
  return { seconds, ...totals, rpcRequests: observer.rpcRequests, rpcCalls, responseBytes: observer.rpcBytes };
}

// ---------------------------------------------------------------------------------------------------
// 3 and 4. Ingest, derive

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      blocks: { type: 'string', default: '2000' },
      strict: { type: 'boolean', default: false },
      'table-in-process': { type: 'boolean', default: false },
      'floor-concurrency': { type: 'string', default: '16,32' },
      // The parallel backfill's speed-up (lib/backfill-speedup.ts); none by default (minutes per run).
      'backfill-workers': { type: 'string', default: '' },
      out: { type: 'string', default: path.join(ROOT, 'bench', 'results') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!/^\d+$/.test(values.blocks) || Number(values.blocks) < 200)
    throw new Error(`--blocks must be a whole number of at least 200\n${USAGE}`);
  const blocks = Number(values.blocks);
  const floorConcurrencies = values['floor-concurrency'].split(',').map((value) => Number(value.trim()));
  if (floorConcurrencies.some((value) => !Number.isInteger(value) || value < 1))
    throw new Error(`--floor-concurrency must be whole numbers of at least 1, comma-separated\n${USAGE}`);

  // The embedded DynamoDB and the table first: shared/db/client.ts binds the endpoint at import.
  // Its own process by default: DynamoDB is a service of its own, and dynalite is single-threaded.
  const inProcess = values['table-in-process'];
  const dynamo = inProcess ? await startLocalDynamo({ host: '127.0.0.1', port: 0 }) : await startTableProcess();
  const tableName = `bench-ingest-${Date.now()}`;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const admin = localClient(dynamo.endpoint);
  await ensureTable(admin, tableName);
  const { db } = await import('../../shared/db/client');
  const { ingestRange } = await import('../../shared/ingest/ingest');
  const { BlockSource } = await import('../../shared/ingest/fetch-block');
  const { deriveBlock, tagTransactions } = await import('../../shared/ingest/derive');
  const { immutableItems } = await import('../../shared/ingest/items');
  const { orderDepositListener } = await import('../../shared/orders/deposits');
  observeDynamo(db);
  observeRpc();
  const probe = await installProbe();
  let tableOpen = true;

  let anvil: Anvil | undefined;
  try {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    observer.rpcUrl = anvil.rpcUrl;
    console.log(`anvil ${anvil.rpcUrl}; building a ${blocks}-block history…`);
    const history = await buildHistory(anvil.rpcUrl, blocks);
    const sentTransactions = Object.values(history.sent).reduce((sum, n) => sum + n, 0) + history.manifest.transactions.length;
    console.log(`history: ${history.head} blocks, ${sentTransactions} transactions in ${history.seconds.toFixed(1)} s`);

    const from = 1;
    const to = history.head;
    const count = to - from + 1;
    const raw = await rawFetch(createChainClient(anvil.rpcUrl), from, to);
    if (raw.transactions !== sentTransactions)
      throw new Error(`the chain holds ${raw.transactions} transactions, ${sentTransactions} were sent`);
    console.log(`raw fetch: ${count} blocks in ${raw.seconds.toFixed(2)} s (${(count / raw.seconds).toFixed(0)} blocks/s)`);

    observer.reset();
    observer.recording = true;
    const ingestBar = new cliProgress.SingleBar(
      { format: 'ingest   |{bar}| block {value}/{total} | {speed} blocks/s', hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    ingestBar.start(to, from - 1, { speed: '0.0' });
    const tableCpuBefore = 'pid' in dynamo ? processCpuSeconds(dynamo.pid) : undefined;
    const anvilCpuBefore = processCpuSeconds(anvil.process.pid!);
    const ownCpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = await ingestRange({
      chainId: CHAIN_ID,
      client: createChainClient(anvil.rpcUrl),
      from,
      to,
      listeners: [orderDepositListener],
      log: {
        info: () => undefined,
        warn: (message, details) => console.error(`\ningest warning: ${message} ${JSON.stringify(details ?? {})}`),
      },
      onBlock: ({ blockNumber }) =>
        ingestBar.update(blockNumber, { speed: ((blockNumber - from + 1) / ((performance.now() - started) / 1000)).toFixed(1) }),
    });
    const ended = performance.now();
    const tableCpuAfter = 'pid' in dynamo ? processCpuSeconds(dynamo.pid) : undefined;
    const anvilCpuAfter = processCpuSeconds(anvil.process.pid!);
    const ownCpu = process.cpuUsage(ownCpuBefore);
    observer.recording = false;
    ingestBar.stop();
    if (result.advanced !== count) throw new Error(`the ingest wrote ${result.advanced} blocks, expected ${count}`);
    const ingestSeconds = (ended - started) / 1000;
    console.log(`ingest: ${count} blocks in ${ingestSeconds.toFixed(2)} s (${(count / ingestSeconds).toFixed(1)} blocks/s)`);
    const phases = phaseTimings(observer.intervals, started, ended);
    const stages = stageTimes(probe.intervals, probe.batches, started + performance.timeOrigin, ended + performance.timeOrigin);
    const batchSizes = probe.batches.map((batch) => batch.blocks.length);
    const dynamoCalls = Object.fromEntries([...observer.dynamoCalls].sort((a, b) => b[1] - a[1]));
    const totalDynamoCalls = [...observer.dynamoCalls.values()].reduce((sum, n) => sum + n, 0);
    const ingestRpc = Object.fromEntries([...observer.rpcMethods].sort((a, b) => b[1] - a[1]));
    const ingestFigures = {
      seconds: round(ingestSeconds, 2),
      blocksPerSecond: round(count / ingestSeconds, 1),
      dynamo: {
        calls: totalDynamoCalls,
        callsPerBlock: round(totalDynamoCalls / count, 2),
        callsByCommand: dynamoCalls,
        meanLatencyMsByCommand: Object.fromEntries(
          [...observer.dynamoMs].map(([command, ms]) => [command, round(ms / observer.dynamoCalls.get(command)!, 2)]),
        ),
        tableWcu: round(observer.tableWcu, 1),
        tableWcuPerBlock: round(observer.tableWcu / count, 2),
        // From the write ledger, below (each index's projection priced).
        gsiWcuEstimate: 0,
        wcuPerBlockWithGsiEstimate: 0,
        itemsPut: observer.itemsPut,
        itemsPutPerBlock: round(observer.itemsPut / count, 2),
        itemsPutBytes: observer.itemsPutBytes,
        averageItemBytes: round(observer.itemsPutBytes / Math.max(1, observer.itemsPut), 0),
        updates: observer.updates,
        itemsDeleted: observer.itemsDeleted,
      },
      rpc: { httpRequests: observer.rpcRequests, callsByMethod: ingestRpc },
    };

    // 5 (reported next to the ratio). The table's floor: every item the ingest left, written again
    // into a fresh table with nothing else going on (BatchWriteItem, 25 items, 16 in flight).
    // Every item the ingest left: the write ledger's final sizes and stored bytes, and the table floor.
    const leftItems = await scanItems(admin, tableName);
    const ledgerReport = observer.ledger.report(leftItems);
    const writesByFamily = perUnit(ledgerReport, raw.transactions, raw.logs);
    // The GSIs' write units as the ledger prices them (each index's projection: an entry of keys, or the
    // item; a delete and a put when a key moves; nothing when a put moves no key of a keys-only index).
    ingestFigures.dynamo.gsiWcuEstimate = round(ledgerReport.groups.GSI?.writeUnits ?? 0, 1);
    ingestFigures.dynamo.wcuPerBlockWithGsiEstimate = round((observer.tableWcu + ingestFigures.dynamo.gsiWcuEstimate) / count, 2);
    // The table floor, in a fresh table process: this run's table process is stopped first.
    const capture = observer.capture;
    admin.destroy();
    await dynamo.close();
    tableOpen = false;
    const floor = await tableFloor(floorInput(capture, leftItems as FloorItem[]), floorConcurrencies, inProcess);
    console.log(
      `table floor: ${floor.puts} puts and ${floor.deletes} deletes into an empty table in ${floor.seconds.toFixed(2)} s (${floor.itemsPerSecond} items/s, ${floor.concurrency} in flight)`,
    );

    // 4. The ingest's reader again, and derive timed on what it returns.
    const source = new BlockSource(createChainClient(anvil.rpcUrl), DEFAULT_RETRY_POLICY, { warn: () => undefined });
    let deriveMs = 0;
    let itemsBuilt = 0;
    const readerStarted = performance.now();
    let readerNext = from;
    await Promise.all(
      Array.from({ length: IN_FLIGHT_BLOCKS }, async () => {
        while (readerNext <= to) {
          const number = readerNext;
          readerNext += 1;
          const bundle = await source.fetch(BigInt(number));
          const t0 = performance.now();
          const derived = deriveBlock(CHAIN_ID, bundle);
          tagTransactions(
            derived,
            () => false,
            () => false,
          );
          itemsBuilt += immutableItems(derived).length;
          deriveMs += performance.now() - t0;
        }
      }),
    );
    const readerSeconds = (performance.now() - readerStarted - deriveMs) / 1000;

    const backfillWorkers = values['backfill-workers'] ? values['backfill-workers'].split(',').map(Number) : [];
    if (backfillWorkers.some((value) => !Number.isInteger(value) || value < 1))
      throw new Error(`--backfill-workers must be whole numbers of at least 1, comma-separated\n${USAGE}`);
    const backfill = backfillWorkers.length > 0 ? await measureBackfill({ rpcUrl: anvil.rpcUrl, from, to, workers: backfillWorkers }) : [];

    const slowest = Math.max(raw.seconds, floor.seconds);
    const ratio = ingestSeconds / slowest;
    const pass = ratio <= TARGET_RATIO;
    const now = new Date();
    const report = {
      date: now.toISOString(),
      target: { ratio: TARGET_RATIO },
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? '?',
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
      },
      setup: {
        node: 'anvil (local, automine off while building; one evm_mine per block)',
        table: inProcess
          ? 'embedded DynamoDB (dynalite in memory + front server), in this process (--table-in-process)'
          : 'embedded DynamoDB (dynalite in memory + front server), in a process of its own (scripts/table-server.ts)',
        ingest: 'shared/ingest ingestRange, default options (prefetch 4) and order deposit detection, client shared/chain/client.ts',
        inFlightBlocksForRawFetch: IN_FLIGHT_BLOCKS,
      },
      chain: {
        blocks: count,
        range: { from, to },
        emptyBlocks: raw.emptyBlocks,
        emptyBlocksMinedByAnvilMine: history.emptyBlocks,
        transactions: raw.transactions,
        transactionsPerBlock: round(raw.transactions / count, 2),
        sent: { demo: history.manifest.transactions.length, ...history.sent },
        logs: raw.logs,
        erc20TransferLogs: raw.erc20TransferLogs,
        traceFrames: raw.traceFrames,
        reverted: raw.reverted,
        historySeconds: round(history.seconds, 1),
      },
      rawFetch: {
        seconds: round(raw.seconds, 2),
        blocksPerSecond: round(count / raw.seconds, 1),
        httpRequests: raw.rpcRequests,
        rpcCalls: raw.rpcCalls,
        responseBytes: raw.responseBytes,
      },
      ingest: ingestFigures,
      writesByFamily: {
        method:
          'every write request of the ingest, classified by the key of its item (scripts/bench/lib/write-families.ts): ceil(size / 1 KB) units per item (updates and deletes: the size of the item at the end of the run or as last put), doubled in TransactWriteItems, again on each GSI whose keys the item carries (ALL projection); stored bytes: the items left, + 100 B each',
        ...writesByFamily,
      },
      backfill:
        backfill.length > 0
          ? {
              method:
                'the CLI (scripts/ingest.ts) over the same blocks into a fresh table process each: sequential, then --workers N; wall time from spawn to exit',
              runs: backfill,
              tableFloorSeconds: round(floor.seconds, 2),
              note: 'one single-threaded embedded table serves every worker and the ingest: the table floor bounds any number of workers here',
            }
          : null,
      ratio: {
        ingestOverSlowestStage: round(ratio, 2),
        slowestStage: raw.seconds >= floor.seconds ? 'raw fetch' : 'table floor',
        slowestStageSeconds: round(slowest, 2),
        ingestOverRawFetch: round(ingestSeconds / raw.seconds, 2),
        ingestOverTableFloor: round(ingestSeconds / floor.seconds, 2),
        target: TARGET_RATIO,
        pass,
      },
      cpu: cpuDuringIngest({
        ingestProcess: (ownCpu.user + ownCpu.system) / 1e6,
        table: tableCpuBefore !== undefined && tableCpuAfter !== undefined ? tableCpuAfter - tableCpuBefore : undefined,
        node: anvilCpuBefore !== undefined && anvilCpuAfter !== undefined ? anvilCpuAfter - anvilCpuBefore : undefined,
        cores: os.cpus().length,
        rawSeconds: raw.seconds,
      }),
      tableCpu:
        tableCpuBefore !== undefined && tableCpuAfter !== undefined
          ? {
              seconds: round(tableCpuAfter - tableCpuBefore, 2),
              overRawFetch: round((tableCpuAfter - tableCpuBefore) / raw.seconds, 2),
              note: 'CPU time of the table process (single-threaded) while the ingest ran: no ingest of this run can be faster',
            }
          : null,
      tableFloor: {
        ...floor,
        seconds: round(floor.seconds, 2),
        overRawFetch: round(floor.seconds / raw.seconds, 2),
        itemsLeft: leftItems.length,
        /** Items left in the ingest's table (the cost model's stored items). */
        items: leftItems.length,
        note: 'every write the ingest sent, captured at the table edge (item images put, updates as the final image, deletes), put into an empty table of a fresh embedded DynamoDB process with nothing else running, by the table layer writeItems (BatchWriteItem of 25) at each concurrency tried; the fastest: the least time this table needs for the ingest writes',
      },
      stages: {
        method:
          'lib/stages.ts: inside a batch (ChainIngest writeBatch) each instant goes to the writer request in flight (cursor > state writes > item writes > manifests > positions > listeners > table reads > chain reads > head checks), else derive (CPU); between batches to the same, else fetchWait (only the prefetcher fetch in flight), else idle',
        exclusiveMs: mapValues(stages, (ms) => round(ms, 0)),
        exclusiveShare: mapValues(stages, (ms) => round(ms / (ingestSeconds * 1000), 3)),
        labels: STAGE_LABELS,
        batches: batchSizes.length,
        blocksPerBatch: round(batchSizes.reduce((sum, n) => sum + n, 0) / Math.max(1, batchSizes.length), 2),
        batchesUnobserved: probe.batchesUnobserved,
      },
      phases: {
        method: 'each instant of the ingest charged to the most downstream activity in flight; see scripts/bench/ingest.ts',
        exclusiveMs: mapValues(phases.exclusive, (ms) => round(ms, 0)),
        exclusiveShare: mapValues(phases.exclusive, (ms) => round(ms / (ingestSeconds * 1000), 3)),
        busyMs: mapValues(phases.union, (ms) => round(ms, 0)),
        labels: CATEGORY_LABELS,
        deriveCpu: {
          totalMs: round(deriveMs, 0),
          perBlockMs: round(deriveMs / count, 2),
          itemsBuilt,
          note: 'deriveBlock + tagTransactions + immutableItems on the ingest reader output',
        },
        ingestReader: {
          seconds: round(readerSeconds, 2),
          note: 'BlockSource.fetch (viem formatting + validation), 4 blocks in flight, derive time excluded',
        },
      },
    };

    const stamp = now
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replace(/:/g, '-');
    const outDir = path.resolve(values.out);
    await mkdir(outDir, { recursive: true });
    const markdown = summary(report);
    await writeAtomically(path.join(outDir, `ingest-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
    await writeAtomically(path.join(outDir, `ingest-${stamp}.md`), markdown);
    await writeAtomically(path.join(outDir, 'ingest-latest.md'), markdown);
    console.log(`\n${markdown}`);
    console.log(`written: ${path.relative(ROOT, path.join(outDir, `ingest-${stamp}.json`))}, .md and ingest-latest.md`);
    if (values.strict && !pass) process.exitCode = 1;
  } finally {
    await anvil?.stop();
    if (tableOpen) {
      admin.destroy();
      await dynamo.close();
    }
  }
}

type Report = Record<string, any>;

/** The CPU the ingest's run used, in all three processes, and the wall time the machine's cores need for it at least. */
function cpuDuringIngest(input: { ingestProcess: number; table?: number; node?: number; cores: number; rawSeconds: number }) {
  if (input.table === undefined || input.node === undefined) return null;
  const total = input.ingestProcess + input.table + input.node;
  const wall = total / input.cores;
  return {
    ingestProcessSeconds: round(input.ingestProcess, 2),
    tableSeconds: round(input.table, 2),
    nodeSeconds: round(input.node, 2),
    totalSeconds: round(total, 2),
    cores: input.cores,
    wallSecondsAtLeast: round(wall, 2),
    overRawFetch: round(wall / input.rawSeconds, 2),
    note: 'user + system CPU of the benchmark process (the ingest), the table process and anvil while the ingest ran; divided by the cores: the least wall time any scheduling of this work needs',
  };
}

/** User + system CPU seconds of a process so far (Linux /proc; undefined elsewhere). */
function processCpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticksPerSecond = 100; // USER_HZ on Linux
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

/**
 * Times the ingest's writes put into an empty table of a fresh table process, once per concurrency
 * (floor.ts, a child process each); the floor is the fastest.
 */
async function tableFloor(
  input: ReturnType<typeof floorInput>,
  concurrencies: number[],
  inProcess: boolean,
): Promise<{
  seconds: number;
  concurrency: number;
  puts: number;
  deletes: number;
  itemsPerSecond: number;
  counts: ReturnType<typeof floorInput>['counts'];
  runs: { concurrency: number; seconds: number }[];
  failed: { concurrency: number; error: string }[];
  byFamily: Record<string, number>;
}> {
  const file = path.join(os.tmpdir(), `bench-floor-${process.pid}.bin`);
  await writeFile(file, serialize(input));
  const runs: { concurrency: number; seconds: number }[] = [];
  const failed: { concurrency: number; error: string }[] = [];
  let puts = 0;
  try {
    for (const concurrency of concurrencies) {
      const stdout = await new Promise<string | undefined>((resolve) => {
        const args = ['--import', 'tsx', path.join(ROOT, 'scripts/bench/floor.ts'), '--input', file, '--concurrency', String(concurrency)];
        if (inProcess) args.push('--table-in-process');
        const child = spawn(process.execPath, args, {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, NODE_NO_WARNINGS: '1' },
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        child.once('error', (error) => {
          failed.push({ concurrency, error: error.message });
          resolve(undefined);
        });
        child.once('exit', (code) => {
          if (code !== 0) failed.push({ concurrency, error: `floor.ts exited with ${code}` });
          resolve(code === 0 ? out : undefined);
        });
      });
      if (stdout === undefined) {
        console.log(`table floor at ${concurrency} in flight: failed`);
        continue;
      }
      const line = stdout.trim().split('\n').at(-1) ?? '{}';
      const result = JSON.parse(line) as { seconds: number; puts: number };
      puts = result.puts;
      runs.push({ concurrency, seconds: round(result.seconds, 2) });
      console.log(`table floor at ${concurrency} in flight: ${result.seconds.toFixed(2)} s`);
    }
  } finally {
    await rm(file, { force: true });
  }
  if (runs.length === 0) throw new Error(`the table floor failed at every concurrency: ${JSON.stringify(failed)}`);
  const best = runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  // Items by range family: the key with addresses, hashes and numbers taken out.
  const families = new Map<string, number>();
  for (const item of input.chunks.flat()) {
    const shape = (key: unknown) =>
      String(key)
        .replace(/0x[0-9a-f]+/g, '<hex>')
        .replace(/\d{6,}/g, '<n>')
        .replace(/^C#\d+#/, '');
    const family = `${shape(item.pk)} | ${shape(item.sk).split('#')[0]}`;
    families.set(family, (families.get(family) ?? 0) + 1);
  }
  const byFamily = Object.fromEntries([...families].sort((a, b) => b[1] - a[1]).slice(0, 15));
  return {
    seconds: best.seconds,
    concurrency: best.concurrency,
    puts,
    deletes: input.deletes.length,
    itemsPerSecond: Math.round((puts + input.deletes.length) / best.seconds),
    counts: input.counts,
    runs,
    failed,
    byFamily,
  };
}

function summary(r: Report): string {
  const stageRows = Object.entries(r.stages.exclusiveMs as Record<string, number>)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([stage, ms]) => `| ${stage}: ${r.stages.labels[stage]} | ${ms} | ${(r.stages.exclusiveShare[stage] * 100).toFixed(1)}% |`);
  const phaseRows = Object.entries(r.phases.exclusiveMs as Record<string, number>)
    .sort((a, b) => b[1] - a[1])
    .map(
      ([category, ms]) =>
        `| ${CATEGORY_LABELS[category as Category | 'cpu']} | ${ms} | ${(r.phases.exclusiveShare[category] * 100).toFixed(1)}% | ${r.phases.busyMs[category] ?? '-'} |`,
    );
  const calls = Object.entries(r.ingest.dynamo.callsByCommand as Record<string, number>).map(
    ([command, n]) => `| ${command} | ${n} | ${(n / r.chain.blocks).toFixed(2)} | ${r.ingest.dynamo.meanLatencyMsByCommand[command]} |`,
  );
  const rpcCalls = Object.entries(r.ingest.rpc.callsByMethod as Record<string, number>)
    .map(([method, n]) => `${method} ${n}`)
    .join(', ');
  return `# Ingest benchmark, ${r.date}

${r.ratio.pass ? 'PASS' : 'FAIL'}: ingest time / max(raw fetch, table floor) = **${r.ratio.ingestOverSlowestStage}** (target <= ${r.ratio.target}; the slowest unavoidable stage is the ${r.ratio.slowestStage}, ${r.ratio.slowestStageSeconds} s). Ingest / raw fetch ${r.ratio.ingestOverRawFetch}, ingest / table floor ${r.ratio.ingestOverTableFloor}.

Table floor: the ingest's ${r.tableFloor.counts.puts} item puts, ${r.tableFloor.counts.updatesAsPuts} updates (as their final item; ${r.tableFloor.counts.updatesOfItemsGone} of items gone at the end left out) and ${r.tableFloor.deletes} deletes, captured at the table's edge, into an empty table of a fresh table process with nothing else running: **${r.tableFloor.seconds} s** (${r.tableFloor.itemsPerSecond} items/s) at ${r.tableFloor.concurrency} BatchWriteItems in flight (${r.tableFloor.runs.map((run: { concurrency: number; seconds: number }) => `${run.concurrency}: ${run.seconds} s`).join(', ')}) = ${r.tableFloor.overRawFetch} x the raw fetch. ${r.tableFloor.itemsLeft} items were left in the ingest's table.

${r.cpu ? `CPU used during the ingest: ${r.cpu.totalSeconds} s (this process ${r.cpu.ingestProcessSeconds} s, table ${r.cpu.tableSeconds ?? '-'} s, anvil ${r.cpu.nodeSeconds ?? '-'} s); on ${r.cpu.cores} cores that is at least ${r.cpu.wallSecondsAtLeast} s of wall time = **${r.cpu.overRawFetch}** x the raw fetch.\n` : ''}${r.tableCpu ? `Table CPU during the ingest: ${r.tableCpu.seconds} s of the single-threaded table process = **${r.tableCpu.overRawFetch}** x the raw fetch (no ingest of this run against this table can take less).\n` : ''}Largest item families (pk shape | sort key start: items): ${Object.entries(
    r.tableFloor.byFamily as Record<string, number>,
  )
    .map(([family, n]) => `\`${family}\` ${n}`)
    .join(', ')}.

Machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), Node ${r.machine.node}, ${r.machine.platform}. Node: ${r.setup.node}. Table: ${r.setup.table}.

## Chain
${r.chain.blocks} blocks (${r.chain.range.from}..${r.chain.range.to}), ${r.chain.transactions} transactions (${r.chain.transactionsPerBlock}/block: demo ${r.chain.sent.demo}, native ${r.chain.sent.native}, ERC-20 ${r.chain.sent.erc20}, ERC-721 mints ${r.chain.sent.nftMint}, setup ${r.chain.sent.setup}), ${r.chain.emptyBlocks} empty blocks, ${r.chain.logs} logs (${r.chain.erc20TransferLogs} ERC-20 transfers), ${r.chain.traceFrames} call frames, ${r.chain.reverted} reverted. Built in ${r.chain.historySeconds} s.

## Figures
| | value |
|---|---|
| raw fetch (block + receipts + traces, ${r.setup.inFlightBlocksForRawFetch} blocks in flight) | ${r.rawFetch.seconds} s, ${r.rawFetch.blocksPerSecond} blocks/s |
| ingest (ingestRange into a fresh table) | ${r.ingest.seconds} s, **${r.ingest.blocksPerSecond} blocks/s** |
| table floor (the ingest's writes into an empty table, nothing else running) | ${r.tableFloor.seconds} s |
| ingest / max(raw fetch, table floor) | **${r.ratio.ingestOverSlowestStage}** (target <= ${r.ratio.target}) |
| ingest / raw fetch | ${r.ratio.ingestOverRawFetch} |
| DynamoDB calls per block | ${r.ingest.dynamo.callsPerBlock} |
| DynamoDB write units per block (table, ReturnConsumedCapacity) | ${r.ingest.dynamo.tableWcuPerBlock} |
| write units per block incl. GSI estimate | ${r.ingest.dynamo.wcuPerBlockWithGsiEstimate} |
| items put per block / average item size | ${r.ingest.dynamo.itemsPutPerBlock} / ${r.ingest.dynamo.averageItemBytes} B |
| state updates / deletes | ${r.ingest.dynamo.updates} / ${r.ingest.dynamo.itemsDeleted} |
| the ingest's own reader (validated, formatted), derive excluded | ${r.phases.ingestReader.seconds} s |
| derive CPU (deriveBlock + immutableItems) | ${r.phases.deriveCpu.totalMs} ms, ${r.phases.deriveCpu.perBlockMs} ms/block |

${
  r.backfill
    ? `## Parallel backfill (CLI, fresh table each)\n\n| run | seconds | speed-up |\n|---|---|---|\n${r.backfill.runs
        .map(
          (run: { workers: number; seconds: number; speedUp: number }) =>
            `| ${run.workers === 0 ? 'sequential' : `${run.workers} workers`} | ${run.seconds} | ${run.speedUp} |`,
        )
        .join('\n')}\n\nLower bound the table sets: the table floor, ${r.backfill.tableFloorSeconds} s. ${r.backfill.note}.\n\n`
    : ''
}## Writes by item family

${r.writesByFamily.transactions} transactions, ${r.writesByFamily.logs} logs. Per transaction: **${r.writesByFamily.totals.writeUnitsPerTx} write units** (${r.writesByFamily.totals.writeUnitsPerLog} per log), ${r.writesByFamily.totals.itemsWrittenPerTx} items written, **${(r.writesByFamily.totals.bytesStoredPerTx / 1024).toFixed(2)} KB stored**${expiringStoredNote(r.writesByFamily)} (${r.writesByFamily.totals.itemsStoredPerTx} items left, + 100 B each). Write units priced per item at the table's edge: ceil(size / 1 KB), doubled in TransactWriteItems, again per GSI the item is in (ALL projection); updates and deletes priced at the item's size at the end of the run (or as last put).

${familyMarkdown(r.writesByFamily)}

| DynamoDB command | calls | per block | mean latency ms |
|---|---|---|---|
${calls.join('\n')}

RPC calls of the ingest: ${rpcCalls} (${r.ingest.rpc.httpRequests} HTTP requests).

## Where the ingest's time goes, by stage
${r.stages.method}. ${r.stages.batches} batches, ${r.stages.blocksPerBatch} blocks each on average.

| stage | exclusive ms | share |
|---|---|---|
${stageRows.join('\n')}

## Where the ingest's time goes, by activity
Each instant is charged to the most downstream activity in flight (state writes > immutable writes > table reads > state reads over RPC > other RPC > block fetch); instants with nothing in flight are CPU. "Busy" counts every instant the activity was in flight (they overlap).

| phase | exclusive ms | share | busy ms |
|---|---|---|---|
${phaseRows.join('\n')}
`;
}

function mapValues<T, U>(record: Record<string, T>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
