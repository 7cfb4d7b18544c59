/**
 * A chain's status as the APIs read and show it (the item chainKeys.status, G7, that the ingest writes:
 * shared/ingest/status.ts, and the cursor). Domain-neutral: the table layer and the table model only,
 * so that the API groups load it without loading ingest code, and the ingest loads no API shape.
 *
 * Readers derive the state they show (`describeChainStatus`): a status not written for
 * `staleAfterMs` (the ingest died or its schedule stopped without a word) is `stopped`; a chain more
 * than `lagBlocks` behind the node's head as last seen is `catching_up`. Pages carry the indexed head
 * from a copy kept per container for `cacheMs` (read in parallel with the page's own first round trip
 * when it is older); `cacheMs` is never longer than `staleAfterMs` (refused at config load), since the
 * copy's age counts towards `stopped`.
 */
import * as v from 'valibot';
import { readEnv } from '../config';
import { lastBlockAtOrBefore } from '../db/blocks-by-time';
import { tableName } from '../db/client';
import { batchGetItems } from '../db/operations';
import { chainKeys, coldKeys, keyId } from '../table/keys';
import type { ChainStatusRecord, ColdCursorRecord, CursorRecord, IngestState } from '../table/records';

export type { IngestState };

/** How readers judge a status (API settings: `loadChainStatusSettings`). */
export interface ChainStatusSettings {
  /** A status older than this (ms) means the ingest stopped without a word. */
  staleAfterMs: number;
  /** More blocks than this behind the node's head (as last seen) is `catching_up`. */
  lagBlocks: number;
  /** How long a container reuses a chain's status for the indexed head of pages (ms); 0: read it with every page. */
  cacheMs: number;
}

export const DEFAULT_STATUS_STALE_SECONDS = 300;
export const DEFAULT_STATUS_LAG_BLOCKS = 10;
export const DEFAULT_STATUS_CACHE_SECONDS = 5;
/** Longest CHAIN_STATUS_CACHE_SECONDS: the indexed head of a page is at most this old. */
export const MAX_STATUS_CACHE_SECONDS = 600;

export const DEFAULT_STATUS_SETTINGS: ChainStatusSettings = {
  staleAfterMs: DEFAULT_STATUS_STALE_SECONDS * 1000,
  lagBlocks: DEFAULT_STATUS_LAG_BLOCKS,
  cacheMs: DEFAULT_STATUS_CACHE_SECONDS * 1000,
};

const whole = (fallback: number, max: number) =>
  v.optional(
    v.pipe(v.string(), v.regex(/^[0-9]{1,9}$/, `must be a whole number from 0 to ${max}`), v.transform(Number), v.maxValue(max)),
    String(fallback),
  );

const settingsSchema = v.object({
  /** Seconds without a status write after which a chain is shown `stopped`. */
  CHAIN_STATUS_STALE_SECONDS: whole(DEFAULT_STATUS_STALE_SECONDS, 86_400),
  /** Blocks behind the node's head beyond which a chain is shown `catching_up`. */
  CHAIN_STATUS_LAG_BLOCKS: whole(DEFAULT_STATUS_LAG_BLOCKS, 1_000_000),
  /** Seconds a container reuses a chain's status for the indexed head of pages. */
  CHAIN_STATUS_CACHE_SECONDS: whole(DEFAULT_STATUS_CACHE_SECONDS, MAX_STATUS_CACHE_SECONDS),
});

/**
 * The readers' settings from the environment (handlers parse them once per cold start). A cache
 * longer than the staleness is refused: a kept copy is aged against now, so every chain would read
 * `stopped` once its copy is older than CHAIN_STATUS_STALE_SECONDS.
 */
export function loadChainStatusSettings(env: Record<string, string | undefined> = process.env): ChainStatusSettings {
  const raw = readEnv(settingsSchema, env);
  if (raw.CHAIN_STATUS_CACHE_SECONDS > raw.CHAIN_STATUS_STALE_SECONDS) {
    throw new Error(
      `Invalid configuration: CHAIN_STATUS_CACHE_SECONDS (${raw.CHAIN_STATUS_CACHE_SECONDS}) must not exceed CHAIN_STATUS_STALE_SECONDS (${raw.CHAIN_STATUS_STALE_SECONDS}): a status kept longer than that would read as stopped`,
    );
  }
  return {
    staleAfterMs: raw.CHAIN_STATUS_STALE_SECONDS * 1000,
    lagBlocks: raw.CHAIN_STATUS_LAG_BLOCKS,
    cacheMs: raw.CHAIN_STATUS_CACHE_SECONDS * 1000,
  };
}

