/**
 * Following the head with the work overlapped, and within the invocation's time (shared/ingest/follow.ts
 * and ChainIngest, issue 34 items 4 and 1). Overlap: a block that appears while the block before it is written is fetched (and derived) during that
 * write and written in the same round; under the lease the cursor and the backfill plan are read once,
 * not once a block. The node is the Base profile generator over HTTP (scripts/bench/lib/released-chain.ts)
 * whose next block appears 100 ms after the ingest asks for the one before, while the table takes
 * 60 ms a write call (DynamoDB's latency, made longer than a block's time to write). The table the
 * follower leaves is the one a plain ingest of the same blocks writes, item for item. Time: a block
 * too large for what is left of an invocation is not started (a batch killed at the timeout would be
 * tried again, and killed again, by every invocation after it): the holder hands over at once, and
 * the next invocation, which has written nothing yet, writes it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import type { BaseChain } from '../../../scripts/bench/dataset/base-profile';
import { serveReleasedChain } from '../../../scripts/bench/lib/released-chain';
import { createChainClient } from '../../../shared/chain/client';
import { followWithLease } from '../../../shared/ingest/follow';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { backfillKeys, chainKeys } from '../../../shared/table/keys';
import { smallBaseChain } from '../../support/base-chain';
import { observingTable } from '../../support/table-calls';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('follow-overlap');
const quiet = { info: () => undefined, warn: () => undefined };

const smallChain = smallBaseChain;

/** The chain's blocks 1..head ingested into `tableName` in one plain run (the table to compare with). */
async function plainIngest(tableName: string, chainId: number, chain: BaseChain, head: number): Promise<void> {
  await inTable(tableName, async () => {
    await registerChain(chainId, 1);
    await new ChainIngest({ chainId, client: chain.client(), maxBatchBlocks: 1, log: quiet }).ingestRange({ from: 1, to: head });
  });
}

/** A follower of the node at `url`, one block a batch, recording when each block is written. */
const follower = (chainId: number, url: string, writtenAt: Map<number, number>): ChainIngest =>
  new ChainIngest({
    chainId,
    client: createChainClient(url),
    maxBatchBlocks: 1,
    log: quiet,
    onBlock: ({ blockNumber }) => writtenAt.set(blockNumber, Date.now()),
  });

/** Adds `ms` to every write call, and counts GetItems of the cursor and the backfill plan, while `work` runs. */
async function slowTable<T>(
  chainId: number,
  ms: number,
  work: () => Promise<T>,
): Promise<{ result: T; cursorReads: number; planReads: number }> {
  const cursor = chainKeys.cursor(chainId);
  const plan = backfillKeys.plan(chainId);
  let cursorReads = 0;
  let planReads = 0;
  const result = await observingTable(async (command, input) => {
    if (command === 'GetItemCommand') {
      if (input.Key?.pk === cursor.pk && input.Key?.sk === cursor.sk) cursorReads += 1;
      if (input.Key?.pk === plan.pk && input.Key?.sk === plan.sk) planReads += 1;
    }
    if (/Write|Update|Put|Delete/.test(command)) await sleep(ms);
  }, work);
  return { result, cursorReads, planReads };
}

