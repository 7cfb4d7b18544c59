/**
 * A block of more than `sliceTransactions` transactions is built, numbered and written slice by slice
 * (ingest.ts writeSlices; issue 34, item 1: memory bounded whatever the block's size). Here a small
 * Base-profile chain with one block of 90 transactions, sliced at 25 (4 slices), against the same
 * chain written whole:
 *  - every record, index entry, position, running total, seek chunk, range head and state item is the
 *    same; only block buckets (at most 8 entries an item) are cut at the slices' edges;
 *  - the block's manifest lists exactly the immutable items written;
 *  - a crash between two slices' writes, or inside the last, and a restart leave the table of a clean
 *    sliced ingest, item for item (manifests included);
 *  - a parallel backfill's workers write such a block in the same slices, and the numbering ingest ends
 *    with the same table.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { planBackfill, stageSegment } from '../../../shared/ingest/backfill';
import { ChainIngest, registerChain, type IngestOptions } from '../../../shared/ingest/ingest';
import { readManifest, unpackEntries, writeManifest } from '../../../shared/ingest/manifest';
import { entriesOf, isBucket, storedEntriesOf } from '../../../shared/table/buckets';
import { unpackItem } from '../../../shared/table/pack';
import { blockKeys, chainKeys, keyId } from '../../../shared/table/keys';
import { getItem, queryRange } from '../../../shared/ingest/table-io';
import { smallBaseChain } from '../../support/base-chain';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { observingTable } from '../../support/table-calls';

const table = useTestTable('sliced-blocks');
const quiet = { info: () => undefined, warn: () => undefined };
const BURST_BLOCK = 4;
const SLICE = 25;
const { spec, chain } = smallBaseChain(7, 20, { block: BURST_BLOCK, transactions: 90 });

const ingestOptions = (options: Partial<IngestOptions> = {}) => ({
  chainId: spec.chainId,
  client: chain.client(),
  retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 5 },
  log: quiet,
  ...options,
});

/** Ingests the chain into table `name` (created), in batches (the burst block alone when sliced). */
async function ingestInto(name: string, options: Partial<IngestOptions> = {}): Promise<Record<string, unknown>[]> {
  await inTable(name, async () => {
    await registerChain(spec.chainId, 1);
    const result = await new ChainIngest(ingestOptions(options)).ingestRange({ from: 1, to: chain.head });
    expect(result.cursor?.blockNumber).toBe(chain.head);
  });
  return tableSnapshot(name);
}

/**
 * A table's items with every block bucket replaced by its entries (each at its own sort key), manifests apart,
 * packed fields spread: an entry's packed fields are stored deflated in an item of its own and plain inside a
 * bucket (table/buckets.ts), the same fields either way.
 */
function logicalItems(items: readonly Record<string, unknown>[]): Map<string, Record<string, unknown>> {
  const logical = new Map<string, Record<string, unknown>>();
  for (const item of items) {
    if (item.kind === 'manifest') continue;
    for (const entry of isBucket(item) ? entriesOf(item) : [unpackItem(item)]) logical.set(keyId(entry as never), bytesAsText(entry));
  }
  return logical;
}

/** An item with its binary attributes as base64 (a Scan gives Buffers, a bucket's entries Uint8Arrays). */
const bytesAsText = (item: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(item).map(([name, value]) => [name, value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value]),
  );

/** The keys of the entries the listed items hold (a bucket's entries each), every listed item stored. */
function entriesListed(listed: readonly { pk: string; sk: string }[], items: readonly Record<string, unknown>[]): Set<string> {
  const stored = new Map(items.map((item) => [keyId(item as never), item]));
  const entries = new Set<string>();
  for (const key of listed) {
    const item = stored.get(keyId(key));
    expect(item, `listed and stored: ${keyId(key)}`).toBeDefined();
    for (const entry of storedEntriesOf(item!)) entries.add(keyId(entry as never));
  }
  return entries;
}

/** Whether a BatchWriteItem's input puts the burst block's block item (N1). */
const blockItemIn = (input: Record<string, any>): boolean =>
  Object.values(input.RequestItems ?? {}).some((requests) =>
    (requests as { PutRequest?: { Item: Record<string, unknown> } }[]).some(
      (request) => request.PutRequest?.Item.kind === 'block' && request.PutRequest.Item.number === BURST_BLOCK,
    ),
  );

let whole: Record<string, unknown>[];
let sliced: Record<string, unknown>[];

beforeAll(async () => {
  expect(chain.blocks.find((block) => block.number === BURST_BLOCK)?.txs.length).toBe(90);
  whole = await ingestInto(`${table.name}-whole`);
  sliced = await ingestInto(`${table.name}-sliced`, { sliceTransactions: SLICE });
}, 120_000);

