/**
 * The follow loop's timing (shared/ingest/follow.ts), with a stand-in for the ingest whose chain grows
 * a block every 300 ms and the real lease on the embedded DynamoDB: the chain's block time observed
 * from the node's timestamps, the looks at the head phase-locked to when blocks appear (each block seen
 * within about a fifth of the block time, about two looks a block), the handover at the deadline less
 * the margin.
 */
import { describe, expect, test } from 'vitest';
import type { ChainClient } from '../../../shared/chain/client';
import { followWithLease, observeBlockTime } from '../../../shared/ingest/follow';
import type { ChainIngest, IngestResult } from '../../../shared/ingest/ingest';
import { readLease } from '../../../shared/ingest/lease';
import type { IngestLog } from '../../../shared/ingest/log';
import type { CursorRecord } from '../../../shared/table/records';
import { useTestTable } from '../../support/table';

useTestTable('follow');

const quiet: IngestLog = { info: () => undefined, warn: () => undefined };

/** A client that answers getBlock with `timestamp(number)`. */
const clientWith = (timestamp: (number: bigint) => bigint) =>
  ({
    getBlock: async ({ blockNumber }: { blockNumber: bigint }) => ({ number: blockNumber, timestamp: timestamp(blockNumber) }),
  }) as unknown as ChainClient;

describe('the block time observed on the node', () => {
  test('is the mean interval over the last 100 blocks (fewer on a young chain), within 250 ms..60 s', async () => {
    expect(
      await observeBlockTime(
        clientWith((n) => 1_700_000_000n + 2n * n),
        5_000n,
      ),
    ).toBe(2_000);
    // Whole-second timestamps of a 250 ms chain: 4 blocks a second.
    expect(
      await observeBlockTime(
        clientWith((n) => 1_700_000_000n + n / 4n),
        4_000n,
      ),
    ).toBe(250);
    expect(
      await observeBlockTime(
        clientWith((n) => 1_700_000_000n + 12n * n),
        10n,
      ),
    ).toBe(12_000);
    // Many blocks in one second (anvil's automine): the least; a long pause: the most.
    expect(
      await observeBlockTime(
        clientWith(() => 1_700_000_000n),
        50n,
      ),
    ).toBe(250);
    expect(
      await observeBlockTime(
        clientWith((n) => 1_700_000_000n + 600n * n),
        50n,
      ),
    ).toBe(60_000);
    expect(
      await observeBlockTime(
        clientWith(() => 0n),
        0n,
      ),
    ).toBe(1_000);
  });
});

test('the loop sees each new block within about a fifth of the block time, with about two looks at the head a block, and hands over at its deadline less the margin', async () => {
  const chainId = 7_001;
  const blockMs = 300;
  const genesis = Date.now();
  const headNow = () => Math.floor((Date.now() - genesis) / blockMs);
  const appearedAt = (number: number) => genesis + number * blockMs;
  let looks = 0;
  let cursor: CursorRecord | undefined;
  const ingestedAt = new Map<number, number>();
  const ingest = {
    head: async () => {
      looks += 1;
      return BigInt(headNow());
    },
    ingestNext: async (_max: number, options: { deadline?: number }): Promise<IngestResult> => {
      const from = cursor ? cursor.blockNumber + 1 : 0;
      const to = headNow();
      let advanced = 0;
      for (let number = from; number <= to && (options.deadline === undefined || Date.now() < options.deadline); number += 1) {
        ingestedAt.set(number, Date.now());
        cursor = { kind: 'cursor', chainId, blockNumber: number, blockHash: `0x${number}`, firstBlock: 0 };
        advanced += 1;
      }
      return { advanced, repaired: 0, reorgs: 0, cursor };
    },
    holdLease: () => undefined,
    releaseLease: () => undefined,
    raiseTarget: () => undefined,
  } as unknown as ChainIngest;
  // The node's timestamps: whole seconds, as a node has them.
  const client = clientWith((n) => BigInt(Math.floor(appearedAt(Number(n)) / 1000)));

  const deadline = Date.now() + 6_000;
  const outcome = await followWithLease(ingest, client, {
    chainId,
    invocation: 'follow-test',
    deadline,
    safetyMarginMs: 1_000,
    leaseTtlMs: 3_000,
    handoverWaitMs: 2_000,
    blockTimeMs: blockMs,
    firstBlock: 0,
    maxBlocks: 100,
    log: quiet,
  });
  expect(outcome).toMatchObject({
    role: 'followed',
    reason: 'handover time reached',
    ended: 'released',
    blockTimeSource: 'setting',
    blockTimeMs: blockMs,
  });
  expect(outcome.heldUntil!).toBeGreaterThanOrEqual(deadline - 1_000);
  expect(outcome.heldUntil!).toBeLessThan(deadline - 1_000 + 200);
  expect((await readLease(chainId))?.releasedAt).toBe(outcome.heldUntil);

  // After the first few blocks (the lock), blocks ingested within a fifth of the block time.
  const blocks = [...ingestedAt.keys()].filter((number) => number >= 5 && appearedAt(number) < outcome.heldUntil! - blockMs);
  expect(blocks.length).toBeGreaterThanOrEqual(8);
  const delays = blocks.map((number) => ingestedAt.get(number)! - appearedAt(number));
  // (Nine in ten within a fifth and the timers' slack; none a whole block time late, even on a busy machine.)
  const sorted = [...delays].sort((a, b) => a - b);
  expect(sorted[Math.floor(sorted.length * 0.9) - 1]!).toBeLessThanOrEqual(blockMs / 5 + 60);
  expect(Math.max(...delays)).toBeLessThan(blockMs);
  // About two looks a block (three at most on average), not a look every few milliseconds.
  expect(looks / ingestedAt.size).toBeLessThanOrEqual(3);
}, 20_000);

test('without a block time setting, the loop polls at the block time it observes on the node', async () => {
  const chainId = 7_002;
  const ingest = {
    head: async () => 1_000n,
    ingestNext: async (): Promise<IngestResult> => ({
      advanced: 0,
      repaired: 0,
      reorgs: 0,
      cursor: { kind: 'cursor', chainId, blockNumber: 1_000, blockHash: '0x1', firstBlock: 0 },
    }),
    holdLease: () => undefined,
    releaseLease: () => undefined,
    raiseTarget: () => undefined,
  } as unknown as ChainIngest;
  const outcome = await followWithLease(
    ingest,
    clientWith((n) => 1_700_000_000n + 2n * n),
    {
      chainId,
      invocation: 'observe-test',
      deadline: Date.now() + 2_500,
      safetyMarginMs: 1_000,
      leaseTtlMs: 3_000,
      handoverWaitMs: 2_000,
      firstBlock: 0,
      maxBlocks: 100,
      log: quiet,
    },
  );
  expect(outcome).toMatchObject({ role: 'followed', blockTimeMs: 2_000, blockTimeSource: 'observed', advanced: 0, cursor: 1_000 });
});
