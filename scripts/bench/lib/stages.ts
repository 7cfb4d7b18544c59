/**
 * Where the ingest's time goes, by stage, from what an observer saw at the table's and the node's
 * edge (scripts/bench/lib/ingest-probe.ts): every DynamoDB command and every JSON-RPC request with
 * its start and end, and every batch the ingest wrote (ChainIngest's writeBatch) with its blocks.
 * Pure: no I/O; test/scripts/bench/ checks it.
 *
 * Stages:
 *  - fetch        eth_getBlockByNumber with transactions, eth_getBlockReceipts, traces (the prefetcher)
 *  - headChecks   eth_blockNumber, header-only eth_getBlockByNumber (the follow loop, reorg checks)
 *  - chainReads   eth_call / eth_getCode / eth_getBalance (code and token facts, balances, owners, supplies)
 *  - tableReads   GetItem / BatchGetItem / Query of the batch itself (stored addresses and balances)
 *  - positions    the range-position lookups (RangePositions' Limit-1 Queries)
 *  - manifests    manifest reads and writes (WROTE items)
 *  - itemWrites   BatchWriteItem of the immutable items (records, index copies, seek chunks)
 *  - stateWrites  TransactWriteItems / UpdateItem / PutItem / DeleteItem of state, and the reads the
 *                 state writer makes while it writes (collections, ERC-1155 totals)
 *  - listeners    what the block listeners send (order deposit detection: GSI1 Queries)
 *  - cursor       the cursor item (read, pendingTo, move)
 * plus, for time with none of the writer's requests in flight:
 *  - derive       inside a batch: CPU (derive, tags, items, SDK marshalling, event loop)
 *  - fetchWait    between batches, only the prefetcher's fetch in flight: the writer waits for a block
 *  - idle         between batches, nothing in flight: the follow loop's poll sleep (and loop CPU)
 */

export const STAGES = [
  'cursor',
  'stateWrites',
  'itemWrites',
  'manifests',
  'positions',
  'listeners',
  'tableReads',
  'chainReads',
  'headChecks',
  'fetch',
] as const;
export type Stage = (typeof STAGES)[number];
export type StageOrGap = Stage | 'derive' | 'fetchWait' | 'idle';

export const STAGE_LABELS: Record<StageOrGap, string> = {
  cursor: 'cursor item (read, pendingTo, move)',
  stateWrites: 'state writes (balances, listings, holders, NFTs, collections, address items) and their table reads',
  itemWrites: 'immutable item writes (BatchWriteItem: records, index copies, seek chunks)',
  manifests: 'manifest reads and writes',
  positions: 'range-position lookups (Limit-1 Queries)',
  listeners: 'block listeners (order deposit detection)',
  tableReads: 'table reads of the batch (stored addresses and balances, BatchGetItem)',
  chainReads: 'chain reads over RPC (eth_call, eth_getCode: code, token facts, balances, owners, supplies)',
  headChecks: 'head and block-hash checks over RPC',
  fetch: 'block fetch over RPC (block, receipts, traces)',
  derive: 'inside a batch, nothing in flight: CPU (derive, tags, items, marshalling)',
  fetchWait: 'between batches, waiting for the prefetcher to bring the next block',
  idle: 'between batches, nothing in flight (poll sleep of --follow, loop CPU)',
};

export interface StageInterval {
  stage: Stage;
  start: number;
  end: number;
}

export interface BatchInterval {
  start: number;
  end: number;
  blocks: number[];
}

/** The stage of one JSON-RPC HTTP request, from the calls it carries (a batch request may mix them). */
export function rpcStage(calls: readonly { method?: string; params?: unknown }[]): Stage {
  let stage: Stage = 'headChecks';
  for (const call of calls) {
    const method = call.method ?? '';
    if (method === 'eth_call' || method === 'eth_getCode' || method === 'eth_getBalance' || method === 'eth_getStorageAt')
      return 'chainReads'; // the writer waits on it: it wins over a fetch sharing the request
    const full = method === 'eth_getBlockByNumber' && Array.isArray(call.params) && call.params[1] === true;
    if (
      full ||
      method === 'eth_getBlockReceipts' ||
      method === 'debug_traceBlockByNumber' ||
      method === 'trace_block' ||
      method === 'eth_getTransactionReceipt'
    )
      stage = 'fetch';
  }
  return stage;
}

/**
 * The stage of one DynamoDB command, from the functions on its (async) call stack and its command:
 * the table layer is shared, so who called it says what it is for.
 */
export function dbStage(command: string, stack: string, input: Record<string, any> = {}): Stage {
  // Function names where they are named, the module's file where the caller is an arrow function.
  if (/\b(moveCursor|markPending|readCursor|updateCursor)\b/.test(stack)) return 'cursor';
  if (/\b(writeManifest|readManifest|deleteManifest)\b|ingest\/manifest\.ts/.test(stack)) return 'manifests';
  if (/\bRangePositions\.|ingest\/range-positions\.ts/.test(stack)) return 'positions';
  if (
    /\b(notifyBlocksIngested|orderDepositListener|blocksIngested)\b|ingest\/listeners\.ts|orders\/deposits\.ts/.test(stack) ||
    input.IndexName !== undefined
  )
    return 'listeners';
  if (/\b(StateWriter\.|applyState|registerChain|Reorg\.)|ingest\/(state|reorg)\.ts/.test(stack)) return 'stateWrites';
  const name = command.replace(/Command$/, '');
  if (name === 'BatchWriteItem' || name === 'BatchWrite') return 'itemWrites';
  if (/^(Get|GetItem|BatchGet|BatchGetItem|Query|Scan)$/.test(name)) return 'tableReads';
  return 'stateWrites';
}

