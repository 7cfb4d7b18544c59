/**
 * The chain ingest: one code path for the CLI (scripts/ingest.ts), npm start, the tests and the
 * scheduled Lambda (functions/ingest/ingest-chain.ts).
 *
 * Blocks past the cursor are written in batches of consecutive blocks (one block when following the
 * head, up to maxBatchBlocks when catching up), while the next blocks are fetched:
 *   1. fetch each block, receipts and traces (validated, retried: fetch-block.ts);
 *   2. derive records (derive.ts) and read what each block must know as of itself: which addresses
 *      hold code, token details (batch.ts, chain-state.ts);
 *   3. write each block's manifest, then every immutable item (items.ts; with range positions,
 *      range-positions.ts), then the state the batch changed, read on chain at its last block
 *      (state.ts), then hand the batch's blocks to the listeners the caller gave (listeners.ts),
 *      and, once the state is written, the NFT instances it touched (`nftInstancesWritten`);
 *   4. move the cursor to the batch's last block with a conditional update. A batch of several
 *      blocks first records its last block on the cursor (`pendingTo`), so a restart knows which
 *      manifests a crash may have left past the cursor.
 * A block whose parent hash is not the cursor's hash starts the reorg procedure (reorg.ts).
 * Blocks at or below the cursor are skipped, or ingested again on request (`repair`): their
 * immutable items and manifest are rewritten identically, the state items, which hold values of
 * later blocks, are left alone, and the listeners see the block again (they are idempotent).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainClient } from '../chain/client';
import { ContractReader } from '../chain/read';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withBackoff } from '../chain/retry';
import { inParallel, writeItems } from '../db/operations';
import { addressKeys, blockKeys, keyId, nftKeys, type ItemKey, type TableItem } from '../table/keys';
import {
  deletePlan,
  deleteStagedSegment,
  digestOf,
  readPlan,
  readStagedSegment,
  segmentAt,
  sweepEndedPlan,
  type StagedSegment,
} from './backfill';
import { type BatchFacts, candidatesOf, readBatchFacts } from './batch';
import { balanceTouchesOf, itemsOfBlock, readStateAt, slicedItemsOfBlock } from './block-work';
import type { ItemOptions } from './items';
import { ChainState, withAnswers } from './chain-state';
import { deriveBlock, type BalanceTouch, type DerivedBlock } from './derive';
import { BlockSource, type BlockBundle, type TraceMethod } from './fetch-block';
import { bucketNumberedEntries, isCountedEntry, itemOptionsOf, slicesOf } from './items';
import { manifestRetentionWith } from './config';
import { type ColdHistorySettings, historyExpirySeconds } from './cold-settings';
import {
  notifyBlocksIngested,
  notifyNftInstancesWritten,
  type BlockIngestedEvent,
  type IngestListener,
  type NftInstancesWrittenEvent,
} from './listeners';
import { powertoolsLog, type IngestLog } from './log';
import {
  CursorMovedError,
  DEFAULT_MANIFEST_RETENTION_DAYS,
  deleteManifest,
  deleteManifestChunksPast,
  lastPossiblyWritten,
  markPending,
  moveCursor,
  readCursor,
  readManifest,
  writeManifest,
  writeManifestChunks,
  type BlockManifest,
} from './manifest';
import { knownProxies, NativeStateWriter, nativeEntitiesOf, readNativeState, upgradedIn } from './native-state';
import { headsEntitiesOf } from './range-heads';
import { RangePositions, type RangeState } from './range-positions';
import { replayingChain } from './recorded-chain';
import type {
  AddressRecord,
  BackfillPlanRecord,
  BalanceRecord,
  BlockRecord,
  ChainStatusRecord,
  CursorRecord,
  IngestState,
  NftInstanceRecord,
} from '../table/records';
import { DEFAULT_MAX_REORG_DEPTH, ManifestExpiredError, Reorg, ReorgTooDeepError } from './reorg';
import { DEFAULT_STATUS_LAG_BLOCKS } from '../chain-status/status';
import { readStoredStatus, writeChainStatus, type StatusFields } from './status';
import { collectionId, entity, StateWriter, type AddressUpdate, type BalanceEntity } from './state';
import { allEnded } from './all-ended';
import { getItem, getItems } from './table-io';

export interface IngestOptions {
  chainId: number;
  client: ChainClient;
  retry?: RetryPolicy;
  log?: IngestLog;
  /**
   * Deepest reorg repaired (blocks below the cursor to the common ancestor). Default 1,024
   * (DEFAULT_MAX_REORG_DEPTH); deeper, the ingest stops writing and its status says why.
   */
  maxReorgDepth?: number;
  /**
   * Days a block's manifest is kept past the block's timestamp (then DynamoDB deletes it: its `ttl`);
   * 0 keeps them forever. Default 7 (DEFAULT_MANIFEST_RETENTION_DAYS; INGEST_MANIFEST_RETENTION_DAYS,
   * --manifest-retention-days). It must cover the reorg window (maxReorgDepth x block time) with margin:
   * a block to undo whose manifest expired stops the ingest (ManifestExpiredError).
   */
  manifestRetentionDays?: number;
  /**
   * Zero-value calls (zero-value-calls.ts): unset keeps them (the default); N >= 1 stores their X5
   * copies with a `ttl` N days past their block; 0 does not store them (INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS).
   * A parallel backfill's workers must be given the same.
   */
  zeroValueCallsRetentionDays?: number;
  /**
   * The cold tier (COLD_AFTER_DAYS, COLD_MARGIN_DAYS): history items expire from the table (items.ts
   * ItemOptions.coldHistory); unset, history stays in the table. Manifests are kept at least as long (the
   * compaction job reads them). A parallel backfill's workers must be given the same.
   */
  coldHistory?: ColdHistorySettings;
  /** Tests: a block of more transactions than this is written in slices (items.ts ItemOptions). */
  sliceTransactions?: number;
  /** Least time between two writes of the chain's status item (status.ts), unless its state changes. Default 10 s. */
  statusIntervalMs?: number;
  /** Blocks fetched at once ahead of the writer. Default 4. */
  prefetch?: number;
  /** Most blocks written as one batch. Default 32; 1 writes block by block. */
  maxBatchBlocks?: number;
  /** How block traces are read (fetch-block.ts); default: found out from the node. */
  traceMethod?: TraceMethod;
  /** Called after each block is written (progress bars). */
  onBlock?: (event: { blockNumber: number; mode: 'advance' | 'repair' }) => void;
  /** What must see every ingested and every orphaned block (listeners.ts), called in this order. Default none. */
  listeners?: readonly IngestListener[];
  /**
   * In a backfill's blocks (backfill.ts), wait this long for a segment no worker has staged yet, then
   * look again (the CLI with --workers). Default: stop there (the scheduled run; the next one carries on).
   */
  backfillPollMs?: number;
  /**
   * Keep every touched address's native coin balance (native-state.ts: one eth_getBalance and one
   * conditional write per distinct address a batch touched). Default true; INGEST_COIN_BALANCES=off.
   */
  coinBalances?: boolean;
}

export interface IngestResult {
  /** Blocks written that moved the cursor. */
  advanced: number;
  /** Blocks at or below the cursor written again. */
  repaired: number;
  reorgs: number;
  cursor: CursorRecord | undefined;
  /** The block the run stopped before: not expected to be written by `finishBy` (RangeOptions), left for the next invocation. */
  deferred?: { block: number; transactions: number };
}

/**
 * Parallel state writes of one batch (distinct entities): a followed Base block updates about 115
 * contracts' items, in one wave.
 */
const STATE_CONCURRENCY = 128;
/**
 * BatchWriteItems of a batch's items in flight at once: a 200-transaction Base block is about 300 of
 * them, each a round trip of 5-10 ms in AWS, so the waves in sequence are what bound a block's commit
 * (the client's socket pool, SDK_RETRY.maxSockets in shared/db/retry.ts, holds all of them).
 */
const ITEM_WRITE_CONCURRENCY = 256;
/** Blocks whose chain facts (getCode, token probes) are read at once. */
const FACT_CONCURRENCY = 4;
const DEFAULT_MAX_BATCH_BLOCKS = 32;
/** A batch stops growing once its blocks hold this many transactions (bounds memory and the write). */
const MAX_BATCH_TRANSACTIONS = 2_000;
/** Least time between two status writes of a run whose state does not change. */
export const DEFAULT_STATUS_INTERVAL_MS = 10_000;

/** What ingestRange is asked to do. */
export interface RangeOptions {
  from?: number;
  to?: number;
  /** How far raiseTarget may take the run past `to` (ingestNext: its maxBlocks). */
  limit?: number;
  deadline?: number;
  repair?: boolean;
  signal?: AbortSignal;
  mayWrite?: () => boolean;
  /** Under the lease: the stored cursor as this ingest knows it, and no backfill plan (ChainIngest `held`): not read again. */
  known?: { cursor: CursorRecord | undefined };
  /** Under the lease, with no plan stored: the cursor this run leaves may be trusted by the next rounds. */
  trust?: boolean;
  /**
   * When every write must have ended (the invocation's end, less a reserve): no batch is started that
   * is not expected to end by then (batchEstimateMs), cut at a block boundary; a first block that
   * alone would not is left for the next invocation, unless `startAnyway` (nothing written yet in
   * this lease: no later invocation has more time).
   */
  finishBy?: number;
  startAnyway?: boolean;
}

/** Wall time a batch is expected to take per transaction before one was measured, ms (a conservative guess). */
const INITIAL_BATCH_MS_PER_TRANSACTION = 10;
/** And its fixed part (the manifest, the state reads, the cursor) before one was measured, ms. */
const INITIAL_BATCH_FIXED_MS = 300;
/** Batches of fewer transactions than this measure the fixed part; larger ones, the part per transaction. */
const ESTIMATE_MIN_TRANSACTIONS = 50;

/** The chain's capabilities as recorded in its status item. */
export type ChainCapabilities = Pick<ChainStatusRecord, 'traceMethod' | 'blockReceipts' | 'multicall3' | 'multicall3FromBlock'>;

