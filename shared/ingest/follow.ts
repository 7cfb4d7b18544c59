/**
 * One invocation of the deployed ingest: follow a chain's head until the invocation's deadline nears,
 * then hand the chain over to the next invocation (functions/ingest/ingest-chain.ts; the mechanism and
 * its costs: docs/decisions/ingest.md "Following the head in AWS").
 *
 * 1. **Lease** (lease.ts): take the chain's lease; if another invocation holds it, wait for its
 *    announced handover only when that falls within this invocation's useful life and within
 *    `handoverWaitMs` and nobody else waits already, else return at once (`skipped`).
 * 2. **Follow**: look at the node's head at the chain's block time (`blockTimeMs`, else observed on the
 *    node), phase-locked to when blocks appear: the next look is due one block time after the last new
 *    block was first seen, a fifth of it early, then every fifth until the block shows (so a block is
 *    seen within about a fifth of the block time, for about two `eth_blockNumber` a block). Each new
 *    block is ingested at once (`ChainIngest.ingestNext`: its listeners, so the deposit queue, get it
 *    as it is written); when behind, up to `maxBlocks` a round, in batches. While a round writes, the
 *    loop keeps looking (from when the next block is due, every fifth of the block time) and hands a
 *    new head to the round (`raiseTarget`): its blocks are fetched and derived while the one before
 *    is written, and written in the same round. Under the lease the rounds trust the cursor this
 *    ingest moved (`holdLease`): the cursor, the backfill plan and the cursor block's hash are read
 *    once a lease, not once a block (again after a failed round or a reorg).
 * 3. **Renew** the lease every third of its ttl on a timer of its own (a long batch does not let it
 *    lapse), each renewal abandoned after a quarter of the ttl (`renewTimeoutMs`: no long retry). Before
 *    every batch (and every rollback) the loop checks on its own clock that the lease it last renewed
 *    still has `writeMarginMs` (a quarter of the ttl) to run (`mayWrite`, asked by the ingest right
 *    before it writes); once not, or once a renewal is refused (the lease was taken after it
 *    expired), it starts no more batch and ends (`lost`). A batch already writing when the lease
 *    expires finishes: the margin is its time to do so; the cursor's conditional update refuses it
 *    should another writer have moved the cursor meanwhile.
 * 4. **Hand over** at `handoverAt` (the deadline less the safety margin): no batch starts after it, the
 *    batch in flight ends and moves the cursor, then the lease is released. No batch starts that is not
 *    expected to end before the deadline (less finishReserveMs; ChainIngest measures batches' time per
 *    transaction): a batch is cut at a block boundary, and a block too large for what is left goes to
 *    the next invocation at once (the lease released early), unless nothing was written yet in this
 *    lease (no later invocation has more time). The waiting successor, polling the lease, takes it
 *    within a poll. A round that fails (after the node's and the table's
 *    own retries) is tried again after a pause; the third failure in a row, or a reorg deeper than the
 *    window, is thrown after releasing the lease (the next invocation starts over from the cursor).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainClient } from '../chain/client';
import type { IngestResult } from './ingest';
import type { ChainIngest } from './ingest';
import {
  decideOnHeldLease,
  isFreeFor,
  type IngestLeaseRecord,
  readLease,
  registerWaiter,
  releaseLease,
  renewLease,
  takeLease,
} from './lease';
import type { IngestLog } from './log';
import type { SeenHead } from './lag';
import { CursorMovedError } from './manifest';
import { ReorgTooDeepError } from './reorg';

export interface FollowSettings {
  chainId: number;
  /** This invocation: unique to it (the handler: its request id and a random UUID). */
  invocation: string;
  /** When the invocation ends (epoch ms). */
  deadline: number;
  /** Hand over this long before the deadline (no block is started after). */
  safetyMarginMs: number;
  leaseTtlMs: number;
  /** Longest wait for a holder's handover. */
  handoverWaitMs: number;
  /** How often to look for a new block; undefined: observed on the node. */
  blockTimeMs?: number;
  firstBlock: number;
  /** Most blocks per round of the loop. */
  maxBlocks: number;
  log: IngestLog;
  /** Called about every `progressEveryMs` while following, with what was done since the last call (metrics). */
  onProgress?: (delta: FollowProgress) => Promise<void> | void;
  progressEveryMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

