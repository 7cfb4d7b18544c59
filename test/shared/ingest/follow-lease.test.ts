/**
 * The follow loop's lease (shared/ingest/follow.ts) against the embedded DynamoDB, with a stand-in for
 * the ingest whose chain grows a block every 100 ms and that writes one block a batch, asking
 * `mayWrite` (and the deadline and the signal) before each as ChainIngest does: a holder whose renewal
 * hangs or is refused stops writing before its lease's expiry; a waiter waits for a holder's last
 * batch until the holder's deadline, and gives up after it; a take that keeps finding the lease
 * changing hands gives up; a cursor moved by another writer ends the holder ("lost"); the progress
 * published without holding up the loop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, expect, test, vi } from 'vitest';
import type { ChainClient } from '../../../shared/chain/client';
import { followWithLease, writeMarginMs, type FollowProgress, type FollowSettings } from '../../../shared/ingest/follow';
import type { ChainIngest, IngestResult } from '../../../shared/ingest/ingest';
import * as lease from '../../../shared/ingest/lease';
import type { IngestLog } from '../../../shared/ingest/log';
import { CursorMovedError } from '../../../shared/ingest/manifest';
import type { CursorRecord } from '../../../shared/table/records';
import { useTestTable } from '../../support/table';

/** Replaces renewLease / takeLease when set (the real ones otherwise). */
const control = vi.hoisted(() => ({
  renew: undefined as undefined | ((input: Parameters<typeof lease.renewLease>[0], calls: number) => Promise<unknown> | undefined),
  take: undefined as undefined | ((input: Parameters<typeof lease.takeLease>[0]) => Promise<unknown> | undefined),
  renewCalls: 0,
  takeCalls: 0,
}));

vi.mock('../../../shared/ingest/lease', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../shared/ingest/lease')>();
  return {
    ...real,
    renewLease: (input: Parameters<typeof real.renewLease>[0]) => {
      control.renewCalls += 1;
      return (control.renew?.(input, control.renewCalls) ?? real.renewLease(input)) as ReturnType<typeof real.renewLease>;
    },
    takeLease: (input: Parameters<typeof real.takeLease>[0]) => {
      control.takeCalls += 1;
      return (control.take?.(input) ?? real.takeLease(input)) as ReturnType<typeof real.takeLease>;
    },
  };
});

useTestTable('follow-lease');

const quiet: IngestLog = { info: () => undefined, warn: () => undefined };
const client = { getBlock: async () => ({ timestamp: 0n }) } as unknown as ChainClient;
let nextChain = 1;

beforeEach(() => {
  control.renew = undefined;
  control.take = undefined;
  control.renewCalls = 0;
  control.takeCalls = 0;
});

/** A stand-in ingest: a block every 100 ms; one block a batch, each started only when ChainIngest would start it. */
function standIn(chainId: number, options: { failAt?: (round: number) => Error | undefined } = {}) {
  const genesis = Date.now();
  const headNow = () => Math.floor((Date.now() - genesis) / 100);
  let cursor: CursorRecord | undefined;
  let rounds = 0;
  const batches: number[] = [];
  const ingest = {
    head: async () => BigInt(headNow()),
    ingestNext: async (_max: number, run: { deadline?: number; signal?: AbortSignal; mayWrite?: () => boolean }): Promise<IngestResult> => {
      rounds += 1;
      const failure = options.failAt?.(rounds);
      if (failure) throw failure;
      let advanced = 0;
      const to = headNow();
      for (let number = cursor ? cursor.blockNumber + 1 : 0; number <= to; number += 1) {
        if ((run.deadline !== undefined && Date.now() >= run.deadline) || run.signal?.aborted || (run.mayWrite && !run.mayWrite())) break;
        batches.push(Date.now());
        await sleep(20); // (the batch's writes)
        cursor = { kind: 'cursor', chainId, blockNumber: number, blockHash: `0x${number}`, firstBlock: 0 };
        advanced += 1;
      }
      return { advanced, repaired: 0, reorgs: 0, cursor };
    },
    holdLease: () => undefined,
    releaseLease: () => undefined,
    raiseTarget: () => undefined,
  } as unknown as ChainIngest;
  return { ingest, batches };
}

