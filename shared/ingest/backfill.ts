/**
 * Parallel backfill: many workers do a block range's chain work at once, in any order, and the one
 * ingest of the chain numbers it in block order from the table alone.
 *
 * Why two stages: the slow part of ingesting a block is the chain (block, receipts, traces, then
 * getCode, token probes and balances at the batch's end), and most of its items are independent of
 * every other block. But range positions and running totals (range-positions.ts), the state items'
 * transitions (holder counts, state.ts), the manifests and the cursor continue from the block before:
 * they can only be written in block order. So:
 *  1. `planBackfill` records the plan (blocks `from`..`to` in segments of `segmentBlocks`) on the
 *     chain: `from` is the block after the cursor, so the ingest's next blocks are the plan's.
 *  2. Workers (`stageSegment`, a Lambda per shard under Step Functions, or `--workers N` locally) take
 *     segments in any order. For each, a worker fetches every block, derives it, reads the chain
 *     facts and the state at the segment's last block, RECORDING every chain answer
 *     (recorded-chain.ts); writes the block's immutable items that no order depends on (every item
 *     but the counted range entries); then stages the recording, with the keys and a digest of what it
 *     wrote, in the table (chunks, then a DONE item). A killed worker is simply run again: its writes
 *     are identical puts, and a segment counts only once its DONE item exists.
 *  3. The ingest (ChainIngest: the follower, the scheduled Lambda, the CLI) reaches the plan's blocks
 *     and, for each segment, answers its chain reads from the staged recording instead of the node,
 *     runs its normal batch (same code, same items), and writes only what the worker did not: the
 *     counted entries with their positions and seek chunks, the manifests, the state and the cursor.
 *     A block whose items differ from the worker's digest (the chain answered the ingest otherwise)
 *     is written whole, and the worker's keys it lacks are deleted. Then the staged items are deleted,
 *     and the plan once its last block is numbered. A segment not staged yet stops the ingest there
 *     (the scheduled run ends; the CLI waits for it).
 * Backfill only blocks that are final (the plan refuses blocks within `confirmations` of the head):
 * a reorg inside a plan ends the plan (sweepEndedPlan: the workers' items past the cursor and every
 * staged item are deleted; workers refuse an ended plan), and its remaining blocks are ingested from
 * the node.
 */
import { createHash, randomUUID } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ChainClient } from '../chain/client';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../chain/retry';
import { deleteItem, inParallel, putItem, queryAll, rangeQuery, transactWrite, writeItems } from '../db/operations';
import { backfillKeys, keyId, type ItemKey, type TableItem } from '../table/keys';
import type { BackfillPlanRecord, StagedChunkRecord, StagedSegmentRecord } from '../table/records';
import { readBatchFacts } from './batch';
import { readStateAt, slicedItemsOfBlock } from './block-work';
import { ChainState } from './chain-state';
import { deriveBlock } from './derive';
import { BlockSource, type BlockBundle, type TraceMethod } from './fetch-block';
import { isCountedEntry, itemOptionsOf } from './items';
import type { ColdHistorySettings } from './cold-settings';
import { powertoolsLog, type IngestLog } from './log';
import { readCursor } from './manifest';
import { readNativeState } from './native-state';
import { jsonBigint, jsonBigintRevive, recordingChain, type ChainRecording } from './recorded-chain';
import { getItem } from './table-io';

/** Blocks per segment by default: the ingest numbers a segment as one batch. */
export const DEFAULT_SEGMENT_BLOCKS = 32;
/** A segment is one batch of the ingest, its recording held in memory: keep it a batch's size. */
export const MAX_SEGMENT_BLOCKS = 128;
/** Blocks fetched at once by one worker. */
const FETCH_CONCURRENCY = 4;
/** Chain facts of blocks read at once (as the ingest). */
const FACT_CONCURRENCY = 4;
/** Segments swept at once when a reorg ends a plan. */
const SWEEP_CONCURRENCY = 8;
/** Bytes of packed recording per staged chunk item (DynamoDB items are at most 400 KB). */
const CHUNK_BYTES = 300_000;

