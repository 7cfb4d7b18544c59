/**
 * Block buckets (shared/table/buckets.ts, shared/db/bucket-query.ts): an X5 range's entries stored up
 * to 8 to an item, read through the table layer as if each were an item of its own. Checked on the
 * embedded DynamoDB against the plain list of the same entries: a dense range (30 entries in a block),
 * a sparse one, entries written before buckets (one item each) among them, expiring entries in buckets
 * of their own; keyset pages newest first from every position, bounds that fall inside a bucket, exact
 * lookups, counts, the union of `to` and `from` (a self-call once), and the explorer's E5 reader.
 */
import { describe, expect, it } from 'vitest';
import { type Item, queryAll, queryPage, rangeQuery, writeItems } from '../../../shared/db/operations';
import { measureTable } from '../../../shared/db/instrument';
import { readRange } from '../../../shared/explorer/range-reader';
import { PAGE_SIZE } from '../../../shared/explorer/config';
import { bucketsAround, bucketsOf, isBucket, MAX_BUCKET_ENTRIES } from '../../../shared/table/buckets';
import { addressKeys, compareSortKeys, transactionKeys, type TableItem } from '../../../shared/table/keys';
import { useTestTable } from '../../support/table';

useTestTable('bucket-query');

const CHAIN = 7;
const ADDRESS = '0x00000000000000000000000000000000000000b5';
const TO = addressKeys.internalTransactions(CHAIN, ADDRESS, 'to').pk;
const FROM = addressKeys.internalTransactions(CHAIN, ADDRESS, 'from').pk;
const ALL = addressKeys.internalTransactions(CHAIN, ADDRESS, 'all').pk;

/** Entries per block of the `to` range: dense blocks, sparse ones, an empty one. */
const TO_ENTRIES: Record<number, number> = { 10: 30, 11: 1, 12: 9, 14: 8, 15: 17, 20: 2 };
/** Blocks written before buckets existed: one item per entry. */
const LEGACY_BLOCKS = new Set([11, 12]);

function entry(pk: string, block: number, transactionIndex: number, index: number, extra: Item = {}): TableItem {
  return {
    pk,
    sk: addressKeys.internalTransactionSortKey(block, transactionIndex, index),
    kind: 'internalTransaction',
    payload: new Uint8Array([block, transactionIndex, index]),
    cs: index % 4,
    ...extra,
  };
}

const toEntries: TableItem[] = Object.entries(TO_ENTRIES).flatMap(([block, count]) =>
  Array.from({ length: count }, (_, n) =>
    // Block 15's odd entries expire (zero-value calls kept for a while): buckets of their own.
    entry(TO, Number(block), Math.floor(n / 3), (n % 3) + n, Number(block) === 15 && n % 2 === 1 ? { ttl: 1_900_000_000 } : {}),
  ),
);
// The `from` range: a few calls of its own and two self-calls (in both ranges, same key).
const selfCalls = [toEntries[3], toEntries[40]];
const fromEntries: TableItem[] = [
  entry(FROM, 10, 0, 100),
  entry(FROM, 13, 2, 0),
  entry(FROM, 15, 9, 9),
  ...selfCalls.map((self) => ({ ...self, pk: FROM })),
];

const byKey = (a: { sk: string }, b: { sk: string }) => compareSortKeys(a.sk, b.sk);
const expectedTo = [...toEntries].sort(byKey);
const expectedAll = [...new Map([...toEntries, ...fromEntries].map((item) => [item.sk, item])).values()].sort(byKey);
const sks = (items: readonly Record<string, unknown>[]) => items.map((item) => String(item.sk));

async function write(): Promise<void> {
  const stored: TableItem[] = [];
  for (const pk of [TO, FROM]) {
    const entries = pk === TO ? toEntries : fromEntries;
    const blocks = new Set(entries.map((item) => Number(item.sk.slice(0, 12))));
    for (const block of blocks) {
      const ofBlock = entries.filter((item) => Number(item.sk.slice(0, 12)) === block);
      stored.push(...(pk === TO && LEGACY_BLOCKS.has(block) ? ofBlock : bucketsOf(ofBlock)));
    }
  }
  await writeItems({ put: stored });
}

/** Every page of `pk` (newest first unless `ascending`) with Limit `limit`, continued from each page's LastEvaluatedKey. */
async function walk(pk: string, limit: number, ascending = false, skPrefix?: string): Promise<string[]> {
  const seen: string[] = [];
  let start: Item | undefined;
  do {
    const page = await queryPage({
      ...rangeQuery({ pk, ...(skPrefix === undefined ? {} : { skPrefix }) }),
      ScanIndexForward: ascending,
      Limit: limit,
      ExclusiveStartKey: start,
    });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    seen.push(...sks(page.items));
    start = page.lastKey;
  } while (start);
  return seen;
}