/** A chain's status as the API shows it. */
export interface ChainStatus {
  chainId: number;
  state: IngestState;
  /** Why it is stopped or repairing; null otherwise. */
  reason: string | null;
  /** The first block the table holds for the chain; null before the first one. */
  firstBlock: number | null;
  /** The last block whose items are all written (the cursor); null before the first one. */
  indexedHead: { number: number; hash: string; timestamp: number | null } | null;
  /** The node's head as the ingest last saw it (seenAt: epoch ms). */
  nodeHead: { number: number; timestamp: number | null; seenAt: number | null } | null;
  /** How far the indexed head is behind the node's head as last seen (seconds: between the two blocks' timestamps). */
  lag: { blocks: number; seconds: number | null } | null;
  /** When the ingest last wrote its status (epoch ms); null when it never did. */
  updatedAt: number | null;
  capabilities: {
    traceMethod: ChainStatusRecord['traceMethod'];
    blockReceipts: ChainStatusRecord['blockReceipts'];
    multicall3: ChainStatusRecord['multicall3'];
    multicall3FromBlock: number | null;
  };
  /**
   * The cold tier (docs/decisions/cold-history.md), where the status was read with it (`history`): null
   * when the tier is off; else the last block compacted (null: none yet) and the blocks past their
   * history's expiry (the window and the margin) that are not compacted, whose history may be gone from
   * the table (the job fell behind; the cold backfill restores them), null when there are none.
   */
  coldHistory?: ColdHistoryStatus | null;
}

export interface ColdHistoryStatus {
  compactedTo: number | null;
  missing: { fromBlock: number; toBlock: number } | null;
}

/**
 * The cold tier's side of a status: `lastExpired` is the last block whose time is at least the record's
 * `historyExpirySeconds` ago (its items' expiry is never sooner: later only for history written after
 * its window, so a block may be reported before its items are gone, never after).
 */
export function describeColdHistory(
  cursor: CursorRecord | undefined,
  record: ChainStatusRecord | undefined,
  coldCursor: ColdCursorRecord | undefined,
  lastExpired: number | null,
): ColdHistoryStatus | null {
  if (record?.historyExpirySeconds === undefined) return null;
  const compactedTo = coldCursor === undefined ? null : Number(coldCursor.compactedTo);
  if (cursor === undefined || lastExpired === null) return { compactedTo, missing: null };
  const fromBlock = compactedTo === null ? Number(cursor.firstBlock) : compactedTo + 1;
  const toBlock = Math.min(lastExpired, Number(cursor.blockNumber));
  return { compactedTo, missing: toBlock >= fromBlock ? { fromBlock, toBlock } : null };
}

/** What the readers show, from the cursor and the status item as read at `now` (epoch ms). */
export function describeChainStatus(
  chainId: number,
  cursor: CursorRecord | undefined,
  record: ChainStatusRecord | undefined,
  now: number,
  settings: ChainStatusSettings,
  coldHistory?: ColdHistoryStatus | null,
): ChainStatus {
  const indexedHead = cursor
    ? { number: Number(cursor.blockNumber), hash: cursor.blockHash, timestamp: cursor.blockTimestamp ?? null }
    : null;
  const nodeHead =
    record && record.nodeHeadNumber !== null
      ? { number: record.nodeHeadNumber, timestamp: record.nodeHeadTimestamp, seenAt: record.nodeHeadSeenAt }
      : null;
  let lag: ChainStatus['lag'] = null;
  if (indexedHead && nodeHead) {
    const blocks = Math.max(0, nodeHead.number - indexedHead.number);
    const seconds =
      blocks === 0
        ? 0
        : nodeHead.timestamp !== null && indexedHead.timestamp !== null
          ? Math.max(0, nodeHead.timestamp - indexedHead.timestamp)
          : null;
    lag = { blocks, seconds };
  }
  const capabilities: ChainStatus['capabilities'] = {
    traceMethod: record?.traceMethod ?? null,
    blockReceipts: record?.blockReceipts ?? null,
    multicall3: record?.multicall3 ?? null,
    multicall3FromBlock: record?.multicall3FromBlock ?? null,
  };
  const base = {
    chainId,
    firstBlock: cursor ? Number(cursor.firstBlock) : null,
    indexedHead,
    nodeHead,
    lag,
    updatedAt: record?.updatedAt ?? null,
    capabilities,
    ...(coldHistory === undefined ? {} : { coldHistory }),
  };
  if (!record) return { ...base, state: 'stopped', reason: 'the ingest has recorded no status for this chain' };
  const age = now - record.updatedAt;
  if (record.state === 'stopped') return { ...base, state: 'stopped', reason: record.reason };
  if (age > settings.staleAfterMs) {
    return {
      ...base,
      state: 'stopped',
      reason: `no status from the ingest for ${Math.round(age / 1000)} s (more than ${Math.round(settings.staleAfterMs / 1000)} s): it is not running`,
    };
  }
  if (record.state === 'repairing') return { ...base, state: 'repairing', reason: record.reason };
  return { ...base, state: lag !== null && lag.blocks > settings.lagBlocks ? 'catching_up' : 'following', reason: null };
}