describe('a block written in slices', () => {
  test('holds what the block written whole holds: records, entries, positions, totals, seek chunks, heads and state', () => {
    const expected = logicalItems(whole);
    const actual = logicalItems(sliced);
    expect(actual.size).toBe(expected.size);
    for (const [id, item] of expected) expect(actual.get(id), id).toEqual(item);
    // The slices cut the block's buckets at their edges: more bucket items, the same entries.
    const buckets = (items: readonly Record<string, unknown>[]) => items.filter((item) => isBucket(item)).length;
    expect(buckets(sliced)).toBeGreaterThan(buckets(whole));
  });

  test("its manifest is whole and lists exactly the block's immutable items", async () => {
    const manifestOf = (name: string) => inTable(name, () => readManifest(spec.chainId, BURST_BLOCK));
    const [wholeManifest, slicedManifest] = await Promise.all([manifestOf(`${table.name}-whole`), manifestOf(`${table.name}-sliced`)]);
    expect(slicedManifest?.complete).toBe(true);
    expect(slicedManifest!.chunkCount!).toBeGreaterThan(wholeManifest!.chunkCount!);
    expect(new Set(slicedManifest!.touched)).toEqual(new Set(wholeManifest!.touched));
    // The same entries, in more items: each listed once, and stored.
    expect(new Set(slicedManifest!.items.map(keyId)).size).toBe(slicedManifest!.items.length);
    expect(entriesListed(slicedManifest!.items, sliced)).toEqual(entriesListed(wholeManifest!.items, whole));
  });
});

test('repaired (written again at or below the cursor, numbered fresh), it is written over in place, the same', async () => {
  const name = `${table.name}-repair`;
  await inTable(name, async () => {
    await registerChain(spec.chainId, 1);
    const ingest = new ChainIngest(ingestOptions({ sliceTransactions: SLICE }));
    await ingest.ingestRange({ from: 1, to: chain.head });
    // Readers are served the block meanwhile: it is written over in place, nothing of it deleted.
    let deletes = 0;
    const result = await observingTable(
      (command, input) => {
        if (command !== 'BatchWriteItemCommand') return;
        // (The manifest's chunks past its parts, written after the stored ones, go at the end: not the block's items.)
        const manifestPk = chainKeys.manifest(spec.chainId, BURST_BLOCK, 0).pk;
        for (const requests of Object.values(input.RequestItems ?? {}) as { DeleteRequest?: { Key: { pk: string } } }[][])
          deletes += requests.filter((request) => request.DeleteRequest && request.DeleteRequest.Key.pk !== manifestPk).length;
      },
      () => new ChainIngest(ingestOptions({ sliceTransactions: SLICE })).ingestRange({ from: BURST_BLOCK, to: BURST_BLOCK, repair: true }),
    );
    expect(result.repaired).toBe(1);
    expect(deletes).toBe(0);
  });
  expect(await tableSnapshot(name)).toEqual(sliced);
}, 60_000);

test('a block written whole, repaired in slices (a table of before, or of another slice size): cut short, it stays listed; done, it is the clean sliced table', async () => {
  const name = `${table.name}-repair-whole`;
  const manifestPk = chainKeys.manifest(spec.chainId, BURST_BLOCK, 0).pk;
  const repair = () =>
    new ChainIngest(ingestOptions({ sliceTransactions: SLICE })).ingestRange({ from: BURST_BLOCK, to: BURST_BLOCK, repair: true });
  await inTable(name, async () => {
    await registerChain(spec.chainId, 1);
    await new ChainIngest(ingestOptions()).ingestRange({ from: 1, to: chain.head });
    // Cut at its third part's manifest write: the old items and the two parts' new ones all stored.
    let parts = 0;
    const cut = observingTable((command, input) => {
      if (command !== 'BatchWriteItemCommand') return;
      const puts = Object.values(input.RequestItems ?? {}).flat() as { PutRequest?: { Item: Record<string, unknown> } }[];
      if (puts.some((request) => request.PutRequest?.Item.pk === manifestPk) && ++parts === 3) throw new Error('repair cut');
    }, repair);
    await expect(cut).rejects.toThrow('repair cut');
    const manifest = await readManifest(spec.chainId, BURST_BLOCK);
    expect(manifest?.complete, 'whole at every step: a reorg would undo it').toBe(true);
    const listed = new Set(manifest!.items.map(keyId));
    const blockKeysOf = (items: readonly Record<string, unknown>[]) => new Set(manifestItemsOf(items));
    const ofBlock = new Set([...blockKeysOf(whole), ...blockKeysOf(sliced)]);
    const stored = (await tableSnapshot(name)).map((item) => keyId(item as never)).filter((id) => ofBlock.has(id));
    expect(stored.filter((id) => !listed.has(id))).toEqual([]);
    expect((await repair()).repaired).toBe(1);
  });
  expect(await tableSnapshot(name)).toEqual(sliced);
}, 60_000);

