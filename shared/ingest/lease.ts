/**
 * The chain's ingest lease (G8, `chainKeys.lease`, `IngestLeaseRecord`): which invocation of the ingest
 * follows a chain now. Deployed, the ingest function runs up to 15 minutes and is started again every
 * minute by its schedule, so two invocations of one chain may be alive at once; the lease makes exactly
 * one of them write, and hands the chain from one to the next without a gap:
 *
 * - **take**: a conditional PutItem that succeeds when there is no lease, it has expired, it was
 *   released, or this invocation already holds it (and, free, it is not promised to a waiter). The holder announces `handoverAt`, when it will let
 *   go (its deadline less its safety margin), and `expiresAt`, a few seconds ahead (`ttlMs`).
 * - **renew**: while following, the holder pushes `expiresAt` forward (conditional on still holding
 *   it, never past its own deadline). A crashed or killed holder stops renewing, and its lease runs
 *   out within `ttlMs`.
 * - **release**: at its handover time, after the block in flight, the holder marks the lease released
 *   (conditional on holding it); the next invocation takes it at once.
 * - **wait**: an invocation that finds the lease held waits only when the holder's handover (or the
 *   expiry of a lease its holder stopped renewing) falls within its own useful lifetime and within
 *   `maxWaitMs` (about one schedule period), and only when no other invocation is already waiting
 *   (`waiter`, `waiterUntil`): so at most two invocations of a chain run at once, the holder and its
 *   successor, and the lease, once free, is the waiter's. Otherwise it exits at once: a later
 *   scheduled invocation will be the successor.
 *
 * Times are epoch milliseconds of the writers' clocks (Lambda hosts keep NTP time, well within the
 * seconds these margins allow). The lease is an optimisation of who writes; the cursor's conditional
 * update (manifest.ts) still refuses a second writer should two ever overlap (a holder paused past its
 * expiry), and the items both would write are identical.
 */
import { getItem, putItem, updateItem } from '../db/operations';
import { chainKeys } from '../table/keys';
import type { IngestLeaseRecord } from '../table/records';

export type { IngestLeaseRecord };

/** The lease as stored, read strongly consistent (undefined: never taken). */
export async function readLease(chainId: number): Promise<IngestLeaseRecord | undefined> {
  return getItem<IngestLeaseRecord>(chainKeys.lease(chainId), { consistent: true });
}

/** Whether a stored lease binds nobody any more at `now`: released, or expired. */
export function isFree(lease: IngestLeaseRecord | undefined, now: number): boolean {
  return lease === undefined || lease.releasedAt !== undefined || lease.expiresAt <= now;
}

/** Whether `invocation` may take the lease at `now`: free, and not promised to another invocation still waiting for it. */
export function isFreeFor(lease: IngestLeaseRecord | undefined, invocation: string, now: number): boolean {
  if (lease === undefined) return true;
  if (lease.holder === invocation) return true;
  return isFree(lease, now) && (lease.waiter === undefined || lease.waiter === invocation || (lease.waiterUntil ?? 0) <= now);
}

export interface TakeLease {
  chainId: number;
  /** This invocation (its request id, or any unique string). */
  holder: string;
  now: number;
  /** How long the lease lasts without a renewal. */
  ttlMs: number;
  /** When this invocation means to release it. */
  handoverAt: number;
  /** The invocation's end: the lease never outlives it. */
  deadline: number;
  blockNumber?: number | null;
}

export type TakeOutcome = { taken: true; lease: IngestLeaseRecord } | { taken: false; held: IngestLeaseRecord | undefined };

/**
 * Takes the lease when it is free (or already this holder's); otherwise reports who holds it. A lease
 * released or expired while an invocation waits for it (`waiter`, until `waiterUntil`) is that
 * invocation's: another that comes at the same moment (the next schedule) does not take it.
 */
export async function takeLease(input: TakeLease): Promise<TakeOutcome> {
  const lease: IngestLeaseRecord = {
    kind: 'ingestLease',
    chainId: input.chainId,
    holder: input.holder,
    expiresAt: Math.min(input.now + input.ttlMs, input.deadline),
    handoverAt: input.handoverAt,
    deadline: input.deadline,
    takenAt: input.now,
    blockNumber: input.blockNumber ?? null,
  };
  const outcome = await putItem({
    Item: { ...chainKeys.lease(input.chainId), ...lease },
    ConditionExpression:
      'attribute_not_exists(pk) OR holder = :holder OR ((attribute_exists(releasedAt) OR expiresAt <= :now) AND (attribute_not_exists(waiter) OR waiter = :holder OR waiterUntil <= :now))',
    ExpressionAttributeValues: { ':now': input.now, ':holder': input.holder },
  });
  if (outcome.applied) return { taken: true, lease };
  return { taken: false, held: await readLease(input.chainId) };
}

/**
 * Pushes the lease's expiry to `now + ttlMs` (never past `deadline`); false when this invocation no
 * longer holds it (released, or taken by another after it expired).
 */
