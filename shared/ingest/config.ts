/**
 * Settings of the scheduled ingest Lambda: functions/ingest/ingest-chain.ts calls `loadIngestConfig()`
 * once at cold start (a bad value fails loudly there) and passes what the ingest needs into it. Which
 * chain an invocation ingests comes with its event (`parseIngestEvent`: one function serves every
 * chain, one schedule per chain); the environment holds the defaults of the event's optional fields.
 */
import type { ColdHistorySettings } from './cold-settings';
import * as v from 'valibot';
import { readEnv } from '../config';

/** A whole number in an environment variable, from `min` to `max`. */
export const integer = (min: number, max: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(min), v.maxValue(max));

/** How block traces are read (callTracer, parity or none; the ingest and the backfill worker alike); default: found out. */
export const INGEST_TRACE_METHOD = v.optional(v.picklist(['callTracer', 'parity', 'none']));

/** Per RPC request (the ingest and the backfill worker). */
export const RPC_TIMEOUT_MS = v.optional(integer(100, 120_000), '10000');

/**
 * JSON-RPC calls per batch request at start (the ingest and the backfill worker); halved for the
 * process when the node refuses a batch (shared/chain/transport.ts). Default DEFAULT_RPC_BATCH_SIZE, 100.
 */
export const RPC_BATCH_SIZE = v.optional(integer(1, 1_000), '100');

/**
 * `on` (default) or `off`: whether the ingest keeps every touched address's native coin balance
 * (shared/ingest/native-state.ts: one eth_getBalance and one conditional write per distinct address a
 * batch touched). Off, `coin_balance` is null everywhere.
 */
/**
 * Zero-value calls (shared/ingest/zero-value-calls.ts): unset keeps them; N days (1 or more) lets
 * DynamoDB delete their X5 copies N days after their block; 0 stores none (the ingest and the backfill
 * worker alike).
 */
export const INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS = v.optional(integer(0, 36_500));

/**
 * The cold tier (docs/decisions/cold-history.md): COLD_AFTER_DAYS, the days of history the table keeps
 * (unset: the tier is off, and history stays in the table for good); COLD_MARGIN_DAYS, the compaction
 * job's allowance past that before the items expire (default 14). The ingest, the backfill workers and
 * the compaction job must be given the same.
 */
export const COLD_AFTER_DAYS = v.optional(integer(1, 36_500));
export const COLD_MARGIN_DAYS = v.optional(integer(1, 365), '14');

/** The cold tier's settings (undefined: off); history items expire `afterDays + marginDays` past their block. */
export function coldHistoryOf(raw: { COLD_AFTER_DAYS?: number; COLD_MARGIN_DAYS: number }): ColdHistorySettings | undefined {
  return raw.COLD_AFTER_DAYS === undefined ? undefined : { afterDays: raw.COLD_AFTER_DAYS, marginDays: raw.COLD_MARGIN_DAYS };
}

/** The cold tier's settings of an environment (COLD_AFTER_DAYS, COLD_MARGIN_DAYS), for the CLI and workers. */
export function coldHistoryOfEnv(env: Record<string, string | undefined> = process.env): ColdHistorySettings | undefined {
  return coldHistoryOf(readEnv(v.object({ COLD_AFTER_DAYS, COLD_MARGIN_DAYS }), env));
}

/**
 * Manifests' retention with the tier on: at least the history's (the compaction job reads a block's
 * manifest to find its items); 0 (kept forever) stays 0.
 */
export function manifestRetentionWith(retentionDays: number, coldHistory: ColdHistorySettings | undefined): number {
  return coldHistory === undefined || retentionDays === 0
    ? retentionDays
    : Math.max(retentionDays, coldHistory.afterDays + coldHistory.marginDays);
}

export const INGEST_COIN_BALANCES = v.optional(
  v.pipe(
    v.picklist(['on', 'off'], 'must be on or off'),
    v.transform((value) => value === 'on'),
  ),
  'on',
);

