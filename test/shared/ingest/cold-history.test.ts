/**
 * The cold history's compactor (shared/ingest/cold-history.ts; docs/decisions/cold-history.md, step 3)
 * on a real ingest of a small Base-profile chain into dynalite, with a local S3 (s3rver on 127.0.0.1)
 * through the AWS SDK's S3 client: its parts hold exactly the items the table holds for the blocks it
 * compacts (as the table layer reads them), range by range and in sort-key order; a run cut before its pointers is completed by running
 * it again, into the same objects and pointers; a block without its manifest stops it before it writes.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalS3 } from '../../../scripts/lib/local-s3';
import type { ColdStore } from '../../../shared/aws/cold-store';
import {
  compactBlocks,
  compactColdHistory,
  ManifestMissingError,
  moveColdCursor,
  readColdCursor,
} from '../../../shared/ingest/cold-history';
import { getItem, writeItems } from '../../../shared/db/operations';
import { readManifest } from '../../../shared/ingest/manifest';
import { entriesOf, isBucket } from '../../../shared/table/buckets';
import {
  type ColdPointer,
  coldPointerOf,
  FIRST_PART_SK,
  isTransactionPartition,
  openedItem,
  partItems,
} from '../../../shared/table/cold-parts';
import { blockKeys, coldKeys, compareSortKeys, type ItemKey, keyId, type TableItem } from '../../../shared/table/keys';
import { fromMessagePack, messagePackOf, unpackItem } from '../../../shared/table/pack';
import { useCompactorSetting } from '../../support/cold-job';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('cold-history');
const BUCKET = 'cold-history-test';
const BLOCKS = 12;

const setting = useCompactorSetting(BUCKET, BLOCKS, 30);
let s3: LocalS3;
let store: ColdStore;
let chainId: number;

beforeAll(() => {
  ({ s3, store, chainId } = setting);
});

/** Binary attributes as hex, so that a Buffer and a Uint8Array of the same bytes compare equal. */
const plain = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, plain(inner)]));
  return value;
};

/** What a reader gets of an item: its packed fields spread, a bucket's entries each with theirs spread. */
const readable = (item: TableItem): unknown => {
  const record = unpackItem(item) as TableItem;
  if (!isBucket(record) || !(record.e instanceof Uint8Array)) return plain(record);
  const entries = (fromMessagePack(messagePackOf(record.e)) as TableItem[]).map((entry) => unpackItem(entry));
  return plain({ ...record, e: entries });
};

/** The items the table holds for blocks `from`..`to`, as their manifests list them (the blocks' own items, N1 and N2 by hash, and the seek chunks aside: they stay hot), by range. */
async function hotItemsOf(from: number, to: number): Promise<Map<string, TableItem[]>> {
  const wanted = new Set<string>();
  for (let number = from; number <= to; number += 1) {
    const manifest = await readManifest(chainId, number);
    for (const key of manifest!.items) if (!/#(BLOCKS|BLOCKHASH#0x[0-9a-f]{64})$|^SEEK#/.test(key.pk)) wanted.add(keyId(key));
  }
  const ranges = new Map<string, TableItem[]>();
  for (const item of (await tableSnapshot(table.name)) as TableItem[]) {
    if (!wanted.has(keyId(item))) continue;
    ranges.set(item.pk, [...(ranges.get(item.pk) ?? []), item]);
  }
  for (const items of ranges.values()) items.sort((a, b) => compareSortKeys(a.sk, b.sk));
  return ranges;
}

async function objectKeys(): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  return (listed.Contents ?? []).map((object) => object.Key!).sort();
}

/** The pointers in the table, decoded (each with its pk). */
const pointerItems = async (): Promise<(ColdPointer & ItemKey)[]> =>
  (await tableSnapshot(table.name))
    .filter((item) => String(item.pk).startsWith('COLD#'))
    .map((item) => ({ pk: String(item.pk), ...coldPointerOf(item as TableItem) }));

