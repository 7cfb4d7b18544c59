/**
 * countRange (shared/insights/range-reader.ts) on the embedded DynamoDB: exact from range positions,
 * whatever the Select COUNT cap, for every pair of block bounds, with two Limit-1 Queries; checked
 * reads counted exactly under the read bound (a 400 beyond); the capped Select COUNT for prefix reads
 * and entries without positions. Entries are numbered by
 * the ingest's own RangePositions and written with its putItems.
 */
import type { TableItem } from '../../../shared/table/keys';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamoClient } from '../../../shared/db/client';
import { logKeys, transactionKeys } from '../../../shared/table/keys';
import { countedEntry } from '../../../shared/ingest/items';
import { RangePositions } from '../../../shared/ingest/range-positions';
import { putItems } from '../../../shared/ingest/table-io';
import { countRange, RangeTooLargeError, readPageAndCount, type RangeRead } from '../../../shared/insights/range-reader';
import { useTestTable } from '../../support/table';

useTestTable('range-count');
afterEach(() => {
  delete process.env.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN;
  delete process.env.INSIGHTS_MAX_ITEMS_READ_PER_CHAIN;
});

const sent: Record<string, unknown>[] = [];
dynamoClient.middlewareStack.add(
  (next) => async (args) => {
    sent.push(args.input as Record<string, unknown>);
    return next(args);
  },
  { step: 'initialize', name: 'rangeCountRecorder' },
);
async function inputsOf<T>(work: () => Promise<T>): Promise<{ result: T; inputs: Record<string, unknown>[] }> {
  const start = sent.length;
  const result = await work();
  return { result, inputs: sent.slice(start) };
}

const CHAIN = 5;
const CONTRACT = '0x00000000000000000000000000000000000000e3';
/** Log indexes of the contract's logs per block 0..9 (blocks 2, 6 and 9 have none). */
const LOGS: number[][] = [[0, 1], [3], [], [0, 2, 4, 5], [1], [0, 7], [], [2, 3, 9], [0], []];
const pk = logKeys.contractLogs(CHAIN, CONTRACT).pk;
const read = (blocks: { from?: number; to?: number }, checks: RangeRead['checks'] = []): RangeRead => ({ pk, sk: { blocks }, checks, order: 'desc' });
const truth = (from = -Infinity, to = Infinity) => LOGS.flatMap((logs, block) => (block >= from && block <= to ? logs : [])).length;

