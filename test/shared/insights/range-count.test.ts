/**
 * countRange (shared/insights/range-reader.ts) on the embedded DynamoDB: exact from range positions,
 * whatever the Select COUNT cap, for every pair of block bounds, with two Limit-1 Queries; checked
 * reads counted exactly under the read bound (a 400 beyond); the capped Select COUNT for prefix reads
 * and entries without positions. Entries are numbered by the ingest's own RangePositions and written
 * with the table layer, in block buckets as the ingest writes N4. Each read is given its configuration (the bounds under test).
 */
import type { TableItem } from '../../../shared/table/keys';
import { describe, expect, it } from 'vitest';
import { writeItems } from '../../../shared/db/operations';
import { InvalidRequestError } from '../../../shared/errors';
import { logKeys, transactionKeys } from '../../../shared/table/keys';
import { bucketNumberedEntries, countedEntry } from '../../../shared/ingest/items';
import { RangePositions } from '../../../shared/ingest/range-positions';
import { loadInsightsConfig, type InsightsConfig } from '../../../shared/insights/config';
import { countRange, RangeTooLargeError, readPageAndCount, type RangeRead } from '../../../shared/insights/range-reader';
import { useTestTable } from '../../support/table';
import { tableWorkOf } from './table-work';

useTestTable('range-count');

const DEFAULTS = loadInsightsConfig({});
const withBounds = (bounds: Partial<InsightsConfig>): InsightsConfig => ({ ...DEFAULTS, ...bounds });
const putItems = (items: TableItem[]) => writeItems({ put: items });

const CHAIN = 5;
const CONTRACT = '0x00000000000000000000000000000000000000e3';
/** Log indexes of the contract's logs per block 0..9 (blocks 2, 6 and 9 have none). */
const LOGS: number[][] = [[0, 1], [3], [], [0, 2, 4, 5], [1], [0, 7], [], [2, 3, 9], [0], []];
const pk = logKeys.contractLogs(CHAIN, CONTRACT).pk;
const read = (blocks: { from?: number; to?: number }, checks: RangeRead['checks'] = []): RangeRead => ({
  pk,
  sk: { blocks },
  checks,
  order: 'desc',
});
const truth = (from = -Infinity, to = Infinity) => LOGS.flatMap((logs, block) => (block >= from && block <= to ? logs : [])).length;