test("a manifest of the block's number left by another branch (undone) is gone before the block's parts: never two hashes' chunks beside its block item", async () => {
  const name = `${table.name}-orphaned-manifest`;
  await inTable(name, async () => {
    await registerChain(spec.chainId, 1);
    await new ChainIngest(ingestOptions({ sliceTransactions: SLICE })).ingestRange({ from: 1, to: BURST_BLOCK - 1 });
    // What an interrupted run on another branch left past the cursor: a manifest of 40 chunks (20,000 keys) of another hash.
    const orphanKeys = Array.from({ length: 20_000 }, (_, index) => ({
      pk: `C#${spec.chainId}#ORPHAN`,
      sk: String(index).padStart(6, '0'),
    }));
    await writeManifest(spec.chainId, { blockNumber: BURST_BLOCK, blockHash: `0x${'ab'.repeat(32)}`, items: orphanKeys, touched: [] }, 0);
    expect((await readManifest(spec.chainId, BURST_BLOCK))?.chunkCount).toBe(40);
    let hashesBesideBlockItem: string[] | undefined;
    let checking = false;
    await observingTable(
      async (command, input) => {
        if (checking || command !== 'BatchWriteItemCommand' || !blockItemIn(input)) return;
        checking = true;
        const chunks = await queryRange<{ blockHash: string }>(chainKeys.manifestRange(spec.chainId, BURST_BLOCK));
        hashesBesideBlockItem = [...new Set(chunks.map((chunk) => chunk.blockHash))];
        checking = false;
      },
      () => new ChainIngest(ingestOptions({ sliceTransactions: SLICE })).ingestRange({ from: BURST_BLOCK, to: chain.head }),
    );
    const block = chain.blocks.find((candidate) => candidate.number === BURST_BLOCK)!;
    expect(hashesBesideBlockItem).toEqual([block.hash]);
  });
  expect(await tableSnapshot(name)).toEqual(sliced);
}, 60_000);

/** The keys the burst block's stored manifest chunks list, in a table's items. */
function manifestItemsOf(items: readonly Record<string, unknown>[]): string[] {
  const pk = chainKeys.manifest(spec.chainId, BURST_BLOCK, 0).pk;
  return items.filter((item) => item.pk === pk).flatMap((chunk) => unpackEntries(chunk as never).items.map(keyId));
}

describe('a crash while a block is written in slices', () => {
  const manifestPk = chainKeys.manifest(spec.chainId, BURST_BLOCK, 0).pk;
  /** Puts of the burst block's manifest chunks in a BatchWriteItem's input. */
  const manifestChunksIn = (input: Record<string, any>): number[] =>
    Object.values(input.RequestItems ?? {}).flatMap((requests) =>
      (requests as { PutRequest?: { Item: Record<string, unknown> } }[]).flatMap((request) =>
        request.PutRequest?.Item.pk === manifestPk ? [Number(request.PutRequest.Item.sk)] : [],
      ),
    );

  test.each([
    {
      where: "before its third slice's manifest part (two slices written)",
      crash: (input: Record<string, any>) => manifestChunksIn(input).some((chunk) => chunk >= 2),
      manifestComplete: false,
    },
    { where: 'while its last slice (the block item) is written', crash: blockItemIn, manifestComplete: true },
  ])(
    '$where: a restart leaves the table of a clean ingest, item for item',
    async ({ crash, manifestComplete }) => {
      const name = `${table.name}-crash-${Math.random().toString(36).slice(2, 8)}`;
      let crashed = false;
      await inTable(name, async () => {
        await registerChain(spec.chainId, 1);
        const first = new ChainIngest(ingestOptions({ sliceTransactions: SLICE }));
        const run = observingTable(
          (command, input) => {
            if (!crashed && command === 'BatchWriteItemCommand' && crash(input)) {
              crashed = true;
              throw new Error('crash between slices');
            }
          },
          () => first.ingestRange({ from: 1, to: chain.head }),
        );
        await expect(run).rejects.toThrow('crash between slices');
        const partial = await readManifest(spec.chainId, BURST_BLOCK);
        // Cut between its parts, the manifest reads as incomplete (its last chunk expects more); its block item is not written.
        expect(partial?.complete, 'the manifest is whole once its last part is written').toBe(manifestComplete);
        expect(await getItem(blockKeys.block(spec.chainId, BURST_BLOCK)), 'the block item comes last').toBeUndefined();
        const again = await new ChainIngest(ingestOptions({ sliceTransactions: SLICE })).ingestRange({ from: 1, to: chain.head });
        expect(again.cursor?.blockNumber).toBe(chain.head);
      });
      expect(crashed).toBe(true);
      expect(await tableSnapshot(name)).toEqual(sliced);
    },
    60_000,
  );
});

test("a parallel backfill's workers write the block in the same slices: the numbering ingest's table is the clean one", async () => {
  const name = `${table.name}-backfill`;
  await inTable(name, async () => {
    await registerChain(spec.chainId, 1);
    const { segments } = await planBackfill({ chainId: spec.chainId, from: 1, to: chain.head, head: chain.head, segmentBlocks: 3 });
    for (const segment of segments)
      await stageSegment({ chainId: spec.chainId, client: chain.client(), sliceTransactions: SLICE }, segment);
    const result = await new ChainIngest(ingestOptions({ sliceTransactions: SLICE })).ingestRange({ from: 1, to: chain.head });
    expect(result.cursor?.blockNumber).toBe(chain.head);
  });
  expect(await tableSnapshot(name)).toEqual(sliced);
}, 60_000);