export interface FollowProgress {
  advanced: number;
  reorgs: number;
  /** Rounds that failed and were tried again. */
  failedRounds: number;
  cursor: IngestResult['cursor'];
  /** The head the loop last read (for the lag: no call to the node of its own); undefined before. */
  head?: SeenHead;
}

export interface FollowOutcome {
  /** `followed`: held the lease and followed; `skipped`: another invocation follows the chain (or too little time). */
  role: 'followed' | 'skipped';
  /** Why the invocation skipped, or how its following ended. */
  reason: string;
  /** Time spent waiting for a holder's handover, ms. */
  waitedMs: number;
  /** Whether the lease was taken from a holder that handed it over (this invocation waited for it). */
  tookOver: boolean;
  /** Whether the lease was released at the end (handover, failure) or lost (another took it). */
  ended: 'released' | 'lost' | 'not held';
  advanced: number;
  reorgs: number;
  /** Rounds that failed and were tried again (a third failure in a row is thrown). */
  failedRounds: number;
  cursor: number | null;
  /** When this invocation took the lease and let it go (epoch ms); null when it never held it. */
  heldFrom: number | null;
  heldUntil: number | null;
  /** The block time the loop polled at, ms, and where it came from. */
  blockTimeMs: number | null;
  blockTimeSource: 'setting' | 'observed' | null;
}

/** Least and most poll interval an observed block time gives. */
const MIN_OBSERVED_BLOCK_TIME_MS = 250;
const MAX_OBSERVED_BLOCK_TIME_MS = 60_000;
/** Blocks the observed block time is averaged over. */
const OBSERVED_SPAN = 100;
/** Lease polls while waiting: coarse until two seconds before the handover, then fine. */
const WAIT_POLL_COARSE_MS = 1_000;
const WAIT_POLL_FINE_MS = 200;
/** A round that fails is tried again after this (times the failures in a row); the third in a row is thrown. */
const FAILURE_PAUSE_MS = 1_000;
const MAX_CONSECUTIVE_FAILURES = 3;

/** How long before its lease's expiry (as last renewed) the holder starts no batch: a quarter of the ttl, at least 250 ms. */
export const writeMarginMs = (ttlMs: number): number => Math.max(250, Math.floor(ttlMs / 4));
/** Kept free at the invocation's end, after the last write: the lease's release and the result (half the safety margin, at most 5 s). */
export const finishReserveMs = (safetyMarginMs: number): number => Math.min(5_000, Math.floor(safetyMarginMs / 2));

/** How long a renewal may take before it is abandoned (a quarter of the ttl, at least 100 ms): it must end before the lease does. */
export const renewTimeoutMs = (ttlMs: number): number => Math.max(100, Math.floor(ttlMs / 4));

/**
 * The chain's block interval as seen on the node: the timestamps of the head and the block 100 before
 * (fewer on a young chain), in ms, within 250 ms..60 s (timestamps are whole seconds).
 */
export async function observeBlockTime(client: ChainClient, head: bigint): Promise<number> {
  const span = head < BigInt(OBSERVED_SPAN) ? head : BigInt(OBSERVED_SPAN);
  if (span < 1n) return 1_000;
  const [last, first] = await Promise.all([client.getBlock({ blockNumber: head }), client.getBlock({ blockNumber: head - span })]);
  const ms = (Number(last.timestamp - first.timestamp) * 1000) / Number(span);
  return Math.round(Math.min(MAX_OBSERVED_BLOCK_TIME_MS, Math.max(MIN_OBSERVED_BLOCK_TIME_MS, ms)));
}

/** Sleeps `ms` unless `signal` aborts first (resolves either way). */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}