export class ChainIngest {
  readonly chainId: number;
  private readonly source: BlockSource;
  private readonly chainState: ChainState;
  private readonly state: StateWriter;
  private readonly reorg: Reorg;
  private readonly log: IngestLog;
  private readonly options: IngestOptions;
  private readonly listeners: readonly IngestListener[];
  private readonly positions: RangePositions;
  private readonly native: NativeStateWriter;
  private readonly coinBalances: boolean;
  private readonly prefetch: number;
  private readonly maxBatchBlocks: number;
  private readonly reader: ContractReader;
  private readonly statusIntervalMs: number;
  private readonly manifestRetentionDays: number;
  private readonly itemOptions: ItemOptions;
  /** The node's head as last asked for (number; its timestamp once read for a status). */
  private lastHead: { number: number; seenAt: number; timestamp?: number | null } | undefined;
  /** The status writes queued (queueStatus), in order; reportStatus never rejects. */
  private statusWrites: Promise<void> = Promise.resolve();
  /** The last status this ingest wrote (state, when). */
  private lastStatus: { state: IngestState; at: number } | undefined;
  /** The status item as stored before this process wrote one (read once, for the capabilities it knew). */
  private storedStatus: Promise<ChainStatusRecord | undefined> | undefined;
  /**
   * While a follower holds the chain's lease (holdLease .. releaseLease): the cursor as this ingest
   * last read or moved it, once read (`known`), and no backfill plan stored. Under the lease no one
   * else moves the cursor (the cursor's conditional update stays the safety net: CursorMovedError),
   * so a round at the head reads neither the cursor nor the plan, nor the cursor block's hash on the
   * node (a reorg shows as the next block's parent hash). Forgotten after a failed round, a reorg, or
   * a plan found.
   */
  private held: { known: false } | { known: true; cursor: CursorRecord | undefined } | undefined;
  /** Wall time the batches took, smoothed (ms): a fixed part and a part per transaction (batchEstimateMs). */
  private batchFixedMs = INITIAL_BATCH_FIXED_MS;
  private msPerTransaction = INITIAL_BATCH_MS_PER_TRANSACTION;
  /** The advance in progress: the last block it goes to, raised by raiseTarget as new heads show, up to `limit`. */
  private running: { target: number; limit: number; prefetcher: Prefetcher | undefined } | undefined;

  constructor(options: IngestOptions) {
    this.options = options;
    this.chainId = options.chainId;
    this.log = options.log ?? powertoolsLog;
    const policy = options.retry ?? DEFAULT_RETRY_POLICY;
    this.source = new BlockSource(options.client, policy, this.log, options.traceMethod);
    this.reader = new ContractReader(options.client);
    this.chainState = new ChainState(options.client, this.reader, policy);
    this.state = new StateWriter(this.chainId);
    this.positions = new RangePositions(this.chainId);
    this.native = new NativeStateWriter(this.chainId);
    this.coinBalances = options.coinBalances ?? true;
    this.prefetch = Math.max(1, options.prefetch ?? 4);
    this.maxBatchBlocks = Math.max(1, options.maxBatchBlocks ?? DEFAULT_MAX_BATCH_BLOCKS);
    this.listeners = options.listeners ?? [];
    this.statusIntervalMs = options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
    this.manifestRetentionDays = options.manifestRetentionDays ?? DEFAULT_MANIFEST_RETENTION_DAYS;
    if (!Number.isSafeInteger(this.manifestRetentionDays) || this.manifestRetentionDays < 0)
      throw new Error(
        `manifestRetentionDays must be a whole number of days, 0 or more (0: keep manifests forever), got ${options.manifestRetentionDays}`,
      );
    this.itemOptions = itemOptionsOf(options);
    // With the cold tier on, a block's manifest outlives its history items (the compaction job reads it).
    this.manifestRetentionDays = manifestRetentionWith(this.manifestRetentionDays, this.itemOptions.coldHistory);
    this.reorg = new Reorg(
      this.chainId,
      this.source,
      this.chainState,
      this.state,
      this.log,
      options.maxReorgDepth ?? DEFAULT_MAX_REORG_DEPTH,
      this.listeners,
      this.manifestRetentionDays,
    );
  }

  /**
   * A block's derived records (derive.ts, a pure function of the block): made once, by the prefetcher as
   * the block arrives. The node's answers they were made from are let go then (releaseAnswers): nothing
   * reads them after (about 40 MB of a 10,000-transaction block's peak heap; the derived records share
   * most of their strings).
   */
  private readonly derivedBlocks = new WeakMap<BlockBundle, DerivedBlock>();
  private derived(bundle: BlockBundle): DerivedBlock {
    let derived = this.derivedBlocks.get(bundle);
    if (!derived) {
      derived = deriveBlock(this.chainId, bundle);
      this.derivedBlocks.set(bundle, derived);
      releaseAnswers(bundle);
    }
    return derived;
  }

  /** Transactions in a fetched block (its derived records' count: the node's answers are let go once derived). */
  /** Whether a block is written in slices (items.ts slicesOf, writeSlices): it then goes in a batch of its own. */
  private writtenInSlices(derived: DerivedBlock): boolean {
    return slicesOf(derived, this.itemOptions.sliceTransactions).length > 1;
  }

  private transactionCount(bundle: BlockBundle): number {
    return this.derived(bundle).transactions.length;
  }

  /** A follower took the chain's lease: rounds may trust what this ingest wrote (see `held`) from the next read on. */
  holdLease(): void {
    this.held = { known: false };
  }

  /** The lease is gone (handed over, lost, or the invocation ends): every round reads the cursor again. */
  releaseLease(): void {
    this.held = undefined;
  }

  /**
   * A new head seen while a run writes (the follow loop looks while a block is written): the run goes
   * on to it without ending its round, and its blocks start to be fetched (and derived) now, while
   * the blocks before them are written. Up to the run's own limit (ingestNext's maxBlocks).
   */
  raiseTarget(head: number): void {
    const run = this.running;
    if (!run) return;
    const target = Math.min(head, run.limit);
    if (target <= run.target) return;
    run.target = target;
    run.prefetcher?.extendTo(target);
  }

  /** The chain's current head block number (kept as the node's head last seen, for the status). */
  async head(): Promise<bigint> {
    const head = await this.source.headBlockNumber();
    if (this.lastHead?.number !== Number(head)) this.lastHead = { number: Number(head), seenAt: Date.now() };
    else this.lastHead.seenAt = Date.now();
    return head;
  }

  /**
   * The chain's capabilities as found so far (by this process, else as recorded in the table): how
   * traces and receipts are read, and Multicall3.
   */
  async capabilities(): Promise<ChainCapabilities> {
    this.storedStatus ??= readStoredStatus(this.chainId).catch(() => undefined);
    const stored = await this.storedStatus;
    const { traceMethod, blockReceipts } = this.source.capabilities();
    const multicall = this.reader.multicall3From();
    return {
      traceMethod: traceMethod ?? stored?.traceMethod ?? null,
      blockReceipts:
        blockReceipts === undefined ? (stored?.blockReceipts ?? null) : blockReceipts ? 'eth_getBlockReceipts' : 'per_transaction',
      multicall3: multicall === undefined ? (stored?.multicall3 ?? null) : multicall === null ? 'absent' : 'present',
      multicall3FromBlock: multicall === undefined ? (stored?.multicall3FromBlock ?? null) : multicall === null ? null : Number(multicall),
    };
  }

  /**
   * Ingests blocks `from`..`to` (defaults: the block after the cursor, or 0 on an empty table; the
   * head). Blocks at or below the cursor are already complete: they are skipped, or with `repair`
   * written again. A `from` past the cursor + 1 is refused (it would leave a gap). Throws (without
   * moving the cursor past the failed block) when the node keeps failing.
   */
  async ingestRange(range: RangeOptions = {}): Promise<IngestResult> {
    const result: IngestResult = { advanced: 0, repaired: 0, reorgs: 0, cursor: undefined };
    try {
      await this.runRange(result, range);
    } catch (error) {
      if (this.held) this.held = { known: false };
      await this.recordStop(result.cursor, error);
      // (A run that lost its cursor to another writer records no stop: its queued status writes end before it throws.)
      await this.statusWrites;
      throw error;
    }
    // Under a lease: the cursor this run left is the stored one (a reorg or a plan: read again next round).
    if (this.held) this.held = result.reorgs === 0 && range.trust ? { known: true, cursor: result.cursor } : { known: false };
    await this.queueStatus(result.cursor);
    return result;
  }

  private async runRange(result: IngestResult, range: RangeOptions): Promise<void> {
    result.cursor = range.known ? range.known.cursor : await readCursor(this.chainId);
    const to = range.to ?? Number(await this.head());
    // (Known under the lease: this ingest wrote the cursor and checked its block's link; a reorg shows at the next block.)
    if (result.cursor && !range.known) {
      // A reorg that made the chain shorter (or replaced the cursor's block) shows here.
      if ((await this.source.blockHashAt(BigInt(result.cursor.blockNumber))) !== result.cursor.blockHash) {
        // (A rollback writes: not once the caller may no longer write.)
        if (range.mayWrite && !range.mayWrite()) return;
        result.cursor = await this.rollBack(result.cursor);
        result.reorgs += 1;
      }
    }
    const cursor = result.cursor;
    if (cursor && range.from !== undefined && range.from > cursor.blockNumber + 1) {
      throw new Error(`chain ${this.chainId}: --from-block ${range.from} would leave a gap after the cursor (block ${cursor.blockNumber})`);
    }
    if (cursor && range.repair && range.from !== undefined && range.from <= cursor.blockNumber) {
      const repairTo = Math.min(to, cursor.blockNumber);
      for (let number = range.from; number <= repairTo; number += 1) {
        const bundle = await this.source.fetch(BigInt(number));
        const stored = await getItem<BlockRecord>(blockKeys.block(this.chainId, number));
        if (stored && stored.hash !== bundle.block.hash!.toLowerCase()) {
          // The chain changed below the cursor: roll back, then carry on from the ancestor.
          result.cursor = await this.rollBack(cursor);
          result.reorgs += 1;
          break;
        }
        await this.writeBatch([bundle], 'repair', cursor, true);
        result.repaired += 1;
        this.options.onBlock?.({ blockNumber: number, mode: 'repair' });
      }
    }
    await this.advance(result, range.from ?? 0, to, range);
  }

