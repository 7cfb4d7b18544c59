/**
 * Batches of blocks on the demo chain: a batch that fails after its items and state are written
 * (a block listener throws) leaves its blocks announced on the cursor (`pendingTo`); a restart that
 * writes smaller batches undoes what lies past its own batch and ends with exactly the table of one
 * uninterrupted run. Block-by-block and batched runs write the same table.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createChainClient } from '../../../shared/chain/client';
import { ingestRange, type IngestOptions } from '../../../shared/ingest/ingest';
import { lastPossiblyWritten, readCursor, readManifest } from '../../../shared/ingest/manifest';
import { startDemoChain, type DemoChain } from '../../support/demo-chain';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { expectImmutableItems, expectStateMatchesChain, readChainTruth } from './support/truth';

const table = useTestTable('batches');
const CHAIN_ID = 31337;
const HEAD = 60;
let demo: DemoChain;

beforeAll(async () => {
  demo = await startDemoChain({ chainId: CHAIN_ID });
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

/** Items without the block a state item was written at. */
const comparable = (items: Record<string, unknown>[]) => items.map(({ updatedAtBlock: _block, ...rest }) => rest);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


const run = (options: Partial<IngestOptions> & { from?: number; to?: number }) =>
  ingestRange({ chainId: CHAIN_ID, client: createChainClient(demo.anvil.rpcUrl), orderDeposits: false, ...options });

/**
 * Blocks 0..HEAD in batches of at most 8, with a listener that fails in the first batch of several
 * blocks (announced on the cursor), after that batch's items and state are written. Slow first blocks
 * let the prefetcher run ahead, so that a later batch holds several blocks.
 */
function runFailingInsideABatch(): Promise<unknown> {
  let failed = false;
  return run({
    from: 0,
    to: HEAD,
    maxBatchBlocks: 8,
    listeners: [
      async ({ block }) => {
        if (block.number < 3) await sleep(150);
        const cursor = await readCursor(CHAIN_ID);
        if (!failed && cursor && lastPossiblyWritten(cursor) > cursor.blockNumber + 1) {
          failed = true;
          throw new Error('listener failed');
        }
      },
    ],
  });
}

test('a batch that fails before its cursor move is undone past a smaller restart batch; the table equals one uninterrupted run', async () => {
  await expect(runFailingInsideABatch()).rejects.toThrow('listener failed');
  const cursor = (await readCursor(CHAIN_ID))!;
  expect(cursor.pendingTo, 'the failed batch was announced on the cursor').toBeGreaterThan(cursor.blockNumber + 1);
  const announced = await Promise.all(
    Array.from({ length: cursor.pendingTo! - cursor.blockNumber }, (_, offset) => readManifest(CHAIN_ID, cursor.blockNumber + 1 + offset)),
  );
  expect(announced.every((manifest) => manifest !== undefined), 'every block of the batch has its manifest').toBe(true);

  // Restart block by block: the first batch (one block) undoes the manifests past it.
  const undone: number[] = [];
  const restarted = await run({ maxBatchBlocks: 1, to: HEAD, orphanListeners: [({ blocks }) => void undone.push(...blocks.map((block) => block.number))] });
  expect(restarted.advanced).toBe(HEAD - cursor.blockNumber);
  expect(undone.sort((a, b) => a - b), 'the blocks past the restart batch were undone').toEqual(
    Array.from({ length: cursor.pendingTo! - cursor.blockNumber - 1 }, (_, offset) => cursor.blockNumber + 2 + offset),
  );
  expect(await readCursor(CHAIN_ID)).toEqual({ kind: 'cursor', chainId: CHAIN_ID, blockNumber: HEAD, blockHash: expect.any(String), firstBlock: 0, pk: expect.any(String), sk: expect.any(String) });

  const truth = await readChainTruth(demo.anvil.rpcUrl, 0, HEAD);
  await expectImmutableItems(table.name, truth);
  await expectStateMatchesChain(table.name, truth, demo.anvil.rpcUrl);

  // One uninterrupted run in large batches writes the very same items. (State items undone and
  // recomputed record the block they were recomputed at, as after a reorg: compared without it.)
  const fresh = `${table.name}-fresh`;
  const result = await inTable(fresh, () => run({ from: 0, to: HEAD, maxBatchBlocks: 32 }));
  expect(result.advanced).toBe(HEAD + 1);
  expect(comparable(await tableSnapshot(table.name))).toEqual(comparable(await tableSnapshot(fresh)));
});

test('a restart rewrites the batch an interrupted run announced instead of undoing it: exactly the table of one run', async () => {
  const name = `${table.name}-rewrite`;
  await inTable(name, async () => {
    await expect(runFailingInsideABatch()).rejects.toThrow('listener failed');
    const cursor = (await readCursor(CHAIN_ID))!;
    expect(cursor.pendingTo).toBeGreaterThan(cursor.blockNumber + 1);
    const undone: number[] = [];
    await run({ to: HEAD, maxBatchBlocks: 8, orphanListeners: [({ blocks }) => void undone.push(...blocks.map((block) => block.number))] });
    expect(undone, 'nothing was undone').toEqual([]);
  });
  expect(await tableSnapshot(name)).toEqual(await tableSnapshot(`${table.name}-fresh`));
});