describe('total_items of a range', () => {
  it('is exact from positions for every pair of block bounds, beyond the Select COUNT cap', async () => {
    const positions = new RangePositions(CHAIN);
    for (const [block, logs] of LOGS.entries()) {
      const items: TableItem[] = logs.map((logIndex) => countedEntry({ pk, sk: logKeys.sortKey(block, logIndex), blockNumber: block, logIndex, topics: [] }));
      await positions.assign(block, items);
      await putItems(items);
    }
    process.env.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN = '3';
    expect(truth()).toBe(14);
    const bounds = [undefined, 0, 1, 2, 3, 5, 6, 8, 9, 10, 12];
    for (const from of bounds) {
      for (const to of bounds) {
        if (from !== undefined && to !== undefined && from > to) continue;
        expect(await countRange(read({ from, to })), `blocks ${from}..${to}`).toBe(truth(from, to));
      }
    }
  });

  it('costs one Limit-1 Query per bound, never a Select COUNT', async () => {
    const { result, inputs } = await inputsOf(() => countRange(read({ from: 3, to: 7 })));
    expect(result).toBe(truth(3, 7));
    expect(inputs).toHaveLength(2);
    for (const input of inputs) expect(input).toMatchObject({ Limit: 1, ScanIndexForward: false, ProjectionExpression: '#sk, #pos' });
    expect(inputs.some((input) => 'Select' in input)).toBe(false);
    const open = await inputsOf(() => countRange(read({})));
    expect(open.result).toBe(14);
    expect(open.inputs).toHaveLength(1);
  });

  it('counts a checked read exactly with its page, beyond the fallback cap, and answers 400 past the read bound', async () => {
    const checked = read({ from: 0 }, [{ attribute: 'logIndex', operator: '=', value: 0, kind: 'number' }]);
    const matching = LOGS.filter((logs) => logs.includes(0)).length;
    const exact = await inputsOf(() => readPageAndCount(CHAIN, [checked], 0, 1));
    expect(exact.result.total).toBe(matching);
    process.env.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN = '3';
    expect((await readPageAndCount(CHAIN, [checked], 0, 1)).total).toBe(matching);
    // The range holds 14 entries: exactly 14 may be examined, 13 may not.
    process.env.INSIGHTS_MAX_ITEMS_READ_PER_CHAIN = '14';
    expect((await readPageAndCount(CHAIN, [checked], 0, 1)).total).toBe(matching);
    process.env.INSIGHTS_MAX_ITEMS_READ_PER_CHAIN = '13';
    await expect(readPageAndCount(CHAIN, [checked], 0, 1)).rejects.toThrow(RangeTooLargeError);
    // Narrowed by block bounds, it fits again.
    expect((await readPageAndCount(CHAIN, [read({ from: 5 }, checked.checks)], 0, 1)).total).toBe(LOGS.slice(5).filter((logs) => logs.includes(0)).length);
    await expect(countRange(checked), 'a checked range is counted with its page').rejects.toThrow(/readPageAndCount/);
  });

  it('falls back to the capped Select COUNT on a prefix and on entries without positions', async () => {
    process.env.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN = '4';

    // A transaction's own partition (prefix condition): a Select COUNT, exact under the cap.
    const txPk = transactionKeys.transaction(CHAIN, `0x${'ab'.repeat(32)}`).pk;
    await putItems([0, 1, 2].map((logIndex) => ({ pk: txPk, sk: `LOG#${String(logIndex).padStart(6, '0')}`, logIndex })));
    const prefix = await inputsOf(() => countRange({ pk: txPk, sk: { prefix: 'LOG#' }, checks: [], order: 'asc' }));
    expect(prefix.result).toBe(3);
    expect(prefix.inputs.map((input) => input.Select)).toEqual(['COUNT']);

    // Entries ingested before positions existed: counted, up to the cap.
    const oldPk = logKeys.contractLogs(CHAIN, '0x00000000000000000000000000000000000000f4').pk;
    await putItems(Array.from({ length: 6 }, (_, block) => ({ pk: oldPk, sk: logKeys.sortKey(block, 0), blockNumber: block })));
    expect(await countRange({ pk: oldPk, sk: { blocks: {} }, checks: [], order: 'desc' })).toBe(4);
    process.env.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN = '100';
    expect(await countRange({ pk: oldPk, sk: { blocks: { from: 2 } }, checks: [], order: 'desc' })).toBe(4);
  });

  it('reads a checked page and its exact count in one pass; a 400 past the read bound', async () => {
    const checks: RangeRead['checks'] = [{ attribute: 'logIndex', operator: '<=', value: 3, kind: 'number' }];
    const matching = LOGS.flatMap((logs, block) => logs.filter((logIndex) => logIndex <= 3).map((logIndex) => logKeys.sortKey(block, logIndex))).reverse();
    const { result, inputs } = await inputsOf(() => readPageAndCount(CHAIN, [read({}, checks)], 2, 3));
    expect(result.total).toBe(matching.length);
    expect(result.items.map((item) => item.sk)).toEqual(matching.slice(2, 5));
    expect(inputs, 'one Query: the whole (small) range, page and count together').toHaveLength(1);
    // Unchecked: the page, and the count from positions.
    const plain = await readPageAndCount(CHAIN, [read({ from: 3 })], 0, 2);
    expect(plain.total).toBe(truth(3));
    process.env.INSIGHTS_MAX_ITEMS_READ_PER_CHAIN = '13';
    await expect(readPageAndCount(CHAIN, [read({}, checks)], 0, 1)).rejects.toThrow(RangeTooLargeError);
  });
});