describe('bucketed ranges', () => {
  it('are written 8 entries to a bucket at most, and read back as the entries in order', async () => {
    await write();
    const buckets = bucketsOf(toEntries.filter((item) => item.sk.startsWith('000000000010')));
    expect(buckets.map((bucket) => bucket.kind)).toEqual(['bucket', 'bucket', 'bucket', 'bucket']); // 30 entries: 8 + 8 + 8 + 6
    const whole = await queryAll({ ...rangeQuery({ pk: TO }) });
    expect(sks(whole.items)).toEqual(sks(expectedTo));
    // Each entry reads back as the item it would have been, its expiry included.
    expect(whole.items).toEqual(expectedTo);
    const stored = await queryAll({ ...rangeQuery({ pk: TO }), ScanIndexForward: false });
    expect(sks(stored.items)).toEqual(sks(expectedTo).reverse());
  });

  it('pages newest first with any Limit, continued from any entry, inside buckets too', async () => {
    const newestFirst = sks(expectedTo).reverse();
    for (const limit of [1, 3, MAX_BUCKET_ENTRIES, 11, 51]) expect(await walk(TO, limit), `Limit ${limit}`).toEqual(newestFirst);
  });

  it('pages oldest first with any Limit, continued from any entry, inside buckets too', async () => {
    for (const limit of [1, 3, MAX_BUCKET_ENTRIES, 11, 51]) expect(await walk(TO, limit, true), `Limit ${limit}`).toEqual(sks(expectedTo));
  });

  it("reads a page that starts inside a bucket (a seek chunk's key) with one item more, not the rest of its block", async () => {
    const all = sks(expectedTo);
    for (const position of [0, 1, 5, 7, 8, 9, 29, 30, 40, all.length - 1]) {
      const bound = all[position]!;
      for (const limit of [1, 4, 20]) {
        const { result: page, usage } = await measureTable(() =>
          queryPage({
            KeyConditionExpression: 'pk = :pk AND sk >= :low',
            ExpressionAttributeValues: { ':pk': TO, ':low': bound },
            ScanIndexForward: true,
            Limit: limit,
          }),
        );
        expect(sks(page.items), `from ${bound}, Limit ${limit}`).toEqual(all.slice(position, position + limit));
        // The page's Limit items (buckets or older single items) and the bucket holding the bound, in parallel.
        expect(usage.itemsRead).toBeLessThanOrEqual(limit + 1);
        expect(usage.calls).toEqual({ QueryCommand: 2 });
        const after = await queryPage({
          ...rangeQuery({ pk: TO }),
          ScanIndexForward: true,
          Limit: limit,
          ExclusiveStartKey: { pk: TO, sk: bound },
        });
        expect(sks(after.items), `after ${bound}, Limit ${limit}`).toEqual(all.slice(position + 1, position + 1 + limit));
      }
    }
  });

  it('serves key conditions whose bounds fall inside a bucket', async () => {
    const all = sks(expectedTo);
    for (const position of [0, 4, 5, 13, 30, 31, 45, 60, all.length - 1]) {
      const bound = all[position];
      const below = await queryPage({
        KeyConditionExpression: '#pk = :pk AND #sk < :bound',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': TO, ':bound': bound },
        ScanIndexForward: false,
        Limit: 5,
      });
      expect(sks(below.items), `below ${bound}`).toEqual(all.slice(0, position).reverse().slice(0, 5));
      const from = await queryAll({
        KeyConditionExpression: '#pk = :pk AND #sk >= :bound',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': TO, ':bound': bound },
      });
      expect(sks(from.items), `from ${bound}`).toEqual(all.slice(position));
      const between = await queryAll({
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': TO, ':low': bound, ':high': all[Math.min(all.length - 1, position + 6)] },
        ScanIndexForward: false,
      });
      expect(sks(between.items)).toEqual(all.slice(position, position + 7).reverse());
      const exact = await queryPage({
        KeyConditionExpression: '#pk = :pk AND #sk = :key',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': TO, ':key': bound },
      });
      expect(sks(exact.items)).toEqual([bound]);
    }
  });

  it('counts entries, not buckets; refuses a FilterExpression, which would see the buckets', async () => {
    const counted = await queryPage({ ...rangeQuery({ pk: TO }), Select: 'COUNT', ScanIndexForward: false, Limit: 51 });
    expect(counted.count).toBe(51);
    const all = await queryAll({ ...rangeQuery({ pk: TO }), ProjectionExpression: 'sk' });
    expect(all.items).toHaveLength(expectedTo.length);
    await expect(
      queryPage({ ...rangeQuery({ pk: TO }), FilterExpression: 'cs = :one', ExpressionAttributeValues: { ':pk': TO, ':one': 1 } }),
    ).rejects.toThrow(/FilterExpression/);
  });

  it('serves an entry stored both as its own item and in a bucket once, in order (a block rewritten after its manifest expired)', async () => {
    const pk = addressKeys.internalTransactions(CHAIN, '0x00000000000000000000000000000000000000c6', 'from').pk;
    const entries = Array.from({ length: 12 }, (_, n) => entry(pk, 30, n, 0));
    // The singles first, then the buckets, which replace the singles that had their keys.
    await writeItems({ put: entries });
    await writeItems({ put: bucketsOf(entries) });
    const expected = sks(entries);
    expect(sks((await queryAll({ ...rangeQuery({ pk }) })).items)).toEqual(expected);
    for (const limit of [1, 5, 51]) expect(await walk(pk, limit), `Limit ${limit}`).toEqual([...expected].reverse());
  });

  it('serves the union of `to` and `from` in both orders, a self-call once, and E5 pages through it', async () => {
    const newestFirst = sks(expectedAll).reverse();
    for (const limit of [2, 7, 51]) expect(await walk(ALL, limit), `Limit ${limit}`).toEqual(newestFirst);
    // Oldest first, every page continues inside a bucket of a member (X3 and X4 unions are read so).
    for (const limit of [1, 2, 7, 51]) expect(await walk(ALL, limit, true), `Limit ${limit} oldest first`).toEqual(sks(expectedAll));
    const seen: string[] = [];
    let bound: string | undefined;
    for (;;) {
      const page = await readRange<Item>(ALL, { bound }, 'newest first');
      const served = page.items.slice(0, PAGE_SIZE);
      seen.push(...sks(served));
      if (!page.more) break;
      bound = String(served.at(-1)!.sk);
    }
    expect(seen).toEqual(newestFirst);
  });
});

