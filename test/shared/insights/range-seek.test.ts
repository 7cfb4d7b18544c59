/**
 * Any page at the cost of the first (shared/insights/range-seek.ts), on the embedded DynamoDB, checked
 * against a brute-force list of the same entries: a token's transfers over 120 blocks, numbered by the
 * ingest's own RangePositions in batches of every size (with a restart in the middle, so positions,
 * running totals and unfinished seek chunks are read back from the table) and written with the table
 * layer in block buckets (N8 is bucketed: a page starts inside a bucket), seek chunks included. Every page of every order, several limits and block bounds.
 */
import { describe, expect, it } from 'vitest';
import { getItem, queryAll, writeItems } from '../../../shared/db/operations';
import { bucketNumberedEntries, countedEntry } from '../../../shared/ingest/items';
import { RangePositions } from '../../../shared/ingest/range-positions';
import { loadInsightsConfig } from '../../../shared/insights/config';
import { readPageAndCount, type RangeRead } from '../../../shared/insights/range-reader';
import { rangeKeys, SEEK_CHUNK_ENTRIES, tokenTransferKeys, type TableItem } from '../../../shared/table/keys';
import { legacyRunningTotalAttribute, runningTotalOf, type SeekChunkRecord } from '../../../shared/table/records';
import { seekChunkKeys } from '../../../shared/table/seek-chunk';
import { itemSize as itemBytes } from '../../../scripts/bench/lib/write-families';
import { prng } from '../../../scripts/bench/dataset/chain';
import { useTestTable } from '../../support/table';
import { expectEveryPage } from './every-page';
import { tableWorkOf } from './table-work';
import { waves } from '../../../scripts/bench/lib/measure';

useTestTable('range-seek');

const CONFIG = loadInsightsConfig({});
const CHAIN = 9;
const TOKEN = '0x00000000000000000000000000000000000000f5';
const pk = tokenTransferKeys.byToken(CHAIN, TOKEN).pk;
const BLOCKS = 120;

interface Entry {
  sk: string;
  block: number;
  amount: bigint;
}

const next = prng(20_261_124);
/** Entries per block: 0 to 9, some blocks empty, one block with 40 (a chunk completed inside a block). */
const perBlock = Array.from({ length: BLOCKS }, (_, block) => (block === 31 ? 40 : next() < 0.2 ? 0 : Math.floor(next() * 10)));
const entries: Entry[] = perBlock.flatMap((count, block) =>
  Array.from({ length: count }, (_, logIndex) => ({
    sk: tokenTransferKeys.sortKey(block, logIndex, 0),
    block,
    amount: BigInt(Math.floor(next() * 1e9)) * 10n ** 18n,
  })),
);

function itemsOf(block: number): TableItem[] {
  return entries
    .filter((entry) => entry.block === block)
    .map((entry, logIndex) =>
      countedEntry({ pk, sk: entry.sk, kind: 'tokenTransfer', blockNumber: block, logIndex, amount: entry.amount.toString() }),
    );
}

/** Numbers and writes blocks [from, to) in batches of random sizes, as the ingest does. */
async function ingest(positions: RangePositions, from: number, to: number): Promise<void> {
  let block = from;
  while (block < to) {
    const size = Math.min(to - block, 1 + Math.floor(next() * 6));
    const batch = Array.from({ length: size }, (_, offset) => ({ blockNumber: block + offset, items: itemsOf(block + offset) }));
    const chunks = await positions.assignBlocks(batch);
    // N8 is bucketed: the numbered entries of a block go in its buckets, as the ingest writes them.
    for (const { items } of batch) bucketNumberedEntries(items);
    await writeItems({ put: [...batch.flatMap((b) => b.items), ...chunks.flat()] });
    block += size;
  }
}

const stored = async (): Promise<TableItem[]> =>
  (await queryAll<TableItem>({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })).items;

