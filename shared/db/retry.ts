/**
 * The table layer's one retry policy. Two layers of retries, each stated once:
 *  - the AWS SDK retries a failed call (throttling, 5xx, timeouts) up to SDK_MAX_ATTEMPTS times with
 *    its standard jittered backoff (shared/db/client.ts);
 *  - the table layer retries what DynamoDB answered but did not do: a batch's unprocessed items or
 *    keys, and a transaction cancelled only by a conflict with another transaction, up to
 *    RETRY.maxRounds times, waiting `backoff(round)` between rounds.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export const SDK_MAX_ATTEMPTS = 5;

export const RETRY = {
  /** Rounds of a batch's leftovers, or attempts of a conflicting transaction, before giving up. */
  maxRounds: 10,
  baseMs: 20,
  capMs: 2_000,
} as const;

/** Exponential backoff with full jitter before retry `round` (1-based). */
export function backoff(round: number): Promise<void> {
  const ceiling = Math.min(RETRY.capMs, RETRY.baseMs * 2 ** round);
  return sleep(Math.round(ceiling / 2 + (Math.random() * ceiling) / 2));
}

/** Thrown when retries are exhausted: the caller's request fails rather than losing a write. */
export class RetriesExhaustedError extends Error {
  constructor(what: string) {
    super(`${what} after ${RETRY.maxRounds} rounds`);
    this.name = 'RetriesExhaustedError';
  }
}