type StoredStatus = { cursor?: CursorRecord; record?: ChainStatusRecord; coldCursor?: ColdCursorRecord };

/** Statuses kept per container (pages), by table and chain: the read itself, so that concurrent pages share one. */
const kept = new Map<string, { status: Promise<StoredStatus>; readAt: number }>();

/**
 * The status of each chain, read now (one BatchGetItem for all of them), or (`cached`) from this
 * container's copy when younger than `settings.cacheMs` (a read in flight counts). With `history` (the
 * status routes; never cached), also the cold tier's side: the cold cursor in the same BatchGetItem, then,
 * for a chain with the tier on, the last block past its history's expiry (one Query, Limit 1).
 */
export async function readChainStatuses(
  chainIds: readonly number[],
  settings: ChainStatusSettings,
  options: { cached?: boolean; history?: boolean } = {},
): Promise<ChainStatus[]> {
  const now = Date.now();
  const table = tableName();
  const id = (chainId: number) => `${table}\n${chainId}`;
  const history = options.history === true;
  const keep = options.cached === true && settings.cacheMs > 0 && !history;
  const stored = new Map<number, Promise<StoredStatus>>();
  const missing: number[] = [];
  for (const chainId of chainIds) {
    const copy = keep ? kept.get(id(chainId)) : undefined;
    if (copy && now - copy.readAt < settings.cacheMs) stored.set(chainId, copy.status);
    else missing.push(chainId);
  }
  if (missing.length > 0) {
    const read = batchGetItems(
      missing.flatMap((chainId) => [chainKeys.cursor(chainId), chainKeys.status(chainId), ...(history ? [coldKeys.cursor(chainId)] : [])]),
    );
    for (const chainId of missing) {
      const status = read.then((items) => ({
        cursor: items.get(keyId(chainKeys.cursor(chainId))) as CursorRecord | undefined,
        record: items.get(keyId(chainKeys.status(chainId))) as ChainStatusRecord | undefined,
        coldCursor: items.get(keyId(coldKeys.cursor(chainId))) as ColdCursorRecord | undefined,
      }));
      stored.set(chainId, status);
      if (keep) {
        const entry = { status, readAt: now };
        kept.set(id(chainId), entry);
        // A failed read is not kept.
        status.catch(() => kept.get(id(chainId)) === entry && kept.delete(id(chainId)));
      }
    }
  }
  return Promise.all(
    chainIds.map(async (chainId) => {
      const { cursor, record, coldCursor } = await stored.get(chainId)!;
      if (!history) return describeChainStatus(chainId, cursor, record, now, settings);
      const expiry = record?.historyExpirySeconds;
      // (A window longer than the chain's age: nothing can have expired.)
      const expiredBefore = expiry === undefined ? -1 : Math.floor(now / 1000) - expiry;
      const lastExpired = cursor === undefined || expiredBefore < 0 ? null : await lastBlockAtOrBefore(chainId, expiredBefore);
      return describeChainStatus(chainId, cursor, record, now, settings, describeColdHistory(cursor, record, coldCursor, lastExpired));
    }),
  );
}

export async function readChainStatus(
  chainId: number,
  settings: ChainStatusSettings,
  options: { cached?: boolean; history?: boolean } = {},
): Promise<ChainStatus> {
  const [status] = await readChainStatuses([chainId], settings, options);
  return status!;
}