describe('positions, running totals and seek chunks', () => {
  it('numbers, totals and chunks every entry as a brute force over the whole range does, across batches and a restart', async () => {
    // Blocks 0..29 by one writer, then a new one (a restart: everything read back from the table).
    await ingest(new RangePositions(CHAIN), 0, 30);
    await ingest(new RangePositions(CHAIN), 30, BLOCKS);
    const items = await stored();
    expect(items.map((item) => item.sk)).toEqual(entries.map((entry) => entry.sk));
    let total = 0n;
    for (const [index, item] of items.entries()) {
      total += entries[index]!.amount;
      expect(item.pos, item.sk).toBe(index + 1);
      expect(runningTotalOf(item, 'amount'), item.sk).toBe(total);
      expect(item[legacyRunningTotalAttribute('amount')], item.sk).toBeUndefined();
    }
    const complete = Math.floor(entries.length / SEEK_CHUNK_ENTRIES);
    expect(complete).toBeGreaterThan(10);
    for (let chunk = 0; chunk <= complete; chunk += 1) {
      const record = await getItem<SeekChunkRecord>(rangeKeys.seekChunk(pk, chunk));
      if (chunk === complete) expect(record).toBeUndefined();
      else {
        expect(seekChunkKeys(record)).toEqual(entries.slice(chunk * SEEK_CHUNK_ENTRIES, (chunk + 1) * SEEK_CHUNK_ENTRIES).map((e) => e.sk));
        // Packed, a chunk of 32 keys stays far under one write unit (1 KB).
        expect(itemBytes(record as unknown as TableItem)).toBeLessThan(400);
      }
    }
  });
});