const schema = v.object({
  /** Most blocks one round of the follow loop ingests (then it looks at the head and its lease again). */
  INGEST_MAX_BLOCKS: v.optional(integer(1, 100_000), '200'),
  /** Where an empty table starts (the event's `firstBlock` overrides it). */
  INGEST_FIRST_BLOCK: v.optional(integer(0, Number.MAX_SAFE_INTEGER), '0'),
  /**
   * How often the follow loop looks for a new block, ms (the event's `blockTimeMs` overrides it);
   * unset: the chain's block interval as observed on the node (shared/ingest/follow.ts).
   */
  INGEST_BLOCK_TIME_MS: v.optional(integer(50, 3_600_000)),
  /** The ingest lease's life without a renewal (shared/ingest/lease.ts): a crashed holder's lease is free after this. */
  INGEST_LEASE_TTL_MS: v.optional(integer(1_000, 600_000), '10000'),
  /**
   * Longest an invocation that finds the lease held waits for the holder's announced handover (else it
   * exits at once): one schedule period (a minute) and some slack, so the invocation just before the
   * handover is the successor.
   */
  INGEST_HANDOVER_WAIT_MS: v.optional(integer(0, 900_000), '75000'),
  /** Per RPC request. */
  RPC_TIMEOUT_MS,
  /** JSON-RPC calls per batch at start; halved when the node refuses a batch. */
  RPC_BATCH_SIZE,
  /** How block traces are read (callTracer, parity or none); default: found out from the node. */
  INGEST_TRACE_METHOD,
  /** Stop starting new blocks, and hand the chain over, when less than this remains of the invocation. */
  INGEST_SAFETY_MARGIN_MS: v.optional(integer(0, 600_000), '60000'),
  /** Deepest reorg repaired (blocks back to the common ancestor); deeper, the ingest stops writing (shared/ingest/reorg.ts). */
  INGEST_MAX_REORG_DEPTH: v.optional(integer(1, 1_000_000), '1024'),
  /**
   * Days a block's write manifest is kept past the block's timestamp (DynamoDB deletes it then: its
   * `ttl`); 0 keeps manifests forever. Must cover the reorg window (INGEST_MAX_REORG_DEPTH x block
   * time) with margin: 7 days covers 1,024 blocks of up to ~590 s (shared/ingest/manifest.ts).
   */
  INGEST_MANIFEST_RETENTION_DAYS: v.optional(integer(0, 36_500), '7'),
  INGEST_COIN_BALANCES,
  INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS,
  COLD_AFTER_DAYS,
  COLD_MARGIN_DAYS,
  /**
   * Worker threads that send the ingest's item writes (shared/db/write-workers.ts); 0 (default): the
   * main thread sends them. Worth one less than the function's vCPUs (the stack sets it from the memory).
   */
  INGEST_TABLE_WRITERS: v.optional(integer(0, 8), '0'),
  /** The SQS FIFO queue the ingested and orphaned blocks are published to (shared/ingest/queue-listener.ts). */
  DEPOSIT_EVENTS_QUEUE_URL: v.pipe(v.string(), v.url()),
  /** The SQS FIFO queue the blocks are published to with their transactions and logs (webhook matching); set by the stack. */
  WEBHOOK_EVENTS_QUEUE_URL: v.optional(v.pipe(v.string(), v.url())),
});

export interface IngestConfig {
  maxBlocks: number;
  /** Default of the event's `firstBlock`. */
  firstBlock: number;
  /** Default of the event's `blockTimeMs`; undefined: observed on the node. */
  blockTimeMs?: number;
  leaseTtlMs: number;
  handoverWaitMs: number;
  rpcTimeoutMs: number;
  rpcBatchSize: number;
  safetyMarginMs: number;
  traceMethod?: 'callTracer' | 'parity' | 'none';
  maxReorgDepth: number;
  /** Days manifests are kept past their block's time (INGEST_MANIFEST_RETENTION_DAYS): IngestOptions.manifestRetentionDays. */
  manifestRetentionDays: number;
  /** Keep native coin balances (INGEST_COIN_BALANCES): IngestOptions.coinBalances. */
  coinBalances: boolean;
  /** INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS: IngestOptions.zeroValueCallsRetentionDays (undefined: kept). */
  zeroValueCallsRetentionDays?: number;
  /** COLD_AFTER_DAYS, COLD_MARGIN_DAYS: IngestOptions.coldHistory (undefined: the cold tier is off). */
  coldHistory?: ColdHistorySettings;
  /** INGEST_TABLE_WRITERS: table writer threads started at cold start (0: none). */
  tableWriters: number;
  /** Where the listener calls go: the orders group consumes them (functions/orders/detect-deposits.ts). */
  listenerQueueUrl: string;
  /** Where the blocks' activity goes for webhooks (WEBHOOK_EVENTS_QUEUE_URL); unset: not published. */
  activityQueueUrl?: string;
}

