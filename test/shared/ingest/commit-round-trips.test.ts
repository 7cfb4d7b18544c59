/**
 * What a followed block's commit waits on (issue 34, item 3): in AWS each DynamoDB round trip is 5-10 ms,
 * so the calls a block's write sends one after another, not their number, bound how fast the ingest
 * follows. Blocks of the Base profile (swaps, transfers, NFT mints, ERC-1155 ids, deposits) are ingested
 * one at a time, as the follower does, and the longest chain of calls each sent after the one before
 * answered is counted. The cursor, the backfill plan and the cursor block's hash, which a follower
 * under the lease reads once (follow-overlap.test.ts), are among them here: an ingest run reads them.
 * A block's status write is not on the next block's path: the run waits for it only at its end.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { db, tableName } from '../../../shared/db/client';
import { CursorMovedError } from '../../../shared/ingest/manifest';
import { chainKeys } from '../../../shared/table/keys';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { readStoredStatus } from '../../../shared/ingest/status';
import { smallBaseChain } from '../../support/base-chain';
import { observingTable, roundTripsInSequence } from '../../support/table-calls';
import { useTestTable } from '../../support/table';

useTestTable('commit-round-trips');
const quiet = { info: () => undefined, warn: () => undefined };

it('a followed Base-profile block waits on at most 17 DynamoDB round trips in sequence', async () => {
  const { spec, chain } = smallBaseChain(12, 80);
  await registerChain(spec.chainId, 1);
  const ingest = new ChainIngest({ chainId: spec.chainId, client: chain.client(), maxBatchBlocks: 1, prefetch: 1, log: quiet });
  await ingest.ingestRange({ from: 1, to: 4 });
  const depths: number[] = [];
  let deepest: string[] = [];
  for (let number = 5; number <= chain.head; number += 1) {
    const { result, depth, path } = await roundTripsInSequence(() => ingest.ingestRange({ from: number, to: number }));
    expect(result.advanced).toBe(1);
    depths.push(depth);
    if (depth > deepest.length) deepest = path;
  }
  // 14 now (4 of them the reads a follower makes once a lease: a follower's block waits on 10); 15-16 before
  // the collections were rebuilt in one round of reads with the instances they embed (named by their
  // holdings read with the batch's other state) and one write for all; 16-17 before the NFT instances and
  // the ERC-1155 holdings were read with the batch's other state (not after the balances' transactions);
  // 19-35 before ERC-1155 ids joined the balances' transactions, the state's independent parts ran beside
  // each other and the lookups and writes went in one wave each. (The embedded table answers one call at
  // a time: calls sent together may come back one after another and count as a chain here.)
  expect(
    Math.max(...depths),
    `round trips in sequence per block: ${depths.join(', ')}; the deepest:\n${deepest.join('\n')}`,
  ).toBeLessThanOrEqual(17);
});

it("a run's next block does not wait for the status write after the block before, and the run ends once every status is written", async () => {
  const { chainId, ingest } = await statusEveryBlock(1);
  // A slow status write (700 ms) after each block: the blocks after it start their calls while it is in flight.
  const statusWrites: { start: number; end: number }[] = [];
  const calls: { start: number; status: boolean }[] = [];
  const result = await observingTable(
    async (_command, input) => {
      const status = input.Item?.sk === 'STATUS';
      calls.push({ start: performance.now(), status });
      if (!status) return;
      const write = { start: performance.now(), end: Number.POSITIVE_INFINITY };
      statusWrites.push(write);
      await new Promise((resolve) => setTimeout(resolve, 700));
      write.end = performance.now();
    },
    () => ingest.ingestRange({ from: 4, to: 7 }),
  );
  const ended = performance.now();
  expect(result.advanced).toBe(4);
  expect(statusWrites.length, 'a status written after each of the 4 blocks').toBeGreaterThanOrEqual(4);
  const first = statusWrites[0]!;
  const during = calls.filter((call) => !call.status && call.start > first.start && call.start < first.end);
  expect(during.length, "the next block's calls sent while the first status write was in flight").toBeGreaterThan(0);
  // Nothing is left in flight when the run returns.
  for (const write of statusWrites) expect(write.end).toBeLessThanOrEqual(ended);
  const status = await readStoredStatus(chainId);
  expect(status?.state).toBe('following');
});

it('a run that loses its cursor to another writer leaves no status write in flight when it throws', async () => {
  const { chainId, ingest } = await statusEveryBlock(2);
  const statusWrites: { end: number }[] = [];
  let moved = false;
  const run = observingTable(
    async (_command, input) => {
      if (input.Item?.sk !== 'STATUS' || input.Item?.chainId !== chainId) return;
      const write = { end: Number.POSITIVE_INFINITY };
      statusWrites.push(write);
      if (!moved) {
        // Another writer moves the cursor while this status write (after block 4) is in flight.
        moved = true;
        await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: chainKeys.cursor(chainId),
            UpdateExpression: 'SET blockHash = :other',
            ExpressionAttributeValues: { ':other': `0x${'ee'.repeat(32)}` },
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 700));
      write.end = performance.now();
    },
    () => ingest.ingestRange({ from: 4, to: 7 }),
  );
  await expect(run).rejects.toThrow(CursorMovedError);
  const thrown = performance.now();
  expect(statusWrites.length).toBeGreaterThanOrEqual(1);
  for (const write of statusWrites) expect(write.end, 'status write ended before the run threw').toBeLessThanOrEqual(thrown);
});

/**
 * A small Base-profile chain of its own in this file's table (the spec's chain id + `offset`), its first 3
 * blocks ingested, by an ingest that writes the status after every block.
 */
async function statusEveryBlock(offset: number): Promise<{ chainId: number; ingest: ChainIngest }> {
  const { spec, chain } = smallBaseChain(8, 20);
  const chainId = spec.chainId + offset;
  await registerChain(chainId, 1);
  const ingest = new ChainIngest({ chainId, client: chain.client(), maxBatchBlocks: 1, prefetch: 1, statusIntervalMs: 0, log: quiet });
  await ingest.ingestRange({ from: 1, to: 3 });
  return { chainId, ingest };
}