describe('a page by number', () => {
  const read = (order: 'asc' | 'desc', blocks: { from?: number; to?: number }): RangeRead => ({ pk, sk: { blocks }, checks: [], order });
  const truth = (order: 'asc' | 'desc', blocks: { from?: number; to?: number }) => {
    const inRange = entries.filter((entry) => entry.block >= (blocks.from ?? 0) && entry.block <= (blocks.to ?? Infinity)).map((e) => e.sk);
    return order === 'asc' ? inRange : inRange.reverse();
  };
  const boundsCases: { from?: number; to?: number }[] = [
    {},
    { from: 11 },
    { to: 43 },
    { from: 7, to: 33 },
    { from: 31, to: 31 },
    { from: 58 },
  ];

  // Pages of one entry on the narrow bounds only: over the whole range they were three quarters of
  // this file's time (CI's 20 minutes) and check nothing the narrow bounds and the other limits do not.
  it('is every page of the brute-force list, in both orders, for several limits and block bounds', async () => {
    await expectEveryPage({ chainId: CHAIN, pk, entries, bounds: boundsCases, limits: [5, 16, 20], config: CONFIG });
    await expectEveryPage({
      chainId: CHAIN,
      pk,
      entries,
      bounds: [
        { from: 7, to: 33 },
        { from: 31, to: 31 },
      ],
      limits: [1],
      config: CONFIG,
    });
  }, 180_000);

  it('leaves out an excluded entry (a contract’s creation in its `to` range) on every page, wherever it is', async () => {
    const items = await stored();
    // The range's first entry (where a creation is), one inside the 40-entry block, one past a chunk boundary, the last.
    const inBlock31 = entries.findIndex((entry) => entry.block === 31) + 7;
    for (const index of [0, inBlock31, SEEK_CHUNK_ENTRIES * 3 + 1, items.length - 1]) {
      await expectEveryPage({
        chainId: CHAIN,
        pk,
        entries,
        bounds: [{}, { from: 7, to: 33 }, { from: 31, to: 31 }, { from: 58 }],
        limits: [7, 16],
        config: CONFIG,
        excluded: items[index],
      });
    }
  });

  it('reads only the page, its chunks and two positions, however deep', async () => {
    const limit = 20;
    const all = truth('desc', {});
    for (const order of ['asc', 'desc'] as const) {
      for (let page = 1; page < Math.floor(all.length / limit); page += 1) {
        const { usage, requests } = await tableWorkOf(() => readPageAndCount(CHAIN, [read(order, {})], page * limit, limit, CONFIG));
        // Two positions (or one: ascending without bounds reads no lower position), the chunks of the
        // page's first and last entries, one page Query between their keys and, beside it, the Query of
        // the bucket holding the first (N8 is bucketed).
        expect(usage.calls.QueryCommand ?? 0, `${order} page ${page}`).toBeLessThanOrEqual(3);
        expect(usage.calls.GetItemCommand ?? 0, `${order} page ${page}`).toBeGreaterThanOrEqual(1);
        expect(usage.calls.GetItemCommand ?? 0, `${order} page ${page}`).toBeLessThanOrEqual(2);
        // Items read, whatever the depth: the positions, the chunks, the bucket holding the first entry,
        // at most an item an entry of the page, and at most the newest unfinished chunk's entries past it.
        expect(usage.itemsRead, `${order} page ${page}`).toBeLessThanOrEqual(2 + 2 + 1 + limit + SEEK_CHUNK_ENTRIES - 1);
        expect(requests.some((request) => 'Select' in request.input)).toBe(false);
      }
    }
  });

  it('waits on two round trips where the chunks can be known or guessed: ascending from the start, and any page of a range read before', async () => {
    const limit = 20;
    /** The commands of each round trip in sequence (the bench's waves: calls grouped by depth), each round's sorted. */
    const rounds = async (work: () => Promise<unknown>): Promise<string[][]> =>
      waves((await tableWorkOf(work)).requests).map((wave) => wave.map((request) => request.command).sort());
    const asc = await rounds(() => readPageAndCount(CHAIN, [read('asc', {})], 6 * limit, limit, CONFIG));
    // Positions and chunks sent at once, then the page (its Query and its first entry's bucket's, at
    // once): the page waited on one round only. Page 6 of 20 (entries 121-140) spans chunks 3 and 4.
    expect(asc).toEqual([
      ['GetItemCommand', 'GetItemCommand', 'QueryCommand'],
      ['QueryCommand', 'QueryCommand'],
    ]);
    const bounds = { from: 5, to: 50 };
    // Not read before: the positions, then the chunks they point to, then the page.
    const cold = await rounds(() => readPageAndCount(CHAIN, [read('desc', bounds)], 3 * limit, limit, CONFIG));
    expect(cold.map((round) => round.filter((command) => command !== 'GetItemCommand').length)).toEqual([2, 0, 2]);
    expect(cold[1]!.length).toBeGreaterThanOrEqual(1);
    const warm = await rounds(() => readPageAndCount(CHAIN, [read('desc', bounds)], 4 * limit, limit, CONFIG));
    expect(warm).toHaveLength(2);
    expect(warm[1]).toEqual(['QueryCommand', 'QueryCommand']);
    const truthWarm = truth('desc', bounds).slice(4 * limit, 5 * limit);
    const again = await readPageAndCount(CHAIN, [read('desc', bounds)], 4 * limit, limit, CONFIG);
    expect(again.items.map((item) => item.sk)).toEqual(truthWarm);
  });

  it('reads at most 31 entries more than the page inside the newest, unfinished chunk', async () => {
    const all = truth('desc', {});
    const unfinished = all.length % SEEK_CHUNK_ENTRIES;
    expect(unfinished).toBeGreaterThan(1);
    // Descending, limit 1, page 1: the second newest entry, inside the unfinished chunk.
    const { result, usage } = await tableWorkOf(() => readPageAndCount(CHAIN, [read('desc', {})], 1, 1, CONFIG));
    expect(result.items.map((item) => item.sk)).toEqual([all[1]]);
    expect(usage.itemsRead).toBeLessThanOrEqual(1 + 1 + SEEK_CHUNK_ENTRIES - 1);
  });

  it('answers pages past the end with no rows and the exact count', async () => {
    const all = truth('asc', {});
    const { items, total } = await readPageAndCount(CHAIN, [read('asc', {})], 1_000_000 * 20, 20, CONFIG);
    expect(items).toEqual([]);
    expect(total).toBe(all.length);
  });
});