describe('the cold history compactor', () => {
  it('puts every item of the blocks in exactly one part of its range, in sort-key order, as the table holds it', async () => {
    const hot = await hotItemsOf(1, 8);
    const result = await compactBlocks({ chainId, fromBlock: 1, toBlock: 8, store, partEntries: 7, shardBytes: 20_000 });

    const hotCount = [...hot.values()].reduce((sum, items) => sum + items.length, 0);
    expect(hotCount).toBeGreaterThan(1_000);
    expect(result.items).toBe(hotCount);
    expect(result.objects.length).toBeGreaterThan(1);
    expect(result.bytes).toBeLessThan(result.openedBytes);
    // Ranges with several parts exist (partEntries 7), so the cut is exercised.
    expect(result.parts).toBeGreaterThan(hot.size);

    // The pointers, by range (one Scan), and each range's parts read in parallel (the reader's own
    // Queries of the pointers are test/shared/db/cold-query.test.ts's).
    const byRange = new Map<string, (ColdPointer & ItemKey)[]>();
    for (const pointer of await pointerItems()) byRange.set(pointer.pk, [...(byRange.get(pointer.pk) ?? []), pointer]);
    expect([...byRange.keys()].sort()).toEqual([...hot.keys()].map((rangePk) => coldKeys.parts(rangePk).pk).sort());
    expect([...hot.keys()].filter(isTransactionPartition).length).toBeGreaterThan(10);
    const busiest = [...byRange].sort((a, b) => b[1].length - a[1].length).slice(0, 5);
    expect(busiest[0]![1].length).toBeGreaterThan(3);
    for (const [rangePk, items] of hot) {
      const pointers = byRange.get(coldKeys.parts(rangePk).pk)!.sort((a, b) => compareSortKeys(a.sk, b.sk));
      const cold: TableItem[] = [];
      for (const [index, part] of (
        await Promise.all(pointers.map(async (pointer) => partItems(await store.read(pointer.object, pointer.offset, pointer.length))))
      ).entries()) {
        const pointer = pointers[index]!;
        expect(part.length).toBe(pointer.count);
        // Keyed by the part's first sort key; the first part of a transaction's partition by FIRST_PART_SK,
        // below every key of the partition (a lookup by hash asks for it by key).
        if (index === 0 && isTransactionPartition(rangePk)) {
          expect(pointer.sk).toBe(FIRST_PART_SK);
          expect(compareSortKeys(FIRST_PART_SK, part[0]!.sk)).toBeLessThan(0);
        } else expect(part[0]!.sk).toBe(pointer.sk);
        // The last entry's sort key: of a bucket, its last entry's, not the bucket's key.
        expect(entriesOf(unpackItem(part[part.length - 1]!)).at(-1)!.sk).toBe(pointer.lastSk);
        cold.push(...part);
      }
      expect(cold.map((item) => item.sk)).toEqual(items.map((item) => item.sk));
      expect(cold.map(plain)).toEqual(items.map((item) => plain(openedItem(unpackItem(item)))));
      expect(cold.map(readable)).toEqual(items.map(readable));
    }
  });

  it('completes a run cut before its pointers by running again, into the same objects and pointers', async () => {
    const beforeObjects = await objectKeys();
    const beforePointers = await pointerItems();
    let puts = 0;
    const failing: ColdStore = {
      put: async (key, body) => {
        puts += 1;
        if (puts === 2) throw new Error('connection reset (injected)');
        await store.put(key, body);
      },
      read: (key, offset, length) => store.read(key, offset, length),
    };
    await expect(
      compactBlocks({ chainId, fromBlock: 9, toBlock: BLOCKS, store: failing, partEntries: 5, shardBytes: 8_000 }),
    ).rejects.toThrow('injected');
    expect(await pointerItems()).toEqual(beforePointers);

    const first = await compactBlocks({ chainId, fromBlock: 9, toBlock: BLOCKS, store, partEntries: 5, shardBytes: 8_000 });
    const afterFirst = { objects: await objectKeys(), pointers: await pointerItems() };
    expect(afterFirst.objects).toEqual([...new Set([...beforeObjects, ...first.objects])].sort());
    expect(afterFirst.pointers.length).toBe(beforePointers.length + first.parts);

    const again = await compactBlocks({ chainId, fromBlock: 9, toBlock: BLOCKS, store, partEntries: 5, shardBytes: 8_000 });
    expect(again.objects).toEqual(first.objects);
    expect({ objects: await objectKeys(), pointers: await pointerItems() }).toEqual(afterFirst);
  });

  it('writes the pointers one run writes when a span is split into groups of ranges, each run holding only its own', async () => {
    const span = { chainId, fromBlock: 9, toBlock: BLOCKS, store, partEntries: 5, shardBytes: 8_000 };
    const withoutPlace = (pointers: (ColdPointer & ItemKey)[]): Omit<ColdPointer & ItemKey, 'object' | 'offset'>[] =>
      pointers
        .filter((pointer) => pointer.fromBlock === 9)
        .map(({ object: _object, offset: _offset, ...rest }) => rest)
        .sort((a, b) => compareSortKeys(`${a.pk}\n${a.sk}`, `${b.pk}\n${b.sk}`));
    const whole = withoutPlace(await pointerItems());
    expect(whole.length).toBeGreaterThan(100);
    await writeItems({ delete: whole.map(({ pk, sk }) => ({ pk, sk })) });

    const runs = await Promise.all([0, 1, 2].map((index) => compactBlocks({ ...span, rangeGroup: { index, count: 3 } })));
    // Each run read a third or so of the items; together, every item once.
    for (const run of runs) expect(run.items).toBeLessThan(whole.reduce((sum, pointer) => sum + Number(pointer.count), 0));
    expect(runs.reduce((sum, run) => sum + run.parts, 0)).toBe(whole.length);
    expect(withoutPlace(await pointerItems())).toEqual(whole);
    await expect(compactBlocks({ ...span, rangeGroup: { index: 3, count: 3 } })).rejects.toThrow('bad range group');
  });

  it('stops before writing anything when a block has no manifest', async () => {
    const before = { objects: await objectKeys(), pointers: await pointerItems() };
    await expect(compactBlocks({ chainId, fromBlock: BLOCKS, toBlock: BLOCKS + 1, store })).rejects.toBeInstanceOf(ManifestMissingError);
    expect({ objects: await objectKeys(), pointers: await pointerItems() }).toEqual(before);
  });

  it('moves the cold cursor once per span, only from where it stands', async () => {
    expect(await readColdCursor(chainId)).toBeUndefined();
    expect(await moveColdCursor(chainId, undefined, 8)).toBe(true);
    expect(await moveColdCursor(chainId, undefined, 8)).toBe(false);
    expect(await moveColdCursor(chainId, 7, 12)).toBe(false);
    expect(await moveColdCursor(chainId, 8, 12)).toBe(true);
    expect(await readColdCursor(chainId)).toBe(12);
  });

  it('runs as a job: every block old enough, span after span, each in groups of ranges, the cursor moved after each', async () => {
    // From nothing compacted: the pointers and the cursor the tests above wrote, removed.
    await writeItems({ delete: [...(await pointerItems()).map(({ pk, sk }) => ({ pk, sk })), coldKeys.cursor(chainId)] });
    const timestampOf = async (number: number): Promise<number> =>
      (await getItem<{ timestamp: number }>(blockKeys.block(chainId, number)))!.timestamp;
    const afterSeconds = 3_600;
    const at8 = ((await timestampOf(8)) + afterSeconds) * 1000 + 500;
    const job = { chainId, store, afterSeconds, spanBlocks: 3, rangeGroups: 2, partEntries: 50, now: () => at8 };

    const first = await compactColdHistory({ ...job, deadline: at8 - 1 });
    expect(first).toMatchObject({ from: undefined, to: undefined, due: 8, spans: [] });

    const run = await compactColdHistory(job);
    expect({ from: run.from, to: run.to, due: run.due }).toEqual({ from: undefined, to: 8, due: 8 });
    // Spans 1-3, 4-6 and 7-8, two runs each.
    expect(run.spans.map((span) => span.blocks)).toEqual([3, 3, 3, 3, 2, 2]);
    expect(await readColdCursor(chainId)).toBe(8);
    // Every history item of blocks 1-8 is in exactly one part.
    const hot = await hotItemsOf(1, 8);
    const items = [...hot.values()].reduce((sum, list) => sum + list.length, 0);
    expect(run.spans.reduce((sum, span) => sum + span.items, 0)).toBe(items);
    const pointers = await pointerItems();
    expect(pointers.reduce((sum, pointer) => sum + pointer.count, 0)).toBe(items);
    expect(Math.max(...pointers.map((pointer) => pointer.toBlock))).toBe(8);

    // Nothing more is due until time passes; then the rest, up to the ingest cursor.
    expect((await compactColdHistory(job)).spans).toEqual([]);
    const later = await compactColdHistory({ ...job, now: () => at8 + 86_400_000 });
    expect({ from: later.from, to: later.to, due: later.due }).toEqual({ from: 8, to: BLOCKS, due: BLOCKS });
  });

  it('leaves out the items whose own expiry has passed, and keeps no expiry on the entries it keeps', async () => {
    // Three history items of blocks 9-12 given an expiry (as the tier's ingest gives every history item):
    // one already passed (a zero-value call's retention within the window), two to come.
    const hot = [...(await hotItemsOf(9, BLOCKS)).values()].filter((items) => items.length >= 3);
    const [gone, kept, alsoKept] = [hot[0]![1]!, hot[1]![0]!, hot[2]![2]!];
    const now = Date.now();
    const seconds = Math.floor(now / 1000);
    await writeItems({
      put: [
        { ...gone, ttl: seconds - 60 },
        { ...kept, ttl: seconds + 86_400 },
        { ...alsoKept, ttl: seconds + 60 },
      ],
    });
    const result = await compactBlocks({ chainId, fromBlock: 9, toBlock: BLOCKS, store, now });
    const entries = new Map<string, TableItem>();
    for (const pointer of await pointerItems()) {
      if (pointer.toBlock !== BLOCKS || pointer.fromBlock !== 9) continue;
      for (const item of partItems(await store.read(pointer.object, pointer.offset, pointer.length))) entries.set(keyId(item), item);
    }
    expect(entries.size).toBe(result.items);
    expect(entries.has(keyId(gone))).toBe(false);
    expect(entries.get(keyId(kept))).toBeDefined();
    expect(entries.get(keyId(alsoKept))).toBeDefined();
    expect([...entries.values()].filter((item) => 'ttl' in item)).toEqual([]);
  });
});