const settingsFor = (chainId: number, overrides: Partial<FollowSettings> = {}): FollowSettings => ({
  chainId,
  invocation: `holder-${chainId}`,
  deadline: Date.now() + 4_000,
  safetyMarginMs: 1_000,
  leaseTtlMs: 1_200,
  handoverWaitMs: 3_000,
  blockTimeMs: 100,
  firstBlock: 0,
  maxBlocks: 5,
  log: quiet,
  ...overrides,
});

test('a renewal that hangs mid-follow: the holder starts no batch once its lease (as last renewed) is within the margin of its expiry', async () => {
  const chainId = 8_000 + nextChain++;
  // The first renewal goes through; every later one never answers.
  control.renew = (_input, calls) => (calls === 1 ? undefined : new Promise(() => undefined));
  const { ingest, batches } = standIn(chainId);
  const started = Date.now();
  const outcome = await followWithLease(ingest, client, settingsFor(chainId));
  const stored = (await lease.readLease(chainId))!;
  expect(outcome).toMatchObject({ role: 'followed', ended: 'lost' });
  expect(outcome.reason).toMatch(/lost the lease/);
  expect(batches.length).toBeGreaterThan(3);
  // No batch began after the lease's expiry less the margin (the renewed expiry, as stored).
  const margin = writeMarginMs(1_200);
  expect(stored.expiresAt).toBeLessThan(started + 2_000);
  for (const at of batches) expect(at).toBeLessThan(stored.expiresAt - margin);
  // It ended well before its handover time, and did not wait for the hung renewal.
  expect(outcome.heldUntil!).toBeLessThanOrEqual(stored.expiresAt);
}, 10_000);

test('a renewal refused mid-follow (the lease taken by another): no batch begins after the refusal', async () => {
  const chainId = 8_000 + nextChain++;
  let refusedAt = Number.POSITIVE_INFINITY;
  control.renew = (_input, calls) => {
    if (calls < 2) return undefined;
    refusedAt = Math.min(refusedAt, Date.now());
    return Promise.resolve({ renewed: false });
  };
  const { ingest, batches } = standIn(chainId);
  const outcome = await followWithLease(ingest, client, settingsFor(chainId));
  expect(outcome).toMatchObject({ role: 'followed', ended: 'lost' });
  expect(batches.length).toBeGreaterThan(3);
  for (const at of batches) expect(at).toBeLessThanOrEqual(refusedAt);
});

test('a waiter waits for the holder’s last batch until the holder’s deadline (past its handover plus the ttl), then takes over', async () => {
  const chainId = 8_000 + nextChain++;
  const t0 = Date.now();
  // Holder A: hands over 200 ms from now, but its last batch runs until 2.2 s (its deadline 2.5 s), renewing meanwhile.
  await lease.takeLease({ chainId, holder: 'A', now: t0, ttlMs: 1_000, handoverAt: t0 + 200, deadline: t0 + 2_500 });
  const holder = (async () => {
    while (Date.now() < t0 + 2_200) {
      await sleep(250);
      await lease.renewLease({ chainId, holder: 'A', now: Date.now(), ttlMs: 1_000, deadline: t0 + 2_500 });
    }
    await lease.releaseLease({ chainId, holder: 'A', now: Date.now() });
  })();
  const { ingest } = standIn(chainId);
  const outcome = await followWithLease(
    ingest,
    client,
    settingsFor(chainId, { invocation: 'B', deadline: t0 + 3_800, leaseTtlMs: 1_000, handoverWaitMs: 2_000 }),
  );
  await holder;
  expect(outcome).toMatchObject({ role: 'followed', tookOver: true, ended: 'released' });
  expect(outcome.heldFrom!).toBeGreaterThanOrEqual(t0 + 2_200);
  expect(outcome.heldFrom! - t0).toBeLessThan(2_500 + 400);
}, 15_000);