export interface Segment {
  from: number;
  to: number;
}

/** What a worker wrote for one block: the keys and a digest of the items (keys and values). */
export interface StagedBlock {
  keys: [string, string][];
  digest: string;
}

export interface StagedSegment extends Segment {
  chunkCount: number;
  recording: ChainRecording;
  /** By block number. */
  blocks: Map<number, StagedBlock>;
}

// ---------------------------------------------------------------------------------------------------
// The plan

export class BackfillPlanError extends Error {
  override name = 'BackfillPlanError';
}

/**
 * Records a backfill of `from`..`to` (default `from`: the block after the cursor, or 0) and returns its
 * segments not yet numbered. The same `to` and `segmentBlocks` again, while that plan is open, resume it
 * (its `from` stands: a stopped run or execution started again); another plan while one is open is refused.
 */
export async function planBackfill(options: {
  chainId: number;
  from?: number;
  to: number;
  head: number;
  segmentBlocks?: number;
  /** Blocks below the head a backfill may reach (its blocks must be final). Default 0. */
  confirmations?: number;
}): Promise<{ plan: BackfillPlanRecord; segments: Segment[] }> {
  const { chainId, to, head } = options;
  const segmentBlocks = options.segmentBlocks ?? DEFAULT_SEGMENT_BLOCKS;
  if (!Number.isInteger(segmentBlocks) || segmentBlocks < 1 || segmentBlocks > MAX_SEGMENT_BLOCKS) {
    throw new BackfillPlanError(`segment blocks must be a whole number from 1 to ${MAX_SEGMENT_BLOCKS}`);
  }
  const cursor = await readCursor(chainId);
  const open = await readPlan(chainId);
  if (open) {
    if (open.ended) throw new BackfillPlanError(`chain ${chainId}: a reorg ended the last backfill; run the ingest (it sweeps it) first`);
    if (open.to !== to || open.segmentBlocks !== segmentBlocks) {
      throw new BackfillPlanError(`chain ${chainId}: a backfill of blocks ${open.from}..${open.to} is still open`);
    }
    const numbered = cursor?.blockNumber ?? -1;
    return { plan: open, segments: segmentsOf(open).filter((segment) => segment.to > numbered) };
  }
  const next = cursor ? cursor.blockNumber + 1 : 0;
  const from = options.from ?? next;
  if (cursor && from !== next) {
    throw new BackfillPlanError(`chain ${chainId}: a backfill starts at the block after the cursor (${next}), not ${from}`);
  }
  if (to < from) throw new BackfillPlanError(`chain ${chainId}: the backfill's last block ${to} is before its first ${from}`);
  const finalHead = head - (options.confirmations ?? 0);
  if (to > finalHead) {
    throw new BackfillPlanError(
      `chain ${chainId}: block ${to} is not final yet (head ${head}, ${options.confirmations ?? 0} confirmations)`,
    );
  }
  const plan: BackfillPlanRecord = { kind: 'backfillPlan', chainId, from, to, segmentBlocks };
  const written = await putItem({
    Item: { ...plan, ...backfillKeys.plan(chainId) },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  if (!written.applied) throw new BackfillPlanError(`chain ${chainId}: another backfill was planned at the same time`);
  return { plan, segments: segmentsOf(plan) };
}

export function readPlan(chainId: number): Promise<BackfillPlanRecord | undefined> {
  return getItem<BackfillPlanRecord>(backfillKeys.plan(chainId));
}

export async function deletePlan(chainId: number): Promise<void> {
  await deleteItem({ Key: backfillKeys.plan(chainId) });
}

export function segmentsOf(plan: Pick<BackfillPlanRecord, 'from' | 'to' | 'segmentBlocks'>): Segment[] {
  const segments: Segment[] = [];
  for (let from = plan.from; from <= plan.to; from += plan.segmentBlocks) {
    segments.push({ from, to: Math.min(plan.to, from + plan.segmentBlocks - 1) });
  }
  return segments;
}

/** The plan's segment that holds `blockNumber`. */
export function segmentAt(plan: Pick<BackfillPlanRecord, 'from' | 'to' | 'segmentBlocks'>, blockNumber: number): Segment {
  const from = plan.from + Math.floor((blockNumber - plan.from) / plan.segmentBlocks) * plan.segmentBlocks;
  return { from, to: Math.min(plan.to, from + plan.segmentBlocks - 1) };
}

// ---------------------------------------------------------------------------------------------------
// A worker's segment

export interface StageOptions {
  chainId: number;
  client: ChainClient;
  retry?: RetryPolicy;
  log?: IngestLog;
  /** Stops the worker between writes. */
  signal?: AbortSignal;
  /** Called once a block's items are written (progress bars). */
  onBlockWritten?: (blockNumber: number) => void;
  /** How block traces are read: the same as the numbering ingest's (fetch-block.ts). */
  traceMethod?: TraceMethod;
  /** Stage the native coin balance reads too (the numbering ingest's IngestOptions.coinBalances). Default true. */
  coinBalances?: boolean;
  /** The numbering ingest's IngestOptions.zeroValueCallsRetentionDays (the items must be the same). */
  zeroValueCallsRetentionDays?: number;
  /** The numbering ingest's IngestOptions.coldHistory (the items must be the same). */
  coldHistory?: ColdHistorySettings;
  /** The numbering ingest's sliceTransactions (tests; the items must be the same). */
  sliceTransactions?: number;
}

export type StageOutcome = 'staged' | 'already staged' | 'already ingested';

/** Stages one segment (see the module comment). Idempotent; safe to run twice at once. */
export async function stageSegment(options: StageOptions, segment: Segment): Promise<StageOutcome> {
  const { chainId, signal } = options;
  if (await getItem(backfillKeys.staged(chainId, segment.from, 'DONE'))) return 'already staged';
  const cursor = await readCursor(chainId);
  if (cursor && cursor.blockNumber >= segment.to) return 'already ingested';
  const plan = await openPlanHolding(chainId, segment);
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const log = options.log ?? powertoolsLog;

  const chain = recordingChain(options.client);
  const source = new BlockSource(chain.client, policy, log, options.traceMethod);
  const chainState = new ChainState(chain.client, chain.reader, policy);
  const numbers = Array.from({ length: segment.to - segment.from + 1 }, (_, offset) => segment.from + offset);
  const bundles = new Array<BlockBundle>(numbers.length);
  await inParallel(numbers, FETCH_CONCURRENCY, async (number) => {
    signal?.throwIfAborted();
    bundles[number - segment.from] = await source.fetch(BigInt(number));
  });
  for (let index = 1; index < bundles.length; index += 1) {
    if (bundles[index]!.block.parentHash.toLowerCase() !== bundles[index - 1]!.block.hash!.toLowerCase()) {
      throw new Error(`chain ${chainId}: blocks ${segment.from}..${segment.to} changed while being read (a reorg: are they final?)`);
    }
  }

  // As the ingest computes them, but knowing nothing of earlier blocks: the facts come from the chain.
  const blocks = bundles.map((bundle) => deriveBlock(chainId, bundle));
  const facts = await readBatchFacts(blocks, new Map(), chainState, FACT_CONCURRENCY);
  const staged = new Map<number, StagedBlock>();
  const itemOptions = itemOptionsOf(options);
  for (const derived of blocks) {
    const { slices, itemsOf } = slicedItemsOfBlock(derived, facts, itemOptions);
    const keys: [string, string][] = [];
    // A block the ingest writes in slices (ingest.ts writeSlices) is written by the worker slice by slice
    // too, with the same items; the ingest writes it again whole and compares no digest.
    let digest = SLICED_BLOCK_DIGEST;
    for (const slice of slices) {
      const written = itemsOf(slice).filter((item) => !isCountedEntry(item));
      signal?.throwIfAborted();
      await writeItems({ put: written });
      for (const item of written) keys.push([item.pk, item.sk]);
      if (slices.length === 1) digest = digestOf(written);
    }
    staged.set(derived.block.number, { keys, digest });
    options.onBlockWritten?.(derived.block.number);
  }
  await readStateAt(blocks, facts, chainState);
  // Native balances and implementation slots at the blocks the ingest reads them at (a batch of the
  // segment's blocks); never throws (what the node does not answer is read again live).
  await readNativeState(chainId, blocks, chainState, log, { coinBalances: options.coinBalances ?? true });

  signal?.throwIfAborted();
  const packed = packStage(chain.recording, staged);
  const attempt = randomUUID().slice(0, 8);
  const chunks: TableItem[] = [];
  for (let offset = 0, chunk = 0; offset < packed.length || chunk === 0; offset += CHUNK_BYTES, chunk += 1) {
    const record: StagedChunkRecord = { kind: 'stagedChunk', chunk, packed: packed.subarray(offset, offset + CHUNK_BYTES) };
    chunks.push({ ...record, ...backfillKeys.staged(chainId, segment.from, { attempt, chunk }) });
  }
  await writeItems({ put: chunks });
  signal?.throwIfAborted();
  const done: StagedSegmentRecord = {
    kind: 'stagedSegment',
    chainId,
    from: segment.from,
    to: segment.to,
    attempt,
    chunkCount: chunks.length,
  };
  // The first complete attempt counts (a second worker on the segment leaves its chunks to the
  // deletion), and only while its plan is open: DONE and the plan's check are one transaction, so a
  // sweep (a reorg ended the plan) never misses a segment staged at the same time.
  const outcome = await transactWrite([
    { Put: { Item: { ...done, ...backfillKeys.staged(chainId, segment.from, 'DONE') }, ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      ConditionCheck: {
        Key: backfillKeys.plan(chainId),
        ConditionExpression:
          'attribute_exists(pk) AND attribute_not_exists(ended) AND #from = :from AND #to = :to AND segmentBlocks = :segmentBlocks',
        ExpressionAttributeNames: { '#from': 'from', '#to': 'to' },
        ExpressionAttributeValues: { ':from': plan.from, ':to': plan.to, ':segmentBlocks': plan.segmentBlocks },
      },
    },
  ]);
  if (!outcome.committed && outcome.failedConditions.includes(1)) {
    // The plan ended while this worker read the chain: the sweep may have run before these writes, so
    // the worker takes back what it wrote past the cursor.
    const numbered = (await readCursor(chainId))?.blockNumber ?? -1;
    await writeItems({ delete: writtenPast(staged, numbered) });
    await deleteStagedSegment(chainId, segment.from);
    throw new BackfillPlanError(`chain ${chainId}: the backfill ended while blocks ${segment.from}..${segment.to} were read`);
  }
  if (!outcome.committed) return 'already staged';
  // A worker late for a segment the ingest numbered meanwhile (another worker staged it) leaves nothing behind.
  const after = await readCursor(chainId);
  if (after && after.blockNumber >= segment.to) {
    await deleteStagedSegment(chainId, segment.from);
    return 'already ingested';
  }
  return 'staged';
}

/** The open plan that holds `segment`; a BackfillPlanError when there is none (never planned, or ended). */
async function openPlanHolding(chainId: number, segment: Segment): Promise<BackfillPlanRecord> {
  const plan = await readPlan(chainId);
  if (!plan || plan.ended) throw new BackfillPlanError(`chain ${chainId} has no open backfill`);
  if (segment.from < plan.from || segment.to > plan.to) {
    throw new BackfillPlanError(`blocks ${segment.from}..${segment.to} are outside the backfill of ${plan.from}..${plan.to}`);
  }
  return plan;
}

/** The keys a worker wrote for the blocks of a staged segment after `numbered`. */
function writtenPast(blocks: Map<number, StagedBlock>, numbered: number): ItemKey[] {
  return [...blocks].filter(([blockNumber]) => blockNumber > numbered).flatMap(([, block]) => block.keys.map(([pk, sk]) => ({ pk, sk })));
}

/**
 * Ends a plan that a reorg cut (the ingest rolled its cursor back to `numbered`, at or before the reorged
 * block): marks it ended, so that no worker stages for it any more, then deletes what the workers wrote
 * for blocks past the cursor (the keys each staged segment lists; those blocks are read again from the
 * node, and some of them are orphaned), every staged item, and the plan. Run again after a crash (the
 * ingest sweeps an ended plan it finds); idempotent.
 */
export async function sweepEndedPlan(
  chainId: number,
  plan: BackfillPlanRecord,
  numbered: number,
): Promise<{ segments: number; items: number }> {
  if (!plan.ended) await putItem({ Item: { ...plan, ended: true, ...backfillKeys.plan(chainId) } });
  const segments = segmentsOf(plan).filter((segment) => segment.to > numbered);
  let items = 0;
  await inParallel(segments, SWEEP_CONCURRENCY, async (segment) => {
    // A segment an earlier sweep half deleted (chunks gone, DONE left) lists nothing any more; any
    // other failure stops the sweep, which the next run does again (deleting the chunks now would lose
    // the only list of the worker's keys).
    const staged = await readStagedSegment(chainId, segment.from).catch((error: unknown) => {
      if (error instanceof StagedChunksMissingError) return undefined;
      throw error;
    });
    if (staged) {
      const keys = writtenPast(staged.blocks, numbered);
      await writeItems({ delete: keys });
      items += keys.length;
    }
    await deleteStagedSegment(chainId, segment.from);
  });
  await deletePlan(chainId);
  return { segments: segments.length, items };
}

/** A staged segment's DONE item outlived some of its chunks (a sweep or deletion cut short). */
export class StagedChunksMissingError extends Error {
  override name = 'StagedChunksMissingError';
}

/** The staged segment that starts at `fromBlock`, once complete. */
export async function readStagedSegment(chainId: number, fromBlock: number): Promise<StagedSegment | undefined> {
  const done = await getItem<StagedSegmentRecord>(backfillKeys.staged(chainId, fromBlock, 'DONE'));
  if (!done) return undefined;
  const { items } = await queryAll<StagedChunkRecord & ItemKey>({
    ...rangeQuery(backfillKeys.stagedRange(chainId, fromBlock, done.attempt)),
    ConsistentRead: true,
  });
  const chunks = items.filter((item) => item.kind === 'stagedChunk' && item.chunk < done.chunkCount).sort((a, b) => a.chunk - b.chunk);
  if (chunks.length !== done.chunkCount)
    throw new StagedChunksMissingError(`chain ${chainId}: staged segment at block ${fromBlock} lacks chunks`);
  const { recording, blocks } = unpackStage(Buffer.concat(chunks.map((chunk) => chunk.packed)));
  return { from: done.from, to: done.to, chunkCount: done.chunkCount, recording, blocks };
}

/** Deletes a staged segment's items (chunks first, DONE last), whatever a worker left. */
export async function deleteStagedSegment(chainId: number, fromBlock: number): Promise<void> {
  const { items } = await queryAll<ItemKey>({
    ...rangeQuery(backfillKeys.stagedRange(chainId, fromBlock)),
    ConsistentRead: true,
    ProjectionExpression: 'pk, sk',
  });
  await writeItems({ delete: items.filter((item) => item.sk !== 'DONE') });
  await deleteItem({ Key: backfillKeys.staged(chainId, fromBlock, 'DONE') });
}

/** A digest of items, keys and values (the ingest compares its own block's items with a worker's). */
/** The digest a worker records for a block written in slices: none is computed (the ingest writes such a block whole again). */
export const SLICED_BLOCK_DIGEST = 'sliced';

export function digestOf(items: readonly TableItem[]): string {
  const hash = createHash('sha256');
  for (const line of items.map((item) => `${keyId(item)}\n${JSON.stringify(item, bigintText)}`).sort()) hash.update(line).update('\0');
  return hash.digest('base64url');
}

function bigintText(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Set) return [...value].sort();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Packing: the recording (recorded-chain.ts) and the blocks' written keys, one raw DEFLATE stream.

function packStage(recording: ChainRecording, blocks: Map<number, StagedBlock>): Buffer {
  const json = JSON.stringify({ q: [...recording.requests], r: [...recording.reads], b: [...blocks] }, jsonBigint);
  return deflateRawSync(json, { level: 6 });
}

function unpackStage(packed: Uint8Array): { recording: ChainRecording; blocks: Map<number, StagedBlock> } {
  const parsed = JSON.parse(inflateRawSync(packed).toString('utf8'), jsonBigintRevive) as {
    q: [string, unknown][];
    r: [string, never][];
    b: [number, StagedBlock][];
  };
  return { recording: { requests: new Map(parsed.q), reads: new Map(parsed.r) }, blocks: new Map(parsed.b) };
}

// ---------------------------------------------------------------------------------------------------
// Shards: what one worker invocation takes (the Step Functions map's items, lib/backfill.ts)

/** Most shards a plan is cut into: the map's item list stays far below Step Functions' 256 KB state. */
export const MAX_SHARDS = 2_000;

/** The plan's segments grouped, in order, into at most `maxShards` runs of consecutive segments. */
export function shardsOf(plan: Pick<BackfillPlanRecord, 'from' | 'to' | 'segmentBlocks'>, maxShards = MAX_SHARDS): Segment[] {
  const segments = segmentsOf(plan);
  const perShard = Math.ceil(segments.length / maxShards);
  const shards: Segment[] = [];
  for (let index = 0; index < segments.length; index += perShard) {
    shards.push({ from: segments[index]!.from, to: segments[Math.min(segments.length, index + perShard) - 1]!.to });
  }
  return shards;
}

/** A shard ran out of time with segments left: run it again (staged segments are skipped). */
export class ShardNotFinishedError extends Error {
  override name = 'ShardNotFinishedError';
}

/**
 * Stages the segments of a shard (`shard` within the plan, on its segment boundaries) one after the
 * other; throws ShardNotFinishedError when `deadline` (epoch ms) comes before the last (after one
 * segment at least).
 */
export async function stageShard(
  options: StageOptions,
  plan: Pick<BackfillPlanRecord, 'from' | 'to' | 'segmentBlocks'>,
  shard: Segment,
  deadline?: number,
): Promise<{ staged: number; skipped: number }> {
  const counts = { staged: 0, skipped: 0 };
  const segments = segmentsOf(plan).filter((segment) => segment.from >= shard.from && segment.to <= shard.to);
  if (segments.length === 0) throw new BackfillPlanError(`blocks ${shard.from}..${shard.to} hold no segment of the plan`);
  for (const [index, segment] of segments.entries()) {
    // At least one segment per run, however late, so that a shard always moves on.
    if (index > 0 && deadline !== undefined && Date.now() > deadline) {
      throw new ShardNotFinishedError(`blocks ${segment.from}..${shard.to} are left (${counts.staged} segments staged in this run)`);
    }
    const outcome = await stageSegment(options, segment);
    counts[outcome === 'staged' ? 'staged' : 'skipped'] += 1;
  }
  return counts;
}
