/**
 * Settings of the scheduled ingest Lambda: functions/ingest/ingest-chain.ts calls `loadIngestConfig()`
 * once at cold start (a bad value fails loudly there) and passes what the ingest needs into it.
 */
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

const schema = v.object({
  /** The chain this function ingests (one function per chain). */
  CHAIN_ID: integer(1, Number.MAX_SAFE_INTEGER),
  /** Name of the SSM parameter (SecureString) holding the chain's RPC URL. */
  RPC_URL_PARAMETER: v.pipe(v.string(), v.minLength(1)),
  /** Most blocks one invocation ingests. */
  INGEST_MAX_BLOCKS: v.optional(integer(1, 100_000), '200'),
  /** Where an empty table starts. */
  INGEST_FIRST_BLOCK: v.optional(integer(0, Number.MAX_SAFE_INTEGER), '0'),
  /** Per RPC request. */
  RPC_TIMEOUT_MS,
  /** JSON-RPC calls per batch at start; halved when the node refuses a batch. */
  RPC_BATCH_SIZE,
  /** How block traces are read (callTracer, parity or none); default: found out from the node. */
  INGEST_TRACE_METHOD,
  /** Stop starting new blocks when less than this remains of the invocation. */
  INGEST_SAFETY_MARGIN_MS: v.optional(integer(0, 600_000), '60000'),
  /** Deepest reorg repaired (blocks back to the common ancestor); deeper, the ingest stops writing (shared/ingest/reorg.ts). */
  INGEST_MAX_REORG_DEPTH: v.optional(integer(1, 1_000_000), '1024'),
  /** The SQS FIFO queue the ingested and orphaned blocks are published to (shared/ingest/queue-listener.ts). */
  DEPOSIT_EVENTS_QUEUE_URL: v.pipe(v.string(), v.url()),
});

export interface IngestConfig {
  chainId: number;
  rpcUrlParameter: string;
  maxBlocks: number;
  firstBlock: number;
  rpcTimeoutMs: number;
  rpcBatchSize: number;
  safetyMarginMs: number;
  traceMethod?: 'callTracer' | 'parity' | 'none';
  maxReorgDepth: number;
  /** Where the listener calls go: the orders group consumes them (functions/orders/detect-deposits.ts). */
  listenerQueueUrl: string;
}

export function loadIngestConfig(env: Record<string, string | undefined> = process.env): IngestConfig {
  const raw = readEnv(schema, env);
  return {
    chainId: raw.CHAIN_ID,
    rpcUrlParameter: raw.RPC_URL_PARAMETER,
    maxBlocks: raw.INGEST_MAX_BLOCKS,
    firstBlock: raw.INGEST_FIRST_BLOCK,
    rpcTimeoutMs: raw.RPC_TIMEOUT_MS,
    rpcBatchSize: raw.RPC_BATCH_SIZE,
    safetyMarginMs: raw.INGEST_SAFETY_MARGIN_MS,
    maxReorgDepth: raw.INGEST_MAX_REORG_DEPTH,
    ...(raw.INGEST_TRACE_METHOD ? { traceMethod: raw.INGEST_TRACE_METHOD } : {}),
    listenerQueueUrl: raw.DEPOSIT_EVENTS_QUEUE_URL,
  };
}