it('a block that appears while the one before is written is fetched during that write, the cursor read once a lease, and the table is a plain ingest’s', async () => {
  const { spec, chain } = smallChain(10, 30);
  const head = chain.head;
  const whole = `${table.name}-whole`;
  await plainIngest(whole, spec.chainId, chain, head);

  // The node: block n + 1 appears 100 ms after the ingest first asks for block n whole.
  const fetchedAt = new Map<number, number>();
  const node = await serveReleasedChain(chain, {
    released: 1,
    onCall: (method, params) => {
      if (method !== 'eth_getBlockByNumber' || params[1] !== true) return;
      const number = Number(BigInt(String(params[0])));
      if (fetchedAt.has(number)) return;
      fetchedAt.set(number, Date.now());
      setTimeout(() => node.release(number + 1), 100);
    },
  });
  const writtenAt = new Map<number, number>();
  const followed = `${table.name}-followed`;
  try {
    const {
      result: outcome,
      cursorReads,
      planReads,
    } = await inTable(followed, async () => {
      await registerChain(spec.chainId, 1);
      const ingest = follower(spec.chainId, node.url, writtenAt);
      return slowTable(spec.chainId, 60, async () => {
        const started = Date.now();
        const run = followWithLease(ingest, createChainClient(node.url), {
          chainId: spec.chainId,
          invocation: 'overlap-test',
          deadline: started + 60_000,
          safetyMarginMs: 1_000,
          leaseTtlMs: 10_000,
          handoverWaitMs: 1_000,
          blockTimeMs: 200,
          firstBlock: 1,
          maxBlocks: 1_000,
          log: quiet,
          // Ends the loop once every block is written (the invocation's clock jumps to its handover).
          now: () => (writtenAt.has(head) ? started + 60_000 : Date.now()),
        });
        return run;
      });
    });
    expect(outcome).toMatchObject({ role: 'followed', cursor: head });
    // Overlap: blocks 2.. each appeared during the write of the block before, and were asked for before that write ended.
    const overlapped = [...writtenAt.keys()].filter(
      (number) => number < head && (fetchedAt.get(number + 1) ?? Infinity) < writtenAt.get(number)!,
    );
    expect(overlapped.length).toBeGreaterThanOrEqual(head - 3);
    // The cursor and the plan: read at the lease's first round only (the round, its run; and the cursor once
    // by the range positions of a new process), not once a block: 9 blocks here.
    // (Read at least once: the count sees the reads.)
    expect(cursorReads).toBeGreaterThanOrEqual(1);
    expect(cursorReads).toBeLessThanOrEqual(3);
    expect(planReads).toBeGreaterThanOrEqual(1);
    expect(planReads).toBeLessThanOrEqual(2);
  } finally {
    await node.close();
  }
  const withoutLease = (items: Record<string, unknown>[]) => items.filter((item) => item.kind !== 'ingestLease');
  expect(withoutLease(await tableSnapshot(followed))).toEqual(await tableSnapshot(whole));
}, 240_000);

it('a block too large for what is left of the invocation is left to the next one, which writes it: no batch outlives its invocation', async () => {
  const { spec, chain } = smallChain(5, 10, { block: 4, transactions: 300 });
  const head = chain.head;
  const whole = `${table.name}-deadline-whole`;
  await plainIngest(whole, spec.chainId, chain, head);
  const node = await serveReleasedChain(chain, { released: 3 });
  const written = `${table.name}-deadline`;
  try {
    await inTable(written, async () => {
      await registerChain(spec.chainId, 1);
      const writtenAt = new Map<number, number>();
      const ingest = follower(spec.chainId, node.url, writtenAt);
      const settings = {
        chainId: spec.chainId,
        // (A lease never runs past its invocation: a short ttl keeps the write margin short too.)
        leaseTtlMs: 2_000,
        handoverWaitMs: 1_000,
        blockTimeMs: 200,
        firstBlock: 1,
        maxBlocks: 1_000,
        log: quiet,
      };
      // The first invocation: 5 s, 1 s of margin. Blocks 1-3 at once; the 300-transaction block 4 once 2.5 s are
      // gone, when a batch of it (a second and 10 ms a transaction, before any was measured) would outlive the invocation.
      const started = Date.now();
      const release = setTimeout(() => node.release(head), 2_500);
      const first = await followWithLease(ingest, createChainClient(node.url), {
        ...settings,
        invocation: 'first',
        deadline: started + 5_000,
        safetyMarginMs: 1_000,
      });
      clearTimeout(release);
      expect(first).toMatchObject({ role: 'followed', cursor: 3, ended: 'released' });
      expect(first.reason).toMatch(
        /^block 4 \(300 transactions\) is not expected to be written before this invocation ends: handed over early/,
      );
      // Handed over as soon as it knew, not at its handover time, and nothing of block 4 written.
      expect(first.heldUntil! - started).toBeLessThan(4_000);
      expect((await tableSnapshot(written)).some((item) => String(item.pk).endsWith('#BLOCKS') && Number(item.number) === 4)).toBe(false);
      // The next invocation has written nothing yet: it writes block 4 whatever its estimate, then the rest.
      const secondStarted = Date.now();
      const second = await followWithLease(ingest, createChainClient(node.url), {
        ...settings,
        invocation: 'second',
        deadline: secondStarted + 60_000,
        safetyMarginMs: 1_000,
        // (Ends the loop once every block is written: its clock jumps to its handover.)
        now: () => (writtenAt.has(head) ? secondStarted + 60_000 : Date.now()),
      });
      expect(second).toMatchObject({ role: 'followed', cursor: head });
    });
  } finally {
    await node.close();
  }
  const withoutLease = (items: Record<string, unknown>[]) => items.filter((item) => item.kind !== 'ingestLease');
  expect(withoutLease(await tableSnapshot(written))).toEqual(await tableSnapshot(whole));
}, 240_000);
