/**
 * Batches of blocks on the demo chain: a batch that fails after its items and state are written
 * (a block listener throws) leaves its blocks announced on the cursor (`pendingTo`). A restart, with
 * batches as large or smaller, rewrites those blocks (nothing is undone: they are canonical; what a
 * smaller batch does not reach stays announced) and ends with exactly the table of one uninterrupted
 * run in batches of 32, when token details were read (tokenDetailsAt, tokenDetailsBlock) included: a
 * restart inside a batch does not read again the details its interrupted run did not read (they
 * were read before the batch). (A reorg of announced blocks: reorg.test.ts.)
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
/** The table of one uninterrupted run of blocks 0..HEAD in batches of 32. */
let reference: Record<string, unknown>[];

const run = (options: Partial<IngestOptions> & { from?: number; to?: number }) =>
  ingestRange({ chainId: CHAIN_ID, client: createChainClient(demo.anvil.rpcUrl), ...options });

beforeAll(async () => {
  // One second between blocks: a token's details read at one block or the next differ in tokenDetailsAt.
  demo = await startDemoChain({ chainId: CHAIN_ID, blockSeconds: 1 });
  const name = `${table.name}-reference`;
  const result = await inTable(name, () => run({ from: 0, to: HEAD, maxBatchBlocks: 32 }));
  expect(result.advanced).toBe(HEAD + 1);
  reference = await tableSnapshot(name);
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
      {
        blocksIngested: async (batch) => {
          for (const { block } of batch) {
            if (block.number < 3) await sleep(300);
            const cursor = await readCursor(CHAIN_ID);
            if (!failed && cursor && lastPossiblyWritten(cursor) > cursor.blockNumber + 1) {
              failed = true;
              throw new Error('listener failed');
            }
          }
        },
      },
    ],
  });
}

/** Fails inside a batch, then restarts with batches of at most `restartBatch` blocks, in table `name`. */
async function failThenRestart(
  name: string,
  restartBatch: number,
): Promise<{ undone: number[]; announced: { from: number; to: number }; seen: Map<number, number | undefined> }> {
  return inTable(name, async () => {
    await expect(runFailingInsideABatch()).rejects.toThrow('listener failed');
    const cursor = (await readCursor(CHAIN_ID))!;
    expect(cursor.pendingTo, 'the failed batch was announced on the cursor').toBeGreaterThan(cursor.blockNumber + 1);
    const manifests = await Promise.all(
      Array.from({ length: cursor.pendingTo! - cursor.blockNumber }, (_, offset) =>
        readManifest(CHAIN_ID, cursor.blockNumber + 1 + offset),
      ),
    );
    expect(
      manifests.every((manifest) => manifest !== undefined),
      'every block of the batch has its manifest',
    ).toBe(true);
    const undone: number[] = [];
    // What the cursor announces while each block of the restart is written (before its move).
    const seen = new Map<number, number | undefined>();
    const restarted = await run({
      to: HEAD,
      maxBatchBlocks: restartBatch,
      listeners: [
        {
          blocksIngested: async (batch) => {
            for (const { block } of batch) seen.set(block.number, (await readCursor(CHAIN_ID))?.pendingTo);
          },
          blocksOrphaned: ({ blocks }) => void undone.push(...blocks.map((block) => block.number)),
        },
      ],
    });
    expect(restarted.advanced).toBe(HEAD - cursor.blockNumber);
    expect(await readCursor(CHAIN_ID)).toEqual({
      kind: 'cursor',
      chainId: CHAIN_ID,
      blockNumber: HEAD,
      blockHash: expect.any(String),
      blockTimestamp: expect.any(Number),
      firstBlock: 0,
      // Created by the chain's first batch: every batch writes range heads (range-heads.ts).
      rangeHeads: true,
      pk: expect.any(String),
      sk: expect.any(String),
    });
    return { undone, announced: { from: cursor.blockNumber + 1, to: cursor.pendingTo! }, seen };
  });
}

test('restarted block by block after a failure inside a batch: the announced blocks stay announced until written, nothing is undone, exactly the table of one run', async () => {
  const name = `${table.name}-small`;
  const { undone, announced, seen } = await failThenRestart(name, 1);
  expect(undone, 'nothing was undone').toEqual([]);
  for (let number = announced.from; number <= announced.to; number += 1)
    expect(seen.get(number), `announced while block ${number} is written`).toBe(announced.to);
  expect(seen.get(announced.to + 1), 'nothing announced once they are written').toBeUndefined();
  const truth = await readChainTruth(demo.anvil.rpcUrl, 0, HEAD);
  await expectImmutableItems(name, truth);
  await expectStateMatchesChain(name, truth, demo.anvil.rpcUrl);
  expect(await tableSnapshot(name)).toEqual(reference);
});

test('restarted with batches as large: the announced batch is rewritten, nothing is undone, exactly the table of one run', async () => {
  const name = `${table.name}-rewrite`;
  const { undone } = await failThenRestart(name, 8);
  expect(undone, 'nothing was undone').toEqual([]);
  expect(await tableSnapshot(name)).toEqual(reference);
});

test('block by block, the table is item for item the one of batches of 32 (no answer depends on where a batch ends)', async () => {
  // The demo creates its token and moves it in the blocks after: within one batch the transfers used to
  // probe the token again, so its tokenDetailsAt was a later block's time than block by block.
  const name = `${table.name}-block-by-block`;
  const result = await inTable(name, () => run({ from: 0, to: HEAD, maxBatchBlocks: 1 }));
  expect(result.advanced).toBe(HEAD + 1);
  expect(await tableSnapshot(name)).toEqual(reference);
}, 120_000);

test('a batch failed after its state and restarted: token details read before it stay as read (tokenDetailsAt and tokenDetailsBlock of one run)', async () => {
  // The demo's token is created in its first blocks and moves in every stretch of blocks after: the
  // failed batch (of several blocks past 21) writes the token's address item (updatedAtBlock in the batch) without reading
  // its details, which were read at its creation. The restart used to read them again at the batch's
  // first transfer, a block whose time is later.
  const name = `${table.name}-details`;
  await inTable(name, async () => {
    expect((await run({ from: 0, to: 20, maxBatchBlocks: 32 })).advanced).toBe(21);
    // Fails in the first batch of several blocks (a slow first one lets the prefetcher run ahead).
    const failing = run({
      to: 40,
      maxBatchBlocks: 8,
      listeners: [
        {
          blocksIngested: async (batch) => {
            if (batch.length > 1) throw new Error('listener failed');
            await sleep(300);
          },
        },
      ],
    });
    await expect(failing).rejects.toThrow('listener failed');
    const cursor = (await readCursor(CHAIN_ID))!;
    expect(cursor.pendingTo).toBeGreaterThan(cursor.blockNumber + 1);
    await run({ to: HEAD, maxBatchBlocks: 8 });
  });
  const token = demo.manifest.contracts.token.toLowerCase();
  const details = (items: Record<string, unknown>[]) => items.find((item) => item.kind === 'address' && item.address === token);
  expect(details(await tableSnapshot(name))).toEqual(details(reference));
  expect(details(reference)).toMatchObject({ tokenDetailsBlock: expect.any(Number), tokenDetailsAt: expect.any(Number) });
  expect(await tableSnapshot(name)).toEqual(reference);
}, 120_000);