describe('total_items of a range', () => {
  it('is exact from positions for every pair of block bounds, beyond the Select COUNT cap', async () => {
    const positions = new RangePositions(CHAIN);
    for (const [block, logs] of LOGS.entries()) {
      const items: TableItem[] = logs.map((logIndex) =>
        countedEntry({ pk, sk: logKeys.sortKey(block, logIndex), blockNumber: block, logIndex, topics: [] }),
      );
      await positions.assign(block, items);
      // N4 is bucketed: a block's numbered entries go in its buckets, as the ingest writes them.
      bucketNumberedEntries(items);
      await putItems(items);
    }
    const config = withBounds({ maxCountedItemsPerChain: 3 });
    expect(truth()).toBe(14);
    const bounds = [undefined, 0, 1, 2, 3, 5, 6, 8, 9, 10, 12];
    for (const from of bounds) {
      for (const to of bounds) {
        if (from !== undefined && to !== undefined && from > to) continue;
        expect(await countRange(read({ from, to }), config), `blocks ${from}..${to}`).toBe(truth(from, to));
      }
    }
  });

  it('costs one Limit-1 Query per bound, never a Select COUNT', async () => {
    const { result, usage, requests } = await tableWorkOf(() => countRange(read({ from: 3, to: 7 }), DEFAULTS));
    expect(result).toBe(truth(3, 7));
    expect(usage.calls).toEqual({ QueryCommand: 2 });
    // (No projection: N4 is bucketed, and a bucket is read whole; DynamoDB bills the item read whole either way.)
    for (const { input } of requests) expect(input).toMatchObject({ Limit: 1, ScanIndexForward: false });
    expect(requests.some(({ input }) => 'Select' in input)).toBe(false);
    const open = await tableWorkOf(() => countRange(read({}), DEFAULTS));
    expect(open.result).toBe(14);
    expect(open.usage.calls).toEqual({ QueryCommand: 1 });
  });

  it('counts a checked read exactly with its page, beyond the fallback cap, and answers 400 past the read bound', async () => {
    const checked = read({ from: 0 }, [{ attribute: 'logIndex', operator: '=', value: 0, kind: 'number' }]);
    const matching = LOGS.filter((logs) => logs.includes(0)).length;
    expect((await readPageAndCount(CHAIN, [checked], 0, 1, DEFAULTS)).total).toBe(matching);
    const smallCap = withBounds({ maxCountedItemsPerChain: 3 });
    expect((await readPageAndCount(CHAIN, [checked], 0, 1, smallCap)).total).toBe(matching);
    // The range holds 14 entries: exactly 14 may be examined, 13 may not.
    expect((await readPageAndCount(CHAIN, [checked], 0, 1, { ...smallCap, maxItemsReadPerChain: 14 })).total).toBe(matching);
    const tooSmall = { ...smallCap, maxItemsReadPerChain: 13 };
    await expect(readPageAndCount(CHAIN, [checked], 0, 1, tooSmall)).rejects.toThrow(RangeTooLargeError);
    await expect(readPageAndCount(CHAIN, [checked], 0, 1, tooSmall), 'a 400').rejects.toThrow(InvalidRequestError);
    // Narrowed by block bounds, it fits again.
    expect((await readPageAndCount(CHAIN, [read({ from: 5 }, checked.checks)], 0, 1, tooSmall)).total).toBe(
      LOGS.slice(5).filter((logs) => logs.includes(0)).length,
    );
    await expect(countRange(checked, tooSmall), 'a checked range is counted with its page').rejects.toThrow(/readPageAndCount/);
  });

  it('falls back to the capped Select COUNT on a prefix and on entries without positions', async () => {
    const config = withBounds({ maxCountedItemsPerChain: 4 });

    // A transaction's own partition (prefix condition): one Query counting its entries, exact under the
    // cap (its records are in buckets, shared/table/buckets.ts: read to count their entries, not a Select COUNT).
    const txPk = transactionKeys.transaction(CHAIN, `0x${'ab'.repeat(32)}`).pk;
    await putItems([0, 1, 2].map((logIndex) => ({ pk: txPk, sk: `LOG#${String(logIndex).padStart(6, '0')}`, logIndex })));
    const prefix = await tableWorkOf(() => countRange({ pk: txPk, sk: { prefix: 'LOG#' }, checks: [], order: 'asc' }, config));
    expect(prefix.result).toBe(3);
    expect(prefix.requests.map(({ command }) => command)).toEqual(['QueryCommand']);

    // Entries ingested before positions existed: counted, up to the cap.
    const oldPk = logKeys.contractLogs(CHAIN, '0x00000000000000000000000000000000000000f4').pk;
    await putItems(Array.from({ length: 6 }, (_, block) => ({ pk: oldPk, sk: logKeys.sortKey(block, 0), blockNumber: block })));
    expect(await countRange({ pk: oldPk, sk: { blocks: {} }, checks: [], order: 'desc' }, config)).toBe(4);
    expect(
      await countRange({ pk: oldPk, sk: { blocks: { from: 2 } }, checks: [], order: 'desc' }, withBounds({ maxCountedItemsPerChain: 100 })),
    ).toBe(4);
  });

  it('reads a checked page and its exact count in one pass; a 400 past the read bound', async () => {
    const checks: RangeRead['checks'] = [{ attribute: 'logIndex', operator: '<=', value: 3, kind: 'number' }];
    const matching = LOGS.flatMap((logs, block) =>
      logs.filter((logIndex) => logIndex <= 3).map((logIndex) => logKeys.sortKey(block, logIndex)),
    ).reverse();
    const { result, usage } = await tableWorkOf(() => readPageAndCount(CHAIN, [read({}, checks)], 2, 3, DEFAULTS));
    expect(result.total).toBe(matching.length);
    expect(result.items.map((item) => item.sk)).toEqual(matching.slice(2, 5));
    expect(usage.calls, 'one Query: the whole (small) range, page and count together').toEqual({ QueryCommand: 1 });
    // Unchecked: the page, and the count from positions.
    const plain = await readPageAndCount(CHAIN, [read({ from: 3 })], 0, 2, DEFAULTS);
    expect(plain.total).toBe(truth(3));
    await expect(readPageAndCount(CHAIN, [read({}, checks)], 0, 1, withBounds({ maxItemsReadPerChain: 13 }))).rejects.toThrow(
      RangeTooLargeError,
    );
  });
});