/** Forgets the statuses kept in this container (tests). */
export function forgetChainStatuses(): void {
  kept.clear();
}

// ---------------------------------------------------------------------------------------------------
// As the API shows it (the insights status endpoint's `data`, the explorer's indexing status)

const INGEST_STATES = ['following', 'catching_up', 'repairing', 'stopped'] as const;

/** The status body: the same fields under the same names on both APIs. */
export const chainStatusSchema = v.strictObject({
  chain_id: v.number(),
  /** `stopped` also when the ingest has not written its status for longer than the service's setting. */
  state: v.picklist(INGEST_STATES),
  /** Why it is stopped (a reorg deeper than the window, a failure's text, no status written) or what it repairs. */
  reason: v.nullable(v.string()),
  /** The first block served for the chain; null before the first. */
  first_block: v.nullable(v.number()),
  /** The last block whose data is all served; null before the first. */
  indexed_head: v.nullable(v.strictObject({ block_number: v.number(), block_hash: v.string(), block_timestamp: v.nullable(v.number()) })),
  /** The node's head as the ingest last saw it (`seen_at`, ISO 8601). */
  node_head: v.nullable(
    v.strictObject({ block_number: v.number(), block_timestamp: v.nullable(v.number()), seen_at: v.nullable(v.string()) }),
  ),
  /** Blocks and seconds (between the two blocks' timestamps) the indexed head is behind the node's head. */
  lag: v.nullable(v.strictObject({ blocks: v.number(), seconds: v.nullable(v.number()) })),
  /** When the ingest last wrote its status (ISO 8601). */
  updated_at: v.nullable(v.string()),
  capabilities: v.strictObject({
    /** How internal transactions are read: `callTracer` (debug_traceBlockByNumber), `parity` (trace_block), or `none` (not indexed); null until known. */
    trace_method: v.nullable(v.picklist(['callTracer', 'parity', 'none'])),
    /** How receipts are read: `eth_getBlockReceipts` or `per_transaction`; null until known. */
    block_receipts: v.nullable(v.picklist(['eth_getBlockReceipts', 'per_transaction'])),
    /** Multicall3: `present` (found at `from_block`, the first block it was looked for at; it may be older), `absent`, null until looked for. */
    multicall3: v.nullable(v.picklist(['present', 'absent'])),
    multicall3_from_block: v.nullable(v.number()),
  }),
  /**
   * The cold tier: null when it is off. `compacted_to`: the last block whose history is in the cold store
   * (null: none yet). `missing`: blocks past their history's expiry in the table (the window and the
   * margin) that the job has not compacted, whose history may be gone (null: none).
   */
  cold_history: v.nullable(
    v.strictObject({
      compacted_to: v.nullable(v.number()),
      missing: v.nullable(v.strictObject({ from_block: v.number(), to_block: v.number() })),
    }),
  ),
});
export type ChainStatusBody = v.InferOutput<typeof chainStatusSchema>;

const iso = (epochMs: number | null): string | null => (epochMs === null ? null : new Date(epochMs).toISOString());

export function serialiseChainStatus(status: ChainStatus): ChainStatusBody {
  return {
    chain_id: status.chainId,
    state: status.state,
    reason: status.reason,
    first_block: status.firstBlock,
    indexed_head: status.indexedHead
      ? { block_number: status.indexedHead.number, block_hash: status.indexedHead.hash, block_timestamp: status.indexedHead.timestamp }
      : null,
    node_head: status.nodeHead
      ? { block_number: status.nodeHead.number, block_timestamp: status.nodeHead.timestamp, seen_at: iso(status.nodeHead.seenAt) }
      : null,
    lag: status.lag,
    updated_at: iso(status.updatedAt),
    capabilities: {
      trace_method: status.capabilities.traceMethod,
      block_receipts: status.capabilities.blockReceipts,
      multicall3: status.capabilities.multicall3,
      multicall3_from_block: status.capabilities.multicall3FromBlock,
    },
    cold_history: status.coldHistory
      ? {
          compacted_to: status.coldHistory.compactedTo,
          missing: status.coldHistory.missing && {
            from_block: status.coldHistory.missing.fromBlock,
            to_block: status.coldHistory.missing.toBlock,
          },
        }
      : null,
  };
}
