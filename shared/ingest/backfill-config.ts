/**
 * Settings of the backfill worker Lambda (functions/ingest/backfill-chain.ts, one function for every
 * chain): which SSM parameter holds each chain's RPC URL, read once at cold start.
 */
import * as v from 'valibot';
import type { ColdHistorySettings } from './cold-settings';
import { readEnv } from '../config';
import {
  COLD_AFTER_DAYS,
  COLD_MARGIN_DAYS,
  coldHistoryOf,
  INGEST_TRACE_METHOD,
  INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS,
  integer,
  RPC_BATCH_SIZE,
  RPC_TIMEOUT_MS,
} from './config';

const schema = v.object({
  /** `<chainId>=<SSM parameter name>` pairs, comma-separated: the chains the stack ingests. */
  CHAIN_RPC_PARAMETERS: v.pipe(
    v.string(),
    v.regex(/^\d+=[^,=]+(,\d+=[^,=]+)*$/, 'must be <chainId>=<parameter>[,<chainId>=<parameter>...]'),
    v.transform((value) => new Map(value.split(',').map((pair) => [Number(pair.split('=')[0]), pair.split('=')[1]!] as const))),
  ),
  RPC_TIMEOUT_MS,
  RPC_BATCH_SIZE,
  INGEST_TRACE_METHOD,
  /** The ingest's own setting (a staged block's items must be the ones the ingest would write). */
  INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS,
  /** The ingest's own cold tier settings (the history items' `ttl`). */
  COLD_AFTER_DAYS,
  COLD_MARGIN_DAYS,
  /** Stop starting new segments when less than this remains of the invocation. */
  BACKFILL_SAFETY_MARGIN_MS: v.optional(integer(0, 600_000), '120000'),
});

export interface BackfillConfig {
  rpcUrlParameters: ReadonlyMap<number, string>;
  rpcTimeoutMs: number;
  rpcBatchSize: number;
  safetyMarginMs: number;
  traceMethod?: 'callTracer' | 'parity' | 'none';
  /** INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS (undefined: kept). */
  zeroValueCallsRetentionDays?: number;
  /** COLD_AFTER_DAYS, COLD_MARGIN_DAYS (undefined: the cold tier is off). */
  coldHistory?: ColdHistorySettings;
}

export function loadBackfillConfig(env: Record<string, string | undefined> = process.env): BackfillConfig {
  const raw = readEnv(schema, env);
  const coldHistory = coldHistoryOf(raw);
  return {
    rpcUrlParameters: raw.CHAIN_RPC_PARAMETERS,
    rpcTimeoutMs: raw.RPC_TIMEOUT_MS,
    rpcBatchSize: raw.RPC_BATCH_SIZE,
    safetyMarginMs: raw.BACKFILL_SAFETY_MARGIN_MS,
    ...(raw.INGEST_TRACE_METHOD ? { traceMethod: raw.INGEST_TRACE_METHOD } : {}),
    ...(raw.INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS === undefined
      ? {}
      : { zeroValueCallsRetentionDays: raw.INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS }),
    ...(coldHistory === undefined ? {} : { coldHistory }),
  };
}