export function loadIngestConfig(env: Record<string, string | undefined> = process.env): IngestConfig {
  const raw = readEnv(schema, env);
  const coldHistory = coldHistoryOf(raw);
  return {
    maxBlocks: raw.INGEST_MAX_BLOCKS,
    firstBlock: raw.INGEST_FIRST_BLOCK,
    ...(raw.INGEST_BLOCK_TIME_MS === undefined ? {} : { blockTimeMs: raw.INGEST_BLOCK_TIME_MS }),
    leaseTtlMs: raw.INGEST_LEASE_TTL_MS,
    handoverWaitMs: raw.INGEST_HANDOVER_WAIT_MS,
    rpcTimeoutMs: raw.RPC_TIMEOUT_MS,
    rpcBatchSize: raw.RPC_BATCH_SIZE,
    safetyMarginMs: raw.INGEST_SAFETY_MARGIN_MS,
    maxReorgDepth: raw.INGEST_MAX_REORG_DEPTH,
    manifestRetentionDays: manifestRetentionWith(raw.INGEST_MANIFEST_RETENTION_DAYS, coldHistory),
    ...(coldHistory === undefined ? {} : { coldHistory }),
    coinBalances: raw.INGEST_COIN_BALANCES,
    ...(raw.INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS === undefined
      ? {}
      : { zeroValueCallsRetentionDays: raw.INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS }),
    ...(raw.INGEST_TRACE_METHOD ? { traceMethod: raw.INGEST_TRACE_METHOD } : {}),
    tableWriters: raw.INGEST_TABLE_WRITERS,
    listenerQueueUrl: raw.DEPOSIT_EVENTS_QUEUE_URL,
    ...(raw.WEBHOOK_EVENTS_QUEUE_URL ? { activityQueueUrl: raw.WEBHOOK_EVENTS_QUEUE_URL } : {}),
  };
}

/**
 * The event each chain's schedule invokes the ingest function with (one function for every chain):
 * `{ "chainId": 8453, "rpcUrlParameter": "/chain-data-api/rpc/8453", "blockTimeMs"?: 2000,
 * "firstBlock"?: 0, "traceMethod"?: "callTracer" }`. The optional fields default to the function's
 * environment (INGEST_BLOCK_TIME_MS, INGEST_FIRST_BLOCK, INGEST_TRACE_METHOD). Unknown fields are
 * refused (a misspelt field would otherwise be ignored silently).
 */
export const ingestEventSchema = v.strictObject({
  /** The chain to ingest. */
  chainId: v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER)),
  /** Name of the SSM parameter (SecureString) holding the chain's RPC URL. */
  rpcUrlParameter: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty')),
  /** How often to look for a new block, ms; default INGEST_BLOCK_TIME_MS, else the chain's observed block interval. */
  blockTimeMs: v.optional(v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(50), v.maxValue(3_600_000))),
  /** Where an empty table starts; default INGEST_FIRST_BLOCK. */
  firstBlock: v.optional(
    v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER)),
  ),
  /** How block traces are read; default INGEST_TRACE_METHOD, else found out from the node. */
  traceMethod: v.optional(v.picklist(['callTracer', 'parity', 'none'], 'must be callTracer, parity or none')),
});

export type IngestEvent = v.InferOutput<typeof ingestEventSchema>;

/** An invocation's chain and settings: the event's fields, the environment's defaults for the rest. */
export interface ChainSettings {
  chainId: number;
  rpcUrlParameter: string;
  /** Undefined: observe the chain's block interval. */
  blockTimeMs?: number;
  firstBlock: number;
  traceMethod?: 'callTracer' | 'parity' | 'none';
}

/** Thrown for an event that is not the contract's: the message names every bad field. */
export class InvalidIngestEventError extends Error {
  override name = 'InvalidIngestEventError';
}

export function parseIngestEvent(event: unknown, config: IngestConfig): ChainSettings {
  const result = v.safeParse(ingestEventSchema, event);
  if (!result.success) {
    const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(event)'}: ${issue.message}`);
    throw new InvalidIngestEventError(
      `Invalid ingest event ${JSON.stringify(event)?.slice(0, 300)}: ${problems.join('; ')} (expected {"chainId": number, "rpcUrlParameter": string, "blockTimeMs"?: number, "firstBlock"?: number, "traceMethod"?: "callTracer" | "parity" | "none"})`,
    );
  }
  const parsed = result.output;
  const blockTimeMs = parsed.blockTimeMs ?? config.blockTimeMs;
  const traceMethod = parsed.traceMethod ?? config.traceMethod;
  return {
    chainId: parsed.chainId,
    rpcUrlParameter: parsed.rpcUrlParameter,
    firstBlock: parsed.firstBlock ?? config.firstBlock,
    ...(blockTimeMs === undefined ? {} : { blockTimeMs }),
    ...(traceMethod === undefined ? {} : { traceMethod }),
  };
}
