/**
 * What a followed block's commit waits on (issue 34, item 3): in AWS each DynamoDB round trip is 5-10 ms,
 * so the calls a block's write sends one after another, not their number, bound how fast the ingest
 * follows. Blocks of the Base profile (swaps, transfers, NFT mints, ERC-1155 ids, deposits) are ingested
 * one at a time, as the follower does, and the longest chain of calls each sent after the one before
 * answered is counted. The cursor, the backfill plan and the cursor block's hash, which a follower
 * under the lease reads once (follow-overlap.test.ts), are among them here: an ingest run reads them.
 */
import { expect, it } from 'vitest';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { smallBaseChain } from '../../support/base-chain';
import { roundTripsInSequence } from '../../support/table-calls';
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