describe('a range written before seek chunks and totals were packed', () => {
  // Entries numbered by the code before issue 27's packing: totals as decimal strings under their old
  // names, a seek chunk of 16 sort keys as a list for every 16 entries (the chunk size then).
  const LEGACY_TOKEN = '0x00000000000000000000000000000000000000f6';
  const legacyPk = tokenTransferKeys.byToken(CHAIN, LEGACY_TOKEN).pk;
  const legacyEntries = entries.slice(0, 70);
  const legacyRead = (order: 'asc' | 'desc'): RangeRead => ({ pk: legacyPk, sk: { blocks: {} }, checks: [], order });

  it('pages by number right (the old chunks are not taken for chunks of 32) and aggregates from the old totals', async () => {
    let total = 0n;
    const items: TableItem[] = legacyEntries.map((entry, index) => {
      total += entry.amount;
      return {
        ...countedEntry({
          pk: legacyPk,
          sk: entry.sk,
          kind: 'tokenTransfer',
          blockNumber: entry.block,
          logIndex: 0,
          amount: entry.amount.toString(),
        }),
        pos: index + 1,
        [legacyRunningTotalAttribute('amount')]: total.toString(),
      };
    });
    const oldChunks: TableItem[] = [];
    for (let chunk = 0; (chunk + 1) * 16 <= items.length; chunk += 1)
      oldChunks.push({
        ...rangeKeys.seekChunk(legacyPk, chunk),
        kind: 'seekChunk',
        keys: items.slice(chunk * 16, chunk * 16 + 16).map((item) => item.sk),
      });
    await writeItems({ put: [...items, ...oldChunks] });
    const sks = legacyEntries.map((entry) => entry.sk);
    for (const order of ['asc', 'desc'] as const) {
      const expected = order === 'asc' ? sks : [...sks].reverse();
      for (const skip of [0, 5, 16, 20, 33, 40, 64]) {
        const page = await readPageAndCount(CHAIN, [legacyRead(order)], skip, 5, CONFIG);
        expect(
          page.items.map((item) => item.sk),
          `${order} skip ${skip}`,
        ).toEqual(expected.slice(skip, skip + 5));
        expect(page.total).toBe(legacyEntries.length);
      }
    }
    // The newest entry's total, read as the range's running total of `amount`.
    const [newest] = (
      await queryAll<TableItem>(
        { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': legacyPk }, ScanIndexForward: false, Limit: 1 },
        { limit: 1 },
      )
    ).items;
    expect(runningTotalOf(newest!, 'amount')).toBe(total);
  });
});

describe('a page of a dense range in block buckets', () => {
  // A token moved 16 times in each of 40 blocks: every bucket of its range holds 8 entries.
  const densePk = tokenTransferKeys.byToken(CHAIN, '0x00000000000000000000000000000000000000d6').pk;
  const PER_BLOCK = 16;
  const DENSE_BLOCKS = 40;
  const denseSks = Array.from({ length: DENSE_BLOCKS * PER_BLOCK }, (_, n) =>
    tokenTransferKeys.sortKey(Math.floor(n / PER_BLOCK), n % PER_BLOCK, 0),
  );

  it('reads the buckets that hold the page, not one bucket for each of its entries, in either order at any depth', async () => {
    const positions = new RangePositions(CHAIN);
    for (let block = 0; block < DENSE_BLOCKS; block += 1) {
      const items = denseSks
        .slice(block * PER_BLOCK, (block + 1) * PER_BLOCK)
        .map((sk, logIndex) => countedEntry({ pk: densePk, sk, kind: 'tokenTransfer', blockNumber: block, logIndex, amount: '1' }));
      const batch = [{ blockNumber: block, items }];
      const chunks = await positions.assignBlocks(batch);
      bucketNumberedEntries(items);
      await writeItems({ put: [...items, ...chunks.flat()] });
    }
    const limit = 20;
    for (const order of ['asc', 'desc'] as const) {
      const expected = order === 'asc' ? denseSks : [...denseSks].reverse();
      // (Pages by number: a first page is read with one request, up to a bucket an entry.)
      for (const skip of [20, 100, 333, 600]) {
        const denseRead: RangeRead = { pk: densePk, sk: { blocks: {} }, checks: [], order };
        const { result, usage } = await tableWorkOf(() => readPageAndCount(CHAIN, [denseRead], skip, limit, CONFIG));
        expect(
          result.items.map((item) => item.sk),
          `${order} skip ${skip}`,
        ).toEqual(expected.slice(skip, skip + limit));
        expect(result.total).toBe(denseSks.length);
        // Items read: the positions (a bucket each), the chunks, and the page's buckets: 20 entries
        // span at most 4 buckets of 8, and the bucket holding the first is read beside them; with the
        // newest unfinished chunk (fewer than 32 entries) past the page at most 4 more. A page that read
        // a bucket for each entry (a Limit of 20 items) would read 20 or more.
        expect(usage.itemsRead, `${order} skip ${skip}`).toBeLessThanOrEqual(2 + 2 + 5 + 4);
      }
    }
  });
});