export async function renewLease(input: {
  chainId: number;
  holder: string;
  now: number;
  ttlMs: number;
  deadline: number;
  blockNumber?: number | null;
  /** Abandons the call (the holder's bound on a renewal: it must not wait past its lease's expiry). */
  abortSignal?: AbortSignal;
}): Promise<{ renewed: true; expiresAt: number } | { renewed: false }> {
  const expiresAt = Math.min(input.now + input.ttlMs, input.deadline);
  const outcome = await updateItem(
    {
      Key: chainKeys.lease(input.chainId),
      UpdateExpression: 'SET expiresAt = :expiresAt, blockNumber = :blockNumber',
      ConditionExpression: 'holder = :holder AND attribute_not_exists(releasedAt)',
      ExpressionAttributeValues: { ':expiresAt': expiresAt, ':blockNumber': input.blockNumber ?? null, ':holder': input.holder },
    },
    input.abortSignal ? { abortSignal: input.abortSignal } : {},
  );
  return outcome.applied ? { renewed: true, expiresAt } : { renewed: false };
}

/** Lets the lease go now (conditional on holding it); false when it was no longer this invocation's. */
export async function releaseLease(input: { chainId: number; holder: string; now: number; blockNumber?: number | null }): Promise<boolean> {
  const outcome = await updateItem({
    Key: chainKeys.lease(input.chainId),
    UpdateExpression: 'SET releasedAt = :now, expiresAt = :now, blockNumber = :blockNumber',
    ConditionExpression: 'holder = :holder AND attribute_not_exists(releasedAt)',
    ExpressionAttributeValues: { ':now': input.now, ':blockNumber': input.blockNumber ?? null, ':holder': input.holder },
  });
  return outcome.applied;
}

/**
 * Records this invocation as the one waiting for the holder's handover, until `until`; false when
 * another invocation already waits (its `waiterUntil` not passed) or the lease is no longer held by
 * `holder` (it changed hands meanwhile: look again).
 */
export async function registerWaiter(input: {
  chainId: number;
  holder: string;
  waiter: string;
  now: number;
  until: number;
}): Promise<boolean> {
  const outcome = await updateItem({
    Key: chainKeys.lease(input.chainId),
    UpdateExpression: 'SET waiter = :waiter, waiterUntil = :until',
    ConditionExpression:
      'holder = :holder AND attribute_not_exists(releasedAt) AND (attribute_not_exists(waiter) OR waiterUntil <= :now OR waiter = :waiter)',
    ExpressionAttributeValues: { ':waiter': input.waiter, ':until': input.until, ':holder': input.holder, ':now': input.now },
  });
  return outcome.applied;
}

/** What an invocation that did not get the lease does. */
export type HeldLeaseDecision = { wait: true; until: number } | { wait: false; reason: string };

/**
 * Whether to wait for the holder's handover: only when the lease is to be free (the holder's announced
 * handover; or its expiry, when the holder has not renewed it for two thirds of its ttl: likely gone)
 * before this invocation's own last useful moment (`ownHandoverAt`, after which it would start no
 * block itself) and within `maxWaitMs` from now, and no other invocation waits already. `until`: when
 * to give up waiting, within its own lifetime: for a holder that hands over, its `deadline` (its last
 * batch may run until its invocation ends; at least the handover plus the ttl, for a holder that dies
 * at the last moment); for a holder that stopped renewing, its expiry plus the ttl.
 */
export function decideOnHeldLease(
  held: IngestLeaseRecord,
  input: { now: number; waiter: string; ownHandoverAt: number; maxWaitMs: number; ttlMs: number },
): HeldLeaseDecision {
  const { now } = input;
  if (held.waiter !== undefined && held.waiter !== input.waiter && (held.waiterUntil ?? 0) > now)
    return { wait: false, reason: `invocation ${held.waiter} already waits for the handover` };
  if (isFree(held, now)) return { wait: false, reason: 'the lease is free: take it' };
  const overdue = held.expiresAt - now <= input.ttlMs / 3;
  const freeAt = overdue ? Math.min(held.expiresAt, held.handoverAt) : held.handoverAt;
  const what = overdue && freeAt < held.handoverAt ? 'lease expires (not renewed)' : 'holder hands over';
  if (freeAt >= input.ownHandoverAt)
    return { wait: false, reason: `the ${what} at ${new Date(freeAt).toISOString()}, after this invocation's own end` };
  if (freeAt - now > input.maxWaitMs)
    return {
      wait: false,
      reason: `the ${what} in ${Math.round((freeAt - now) / 1000)} s, more than the ${Math.round(input.maxWaitMs / 1000)} s this invocation may wait`,
    };
  const lastFree = Math.max(freeAt, held.expiresAt) + input.ttlMs;
  const giveUpAt = freeAt === held.handoverAt && held.deadline !== undefined ? Math.max(lastFree, held.deadline) : lastFree;
  return { wait: true, until: Math.min(giveUpAt, input.ownHandoverAt) };
}