  /**
   * Queues a status write (reportStatus) after those queued before it, so that writes land in order,
   * and returns it. A batch does not wait for its own (the next batch's reads and writes go on beside
   * it: one round trip less on a followed block's path every statusIntervalMs, issue 34 item 3); the run
   * waits for all of them at its end, as do a rollback's and a stop's, so that nothing is written after
   * a run has returned (in Lambda, a write left in flight would go out at the next thaw, after another
   * invocation's).
   */
  private queueStatus(cursor: CursorRecord | undefined, options: { state?: IngestState; reason?: string | null } = {}): Promise<void> {
    const write = this.statusWrites.then(() => this.reportStatus(cursor, options));
    this.statusWrites = write;
    return write;
  }

  /**
   * Writes the chain's status item (status.ts), after a batch or at the end of a run, only when the
   * state changes or `statusIntervalMs` passed since the last write (so at most once per batch);
   * `state` (repairing, stopped: always written) overrides the one the lag gives. Best effort: a
   * failed write is logged, never thrown (the batch before it moved the cursor; the next batch, or
   * the next run, writes the status again).
   */
  private async reportStatus(
    cursor: CursorRecord | undefined,
    options: { state?: IngestState; reason?: string | null } = {},
  ): Promise<void> {
    try {
      await this.writeStatus(cursor, options);
    } catch (error) {
      this.log.warn('could not write the chain status (the next batch or run writes it again)', {
        chainId: this.chainId,
        cursor: cursor?.blockNumber ?? null,
        state: options.state ?? null,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private async writeStatus(cursor: CursorRecord | undefined, options: { state?: IngestState; reason?: string | null }): Promise<void> {
    const now = Date.now();
    const head = this.lastHead;
    const behind = head && cursor ? head.number - cursor.blockNumber : 0;
    const state: IngestState = options.state ?? (behind > DEFAULT_STATUS_LAG_BLOCKS ? 'catching_up' : 'following');
    const due = !this.lastStatus || this.lastStatus.state !== state || now - this.lastStatus.at >= this.statusIntervalMs;
    if (!due && options.state === undefined) return;
    let nodeHead: { number: number; timestamp: number | null } | null = null;
    if (head && cursor && cursor.blockNumber >= head.number) {
      nodeHead = { number: cursor.blockNumber, timestamp: cursor.blockTimestamp ?? null };
    } else if (head) {
      // The head's timestamp (for the lag in seconds): one header read per head seen, only while
      // behind, retried like every node read; still failing, the status says null (read again next time).
      // (Not for a run that stopped: the node may be what failed.)
      if (head.timestamp === undefined && options.state !== 'stopped') {
        const timestamp = await this.headTimestamp(head.number).catch((error: unknown) => {
          this.log.warn('could not read the head block timestamp for the status', {
            chainId: this.chainId,
            head: head.number,
            error: error instanceof Error ? error.message : String(error),
          });
          return undefined;
        });
        if (this.lastHead === head && timestamp !== undefined) head.timestamp = timestamp;
        nodeHead = { number: head.number, timestamp: timestamp ?? null };
      } else {
        nodeHead = { number: head.number, timestamp: head.timestamp ?? null };
      }
    }
    const fields: StatusFields = {
      state,
      reason: options.reason ?? null,
      nodeHeadNumber: nodeHead?.number ?? null,
      nodeHeadTimestamp: nodeHead?.timestamp ?? null,
      nodeHeadSeenAt: head?.seenAt ?? null,
      updatedAt: now,
      ...(await this.capabilities()),
      // With the tier on, when this chain's history leaves the table (readers check the job kept up).
      ...(this.itemOptions.coldHistory ? { historyExpirySeconds: historyExpirySeconds(this.itemOptions.coldHistory) } : {}),
    };
    await writeChainStatus(this.chainId, fields);
    this.lastStatus = { state, at: now };
  }

  /**
   * The timestamp of block `number` (a header read, eth_getBlockByNumber without transactions, with
   * the ingest's retry policy); null when the node has no such block.
   */
  private async headTimestamp(number: number): Promise<number | null> {
    return withBackoff(`head block ${number} timestamp`, this.options.retry ?? DEFAULT_RETRY_POLICY, async () => {
      const header = (await this.options.client.request({
        method: 'eth_getBlockByNumber',
        params: [`0x${number.toString(16)}`, false],
      } as never)) as { timestamp?: unknown } | null;
      if (header === null || header === undefined) return null;
      if (typeof header.timestamp !== 'string' || !/^0x[0-9a-fA-F]+$/.test(header.timestamp))
        throw new Error(`eth_getBlockByNumber(${number}): timestamp is ${String(header.timestamp)}`);
      return Number(BigInt(header.timestamp));
    });
  }

  /** A run that failed: the status says `stopped` and why (a failure to write it is logged, not thrown over the run's). */
  private async recordStop(cursor: CursorRecord | undefined, error: unknown): Promise<void> {
    if (error instanceof CursorMovedError) return; // another writer is ingesting the chain: its status stands
    const text = error instanceof Error ? error.message : String(error);
    const reason = error instanceof ReorgTooDeepError ? text : `ingest failed: ${text}`;
    const message =
      error instanceof ManifestExpiredError
        ? 'manifest expired: the ingest stops writing'
        : error instanceof ReorgTooDeepError
          ? 'reorg too deep: the ingest stops writing'
          : 'ingest stopped by a failure';
    this.log.warn(message, {
      chainId: this.chainId,
      cursor: cursor?.blockNumber ?? null,
      reason,
    });
    await this.queueStatus(cursor, { state: 'stopped', reason });
  }

  /** Ingests at most `maxBlocks` blocks after the cursor, up to the head (the Lambda's unit of work). */
  async ingestNext(
    maxBlocks: number,
    options: Pick<RangeOptions, 'deadline' | 'signal' | 'mayWrite' | 'finishBy' | 'startAnyway'> & {
      firstBlock?: number;
      /** The node's head as the caller just read it (else read here). */
      head?: bigint;
    } = {},
  ): Promise<IngestResult> {
    const firstBlock = options.firstBlock ?? 0;
    let cursor: CursorRecord | undefined;
    let stored: BackfillPlanRecord | undefined;
    let head: number;
    // Under the lease, once read: the cursor this ingest left, and no plan (see `held`).
    const held = this.held?.known ? this.held : undefined;
    try {
      if (held) cursor = held.cursor;
      else [cursor, stored] = await Promise.all([readCursor(this.chainId), readPlan(this.chainId)]);
      head = Number(options.head ?? (await this.head()));
    } catch (error) {
      // (ingestRange records its own failures; these reads come before it.)
      await this.recordStop(cursor, error);
      throw error;
    }
    const plan = stored?.ended ? undefined : stored;
    const start = cursor ? cursor.blockNumber + 1 : (plan?.from ?? firstBlock);
    // Inside a backfill, staged segments cost no chain reads: the deadline alone bounds the run.
    const last = plan && start <= plan.to ? Math.max(plan.to, start + maxBlocks - 1) : start + maxBlocks - 1;
    // What the next rounds may trust (under the lease, no plan stored): the cursor this run leaves.
    const trust = held !== undefined || (this.held !== undefined && stored === undefined);
    return this.ingestRange({
      trust,
      to: Math.min(head, last),
      limit: last,
      deadline: options.deadline,
      signal: options.signal,
      ...(options.mayWrite ? { mayWrite: options.mayWrite } : {}),
      ...(options.finishBy !== undefined ? { finishBy: options.finishBy, startAnyway: options.startAnyway === true } : {}),
      ...(cursor ? {} : { from: start }),
      ...(held ? { known: { cursor } } : {}),
    });
  }

  /**
   * Follows the head: ingests new blocks, then waits `intervalMs` and polls again, until `signal`
   * aborts. Each round handles at most `maxBlocksPerRound` blocks.
   */
  async follow(
    options: { intervalMs?: number; signal?: AbortSignal; firstBlock?: number; maxBlocksPerRound?: number } = {},
  ): Promise<IngestResult> {
    const interval = options.intervalMs ?? 1_000;
    const total: IngestResult = { advanced: 0, repaired: 0, reorgs: 0, cursor: undefined };
    while (!options.signal?.aborted) {
      const result = await this.ingestNext(options.maxBlocksPerRound ?? 1_000, { firstBlock: options.firstBlock, signal: options.signal });
      total.advanced += result.advanced;
      total.reorgs += result.reorgs;
      total.cursor = result.cursor;
      if (result.advanced === 0 && result.reorgs === 0) await sleep(interval);
    }
    return total;
  }

  /**
   * Writes blocks after the cursor up to `to`, in batches; stops early (between batches) once past
   * `deadline` (epoch ms), once `signal` aborts (the CLI's Ctrl-C), or once `mayWrite` says no (asked
   * again right before each write, after the batch's blocks are read: the follow loop's lease). A batch is the next block and the blocks after it that are already fetched
   * and chain onto it (at most maxBatchBlocks): catching up, batches fill; following the head, a
   * batch is the one new block.
   */
  private async advance(result: IngestResult, defaultFrom: number, initialTo: number, range: RangeOptions): Promise<void> {
    const run: NonNullable<ChainIngest['running']> = {
      target: initialTo,
      limit: Math.max(initialTo, range.limit ?? initialTo),
      prefetcher: undefined,
    };
    this.running = run;
    try {
      await this.advanceRun(result, defaultFrom, run, range);
    } finally {
      if (this.running === run) this.running = undefined;
    }
  }

  private async advanceRun(
    result: IngestResult,
    defaultFrom: number,
    run: NonNullable<ChainIngest['running']>,
    range: RangeOptions,
  ): Promise<void> {
    const { deadline, signal, mayWrite, finishBy } = range;
    // Whether a batch of `transactions` is expected to end by finishBy (the first block of a lease that wrote nothing yet: always).
    let startAnyway = range.startAnyway === true;
    const fits = (transactions: number): boolean => finishBy === undefined || Date.now() + this.batchEstimateMs(transactions) <= finishBy;
    const stopped = () =>
      (deadline !== undefined && Date.now() >= deadline) || signal?.aborted === true || (mayWrite !== undefined && !mayWrite());
    let number = result.cursor ? result.cursor.blockNumber + 1 : defaultFrom;
    // Fetches from the node, started when a batch first needs it (not for blocks a backfill staged);
    // each fetched block is derived as soon as it arrives, while the blocks before it are written.
    const live = (): Prefetcher => {
      run.prefetcher ??= new Prefetcher(this.source, number, run.target, this.prefetch, 2 * this.maxBatchBlocks, (bundle) =>
        this.derived(bundle),
      );
      return run.prefetcher;
    };
    // Blocks past the cursor a run starts from (or a reorg moved back to) may have been left half
    // written by an earlier run (up to the cursor's pendingTo); later batches follow a cursor this
    // run moved.
    let mayBeHalfWritten = true;
    // (Known under the lease: no plan stored.)
    let plan = range.known ? undefined : await readPlan(this.chainId);
    if (plan?.ended) {
      // A reorg ended it and the run that found it stopped before sweeping it all.
      await this.sweepPlan(plan, result.cursor);
      plan = undefined;
    }
    if (plan && result.cursor && result.cursor.blockNumber >= plan.to) {
      // Numbered to its end by a run that stopped before ending it (or past it from the node).
      await deleteStagedSegment(this.chainId, segmentAt(plan, plan.to).from);
      await deletePlan(this.chainId);
      plan = undefined;
    }
    // A chain's first blocks come from a plan when there is one (not INGEST_FIRST_BLOCK).
    if (plan && !result.cursor) number = plan.from;
    let leftoversChecked = false;
    while (number <= run.target && !stopped()) {
      if (plan && number >= plan.from && number <= plan.to) {
        // A backfill's block (backfill.ts): numbered from its staged segment, or not yet.
        const segment = segmentAt(plan, number);
        if (!leftoversChecked && segment.from > plan.from) {
          // A crash between a segment's cursor move and its deletion leaves its staged items behind.
          await deleteStagedSegment(this.chainId, segmentAt(plan, segment.from - 1).from);
          leftoversChecked = true;
        }
        const staged = await readStagedSegment(this.chainId, segment.from);
        if (!staged) {
          const wait = this.options.backfillPollMs;
          if (wait === undefined) break;
          await sleep(wait);
          continue;
        }
        if (mayWrite && !mayWrite()) break;
        const step = await this.writeStaged(result, staged, number, run.target, mayBeHalfWritten);
        if (step.reorged) {
          // Staged blocks are no longer canonical: the rest is ingested from the node.
          // The rollback ended the plan (rollBack); without a cursor there was none to roll back, so
          // the plan is swept here. The rest is read from the node.
          if (!result.cursor) await this.sweepPlan(plan, undefined);
          plan = undefined;
        } else if (step.last === plan.to) {
          await deletePlan(this.chainId);
          plan = undefined;
        }
        number = (result.cursor?.blockNumber ?? number - 1) + 1;
        mayBeHalfWritten = step.mayBeHalfWritten;
        run.prefetcher = undefined;
        continue;
      }
      const first = await live().take(number);
      const cursor = result.cursor;
      if (mayWrite && !mayWrite()) break;
      if (cursor && first.block.parentHash.toLowerCase() !== cursor.blockHash) {
        result.cursor = await this.rollBack(cursor);
        result.reorgs += 1;
        number = result.cursor.blockNumber + 1;
        run.prefetcher = undefined;
        mayBeHalfWritten = true;
        plan = undefined; // (rollBack ended any)
        continue;
      }
      // A chain's first block is written alone: there is no cursor yet to record a batch on. After a
      // restart, the first batch waits for every block an interrupted batch announced (pendingTo), so
      // that it rewrites them (same items, state transitions already applied) instead of undoing them.
      const batch = [first];
      let tip = first;
      let transactions = this.transactionCount(first);
      if (!fits(transactions) && !startAnyway) {
        result.deferred = { block: number, transactions };
        this.log.info('a block not expected to be written before the invocation ends: left for the next one', {
          chainId: this.chainId,
          block: number,
          transactions,
          expectedMs: this.batchEstimateMs(transactions),
          leftMs: (finishBy ?? 0) - Date.now(),
        });
        break;
      }
      const limit = cursor ? this.maxBatchBlocks : 1;
      const awaitThrough =
        mayBeHalfWritten && cursor?.pendingTo !== undefined ? Math.min(cursor.pendingTo, run.target, number + limit - 1) : 0;
      // A block written in slices (writeSlices) goes alone, whatever batch it comes in: its items are the same.
      const alone = (bundle: BlockBundle): boolean => this.writtenInSlices(this.derived(bundle));
      while (batch.length < limit && number + batch.length <= run.target && transactions < MAX_BATCH_TRANSACTIONS && !alone(first)) {
        const nextNumber = number + batch.length;
        const next = nextNumber <= awaitThrough ? await live().peek(nextNumber) : live().ready(nextNumber);
        if (!next || next.block.parentHash.toLowerCase() !== tip.block.hash!.toLowerCase() || alone(next)) break;
        // (Also below what an interrupted batch announced: the blocks past the batch stay announced, rewritten by the next.)
        if (!fits(transactions + this.transactionCount(next))) break;
        tip = await live().take(nextNumber);
        batch.push(tip);
        transactions += this.transactionCount(next);
      }
      if (mayWrite && !mayWrite()) break;
      const started = Date.now();
      mayBeHalfWritten = await this.advanceBatch(result, batch, mayBeHalfWritten);
      this.measureBatch(transactions, Date.now() - started);
      startAnyway = false;
      number += batch.length;
    }
  }

  /** How long a batch of `transactions` is expected to take, ms (from the batches measured so far). */
  private batchEstimateMs(transactions: number): number {
    return this.batchFixedMs + transactions * this.msPerTransaction;
  }

  /** Smoothed, quick to rise (a slower table or node counts at once), slow to fall. */
  private measureBatch(transactions: number, ms: number): void {
    const smooth = (estimate: number, measured: number) => estimate + (measured - estimate) * (measured > estimate ? 0.5 : 0.2);
    if (transactions < ESTIMATE_MIN_TRANSACTIONS) {
      this.batchFixedMs = smooth(this.batchFixedMs, Math.max(0, ms - transactions * this.msPerTransaction));
      return;
    }
    this.msPerTransaction = smooth(this.msPerTransaction, Math.max(0, ms - this.batchFixedMs) / transactions);
  }

  /**
   * Writes a batch of consecutive blocks after the cursor and moves the cursor to its last block;
   * returns whether the next batch may find blocks an interrupted run left half written.
   */
  private async advanceBatch(result: IngestResult, batch: BlockBundle[], mayBeHalfWritten: boolean, replay?: Replay): Promise<boolean> {
    const cursor = result.cursor;
    const number = Number(batch[0]!.block.number);
    const { keptThrough } = await this.writeBatch(batch, 'advance', cursor, mayBeHalfWritten, replay);
    const last = batch.at(-1)!.block;
    if (!cursor) await this.state.registerChain(number);
    result.cursor = await moveCursor(
      this.chainId,
      cursor,
      {
        blockNumber: Number(last.number),
        blockHash: last.hash!.toLowerCase(),
        blockTimestamp: Number(last.timestamp),
        pendingTo: keptThrough,
      },
      number,
    );
    result.advanced += batch.length;
    // (Not waited for: the next batch goes on while it is written; the run waits for it at its end.)
    void this.queueStatus(result.cursor);
    for (const bundle of batch) this.options.onBlock?.({ blockNumber: Number(bundle.block.number), mode: 'advance' });
    // Blocks an interrupted run wrote past this batch, still canonical, stay announced on the
    // cursor and are looked at again by the next batch.
    return keptThrough !== undefined;
  }

  /**
   * Numbers blocks `number`.. of a staged segment (up to its end, or `to`) as one batch whose chain
   * reads the recording answers; a chain's first block goes alone (as in `advance`). Deletes the staged
   * items once the segment's last block is written.
   */
  private async writeStaged(
    result: IngestResult,
    staged: StagedSegment,
    number: number,
    to: number,
    mayBeHalfWritten: boolean,
  ): Promise<{ last: number; reorged: boolean; mayBeHalfWritten: boolean }> {
    const cursor = result.cursor;
    const upTo = cursor ? Math.min(staged.to, to) : number;
    const policy = this.options.retry ?? DEFAULT_RETRY_POLICY;
    const chain = replayingChain(this.options.client, staged.recording);
    const source = new BlockSource(chain.client, policy, this.log, this.options.traceMethod);
    const numbers = Array.from({ length: upTo - number + 1 }, (_, offset) => number + offset);
    // Read in order from the recording: a block written in slices (writeSlices) goes alone, so the batch
    // ends before it, or is it (the blocks after it are read by the next call, not read twice here).
    const batch: BlockBundle[] = [];
    for (const block of numbers) {
      const bundle = await source.fetch(BigInt(block));
      const large = this.writtenInSlices(this.derived(bundle));
      if (large && batch.length > 0) break;
      batch.push(bundle);
      if (large) break;
    }
    const last = number + batch.length - 1;
    const linked = batch.every(
      (bundle, index) =>
        bundle.block.parentHash.toLowerCase() ===
        (index === 0 ? (cursor?.blockHash ?? bundle.block.parentHash.toLowerCase()) : batch[index - 1]!.block.hash!.toLowerCase()),
    );
    if (!linked || (await this.source.blockHashAt(BigInt(last))) !== batch.at(-1)!.block.hash!.toLowerCase()) {
      if (cursor) {
        result.cursor = await this.rollBack(cursor);
        result.reorgs += 1;
      }
      return { last, reorged: true, mayBeHalfWritten: true };
    }
    const replay: Replay = {
      chainState: new ChainState(chain.client, chain.reader, policy),
      staged,
      written: { workerBlocks: 0, rewrittenBlocks: 0 },
    };
    const next = await this.advanceBatch(result, batch, mayBeHalfWritten, replay);
    if (last === staged.to) await deleteStagedSegment(this.chainId, staged.from);
    this.log.info('numbered staged blocks', {
      chainId: this.chainId,
      from: number,
      to: last,
      replayed: chain.counts.replayed,
      live: chain.counts.live,
      ...replay.written,
    });
    return { last, reorged: false, mayBeHalfWritten: next };
  }

  /** Ends a plan a reorg cut and deletes what it left past the cursor (backfill.ts sweepEndedPlan). */
  private async sweepPlan(plan: BackfillPlanRecord, cursor: CursorRecord | undefined): Promise<void> {
    const swept = await sweepEndedPlan(this.chainId, plan, cursor?.blockNumber ?? -1);
    this.log.info('swept an ended backfill', { chainId: this.chainId, from: plan.from, to: plan.to, ...swept });
  }

  /**
   * Rolls the cursor back to the last canonical block. A rollback while a backfill is open ends the
   * backfill: the blocks numbered from it past the ancestor are undone like any others, but their
   * staged segments are gone, and the ones staged later may hold orphaned blocks.
   */
  private async rollBack(cursor: CursorRecord): Promise<CursorRecord> {
    const found = await this.reorg.findAncestor(cursor);
    await this.queueStatus(cursor, {
      state: 'repairing',
      reason: `reorg of ${cursor.blockNumber - found.number} blocks: rolling back from block ${cursor.blockNumber} to the common ancestor ${found.number}`,
    });
    const ancestor = await this.reorg.undoTo(cursor, found);
    this.positions.forget();
    const plan = await readPlan(this.chainId);
    if (plan) {
      this.log.warn('reorg inside a backfill: its plan is ended, the rest is read from the node', {
        chainId: this.chainId,
        block: ancestor.blockNumber + 1,
      });
      await this.sweepPlan(plan, ancestor);
    }
    return ancestor;
  }

  /**
   * Writes everything a batch of consecutive blocks produces, in this order: (leftovers of an
   * interrupted run undone), each block's manifest, every immutable item, then (advance) the state
   * the batch changed (read on chain at its last block while the items are written), beside the
   * listeners with the batch's blocks.
   * `repair` writes one block at or below the cursor again and leaves state items alone.
   */
  private async writeBatch(
    bundles: BlockBundle[],
    mode: 'advance' | 'repair',
    cursor: CursorRecord | undefined,
    mayBeHalfWritten: boolean,
    replay?: Replay,
  ): Promise<{ keptThrough: number | undefined }> {
    const chainState = replay?.chainState ?? this.chainState;
    const [firstBundle] = bundles;
    const lastBundle = bundles.at(-1);
    if (firstBundle === undefined || lastBundle === undefined) throw new Error('writeBatch: a batch has at least one block');
    const firstNumber = Number(firstBundle.block.number);
    const lastNumber = Number(lastBundle.block.number);
    const hashes = new Map(bundles.map((bundle) => [Number(bundle.block.number), bundle.block.hash!.toLowerCase()]));

    // Manifests an interrupted run left past the cursor: of these very blocks (rewritten identically
    // below), of blocks past this batch that are still canonical (left for a later batch, and kept
    // announced), or of blocks since orphaned (undone: items deleted, touched state recomputed).
    const storedChunks = new Map<number, number>();
    // The batch's blocks already written with these very hashes (an interrupted run, a repair): what
    // their manifests list that this write no longer makes is deleted before anything is written.
    const restated: BlockManifest[] = [];
    let keptThrough: number | undefined;
    if (mayBeHalfWritten) {
      const through = mode === 'advance' && cursor ? Math.max(lastNumber, lastPossiblyWritten(cursor)) : lastNumber;
      const numbers = Array.from({ length: through - firstNumber + 1 }, (_, offset) => firstNumber + offset);
      const read = await Promise.all(numbers.map((number) => readManifest(this.chainId, number)));
      const found = read.filter((manifest) => manifest !== undefined);
      // A block an interrupted run may have written (up to what the cursor announced) with no whole
      // manifest: never written (or its manifest write cut), or its manifest expired (its block item is
      // stored). Expired, it stops the ingest, unless it is a block of this batch as stored (written
      // again identically).
      if (mode === 'advance') {
        const mayBeWritten = cursor ? lastPossiblyWritten(cursor) : firstNumber;
        await this.reorg.refuseExpired(
          numbers.filter((number, position) => !read[position]?.complete && number <= mayBeWritten),
          hashes,
        );
      }
      const canonical = new Map(hashes);
      const beyond = found.filter((manifest) => !hashes.has(manifest.blockNumber));
      const beyondHashes = await Promise.all(beyond.map((manifest) => this.source.blockHashAt(BigInt(manifest.blockNumber))));
      for (const [position, manifest] of beyond.entries()) canonical.set(manifest.blockNumber, beyondHashes[position] ?? '');
      const stale = found.filter((manifest) => canonical.get(manifest.blockNumber) !== manifest.blockHash);
      if (stale.length > 0) {
        if (mode === 'repair') throw new Error(`block ${firstNumber}: stored manifest is of another block hash; run a normal ingest first`);
        await this.reorg.undoManifests(stale, firstNumber - 1);
        this.positions.forget();
        // Past the batch, nothing rewrites them: delete them (a block of this batch overwrites its own).
        await Promise.all(
          stale
            .filter((manifest) => !hashes.has(manifest.blockNumber))
            .map((manifest) => deleteManifest(this.chainId, manifest.blockNumber)),
        );
      }
      for (const manifest of found) {
        if (hashes.has(manifest.blockNumber)) {
          storedChunks.set(manifest.blockNumber, manifest.chunkCount ?? 0);
          if (!stale.includes(manifest)) restated.push(manifest);
        } else if (!stale.includes(manifest)) keptThrough = Math.max(keptThrough ?? 0, manifest.blockNumber);
      }
    }

    const blocks = bundles.map((bundle) => this.derived(bundle));
    // The range heads of the blocks' addresses, read beside the prefetch below and the chain reads.
    if (mode === 'advance') this.positions.preloadHeads(rangeOwnersOf(blocks));
    // What the table knows from earlier batches: address items, and (advance) the balance items the
    // batch's transitions start from and the NFT instances it touches; one BatchGetItem round for all.
    const candidates = [...new Set(blocks.flatMap(candidatesOf))];
    const balanceTouches = mode === 'advance' ? balanceTouchesOf(blocks) : [];
    // (With the holders' ERC-1155 totals, which the batch writes after their per-id balances.)
    const balanceKeys = [...balanceTouches, ...erc1155Totals(balanceTouches)].map((touch) => this.state.balanceKey(touch));
    const instanceKeys =
      mode === 'advance'
        ? [
            ...new Map(
              blocks
                .flatMap((derived) => derived.nftTouches)
                .map((nft) => {
                  const key = nftKeys.instance(this.chainId, nft.contract, nft.tokenId);
                  return [keyId(key), key] as const;
                }),
            ).values(),
          ]
        : [];
    // The instances the collections' refresh after the state may embed (collectionCandidates), from their
    // first holdings read beside that round: it reads them with the rest (one round).
    const collectionCandidates = this.collectionCandidates(mode === 'advance' ? blocks : [], balanceTouches);
    collectionCandidates.catch(() => undefined); // (awaited in applyState; a failure surfaces there)
    const found = await getItems<AddressRecord | BalanceRecord | NftInstanceRecord>([
      ...candidates.map((address) => addressKeys.address(this.chainId, address)),
      ...balanceKeys,
      ...instanceKeys,
    ]);
    const stored = new Map<string, AddressRecord>();
    for (const address of candidates) {
      const item = found.get(keyId(addressKeys.address(this.chainId, address))) as AddressRecord | undefined;
      if (!item) continue;
      // Written by an interrupted run of these very blocks (advance: earlier batches end at the
      // cursor): says nothing of the blocks before it. First seen in the batch: as if absent; token
      // details read in the batch (or at a block it does not record: an item written before
      // tokenDetailsBlock): read again as a block-by-block run would; read before it: as they are.
      if (mode === 'advance' && item.updatedAtBlock >= firstNumber) {
        if (item.firstSeenBlock >= firstNumber) continue;
        if (typeof item.tokenDetailsBlock === 'number' && item.tokenDetailsBlock < firstNumber) {
          stored.set(address, item);
          continue;
        }
        stored.set(address, { ...item, tokenType: null, tokenName: null, tokenSymbol: null, tokenDecimals: null, tokenTotalSupply: null });
        continue;
      }
      stored.set(address, item);
    }
    const prefetched = new Map<string, BalanceRecord>();
    for (const key of balanceKeys) {
      const item = found.get(keyId(key));
      if (item) prefetched.set(keyId(key), item as BalanceRecord);
    }
    const prefetchedInstances = new Map<string, NftInstanceRecord>();
    for (const key of instanceKeys) {
      const item = found.get(keyId(key));
      if (item) prefetchedInstances.set(keyId(key), item as NftInstanceRecord);
    }

    // Chain facts of each block as of the block; then tags and items block by block; then positions.
    const facts = await readBatchFacts(blocks, stored, chainState, FACT_CONCURRENCY);
    const written = new Set<string>(); // addresses an earlier block of the batch writes an item for
    const updates = new Map<string, { update: AddressUpdate; firstBlock: number; lastBlock: number }>();
    /** The state entities a block touches (its range heads aside), noting the address items it writes. */
    const touchedBy = (derived: DerivedBlock): string[] => {
      const number = derived.block.number;
      const isContract = (address: string): boolean => facts.isContract(address, derived);
      // The address items this block writes: new contracts, creations, tokens it moved.
      const creations = new Map(derived.creations.map((creation) => [creation.address, creation]));
      const blockUpdates = candidatesOf(derived).filter(
        (address) =>
          isContract(address) &&
          (!(facts.storedBefore(address, number) || written.has(address)) || creations.has(address) || derived.tokens.has(address)),
      );
      for (const address of blockUpdates) {
        written.add(address);
        const creation = creations.get(address);
        const entry = updates.get(address) ?? { update: { address, creation: null }, firstBlock: number, lastBlock: number };
        entry.lastBlock = number;
        if (creation) entry.update.creation = { creator: creation.creator, transactionHash: creation.transactionHash, blockNumber: number };
        updates.set(address, entry);
      }
      return [
        ...blockUpdates.map((address) => entity.address(address)),
        ...derived.balanceTouches.map((touch) => entity.balance(touch)),
        ...erc1155Totals(derived.balanceTouches).map((total) => entity.balance(total)),
        ...derived.nftTouches.map((nft) => entity.nft(nft.contract, nft.standard, nft.tokenId)),
        ...collectionsTouched(derived.balanceTouches).map((c) => entity.collection(c.holder, c.contract, c.standard)),
        ...nativeEntitiesOf(derived, this.coinBalances),
      ];
    };
    // A lone block of more than SLICE_TRANSACTIONS transactions (advanceRun puts it alone): written in slices.
    const [lone] = blocks;
    const sliced = blocks.length === 1 && lone !== undefined ? slicedItemsOfBlock(lone, facts, this.itemOptions) : undefined;
    if (blocks.length > 1 && blocks.some((derived) => this.writtenInSlices(derived)))
      throw new Error(`blocks ${firstNumber}..${lastNumber}: a block written in slices goes in a batch of its own`);
    let writeImmutable: () => Promise<void>;
    if (lone !== undefined && sliced !== undefined && sliced.slices.length > 1) {
      const touched = touchedBy(lone);
      writeImmutable = () => this.writeSlices(lone, sliced, touched, mode, restated, storedChunks.get(lone.block.number) ?? 0, replay);
    } else {
      const manifests: BlockManifest[] = [];
      const items: TableItem[] = [];
      const blocksItems: { blockNumber: number; items: TableItem[] }[] = [];
      for (const derived of blocks) {
        const number = derived.block.number;
        const blockItems = derived === lone && sliced ? sliced.itemsOf() : itemsOfBlock(derived, facts, this.itemOptions);
        blocksItems.push({ blockNumber: number, items: blockItems });
        // (One by one: a spread of a large block's items overflows the call stack.)
        for (const item of blockItems) items.push(item);
        manifests.push({
          blockNumber: number,
          blockHash: derived.block.hash,
          blockTimestamp: derived.block.timestamp,
          items: blockItems,
          touched: [...touchedBy(derived), ...headsEntitiesOf(blockItems, isCountedEntry)],
        });
      }
      writeImmutable = async () => {
        // Positions and running totals on the entries; the seek chunks each block completes are its items too.
        // A staged block's items that its worker already wrote, identical (the rest are written here).
        const writtenByWorker = replay ? workerWrites(replay, blocksItems) : { skip: new Set<TableItem>(), stale: [] };
        const seekChunks = await this.positions.assignBlocks(blocksItems, { fresh: mode === 'repair' });
        // The range heads the batch moved (range-heads.ts): written with its items, not listed as any block's.
        const heads = this.positions.takeHeads();
        for (const [index, chunks] of seekChunks.entries()) for (const chunk of chunks) blocksItems[index]!.items.push(chunk);
        // Numbered entries of bucketed ranges go in block buckets (table/buckets.ts); each block's list,
        // which its manifest holds, is changed in place.
        items.length = 0;
        for (const block of blocksItems) {
          bucketNumberedEntries(block.items);
          for (const item of block.items) items.push(item);
        }

        if (mode === 'advance' && cursor && bundles.length > 1 && lastPossiblyWritten(cursor) < lastNumber)
          await markPending(this.chainId, cursor, lastNumber);
        // Items an earlier write of these blocks made that this one does not (block buckets cut otherwise:
        // entries written one an item before buckets, an expiry setting changed): deleted first, while the
        // stored manifests still list them, so a crash here leaves them listed for the next run.
        if (restated.length > 0) {
          const made = new Set(items.map(keyId));
          const leftovers = restated.flatMap((manifest) => manifest.items).filter((key) => !made.has(keyId(key)));
          if (leftovers.length > 0) await writeItems({ delete: leftovers });
        }
        await Promise.all(
          manifests.map((manifest) =>
            writeManifest(this.chainId, manifest, storedChunks.get(manifest.blockNumber) ?? 0, this.manifestRetentionDays),
          ),
        );
        // (Writing the state at the same time as the immutable items measured slower on the embedded
        // table, whose transactions lock it whole; in AWS the two could overlap.)
        await writeItems(
          { put: [...items.filter((item) => !writtenByWorker.skip.has(item)), ...heads], delete: writtenByWorker.stale },
          { concurrency: ITEM_WRITE_CONCURRENCY },
        );
      };
    }

    // The chain state of what the batch touched, read at its last block while the items are written.
    const stateRead = mode === 'advance' ? readStateAt(blocks, facts, chainState) : undefined;
    stateRead?.catch(() => undefined); // (awaited in applyState; a failure surfaces there)
    // Native coin balances and proxy implementations (native-state.ts): never throws.
    const nativeRead =
      mode === 'advance' ? readNativeState(this.chainId, blocks, chainState, this.log, { coinBalances: this.coinBalances }) : undefined;
    await writeImmutable();
    // The listeners (order deposit detection: orders, never state items) run beside the state writes;
    // both end before the cursor moves, so a crash still delivers the blocks again (at least once).
    // A failure of one side is thrown only once the other has ended too (allEnded), so that a next
    // attempt (a rollback, the follow loop's next round) never runs beside it.
    await allEnded([
      stateRead &&
        (async () => {
          // Native coin balances share no item with the rest of the state: written beside it.
          const [instances] = await allEnded([
            this.applyState(stateRead, facts, [...updates.values()], balanceTouches, prefetched, prefetchedInstances, collectionCandidates),
            nativeRead && (async () => this.native.applyBalances(await nativeRead))(),
          ]);
          await allEnded([
            // After the address items: an implementation is set on its proxy's item.
            nativeRead && (async () => this.native.applyImplementations(await nativeRead, upgradedIn(blocks), knownProxies(stored)))(),
            // The instances are written: a listener may queue what it needs of them (NFT metadata fetches).
            notifyNftInstancesWritten(this.listeners, { chainId: this.chainId, blockNumber: lastNumber, instances }),
          ]);
        })(),
      notifyBlocksIngested(
        this.listeners,
        blocks.map((derived) => this.ingestedEvent(derived, mode)),
      ),
    ]);
    return { keptThrough };
  }

  /**
   * Writes the immutable items of a block of more than SLICE_TRANSACTIONS transactions (issue 34,
   * item 1), one slice of transactions at a time (items.ts slicesOf), so that its items are never all
   * in memory: each slice's items are built and numbered (range-positions.ts `assignSlice`, positions
   * carried from slice to slice), its part of the manifest is written, then its items, and they are let
   * go. Whatever a crash leaves is listed: each part of the manifest is written before the items it
   * lists, and reads as incomplete until the last (manifest.ts `writeManifestChunks`). The block item
   * (N1) is in the last slice, written after the whole manifest, as manifestsExpired expects; the range
   * heads the block moved go with it, and their entities are listed with each slice.
   *
   * An earlier write of this block past the cursor (an interrupted run: `restated`, advance) has its items
   * deleted first, while its manifest, kept until the new parts write over it, lists them (no reader is
   * served them yet); the block is then written as a clean ingest writes it. A repaired block (at or below
   * the cursor: readers are served it) is written over in place: its new parts go after the stored
   * manifest's chunks (old and new listed at every step, whatever the old layout), what the old one listed
   * and the repair did not write is deleted at the end, and the parts are written again from chunk 0. A
   * stored manifest of another hash (undone by writeBatch) is deleted before any part. Items a backfill
   * worker wrote (`replay`) are written again, and those of its keys the block no longer has deleted.
   */
  private async writeSlices(
    derived: DerivedBlock,
    sliced: ReturnType<typeof slicedItemsOfBlock>,
    touched: string[],
    mode: 'advance' | 'repair',
    restated: readonly BlockManifest[],
    storedChunks: number,
    replay: Replay | undefined,
  ): Promise<void> {
    const number = derived.block.number;
    const header = { blockNumber: number, blockHash: derived.block.hash, blockTimestamp: derived.block.timestamp };
    const repairing = mode === 'repair' && restated.length > 0;
    let stored = storedChunks;
    if (restated.length > 0 && !repairing) {
      // Past the cursor (no reader is served it): its items go first, while the stored manifest, kept
      // until the new parts write over it, lists them and the range heads they moved.
      await writeItems({ delete: restated.flatMap((manifest) => manifest.items) }, { concurrency: ITEM_WRITE_CONCURRENCY });
    } else if (restated.length === 0 && storedChunks > 0) {
      // The stored manifest is of another hash, already undone (writeBatch): gone before any part is written.
      await deleteManifest(this.chainId, number);
      stored = 0;
    }
    // A repair writes its parts after the stored manifest's chunks, each part's count exact: the manifest
    // lists the old items and the new at every step, whatever its layout was; the parts are written again
    // from chunk 0 at the end, once what the old one listed and the repair did not write is deleted.
    const parts: { items: ItemKey[]; touched: string[]; last: boolean }[] | undefined = repairing ? [] : undefined;
    const workerKeys = replay?.staged.blocks.get(number)?.keys ?? [];
    const workerLeft = new Map(workerKeys.map(([pk, sk]) => [keyId({ pk, sk }), { pk, sk }] as const));
    if (replay && workerKeys.length > 0) replay.written.rewrittenBlocks += 1;
    const within = new Map<string, RangeState>();
    let chunk = repairing ? stored : 0;
    // A slice's items are written while the next slice is built, numbered and its manifest part written
    // (that part lists what it writes; none of it waits on the slice before): two slices in memory at most.
    let writing: Promise<void> | undefined;
    try {
      for (const [index, slice] of sliced.slices.entries()) {
        const last = index === sliced.slices.length - 1;
        const items = sliced.itemsOf(slice);
        const heads = headsEntitiesOf(items, isCountedEntry);
        const seekChunks = await this.positions.assignSlice(number, items, { first: index === 0, within, fresh: mode === 'repair' });
        for (const item of seekChunks) items.push(item);
        bucketNumberedEntries(items);
        const part = {
          items: items.map((item) => ({ pk: item.pk, sk: item.sk })),
          touched: index === 0 ? [...touched, ...heads] : heads,
          last,
        };
        parts?.push(part);
        chunk = await writeManifestChunks(
          this.chainId,
          { ...header, ...part },
          { firstChunk: chunk, last: last || repairing },
          this.manifestRetentionDays,
        );
        for (const item of items) workerLeft.delete(keyId(item));
        const put = last ? [...items, ...this.positions.takeHeads()] : items;
        await writing;
        writing = writeItems({ put }, { concurrency: ITEM_WRITE_CONCURRENCY });
        writing.catch(() => undefined); // (awaited before the next slice's write, or below)
      }
      await writing;
    } catch (error) {
      // (Nothing is left in flight when this throws: a slice's write is awaited before the next is sent.)
      await writing?.catch(() => undefined);
      // The positions and heads numbered so far are of a block not written: the next attempt reads them again.
      this.positions.forget();
      throw error;
    }
    if (parts) {
      const made = new Set(parts.flatMap((part) => part.items.map(keyId)));
      const leftovers = restated.flatMap((manifest) => manifest.items).filter((key) => !made.has(keyId(key)));
      if (leftovers.length > 0) await writeItems({ delete: leftovers });
      const total = chunk;
      chunk = 0;
      for (const part of parts)
        chunk = await writeManifestChunks(
          this.chainId,
          { ...header, ...part },
          { firstChunk: chunk, last: part.last },
          this.manifestRetentionDays,
        );
      stored = total;
    }
    await deleteManifestChunksPast(this.chainId, number, chunk, stored);
    if (workerLeft.size > 0) await writeItems({ delete: [...workerLeft.values()] });
  }

  /**
   * By collectionId, the token ids whose instances each collection the batch touches may embed after it:
   * read before the batch, its first 9 + k holdings (k: the ids the batch moves away from the holder),
   * then the 9 + k highest of those and the ids it moves in. The 9 highest after the batch are among
   * them, since it removes at most k (a block minting 1,000 tokens to one holder names 9, not 1,009).
   */
  private async collectionCandidates(
    blocks: readonly DerivedBlock[],
    balanceTouches: readonly BalanceTouch[],
  ): Promise<Map<string, string[]>> {
    const moved = idsMoved(blocks);
    const collections = collectionsTouched(balanceTouches).map((c) => {
      const key = `${c.holder}|${c.contract}`;
      return { ...c, into: moved.in.get(key) ?? new Set<string>(), limit: 9 + (moved.out.get(key)?.size ?? 0) };
    });
    const prefixes = await this.state.readCollectionPrefixes(collections);
    return new Map(
      collections.map(({ holder, contract, standard, into, limit }) => {
        const id = collectionId(holder, contract, standard);
        const ids = [...new Set([...(prefixes.get(id) ?? []), ...into])]
          .map((tokenId) => BigInt(tokenId))
          .sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))
          .slice(0, limit)
          .map(String);
        return [id, ids];
      }),
    );
  }

  /**
   * The state items a batch changes, each written once with its value at the batch's last block,
   * recorded as updated at the last block of the batch that touched it (so the items do not depend
   * on where batches start and end): contracts and tokens first (balance transitions count holders on
   * the token's item), then balances, ERC-1155 totals, NFT instances and collections.
   */
  private async applyState(
    stateRead: ReturnType<typeof readStateAt>,
    facts: BatchFacts,
    updates: { update: AddressUpdate; firstBlock: number; lastBlock: number }[],
    balanceTouches: BalanceTouch[],
    prefetched: Map<string, BalanceRecord>,
    /** The batch's NFT instances as stored before it (read with the balances). */
    prefetchedInstances: Map<string, NftInstanceRecord>,
    /** By collectionId, the token ids whose instances the touched collections may embed after the batch. */
    collectionCandidates: Promise<Map<string, string[]>>,
  ): Promise<NftInstancesWrittenEvent['instances']> {
    const { last, nftTouches, supplies, balances, nfts, blocks } = await stateRead;
    const tokenName = (token: string): string => facts.tokenInfo(token, last)?.name ?? '';
    // The last block of the batch that touched each entity.
    const touchedAt = new Map<string, number>();
    for (const derived of blocks) {
      const number = derived.block.number;
      for (const touch of derived.balanceTouches) touchedAt.set(entity.balance(touch), number);
      for (const total of erc1155Totals(derived.balanceTouches)) touchedAt.set(entity.balance(total), number);
      for (const nft of derived.nftTouches) touchedAt.set(entity.nft(nft.contract, nft.standard, nft.tokenId), number);
      for (const c of collectionsTouched(derived.balanceTouches))
        touchedAt.set(entity.collection(c.holder, c.contract, c.standard), number);
    }
    const lastTouch = (name: string): number => touchedAt.get(name) ?? last;

    // The address items, awaited by the balances' transactions (their counters ADD to the tokens' items),
    // not by what those transactions read first.
    const addressesWritten = inParallel(updates, STATE_CONCURRENCY, async ({ update, firstBlock, lastBlock }) => {
      const probe = facts.latestProbe(update.address);
      if (probe)
        update.token =
          probe.info && supplies.has(update.address) ? { ...probe.info, totalSupply: supplies.get(update.address) ?? null } : probe.info;
      else if (supplies.has(update.address)) update.totalSupply = supplies.get(update.address) ?? null;
      // The symbol's name items are others than those a renamed token's old symbol leaves: at once.
      const symbol = probe?.info?.symbol;
      await Promise.all([
        this.state.updateAddress(update, firstBlock, lastBlock),
        symbol && this.state.registerName(symbol, update.address),
      ]);
    });
    addressesWritten.catch(() => undefined); // (awaited by setBalances; a failure surfaces there)

    // Balances in transactions of up to 100 (state.ts setBalances): token-level and ERC-1155 per-id ones
    // at once (an id's held supply moved once per transaction for all its holders), then the ERC-1155
    // totals of the holders, which sum their holdings as the per-id balances left them.
    const transitions = withAnswers(balanceTouches, balances).flatMap(([touch, value]) => {
      if (value !== null) return [{ touch, value }];
      this.log.warn('balanceOf did not answer: balance left as is', {
        chainId: this.chainId,
        block: last,
        token: touch.token,
        holder: touch.holder,
      });
      return [];
    });
    // The holders' ERC-1155 holdings, which their totals sum (below), read beside the balances'
    // transactions, not after them (a round trip less on the commit path): an id the batch changes
    // counts with the value setBalances leaves it (its `values`), whatever the read saw of it, before or
    // after its write; the other ids the batch does not write.
    const totals = erc1155Totals(balanceTouches);
    const holdingsRead = new Map(totals.map((total) => [entity.balance(total), this.state.erc1155Holdings(total.holder, total.token)]));
    for (const read of holdingsRead.values()) read.catch(() => undefined); // (awaited in writeTotals)
    const balancesWritten = this.state.setBalances(
      transitions.map(({ touch, value }) => ({
        balance: touch,
        value,
        blockNumber: lastTouch(entity.balance(touch)),
        tokenName: tokenName(touch.token),
      })),
      { prefetched, concurrency: STATE_CONCURRENCY, after: addressesWritten },
    );
    const [balancesLeft] = await allEnded([balancesWritten, addressesWritten]);
    // By total: the values setBalances left the holder's ids the batch changed.
    const idsLeft = new Map<string, Map<string, bigint>>();
    for (const { touch } of transitions) {
      if (touch.standard !== 'ERC-1155' || touch.tokenId === null) continue;
      const left = balancesLeft.values.get(keyId(this.state.balanceKey(touch)));
      if (left === undefined) continue;
      const total = entity.balance({ holder: touch.holder, token: touch.token, standard: 'ERC-1155', tokenId: null });
      const ids = idsLeft.get(total) ?? new Map<string, bigint>();
      ids.set(touch.tokenId.toString(), left);
      idsLeft.set(total, ids);
    }
    // The ERC-1155 totals and the NFT instances share no item but a token's counters (different
    // attributes, each an ADD; a transaction that meets another on the item is retried): at once.
    const writeTotals = async (): Promise<void> => {
      const sums = new Map<BalanceEntity, bigint>();
      for (const total of totals) {
        const held = new Map(await holdingsRead.get(entity.balance(total))!);
        for (const [id, value] of idsLeft.get(entity.balance(total)) ?? []) held.set(id, value);
        let sum = 0n;
        for (const value of held.values()) sum += value;
        sums.set(total, sum);
      }
      await this.state.setBalances(
        totals.map((total) => ({
          balance: total,
          value: sums.get(total) ?? 0n,
          blockNumber: lastTouch(entity.balance(total)),
          tokenName: tokenName(total.token),
        })),
        { prefetched, concurrency: STATE_CONCURRENCY },
      );
    };
    // The instances as the balance transitions left them (below). Writes that make new instances
    // move their contract's instance count: those of one contract go in shared transactions, in
    // sequence (setNewNftInstances: a block's mints of a collection in a few round trips, not one each,
    // like the holder counts above); updates of known instances run in parallel.
    const instanceWrites = withAnswers(nftTouches, nfts).map(([nft, state]) => ({ nft, state }));
    let storedInstances = new Map<string, NftInstanceRecord>();
    const writeInstances = async (): Promise<void> => {
      // As the balances' transactions left them: read before the batch, with the held supplies those
      // moved (their only change to an instance, which they create when missing); read again only when
      // one of them was refused and written one by one.
      storedInstances = balancesLeft.exact
        ? instancesAfterBalances(prefetchedInstances, balancesLeft.heldSupplies)
        : await this.state.getNftInstances(instanceWrites.map(({ nft }) => nft));
      const isNew = ({ nft }: (typeof instanceWrites)[number]): boolean =>
        storedInstances.get(keyId(nftKeys.instance(this.chainId, nft.contract, nft.tokenId)))?.updatedAtBlock === undefined;
      const write = ({ nft, state }: (typeof instanceWrites)[number]) => ({
        standard: nft.standard,
        tokenId: nft.tokenId,
        state,
        blockNumber: lastTouch(entity.nft(nft.contract, nft.standard, nft.tokenId)),
        firstSeenBlock: nft.firstBlock,
      });
      const known = instanceWrites.filter((entry) => !isNew(entry));
      const minted = groupBy(
        instanceWrites.filter((entry) => isNew(entry)),
        ({ nft }) => nft.contract,
      );
      await inParallel([...known.map((entry) => [entry]), ...minted], STATE_CONCURRENCY, async (group) => {
        const [first] = group;
        if (!first) return;
        if (isNew(first)) return this.state.setNewNftInstances(first.nft.contract, group.map(write), storedInstances);
        const { standard, tokenId, state, blockNumber, firstSeenBlock } = write(first);
        await this.state.setNftInstance(first.nft.contract, standard, tokenId, state, blockNumber, {
          firstSeenBlock,
          prefetched: storedInstances,
        });
      });
    };
    await allEnded([writeTotals(), writeInstances()]);
    // The collections embed the instances and the totals: read as written, in one round with the
    // instances they may embed (the first holdings before the batch and the ids it moved), one write.
    const candidates = await collectionCandidates;
    await this.state.refreshCollections(
      collectionsTouched(balanceTouches).map((c) => ({
        ...c,
        blockNumber: lastTouch(entity.collection(c.holder, c.contract, c.standard)),
        candidates: candidates.get(collectionId(c.holder, c.contract, c.standard)),
      })),
    );
    return instanceWrites.map(({ nft, state }) => ({
      contract: nft.contract,
      standard: nft.standard,
      tokenId: nft.tokenId.toString(),
      tokenUri: state.tokenUri,
      fetchedTokenUri: storedInstances.get(keyId(nftKeys.instance(this.chainId, nft.contract, nft.tokenId)))?.fetched?.tokenUri ?? null,
    }));
  }

  private ingestedEvent(derived: DerivedBlock, mode: 'advance' | 'repair'): BlockIngestedEvent {
    return {
      chainId: this.chainId,
      block: derived.block,
      mode,
      nativeTransfers: derived.nativeTransfers,
      erc20Transfers: derived.tokenTransfers.filter((transfer) => transfer.tokenStandard === 'ERC-20'),
      transactions: derived.transactions,
      logs: derived.logs,
    };
  }
}

/**
 * Blocks fetched ahead of the writer: `inFlight` fetches at a time, never more than `ahead` blocks
 * past the last one taken. Blocks must be taken in order.
 */
class Prefetcher {
  private readonly entries = new Map<number, { promise: Promise<BlockBundle>; value?: BlockBundle }>();
  private next: number;
  private taken: number;
  private running = 0;

  constructor(
    private readonly source: BlockSource,
    from: number,
    private to: number,
    private readonly inFlight: number,
    private readonly ahead: number,
    /** Called with each block once fetched (its derivation, done while earlier blocks are written). */
    private readonly onFetched?: (bundle: BlockBundle) => void,
  ) {
    this.next = from;
    this.taken = from;
    this.pump();
  }

  /** Fetches further: blocks up to `to` (a new head seen while the run writes). */
  extendTo(to: number): void {
    if (to <= this.to) return;
    this.to = to;
    this.pump();
  }

  /** The block, once fetched (a failed fetch rejects: the ingest stops without moving the cursor). */
  take(number: number): Promise<BlockBundle> {
    if (!this.entries.has(number)) this.start(number);
    const entry = this.entries.get(number)!;
    this.entries.delete(number);
    this.taken = Math.max(this.taken, number + 1);
    this.pump();
    return entry.promise;
  }

  /** The block if its fetch has already finished. */
  ready(number: number): BlockBundle | undefined {
    return this.entries.get(number)?.value;
  }

  /** The block once fetched, without taking it. */
  peek(number: number): Promise<BlockBundle> {
    if (!this.entries.has(number)) this.start(number);
    return this.entries.get(number)!.promise;
  }

  private pump(): void {
    this.next = Math.max(this.next, this.taken);
    while (this.running < this.inFlight && this.next <= this.to && this.next < this.taken + this.ahead) {
      this.start(this.next);
      this.next += 1;
    }
  }

  private safely(bundle: BlockBundle): void {
    try {
      this.onFetched?.(bundle);
    } catch {
      // (See above.)
    }
  }

  private start(number: number): void {
    const entry: { promise: Promise<BlockBundle>; value?: BlockBundle } = { promise: this.source.fetch(BigInt(number)) };
    this.running += 1;
    // A fetch nobody takes (the run stopped) must not crash the process when it fails.
    entry.promise
      .then(
        (value) => {
          entry.value = value;
          // (Deriving is the caller's: a failure there is met again, and thrown, when the batch derives it.)
          if (this.onFetched) setImmediate(() => this.safely(value));
        },
        () => undefined,
      )
      .finally(() => {
        this.running -= 1;
        this.pump();
      });
    this.entries.set(number, entry);
  }
}

/** A staged segment's chain reads (backfill.ts), answering a batch instead of the node. */
interface Replay {
  chainState: ChainState;
  staged: StagedSegment;
  /** Blocks whose order-free items the worker wrote identically, and blocks written whole again. */
  written: { workerBlocks: number; rewrittenBlocks: number };
}

/**
 * Lets go of a derived block's node answers (its transactions, receipts, traces and revert reasons): the
 * derived records hold everything the batch writes, and the block's header fields (number, hash, parent,
 * timestamp) stay. On a block of 10,000 Base-like transactions its peak heap went from about 790 to 750 MB
 * (issue 34, item 1: docs/decisions/ingest.md, "A block of any size in bounded memory").
 */
function releaseAnswers(bundle: BlockBundle): void {
  bundle.block = { ...bundle.block, transactions: [] };
  bundle.receipts = [];
  bundle.traces = [];
  bundle.revertReasons = new Map();
}

/**
 * Of each staged block's items, those its worker wrote identically (not written again) and the keys
 * the worker wrote that the block does not have (deleted): a block whose items differ from the
 * worker's (the chain answered otherwise) is written whole.
 */
function workerWrites(replay: Replay, blocks: readonly { blockNumber: number; items: readonly TableItem[] }[]) {
  const skip = new Set<TableItem>();
  const stale: ItemKey[] = [];
  for (const { blockNumber, items } of blocks) {
    const worker = replay.staged.blocks.get(blockNumber);
    if (!worker) continue;
    const uncounted = items.filter((item) => !isCountedEntry(item));
    if (digestOf(uncounted) === worker.digest) {
      for (const item of uncounted) skip.add(item);
      replay.written.workerBlocks += 1;
      continue;
    }
    replay.written.rewrittenBlocks += 1;
    const own = new Set(uncounted.map(keyId));
    for (const [pk, sk] of worker.keys) if (!own.has(keyId({ pk, sk }))) stale.push({ pk, sk });
  }
  return { skip, stale };
}

/**
 * The instances as a batch's balance transactions left them: as read before the batch, with the held
 * supplies those moved (an ERC-1155 id's `heldSupply`; an instance they created holds only it, as
 * far as the instance step's conditions go).
 */
function instancesAfterBalances(before: Map<string, NftInstanceRecord>, heldSupplies: Map<string, string>): Map<string, NftInstanceRecord> {
  const after = new Map(before);
  for (const [id, heldSupply] of heldSupplies) after.set(id, { ...before.get(id), heldSupply } as NftInstanceRecord);
  return after;
}

function groupBy<T>(values: readonly T[], key: (value: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const group = groups.get(key(value)) ?? [];
    group.push(value);
    groups.set(key(value), group);
  }
  return [...groups.values()];
}

/** The (holder, ERC-1155 token) totals that per-id balance changes affect. */
function erc1155Totals(touches: readonly BalanceTouch[]) {
  const seen = new Map<string, { holder: string; token: string; standard: 'ERC-1155'; tokenId: null }>();
  for (const touch of touches) {
    if (touch.standard === 'ERC-1155')
      seen.set(`${touch.holder}|${touch.token}`, { holder: touch.holder, token: touch.token, standard: 'ERC-1155', tokenId: null });
  }
  return [...seen.values()];
}

/**
 * The addresses whose ranges a batch's counted entries may extend (range-heads.ts ownerOfRange): the
 * transactions' senders, recipients and created contracts, the token transfers' sides.
 */
function rangeOwnersOf(blocks: readonly DerivedBlock[]): Set<string> {
  const owners = new Set<string>();
  for (const derived of blocks) {
    for (const tx of derived.transactions) {
      owners.add(tx.from);
      if (tx.to) owners.add(tx.to);
      if (tx.contractAddress) owners.add(tx.contractAddress);
    }
    for (const transfer of derived.tokenTransfers) {
      owners.add(transfer.from);
      owners.add(transfer.to);
    }
  }
  return owners;
}

/** The NFT ids the blocks' transfers move in to and out of each holder, by `holder|contract`. */
function idsMoved(blocks: readonly DerivedBlock[]): { in: Map<string, Set<string>>; out: Map<string, Set<string>> } {
  const moved = { in: new Map<string, Set<string>>(), out: new Map<string, Set<string>>() };
  const add = (side: Map<string, Set<string>>, key: string, id: string) => {
    const ids = side.get(key) ?? new Set<string>();
    ids.add(id);
    side.set(key, ids);
  };
  for (const derived of blocks)
    for (const transfer of derived.tokenTransfers) {
      if (transfer.tokenId === null || transfer.tokenStandard === 'ERC-20') continue;
      add(moved.out, `${transfer.from}|${transfer.token}`, transfer.tokenId);
      add(moved.in, `${transfer.to}|${transfer.token}`, transfer.tokenId);
    }
  return moved;
}

/** The (holder, NFT contract) collections that transfers affect. */
function collectionsTouched(touches: readonly BalanceTouch[]) {
  const seen = new Map<string, { holder: string; contract: string; standard: 'ERC-721' | 'ERC-1155' }>();
  for (const touch of touches) {
    if (touch.standard === 'ERC-20') continue;
    seen.set(`${touch.holder}|${touch.token}`, { holder: touch.holder, contract: touch.token, standard: touch.standard });
  }
  return [...seen.values()];
}

// ---------------------------------------------------------------------------------------------------
// Functions for callers that do not keep an ingest object.

/** Ingests a block range into the configured table (see ChainIngest.ingestRange). */
export function ingestRange(options: IngestOptions & { from?: number; to?: number; repair?: boolean }): Promise<IngestResult> {
  return new ChainIngest(options).ingestRange({ from: options.from, to: options.to, repair: options.repair });
}

/** Writes the chain's registry entry (insights lists only registered chains). Idempotent. */
export async function registerChain(chainId: number, firstBlock: number): Promise<void> {
  await new StateWriter(chainId).registerChain(firstBlock);
}