test('a registered waiter whose holder keeps the lease past the waiter’s own end gives up, and no longer blocks another waiter', async () => {
  const chainId = 8_000 + nextChain++;
  const t0 = Date.now();
  await lease.takeLease({ chainId, holder: 'A', now: t0, ttlMs: 1_000, handoverAt: t0 + 200, deadline: t0 + 60_000 });
  let holding = true;
  const holder = (async () => {
    while (holding) {
      await sleep(250);
      await lease.renewLease({ chainId, holder: 'A', now: Date.now(), ttlMs: 1_000, deadline: t0 + 60_000 });
    }
  })();
  const { ingest, batches } = standIn(chainId);
  try {
    // B's own end: 1.5 s from now (deadline 2.5 s, margin 1 s).
    const outcome = await followWithLease(
      ingest,
      client,
      settingsFor(chainId, { invocation: 'B', deadline: t0 + 2_500, leaseTtlMs: 1_000, handoverWaitMs: 2_000 }),
    );
    expect(outcome).toMatchObject({ role: 'skipped', tookOver: false, ended: 'not held', heldFrom: null });
    expect(outcome.reason).toMatch(/lease held by A past its handover/);
    expect(outcome.waitedMs).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(batches).toEqual([]);
    const stored = (await lease.readLease(chainId))!;
    expect(stored).toMatchObject({ holder: 'A', waiter: 'B' });
    expect(stored.waiterUntil!).toBeLessThanOrEqual(Date.now());
    // C may now register as the waiter.
    expect(await lease.registerWaiter({ chainId, holder: 'A', waiter: 'C', now: Date.now(), until: Date.now() + 5_000 })).toBe(true);
  } finally {
    holding = false;
    await holder;
  }
}, 15_000);

test('a take that keeps finding the lease changing hands gives up after 10 attempts, holding nothing', async () => {
  const chainId = 8_000 + nextChain++;
  control.take = () => Promise.resolve({ taken: false, held: undefined });
  const { ingest, batches } = standIn(chainId);
  const outcome = await followWithLease(ingest, client, settingsFor(chainId));
  expect(outcome).toMatchObject({ role: 'skipped', ended: 'not held', heldFrom: null, advanced: 0 });
  expect(outcome.reason).toBe('the lease kept changing hands: left to the next invocation');
  expect(control.takeCalls).toBe(10);
  expect(batches).toEqual([]);
});

test('a cursor moved by another writer ends the holder ("lost"): not thrown, the lease not released by it', async () => {
  const chainId = 8_000 + nextChain++;
  const { ingest, batches } = standIn(chainId, {
    failAt: (round) => (round === 3 ? new CursorMovedError('chain moved to block 99 by another writer') : undefined),
  });
  const outcome = await followWithLease(ingest, client, settingsFor(chainId));
  expect(outcome).toMatchObject({ role: 'followed', ended: 'lost' });
  expect(outcome.reason).toMatch(/^another writer moved the cursor: chain moved to block 99/);
  const count = batches.length;
  expect(count).toBeGreaterThan(0);
  const stored = (await lease.readLease(chainId))!;
  expect(stored.releasedAt).toBeUndefined();
  expect(outcome.heldUntil!).toBeLessThanOrEqual(stored.expiresAt);
});

test('a slow progress publish does not hold up the loop: blocks are ingested while it runs, each delta carries the head read', async () => {
  const chainId = 8_000 + nextChain++;
  const { ingest, batches } = standIn(chainId);
  const deltas: { at: number; delta: FollowProgress }[] = [];
  const publishing: { from: number; to: number }[] = [];
  const outcome = await followWithLease(
    ingest,
    client,
    settingsFor(chainId, {
      deadline: Date.now() + 3_000,
      progressEveryMs: 200,
      onProgress: async (delta) => {
        const from = Date.now();
        deltas.push({ at: from, delta });
        await sleep(800);
        publishing.push({ from, to: Date.now() });
      },
    }),
  );
  expect(outcome).toMatchObject({ role: 'followed', ended: 'released' });
  expect(publishing.length).toBeGreaterThanOrEqual(2);
  // Batches began while a publish was running.
  const first = publishing[0]!;
  expect(batches.filter((at) => at > first.from && at < first.to).length).toBeGreaterThanOrEqual(3);
  // One publish at a time.
  for (const [index, call] of publishing.entries()) if (index > 0) expect(call.from).toBeGreaterThanOrEqual(publishing[index - 1]!.to);
  // The lag comes from the head the loop read (no call to the node of its own).
  for (const { delta } of deltas.slice(0, -1)) expect(delta.head).toEqual({ number: expect.any(Number), seenAt: expect.any(Number) });
  // Every block counted once.
  expect(deltas.reduce((sum, { delta }) => sum + delta.advanced, 0)).toBe(outcome.advanced);
});