describe("a transaction's partition", () => {
  const HASH = `0x${'ab'.repeat(32)}`;
  const pk = transactionKeys.transaction(CHAIN, HASH).pk;
  const own = transactionKeys.transaction(CHAIN, HASH);
  // 20 logs, the 10th with data its copies leave out (an item of its own, read by its key), and 12 transfers.
  const logs = Array.from(
    { length: 20 },
    (_, n): TableItem => ({
      ...transactionKeys.transactionLog(CHAIN, HASH, 40 + n),
      kind: 'log',
      data: n === 9 ? `0x${'11'.repeat(2000)}` : `0x${n.toString(16).padStart(2, '0')}`,
    }),
  );
  const transfers = Array.from(
    { length: 12 },
    (_, n): TableItem => ({
      ...transactionKeys.transactionTokenTransfer(CHAIN, HASH, 40 + Math.floor(n / 2), n % 2),
      kind: 'tokenTransfer',
      amount: String(n),
    }),
  );
  const longData = logs[9]!;
  const expected = [...logs, ...transfers, { ...own, kind: 'transaction' }].sort(byKey);

  it('keeps its logs and transfers in buckets of one kind each, a log with long data an item of its own between them, read as the entries', async () => {
    const stored = bucketsAround([...logs, ...transfers], (entry) => entry === longData);
    // Logs 0-8 (a bucket of 8 and the 9th alone), the long one, logs 10-19 (8 + 2), transfers (8 + 4).
    expect(stored.map((item) => (isBucket(item) ? `bucket ${item.sk}` : item.sk))).toEqual([
      'bucket LOG#000040',
      'LOG#000048',
      'LOG#000049',
      'bucket LOG#000050',
      'bucket LOG#000058',
      'bucket TT#000040#0000',
      'bucket TT#000044#0000',
    ]);
    await writeItems({ put: [...stored, { ...own, kind: 'transaction' }] });
    expect(sks((await queryAll({ ...rangeQuery({ pk }) })).items)).toEqual(sks(expected));
    expect((await queryAll({ ...rangeQuery({ pk, skPrefix: 'LOG#' }) })).items).toEqual(logs);
    expect((await queryAll({ ...rangeQuery({ pk, skPrefix: 'TT#' }) })).items).toEqual([...transfers].sort(byKey));
    const exact = await queryPage({
      KeyConditionExpression: '#pk = :pk AND #sk = :key',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': pk, ':key': logs[12]!.sk },
    });
    expect(exact.items).toEqual([logs[12]]);
  });

  it('pages its logs in either order with any Limit, continued from any entry, inside buckets too', async () => {
    const ordered = sks(logs);
    for (const limit of [1, 3, MAX_BUCKET_ENTRIES, 11]) {
      expect(await walk(pk, limit, true, 'LOG#'), `oldest first, Limit ${limit}`).toEqual(ordered);
      expect(await walk(pk, limit, false, 'LOG#'), `newest first, Limit ${limit}`).toEqual([...ordered].reverse());
    }
    for (const limit of [1, 5, 51]) expect(await walk(pk, limit, true), `the whole partition, Limit ${limit}`).toEqual(sks(expected));
  });
});
