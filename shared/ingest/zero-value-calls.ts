/**
 * Zero-value calls: internal transactions of type `call` (a CALL, DELEGATECALL, STATICCALL or CALLCODE)
 * that move no coin. On a DEX-heavy chain they are nearly all of its internal transactions (96 % of the
 * bench's Base-like profile: pools' token transfers, balance reads, proxies' delegate calls), and their
 * X5 copies its largest family. Blockscout offers the same trade: it can drop zero-value calls older
 * than a storage period, keeping the ones that move value and every creation and self-destruct.
 *
 * `zeroValueCallsRetentionDays` (IngestOptions, StageOptions; INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS
 * for the ingest and backfill Lambdas, the CLI and its workers):
 *  - unset (the default): kept like every other record;
 *  - N >= 1: their copies carry the table's TTL attribute `ttl` = the block's timestamp + N days, so
 *    DynamoDB deletes them, for nothing, that long after their block (within a few days of it);
 *  - 0: not stored at all.
 * Pure (no table client): the item builder's rule.
 */
import type { InternalTransactionRecord } from '../table/records';
import { expiresAfterBlock } from './manifest-retention';

/** A call that moves no coin (creations and self-destructs are never one). */
export const isZeroValueCall = (internal: Pick<InternalTransactionRecord, 'type' | 'value'>): boolean =>
  internal.type === 'call' && internal.value === '0';

/** Checks a retention setting: undefined, or a whole number of days from 0. */
export function checkZeroValueCallsRetention(days: number | undefined): number | undefined {
  if (days === undefined) return undefined;
  if (!Number.isSafeInteger(days) || days < 0)
    throw new Error(`zeroValueCallsRetentionDays must be a whole number of days, 0 or more (0: not stored; unset: kept), got ${days}`);
  return days;
}

/**
 * How an internal transaction's copies are stored: `kept` (no `ttl`), `expires` at `ttl` (epoch
 * seconds), or `dropped`.
 */
export function zeroValueCallStorage(
  internal: Pick<InternalTransactionRecord, 'type' | 'value' | 'blockTimestamp'>,
  retentionDays: number | undefined,
): { kind: 'kept' } | { kind: 'expires'; ttl: number } | { kind: 'dropped' } {
  if (retentionDays === undefined || !isZeroValueCall(internal)) return { kind: 'kept' };
  if (retentionDays === 0) return { kind: 'dropped' };
  return { kind: 'expires', ttl: expiresAfterBlock(internal.blockTimestamp, retentionDays) };
}