/**
 * Exclusive time of each stage over [from, to], in ms. Inside a batch, each instant goes to the
 * first stage of STAGES in flight, the prefetcher's fetch excepted (it runs beside the writer), or
 * to `derive` when none is; between batches, to the first stage in flight other than fetch, else
 * `fetchWait` when a fetch is in flight (the writer waits for its next block), else `idle`.
 */
export function stageTimes(
  intervals: readonly StageInterval[],
  batches: readonly Pick<BatchInterval, 'start' | 'end'>[],
  from: number,
  to: number,
): Record<StageOrGap, number> {
  type Event = { time: number; delta: number; stage: Stage | 'batch' };
  const events: Event[] = [];
  const push = (stage: Stage | 'batch', start: number, end: number) => {
    const s = Math.max(from, start);
    const e = Math.min(to, end);
    if (e <= s) return;
    events.push({ time: s, delta: 1, stage }, { time: e, delta: -1, stage });
  };
  for (const interval of intervals) push(interval.stage, interval.start, interval.end);
  for (const batch of batches) push('batch', batch.start, batch.end);
  events.sort((a, b) => a.time - b.time || a.delta - b.delta);
  const active = new Map<Stage | 'batch', number>();
  const totals = Object.fromEntries([...STAGES, 'derive', 'fetchWait', 'idle'].map((stage) => [stage, 0])) as Record<StageOrGap, number>;
  let last = from;
  const charge = (until: number) => {
    const span = until - last;
    if (span <= 0) return;
    const inBatch = (active.get('batch') ?? 0) > 0;
    const top = STAGES.find((stage) => stage !== 'fetch' && (active.get(stage) ?? 0) > 0);
    const target: StageOrGap = top ?? (inBatch ? 'derive' : (active.get('fetch') ?? 0) > 0 ? 'fetchWait' : 'idle');
    totals[target] += span;
  };
  for (const event of events) {
    charge(event.time);
    last = Math.max(last, event.time);
    active.set(event.stage, (active.get(event.stage) ?? 0) + event.delta);
  }
  charge(to);
  return totals;
}

// ---------------------------------------------------------------------------------------------------
// Follow lag

export interface MinedBlock {
  number: number;
  /** Epoch ms when evm_mine returned. */
  minedAt: number;
}

export interface CursorMove {
  blockNumber: number;
  /** Epoch ms when the cursor update returned. */
  at: number;
}

export interface BlockLag {
  number: number;
  minedAt: number;
  doneAt: number | null;
  seconds: number | null;
  /** Blocks mined after this one and before it was done: the head's lead when the ingest finished it. */
  blocks: number | null;
}

/**
 * For each mined block, when the ingest had it (the first cursor move at or past it) and its lag. In
 * blocks: the blocks mined after it and before it was done; past the last mined block the beat goes
 * on (`beatMs`), so that the load's last blocks are not counted as less late than they were.
 */
export function blockLags(mined: readonly MinedBlock[], moves: readonly CursorMove[], beatMs?: number): BlockLag[] {
  const sortedMoves = [...moves].sort((a, b) => a.at - b.at);
  const minedTimes = mined.map((block) => block.minedAt).sort((a, b) => a - b);
  const lastMined = minedTimes.at(-1) ?? 0;
  const afterTheLoad = (until: number): number => (beatMs && until > lastMined ? Math.floor((until - lastMined) / beatMs) : 0);
  return mined.map((block) => {
    const move = sortedMoves.find((candidate) => candidate.blockNumber >= block.number && candidate.at >= block.minedAt);
    if (!move) return { number: block.number, minedAt: block.minedAt, doneAt: null, seconds: null, blocks: null };
    const minedMeanwhile = minedTimes.filter((time) => time > block.minedAt && time <= move.at).length + afterTheLoad(move.at);
    return {
      number: block.number,
      minedAt: block.minedAt,
      doneAt: move.at,
      seconds: (move.at - block.minedAt) / 1000,
      blocks: minedMeanwhile,
    };
  });
}

export function percentileOf(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

/** `value` to 2 decimals (null stays null). */
export const round2 = (value: number | null): number | null => (value === null ? null : Math.round(value * 100) / 100);

export interface Percentiles {
  p50: number | null;
  p99: number | null;
  max: number | null;
}

/** The median, 99th percentile and maximum of `values`, to 2 decimals (nulls when there are none). */
export const percentiles = (values: number[]): Percentiles => ({
  p50: round2(percentileOf(values, 50)),
  p99: round2(percentileOf(values, 99)),
  max: round2(percentileOf(values, 100)),
});
