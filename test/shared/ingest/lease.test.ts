/**
 * The chain's ingest lease against the embedded DynamoDB (shared/ingest/lease.ts): taken when free,
 * renewed by its holder only, refused to a second invocation, free again when it expires or is
 * released, and the decision of an invocation that finds it held (wait for the handover or exit).
 */
import { describe, expect, test } from 'vitest';
import {
  decideOnHeldLease,
  isFree,
  isFreeFor,
  readLease,
  registerWaiter,
  releaseLease,
  renewLease,
  takeLease,
  type IngestLeaseRecord,
} from '../../../shared/ingest/lease';
import { useTestTable } from '../../support/table';

useTestTable('lease');

const T0 = 1_800_000_000_000;
const TTL = 10_000;
let nextChain = 1;
const freshChain = () => 9_000 + nextChain++;

describe('the ingest lease', () => {
  test('is taken when free, and refused to a second invocation while held', async () => {
    const chainId = freshChain();
    const first = await takeLease({ chainId, holder: 'A', now: T0, ttlMs: TTL, handoverAt: T0 + 840_000, deadline: T0 + 900_000 });
    expect(first).toMatchObject({ taken: true, lease: { holder: 'A', expiresAt: T0 + TTL, handoverAt: T0 + 840_000 } });
    expect(await readLease(chainId)).toMatchObject({ kind: 'ingestLease', chainId, holder: 'A', expiresAt: T0 + TTL });

    const second = await takeLease({ chainId, holder: 'B', now: T0 + 1_000, ttlMs: TTL, handoverAt: T0 + 901_000, deadline: T0 + 961_000 });
    expect(second).toEqual({ taken: false, held: expect.objectContaining({ holder: 'A', handoverAt: T0 + 840_000 }) });
    expect((await readLease(chainId))?.holder).toBe('A');
    // The holder may take it again (a retried take).
    expect(
      (await takeLease({ chainId, holder: 'A', now: T0 + 2_000, ttlMs: TTL, handoverAt: T0 + 840_000, deadline: T0 + 900_000 })).taken,
    ).toBe(true);
  });

  test('is renewed by its holder only, never past the holder deadline', async () => {
    const chainId = freshChain();
    await takeLease({ chainId, holder: 'A', now: T0, ttlMs: TTL, handoverAt: T0 + 50_000, deadline: T0 + 60_000 });
    expect(await renewLease({ chainId, holder: 'A', now: T0 + 3_000, ttlMs: TTL, deadline: T0 + 60_000, blockNumber: 7 })).toEqual({
      renewed: true,
      expiresAt: T0 + 13_000,
    });
    expect(await readLease(chainId)).toMatchObject({ holder: 'A', expiresAt: T0 + 13_000, blockNumber: 7 });
    // Near its deadline the lease ends with the invocation.
    expect(await renewLease({ chainId, holder: 'A', now: T0 + 55_000, ttlMs: TTL, deadline: T0 + 60_000 })).toEqual({
      renewed: true,
      expiresAt: T0 + 60_000,
    });
    expect(await renewLease({ chainId, holder: 'B', now: T0 + 56_000, ttlMs: TTL, deadline: T0 + 120_000 })).toEqual({ renewed: false });
    expect((await readLease(chainId))?.expiresAt).toBe(T0 + 60_000);
  });

  test('a crashed holder (no renewal) loses it at its expiry: then another takes it, and the old holder can no longer renew', async () => {
    const chainId = freshChain();
    await takeLease({ chainId, holder: 'A', now: T0, ttlMs: TTL, handoverAt: T0 + 840_000, deadline: T0 + 900_000 });
    // Just before the expiry: still A's.
    expect(
      (await takeLease({ chainId, holder: 'B', now: T0 + TTL - 1, ttlMs: TTL, handoverAt: T0 + 900_000, deadline: T0 + 960_000 })).taken,
    ).toBe(false);
    expect(isFree(await readLease(chainId), T0 + TTL - 1)).toBe(false);
    expect(isFree(await readLease(chainId), T0 + TTL)).toBe(true);
    const taken = await takeLease({ chainId, holder: 'B', now: T0 + TTL, ttlMs: TTL, handoverAt: T0 + 900_000, deadline: T0 + 960_000 });
    expect(taken).toMatchObject({ taken: true, lease: { holder: 'B' } });
    expect(await renewLease({ chainId, holder: 'A', now: T0 + TTL + 1, ttlMs: TTL, deadline: T0 + 900_000 })).toEqual({ renewed: false });
    expect(await releaseLease({ chainId, holder: 'A', now: T0 + TTL + 2 })).toBe(false);
    expect((await readLease(chainId))?.holder).toBe('B');
  });

  test('handover: the successor registers as the one waiter, the holder releases, the successor takes it at once', async () => {
    const chainId = freshChain();
    const handoverAt = T0 + 840_000;
    await takeLease({ chainId, holder: 'A', now: T0, ttlMs: TTL, handoverAt, deadline: T0 + 900_000 });
    await renewLease({ chainId, holder: 'A', now: T0 + 780_000, ttlMs: TTL, deadline: T0 + 900_000 });
    const held = (await readLease(chainId)) as IngestLeaseRecord;

    // B started by the schedule 60 s before the handover: its life covers it, within the wait allowed.
    const b = { now: T0 + 780_000, waiter: 'B', ownHandoverAt: T0 + 780_000 + 840_000, maxWaitMs: 75_000, ttlMs: TTL };
    const decision = decideOnHeldLease(held, b);
    // B waits until A's deadline at most (A's last batch may run until A's invocation ends), not just the handover plus the ttl.
    expect(held.deadline).toBe(T0 + 900_000);
    expect(decision).toEqual({ wait: true, until: T0 + 900_000 });
    expect(await registerWaiter({ chainId, holder: 'A', waiter: 'B', now: b.now, until: (decision as { until: number }).until })).toBe(
      true,
    );

    // C, one more schedule later (or a retry), finds B waiting: it exits, so at most two run.
    const withWaiter = (await readLease(chainId)) as IngestLeaseRecord;
    expect(withWaiter).toMatchObject({ holder: 'A', waiter: 'B' });
    expect(decideOnHeldLease(withWaiter, { ...b, now: T0 + 800_000, waiter: 'C' })).toMatchObject({
      wait: false,
      reason: expect.stringMatching(/B already waits/),
    });
    expect(await registerWaiter({ chainId, holder: 'A', waiter: 'C', now: T0 + 800_000, until: handoverAt + TTL })).toBe(false);

    // A reaches its handover time (its last block done) and releases. The invocation the schedule starts
    // at that very moment does not take it from B, who waited for it: it is told so and exits.
    expect(await releaseLease({ chainId, holder: 'A', now: handoverAt, blockNumber: 420 })).toBe(true);
    const released = await readLease(chainId);
    expect(isFree(released, handoverAt)).toBe(true);
    expect(isFreeFor(released, 'B', handoverAt)).toBe(true);
    expect(isFreeFor(released, 'D', handoverAt)).toBe(false);
    const late = await takeLease({
      chainId,
      holder: 'D',
      now: handoverAt + 50,
      ttlMs: TTL,
      handoverAt: handoverAt + 840_000,
      deadline: handoverAt + 900_000,
    });
    expect(late).toMatchObject({ taken: false, held: { holder: 'A', waiter: 'B' } });
    expect(decideOnHeldLease((late as { held: IngestLeaseRecord }).held, { ...b, now: handoverAt + 50, waiter: 'D' })).toMatchObject({
      wait: false,
      reason: expect.stringMatching(/B already waits/),
    });
    // B takes it right away.
    const taken = await takeLease({
      chainId,
      holder: 'B',
      now: handoverAt + 150,
      ttlMs: TTL,
      handoverAt: b.ownHandoverAt,
      deadline: b.ownHandoverAt + 60_000,
    });
    expect(taken).toMatchObject({ taken: true, lease: { holder: 'B', handoverAt: b.ownHandoverAt } });
    const stored = await readLease(chainId);
    expect(stored?.waiter).toBeUndefined();
    expect(stored?.releasedAt).toBeUndefined();
    // A's late renewal (a timer that fired after its release) changes nothing.
    expect(await renewLease({ chainId, holder: 'A', now: handoverAt + 200, ttlMs: TTL, deadline: T0 + 900_000 })).toEqual({
      renewed: false,
    });
  });

  test('a waiter waits for a handing-over holder until the holder’s deadline (its last batch may run until then), never past its own end', () => {
    const held: IngestLeaseRecord = {
      kind: 'ingestLease',
      chainId: 1,
      holder: 'A',
      takenAt: T0,
      expiresAt: T0 + 835_000,
      handoverAt: T0 + 840_000,
      deadline: T0 + 900_000,
    };
    const waiter = { now: T0 + 800_000, waiter: 'B', ownHandoverAt: T0 + 1_640_000, maxWaitMs: 75_000, ttlMs: TTL };
    expect(decideOnHeldLease(held, waiter)).toEqual({ wait: true, until: T0 + 900_000 });
    // Bounded by the waiter's own life.
    expect(decideOnHeldLease(held, { ...waiter, ownHandoverAt: T0 + 870_000 })).toEqual({ wait: true, until: T0 + 870_000 });
    // A deadline closer than the handover plus the ttl: the handover plus the ttl.
    expect(decideOnHeldLease({ ...held, deadline: T0 + 845_000 }, waiter)).toEqual({ wait: true, until: T0 + 840_000 + TTL });
    // A lease written without a deadline: as before.
    const { deadline: _, ...old } = held;
    expect(decideOnHeldLease(old, waiter)).toEqual({ wait: true, until: T0 + 840_000 + TTL });
    // A holder that stopped renewing (likely dead): its expiry plus the ttl, not its far deadline.
    expect(decideOnHeldLease({ ...held, expiresAt: T0 + 803_000 }, waiter)).toEqual({ wait: true, until: T0 + 803_000 + TTL });
  });

  test('stores the holder’s deadline when taken', async () => {
    const chainId = freshChain();
    await takeLease({ chainId, holder: 'A', now: T0, ttlMs: TTL, handoverAt: T0 + 840_000, deadline: T0 + 900_000 });
    expect(await readLease(chainId)).toMatchObject({ holder: 'A', handoverAt: T0 + 840_000, deadline: T0 + 900_000 });
  });

  test('an invocation does not wait for a handover beyond its own life or beyond the wait allowed', () => {
    const held: IngestLeaseRecord = {
      kind: 'ingestLease',
      chainId: 1,
      holder: 'A',
      takenAt: T0,
      expiresAt: T0 + 805_000,
      handoverAt: T0 + 840_000,
    };
    // Started a minute after the holder: the handover is 780 s away, far more than one schedule period.
    expect(
      decideOnHeldLease(held, { now: T0 + 60_000, waiter: 'B', ownHandoverAt: T0 + 900_000, maxWaitMs: 75_000, ttlMs: TTL }),
    ).toMatchObject({
      wait: false,
      reason: expect.stringMatching(/holder hands over in 780 s, more than the 75 s/),
    });
    // A short invocation whose own end comes before the handover.
    expect(
      decideOnHeldLease(held, { now: T0 + 800_000, waiter: 'B', ownHandoverAt: T0 + 830_000, maxWaitMs: 75_000, ttlMs: TTL }),
    ).toMatchObject({
      wait: false,
      reason: expect.stringMatching(/holder hands over at .* after this invocation's own end/),
    });
    // A holder that stopped renewing (crashed: two thirds of its ttl without a renewal): wait for its
    // expiry instead of its far handover.
    expect(
      decideOnHeldLease(
        { ...held, expiresAt: T0 + 63_000 },
        { now: T0 + 60_000, waiter: 'B', ownHandoverAt: T0 + 900_000, maxWaitMs: 75_000, ttlMs: TTL },
      ),
    ).toEqual({ wait: true, until: T0 + 63_000 + TTL });
    // Once B's wait is over (a waiter that died), anyone may take a released lease.
    expect(isFreeFor({ ...held, releasedAt: T0 + 840_000, waiter: 'B', waiterUntil: T0 + 850_000 }, 'C', T0 + 850_000)).toBe(true);
    // A waiter that gave up (its waiterUntil passed) no longer blocks another.
    expect(
      decideOnHeldLease(
        { ...held, waiter: 'B', waiterUntil: T0 + 790_000 },
        { now: T0 + 800_000, waiter: 'C', ownHandoverAt: T0 + 1_600_000, maxWaitMs: 75_000, ttlMs: TTL },
      ),
    ).toEqual({ wait: true, until: T0 + 840_000 + TTL });
  });
});
