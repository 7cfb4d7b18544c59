/**
 * Aggregates from running totals (shared/insights/prefix-aggregate.ts) on the embedded DynamoDB,
 * checked for exact equality against the bounded evaluation over every row (aggregate.ts
 * aggregateRows, the brute force): a token's transfers over 80 blocks spread across five days, numbered
 * by the ingest's own RangePositions and written with the table layer, with the chain's blocks in the
 * block-by-time index. Every bucket, several block bounds; and the reads a month-like range costs.
 */
import { describe, expect, it } from 'vitest';
import { queryAll, writeItems } from '../../../shared/db/operations';
import { countedEntry } from '../../../shared/ingest/items';
import { RangePositions } from '../../../shared/ingest/range-positions';
import { aggregateRows, planAggregation, rowsOfCountedGroups } from '../../../shared/insights/aggregate';
import { TOKEN_TRANSFER_FIELDS } from '../../../shared/insights/fields';
import { answerableByTotals, countGroupsByTotals } from '../../../shared/insights/prefix-aggregate';
import type { RangeRead } from '../../../shared/insights/range-reader';
import { blockKeys, tokenTransferKeys, type TableItem } from '../../../shared/table/keys';
import { prng } from '../../../scripts/bench/dataset/chain';
import { useTestTable } from '../../support/table';
import { tableWorkOf } from './table-work';

useTestTable('prefix-aggregate');

const CHAIN = 11;
const TOKEN = '0x00000000000000000000000000000000000000a9';
const pk = tokenTransferKeys.byToken(CHAIN, TOKEN).pk;
const BLOCKS = 80;
const START = 1_767_225_600 - 5 * 3600; // 2026-01-01 00:00:00 UTC minus five hours

const next = prng(7_011);

/**
 * Block timestamps: gaps of 0 to 3 hours, so days and hours hold several blocks or none; some blocks
 * fall exactly on the start of an hour (a bucket's first second belongs to that bucket).
 */
const timestamps: number[] = [];
for (let block = 0, time = START; block < BLOCKS; block += 1) {
  timestamps.push(time);
  time += Math.floor(next() * 3 * 3600);
  if (next() < 0.3) time = Math.ceil(time / 3600) * 3600;
}

type Row = {
  block_number: string;
  block_timestamp: string;
  amount: string;
};
const rows: Row[] = [];

function itemsOf(block: number): TableItem[] {
  const items: TableItem[] = [
    {
      ...blockKeys.block(CHAIN, block),
      ...blockKeys.blockByTime(CHAIN, timestamps[block]!, block),
      kind: 'block',
      number: block,
      timestamp: timestamps[block],
    },
  ];
  const count = next() < 0.25 ? 0 : Math.floor(next() * 6);
  for (let logIndex = 0; logIndex < count; logIndex += 1) {
    const amount = (BigInt(Math.floor(next() * 1e12)) * 10n ** 15n).toString();
    rows.push({ block_number: String(block), block_timestamp: String(timestamps[block]), amount });
    items.push(
      countedEntry({
        pk,
        sk: tokenTransferKeys.sortKey(block, logIndex, 0),
        kind: 'tokenTransfer',
        blockNumber: block,
        blockTimestamp: timestamps[block],
        logIndex,
        amount,
      }),
    );
  }
  return items;
}

const timestampOf = (item: Record<string, unknown>): number => Number(item.blockTimestamp);
const SUMMED = { amount: 'amount' };

