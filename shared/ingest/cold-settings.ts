/**
 * The cold tier's settings as the ingest and the compaction job share them (docs/decisions/cold-history.md,
 * step 5): the table keeps `afterDays` of history, the job compacts a block once it is that old, and the
 * block's history items expire from the table `afterDays + marginDays` past it (the margin is the job's
 * allowance). Deleting by TTL costs no write unit.
 *
 * History the table is given after its window (a backfill of old blocks) expires the margin and a day
 * after the day it is written, so the job has the margin to compact it.
 *
 * Items that carry an expiry of their own (zero-value calls, INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS) keep
 * it when it comes within the window: they are gone from the table before their block is compacted, so
 * they never reach the cold store. An own expiry past the window gives way to the tier's: such items are
 * compacted, and the cold store keeps them for good.
 */
import { DAY_SECONDS, expiresAfterBlock } from './manifest-retention';

export interface ColdHistorySettings {
  /** Days of history the table keeps (COLD_AFTER_DAYS). */
  afterDays: number;
  /** Days past that before the items expire (COLD_MARGIN_DAYS). */
  marginDays: number;
}

/** Seconds past a block's time after which its history expires from the table (the window and the margin; never sooner). */
export const historyExpirySeconds = (settings: ColdHistorySettings): number => (settings.afterDays + settings.marginDays) * DAY_SECONDS;

export function checkColdHistory(settings: ColdHistorySettings | undefined): ColdHistorySettings | undefined {
  if (settings === undefined) return undefined;
  const { afterDays, marginDays } = settings;
  if (!(Number.isSafeInteger(afterDays) && afterDays >= 1 && Number.isSafeInteger(marginDays) && marginDays >= 1))
    throw new Error(`coldHistory must be whole numbers of days, 1 or more, got afterDays ${afterDays}, marginDays ${marginDays}`);
  return { afterDays, marginDays };
}

/**
 * The `ttl` (epoch seconds) of a history item of a block at `blockTimestamp` with the tier on, written
 * at `writtenAt` (ms since the epoch):
 *  - its own `ownTtl` when that ends within the window (a zero-value call's retention);
 *  - else the tier's expiry: the window and the margin past the block, but never before the margin has
 *    run from the day the item is written (history older than the window when it is written, by a
 *    backfill, stays until the job has compacted it). The day, not the instant: a batch written again
 *    after a restart writes the same expiry.
 */
export function historyItemTtl(
  blockTimestamp: number,
  settings: ColdHistorySettings,
  ownTtl: number | undefined,
  writtenAt: number,
): number {
  if (ownTtl !== undefined && ownTtl <= expiresAfterBlock(blockTimestamp, settings.afterDays)) return ownTtl;
  const writtenDay = Math.floor(writtenAt / 1000 / DAY_SECONDS) * DAY_SECONDS;
  return Math.max(blockTimestamp + historyExpirySeconds(settings), expiresAfterBlock(writtenDay, settings.marginDays + 1));
}