export async function followWithLease(ingest: ChainIngest, client: ChainClient, settings: FollowSettings): Promise<FollowOutcome> {
  const now = settings.now ?? Date.now;
  const { chainId, invocation: me, leaseTtlMs: ttlMs, log } = settings;
  const handoverAt = settings.deadline - settings.safetyMarginMs;
  const outcome: FollowOutcome = {
    role: 'skipped',
    reason: '',
    waitedMs: 0,
    tookOver: false,
    ended: 'not held',
    advanced: 0,
    reorgs: 0,
    failedRounds: 0,
    cursor: null,
    heldFrom: null,
    heldUntil: null,
    blockTimeMs: null,
    blockTimeSource: null,
  };
  if (now() >= handoverAt) {
    outcome.reason = `too little time left (${Math.max(0, settings.deadline - now())} ms, safety margin ${settings.safetyMarginMs} ms)`;
    return outcome;
  }

  // 1. The lease.
  let lease: IngestLeaseRecord | undefined;
  let waitStarted: number | undefined;
  for (let attempt = 0; lease === undefined; attempt += 1) {
    if (attempt >= 10) {
      outcome.reason = 'the lease kept changing hands: left to the next invocation';
      return done();
    }
    const taken = await takeLease({ chainId, holder: me, now: now(), ttlMs, handoverAt, deadline: settings.deadline });
    if (taken.taken) {
      lease = taken.lease;
      break;
    }
    const held = taken.held;
    if (held === undefined || isFreeFor(held, me, now())) continue; // freed meanwhile: take it
    const decision = decideOnHeldLease(held, {
      now: now(),
      waiter: me,
      ownHandoverAt: handoverAt,
      maxWaitMs: settings.handoverWaitMs,
      ttlMs,
    });
    if (!decision.wait) {
      outcome.reason = `lease held by ${held.holder}: ${decision.reason}`;
      return done();
    }
    if (!(await registerWaiter({ chainId, holder: held.holder, waiter: me, now: now(), until: decision.until }))) {
      const again = await readLease(chainId);
      if (again?.holder !== held.holder || isFreeFor(again, me, now())) continue; // the lease changed meanwhile: look again
      outcome.reason = `lease held by ${held.holder}: another invocation waits for its handover`;
      return done();
    }
    waitStarted ??= now();
    log.info('waiting for the ingest lease handover', { chainId, holder: held.holder, handoverAt: held.handoverAt });
    // Poll the lease (one strongly consistent GetItem a poll) until it is released or expires.
    const never = new AbortController().signal;
    for (;;) {
      const current = await readLease(chainId);
      const t = now();
      if (isFreeFor(current, me, t)) break;
      if (current && current.holder !== held.holder) break; // taken by another: decide again
      if (t >= decision.until) {
        outcome.reason = `lease held by ${held.holder} past its handover (${new Date(held.handoverAt).toISOString()})`;
        outcome.waitedMs = t - waitStarted;
        return done();
      }
      // Fine around when the lease is to be free (its handover, or its expiry if sooner: a holder that
      // stopped renewing); coarse again once a holder's last batch runs long past its handover (until its deadline).
      const toHandover = Math.min(current?.handoverAt ?? held.handoverAt, current?.expiresAt ?? held.expiresAt) - t;
      const poll =
        toHandover > 2_000
          ? Math.min(WAIT_POLL_COARSE_MS, toHandover - 2_000)
          : toHandover < -2_000
            ? WAIT_POLL_COARSE_MS
            : WAIT_POLL_FINE_MS;
      await pause(Math.min(poll, decision.until - t), never);
    }
  }
  if (waitStarted !== undefined) {
    outcome.waitedMs = now() - waitStarted;
    outcome.tookOver = true;
  }
  outcome.heldFrom = lease.takenAt;
  outcome.role = 'followed';
  outcome.ended = 'released';

  // 2. + 3. Follow, renewing the lease on a timer.
  ingest.holdLease();
  const stop = new AbortController();
  let expiresAt = lease.expiresAt;
  let cursorNumber: number | null = null;
  let lost = false;
  let deferred: IngestResult['deferred'];
  const margin = writeMarginMs(ttlMs);
  /** Whether a batch may start now: the lease, as last renewed, runs at least `margin` more (this clock); else the loop ends. */
  const mayWrite = (): boolean => {
    if (stop.signal.aborted) return false;
    if (now() < expiresAt - margin) return true;
    lost = true;
    stop.abort();
    return false;
  };
  let renewing: Promise<void> = Promise.resolve();
  const renew = async () => {
    const limit = renewTimeoutMs(ttlMs);
    const abandon = new AbortController();
    const timeout = setTimeout(() => abandon.abort(), limit);
    try {
      const renewed = await Promise.race([
        renewLease({
          chainId,
          holder: me,
          now: now(),
          ttlMs,
          deadline: settings.deadline,
          blockNumber: cursorNumber,
          abortSignal: abandon.signal,
        }),
        new Promise<never>((_, reject) =>
          abandon.signal.addEventListener('abort', () => reject(new Error(`the renewal took more than ${limit} ms: abandoned`)), {
            once: true,
          }),
        ),
      ]);
      if (renewed.renewed) expiresAt = renewed.expiresAt;
      else {
        lost = true;
        stop.abort();
      }
    } catch (error) {
      log.warn('could not renew the ingest lease (tried again shortly)', {
        chainId,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      clearTimeout(timeout);
    }
    // Not renewed in time: stop writing before another invocation may take the chain.
    mayWrite();
  };
  const timer = setInterval(
    () => {
      renewing = renewing.then(renew);
    },
    Math.max(200, Math.floor(ttlMs / 3)),
  );
  const progressEvery = settings.progressEveryMs ?? 60_000;
  let progress: FollowProgress = { advanced: 0, reorgs: 0, failedRounds: 0, cursor: undefined };
  let progressAt = now();
  let publishing: Promise<void> | undefined;
  /**
   * Hands what was done since the last call to `onProgress`, without waiting for it (the loop goes on
   * to the next block; one call at a time: while one runs, the next is not due). `force` (the end):
   * after the one running, and awaited.
   */
  const flush = (force: boolean): Promise<void> => {
    const onProgress = settings.onProgress;
    if (!onProgress || (!force && (publishing !== undefined || now() - progressAt < progressEvery))) return Promise.resolve();
    const delta = progress;
    progress = { advanced: 0, reorgs: 0, failedRounds: 0, cursor: delta.cursor, ...(delta.head ? { head: delta.head } : {}) };
    progressAt = now();
    const call: Promise<void> = (publishing ?? Promise.resolve())
      .then(() => onProgress(delta))
      .catch((error: unknown) =>
        log.warn('could not publish the ingest progress', { chainId, error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        if (publishing === call) publishing = undefined;
      });
    publishing = call;
    return call;
  };

  try {
    let blockTime = settings.blockTimeMs;
    outcome.blockTimeSource = blockTime === undefined ? 'observed' : 'setting';
    let lastHead = -1;
    let newHeadSeenAt: number | undefined;
    /** One look at the head, and the new blocks ingested; true when there is more to ingest at once. */
    const round = async (): Promise<boolean> => {
      const head = await ingest.head();
      const seenAt = now();
      progress.head = { number: Number(head), seenAt };
      blockTime ??= await observeBlockTime(client, head);
      outcome.blockTimeMs = blockTime;
      if (Number(head) > lastHead) {
        if (lastHead >= 0) newHeadSeenAt = seenAt;
        lastHead = Number(head);
      }
      if (cursorNumber !== null && Number(head) <= cursorNumber) return false;
      if (!mayWrite()) return false;
      const watching = watchHead(blockTime);
      let result: IngestResult;
      try {
        result = await ingest.ingestNext(settings.maxBlocks, {
          firstBlock: settings.firstBlock,
          deadline: handoverAt,
          signal: stop.signal,
          mayWrite,
          head,
          // Every write ends before the invocation does; a block too large for what is left goes to the
          // next invocation, unless this one has written nothing yet (no later one has more time).
          finishBy: settings.deadline - finishReserveMs(settings.safetyMarginMs),
          startAnyway: outcome.advanced === 0,
        });
      } finally {
        await watching.stop();
      }
      outcome.advanced += result.advanced;
      outcome.reorgs += result.reorgs;
      progress.advanced += result.advanced;
      progress.reorgs += result.reorgs;
      progress.cursor = result.cursor;
      cursorNumber = result.cursor?.blockNumber ?? null;
      outcome.cursor = cursorNumber;
      if (result.deferred) deferred = result.deferred;
      // Still behind (a round's maximum, or blocks that appeared meanwhile): go on at once.
      return cursorNumber !== null && cursorNumber < lastHead && result.advanced > 0;
    };
    /**
     * Looks at the head while a round writes, from when the next block is due (one block time after
     * the last new head was seen, a fifth early), every fifth of the block time; a new head goes to
     * the round (raiseTarget). A failed look is left to the next (the round's own reads retry).
     */
    const watchHead = (step: number): { stop(): Promise<void> } => {
      const fine = Math.max(50, Math.round(step / 5));
      let timer: ReturnType<typeof setTimeout> | undefined;
      let looking: Promise<void> = Promise.resolve();
      let stopped = false;
      const look = async () => {
        try {
          const seen = Number(await ingest.head());
          const seenAt = now();
          progress.head = { number: seen, seenAt };
          if (seen > lastHead) {
            lastHead = seen;
            newHeadSeenAt = seenAt;
            ingest.raiseTarget(seen);
          }
        } catch {
          // (The next look, or the next round, reads it again.)
        }
      };
      const schedule = (delay: number) => {
        if (stopped) return;
        timer = setTimeout(() => {
          looking = look().finally(() => schedule(fine));
        }, delay);
      };
      const due = newHeadSeenAt === undefined ? step : newHeadSeenAt + step - fine - now();
      schedule(Math.max(fine, due));
      return {
        stop: async () => {
          stopped = true;
          if (timer) clearTimeout(timer);
          await looking;
        },
      };
    };
    let failures = 0;
    while (now() < handoverAt && mayWrite() && !deferred) {
      let again: boolean;
      try {
        again = await round();
        failures = 0;
      } catch (error) {
        // A round that failed (the node, the table or the queue, after their own retries) left the cursor
        // on its last complete block: try again shortly, unless it keeps failing or cannot succeed.
        if (error instanceof CursorMovedError || error instanceof ReorgTooDeepError) throw error;
        failures += 1;
        outcome.failedRounds += 1;
        progress.failedRounds += 1;
        if (failures >= MAX_CONSECUTIVE_FAILURES) throw error;
        log.warn('an ingest round failed: tried again shortly', {
          chainId,
          failures,
          error: error instanceof Error ? error.message : String(error),
        });
        await pause(Math.min(FAILURE_PAUSE_MS * failures, handoverAt - now()), stop.signal);
        continue;
      }
      void flush(false);
      if (again) continue;
      // The next look: phase-locked to when new blocks were first seen.
      const t = now();
      const step = blockTime ?? 1_000;
      const fine = Math.max(50, Math.round(step / 5));
      let delay = step;
      if (newHeadSeenAt !== undefined) {
        const expected = newHeadSeenAt + step;
        if (t < expected - fine) delay = expected - fine - t;
        else if (t < expected + step) delay = fine;
      }
      await pause(Math.min(delay, handoverAt - t), stop.signal);
    }
    outcome.reason = lost
      ? 'lost the lease (not renewed in time, or taken by another)'
      : deferred
        ? `block ${deferred.block} (${deferred.transactions} transactions) is not expected to be written before this invocation ends: handed over early`
        : 'handover time reached';
  } catch (error) {
    if (error instanceof CursorMovedError) {
      // Another writer moved the cursor (the safety net): this one stops; the lease is not its to keep.
      lost = true;
      outcome.reason = `another writer moved the cursor: ${error.message}`;
      log.warn('the cursor moved under this invocation: it stops following', { chainId, error: error.message });
    } else {
      outcome.reason = `failed: ${error instanceof Error ? error.message : String(error)}`;
      throw error;
    }
  } finally {
    ingest.releaseLease();
    clearInterval(timer);
    await renewing;
    if (lost) {
      outcome.ended = 'lost';
      outcome.heldUntil = Math.min(now(), expiresAt);
    } else {
      outcome.heldUntil = now();
      const released = await releaseLease({ chainId, holder: me, now: outcome.heldUntil, blockNumber: cursorNumber }).catch(
        (error: unknown) => {
          log.warn('could not release the ingest lease (it expires by itself)', {
            chainId,
            error: error instanceof Error ? error.message : String(error),
          });
          return false;
        },
      );
      outcome.ended = released ? 'released' : 'lost';
    }
    // (After the release: the successor need not wait for the metrics.)
    await flush(true).catch(() => undefined);
  }
  return outcome;

  function done(): FollowOutcome {
    if (waitStarted !== undefined) outcome.waitedMs = now() - waitStarted;
    return outcome;
  }
}