/** The aggregate from running totals and by brute force; `excluded`: the index of a row (and entry) the read leaves out. */
async function both(aggregate: string[], groupBy: string[], blocks: { from?: number; to?: number }, excluded?: number) {
  const plan = planAggregation({ aggregate, groupBy }, TOKEN_TRANSFER_FIELDS);
  if (!plan) throw new Error('no plan');
  expect(answerableByTotals(plan, SUMMED)).toBe(true);
  const entry = excluded === undefined ? undefined : (await storedEntries())[excluded];
  const read: RangeRead = { pk, sk: { blocks }, checks: [], order: 'asc', ...(entry ? { excluded: Promise.resolve(entry) } : {}) };
  const work = await tableWorkOf(() => countGroupsByTotals(CHAIN, read, plan, SUMMED, timestampOf));
  if (!work.result) throw new Error('not answered from running totals');
  const fast = rowsOfCountedGroups(work.result, plan, TOKEN_TRANSFER_FIELDS, 'asc');
  const inRange = rows.filter(
    (row, index) =>
      index !== excluded && Number(row.block_number) >= (blocks.from ?? 0) && Number(row.block_number) <= (blocks.to ?? Infinity),
  );
  const brute = aggregateRows(inRange, plan, TOKEN_TRANSFER_FIELDS, 'asc');
  return { fast, brute, usage: work.usage, buckets: work.result.length };
}

/** The range's entries as stored (in sort-key order: the rows' order), read once. */
let entries: Record<string, unknown>[] | undefined;
const storedEntries = async () =>
  (entries ??= (await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })).items);

describe('aggregates from running totals', () => {
  it('writes the chain', async () => {
    const positions = new RangePositions(CHAIN);
    for (let block = 0; block < BLOCKS; block += 1) {
      const items = itemsOf(block);
      const chunks = await positions.assign(block, items);
      await writeItems({ put: [...items, ...chunks] });
    }
    const stored = (await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })).items;
    expect(stored).toHaveLength(rows.length);
    expect(rows.length).toBeGreaterThan(100);
  });

  const aggregates = ['count() AS n', 'sum(amount) AS total', 'avg(amount) AS mean', 'count(amount) AS c'];
  const boundsCases = [{}, { from: 10 }, { to: 40 }, { from: 13, to: 37 }, { from: 22, to: 22 }, { from: 79 }];
  const groupings: [string, string[]][] = [
    ['no group', []],
    ['toStartOfDay', ['toStartOfDay(block_timestamp) AS day']],
    ['toDate', ['toDate(block_timestamp) AS day']],
    ['toStartOfHour', ['toStartOfHour(toDateTime(block_timestamp)) AS day']],
    ['intDiv by 7', ['intDiv(block_number, 7) AS day']],
    ['intDiv by 1', ['intDiv(block_number, 1) AS day']],
  ];
  for (const [name, bucket] of groupings) {
    it(`equals the brute force over every row: ${name}, every block bound`, async () => {
      for (const blocks of boundsCases) {
        const { fast, brute } = await both([...bucket, ...aggregates], bucket.length > 0 ? ['day'] : [], blocks);
        expect(fast, JSON.stringify(blocks)).toEqual(brute);
      }
    });
  }

  it('leaves out an excluded entry (a contract’s creation in its `to` range): first, middle or last, every bucket and block bound', async () => {
    for (const excluded of [0, Math.floor(rows.length / 2), rows.length - 1]) {
      for (const [name, bucket] of groupings) {
        for (const blocks of boundsCases) {
          const { fast, brute } = await both([...bucket, ...aggregates], bucket.length > 0 ? ['day'] : [], blocks, excluded);
          expect(fast, `${name} ${JSON.stringify(blocks)} without row ${excluded}`).toEqual(brute);
        }
      }
    }
  });

  it('reads about two items per bucket, not the rows: the whole range by day', async () => {
    const { fast, usage, buckets } = await both(
      ['toStartOfDay(block_timestamp) AS day', 'count() AS n', 'sum(amount) AS total'],
      ['day'],
      {},
    );
    expect(buckets).toBeGreaterThanOrEqual(5);
    expect(fast.reduce((sum, row) => sum + Number(row.n), 0)).toBe(rows.length);
    // First, last and the entry below `from` (none here), then per boundary its block and its entry.
    expect(usage.itemsRead).toBeLessThanOrEqual(3 + 2 * (buckets - 1));
    expect(usage.itemsRead).toBeLessThan(rows.length / 5);
  });
});
