/**
 * How long a block's write manifest (G2, manifest.ts) is kept: pure (no table client), so that the
 * bench's cost model and write ledger can use it without loading the table layer.
 */

/**
 * Days a manifest is kept past its block's timestamp (IngestOptions.manifestRetentionDays,
 * INGEST_MANIFEST_RETENTION_DAYS, --manifest-retention-days); 0 keeps manifests forever. It must cover
 * the reorg window (maxReorgDepth x block time) with margin: 7 days covers 1,024 blocks of up to ~590 s.
 */
export const DEFAULT_MANIFEST_RETENTION_DAYS = 7;

export const DAY_SECONDS = 86_400;

/** The table's `ttl` (epoch seconds) of an item kept `days` past its block's timestamp. */
export const expiresAfterBlock = (blockTimestamp: number, days: number): number => blockTimestamp + days * DAY_SECONDS;

/** The `ttl` of a block's manifest chunks (epoch seconds), or undefined (kept forever: retention 0, or no block time). */
export function manifestExpiry(blockTimestamp: number | undefined, retentionDays: number): number | undefined {
  if (retentionDays <= 0 || blockTimestamp === undefined) return undefined;
  return expiresAfterBlock(blockTimestamp, retentionDays);
}
