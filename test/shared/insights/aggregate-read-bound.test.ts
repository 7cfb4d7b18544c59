/**
 * The read bound of an aggregation that reads its rows (shared/insights/list.ts readList,
 * range-reader.ts readAll) on the embedded DynamoDB: past the bound its 400 has read at most
 * INSIGHTS_MAX_ITEMS_READ_PER_CHAIN + 1 items per chain in all, the last only to learn that the range is
 * larger, counting every item the request reads: the chain's status (the indexed head of `meta`, 2 items
 * when the container's copy has expired) is read after the rows, not beside them (the bench's I2 BUSY
 * events by day read 10,003), and a chain's union of two ranges shares one bound. Under the bound the
 * answer is exact: the rows of every entry, and the indexed head.
 */
import { DEFAULT_GATEWAYS } from '../../../shared/nft-metadata/uri';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgetChainStatuses } from '../../../shared/chain-status/status';
import { writeItems } from '../../../shared/db/operations';
import { aggregateRows } from '../../../shared/insights/aggregate';
import type { InsightsConfig } from '../../../shared/insights/config';
import { TOKEN_TRANSFER_FIELDS } from '../../../shared/insights/fields';
import { planList, readList, type ChainRanges } from '../../../shared/insights/list';
import { RangeTooLargeError, type RangeRead } from '../../../shared/insights/range-reader';
import { chainKeys, tokenTransferKeys, type TableItem } from '../../../shared/table/keys';
import type { ChainStatusRecord, CursorRecord } from '../../../shared/table/records';
import { useTestTable } from '../../support/table';
import { tableWorkOf } from './table-work';

useTestTable('aggregate-read-bound');

const CHAIN = 12;
const START = 1_767_225_600;
const LARGE = tokenTransferKeys.byToken(CHAIN, '0x00000000000000000000000000000000000000b1').pk;
const HALF_A = tokenTransferKeys.byToken(CHAIN, '0x00000000000000000000000000000000000000b2').pk;
const HALF_B = tokenTransferKeys.byToken(CHAIN, '0x00000000000000000000000000000000000000b3').pk;
const ENTRIES = 12;
const HALF = 7;

type Entry = { blockNumber: number; blockTimestamp: number; from: string; amount: string };
const entries = new Map<string, Entry[]>();

function entriesOf(pk: string, count: number): TableItem[] {
  const list: Entry[] = [];
  const items = Array.from({ length: count }, (_, index): TableItem => {
    const entry = {
      blockNumber: index,
      blockTimestamp: START + index * 5 * 3600,
      from: `0x${String(index % 3).repeat(40)}`,
      amount: String(index),
    };
    list.push(entry);
    return { pk, sk: tokenTransferKeys.sortKey(index, 0, 0), kind: 'tokenTransfer', ...entry };
  });
  entries.set(pk, list);
  return items;
}

const row = (entry: Entry) => ({
  block_number: String(entry.blockNumber),
  block_timestamp: String(entry.blockTimestamp),
  from_address: entry.from,
  amount: entry.amount,
});

const config = (bound: number): InsightsConfig => ({
  maxItemsReadPerChain: bound,
  maxCountedItemsPerChain: bound,
  detailsCacheMs: 0,
  chainStatus: { staleAfterMs: 300_000, lagBlocks: 10, cacheMs: 5_000 },
  gateways: DEFAULT_GATEWAYS,
  metadataQueueUrl: undefined,
});

/** Rows by day and sender: a bounded read of every row (no running totals answer a group by a field). */
const byDayAndSender = planList(
  { chainIds: [CHAIN], page: 0, limit: 300, sortOrder: 'asc', groupBy: ['day', 'from_address'], aggregate: [] },
  TOKEN_TRANSFER_FIELDS,
);

const rangeOf = (pk: string): RangeRead => ({ pk, sk: { blocks: {} }, checks: [], order: 'asc' });

function aggregate(ranges: ChainRanges, bound: number) {
  return tableWorkOf(() =>
    readList<Entry>(byDayAndSender, async () => ranges, config(bound), {
      fields: TOKEN_TRANSFER_FIELDS,
      row,
      position: (entry) => [entry.blockNumber],
      summed: {},
    }).catch((error: Error) => error),
  );
}

describe('an aggregation that reads its rows', () => {
  it('writes the ranges and the chain status', async () => {
    const cursor: CursorRecord & TableItem = {
      ...chainKeys.cursor(CHAIN),
      kind: 'cursor',
      chainId: CHAIN,
      blockNumber: ENTRIES - 1,
      blockHash: `0x${'ab'.repeat(32)}`,
      firstBlock: 0,
      blockTimestamp: START + (ENTRIES - 1) * 5 * 3600,
    };
    const status: ChainStatusRecord & TableItem = {
      ...chainKeys.status(CHAIN),
      kind: 'chainStatus',
      chainId: CHAIN,
      state: 'following',
      reason: null,
      nodeHeadNumber: ENTRIES - 1,
      nodeHeadTimestamp: null,
      nodeHeadSeenAt: null,
      updatedAt: Date.now(),
      traceMethod: null,
      blockReceipts: null,
      multicall3: null,
      multicall3FromBlock: null,
    };
    await writeItems({ put: [cursor, status, ...entriesOf(LARGE, ENTRIES), ...entriesOf(HALF_A, HALF), ...entriesOf(HALF_B, HALF)] });
  });

  // The container's copy of the status has expired: the request reads it (2 items).
  beforeEach(() => forgetChainStatuses());

  it('past its bound answers the 400 having read at most bound + 1 items in all, the status included', async () => {
    const bound = ENTRIES - 2;
    const { result, usage } = await aggregate(rangeOf(LARGE), bound);
    expect(result).toBeInstanceOf(RangeTooLargeError);
    expect((result as Error).message).toMatch(`more than ${bound} items on chain ${CHAIN}`);
    expect(usage.itemsRead).toBeLessThanOrEqual(bound + 1);
    expect(usage.calls.BatchGetItemCommand ?? 0).toBe(0);
  });

  it('under its bound answers exactly, with the indexed head read after the rows', async () => {
    const { result, usage, requests } = await aggregate(rangeOf(LARGE), ENTRIES);
    if (result instanceof Error) throw result;
    const expected = aggregateRows((entries.get(LARGE) ?? []).map(row), byDayAndSender.aggregation!, TOKEN_TRANSFER_FIELDS, 'asc');
    expect(result.aggregations).toEqual([expected]);
    expect(result.totals.indexed_heads).toEqual([
      { chain_id: CHAIN, block_number: ENTRIES - 1, block_timestamp: START + (ENTRIES - 1) * 5 * 3600, state: 'following', lag_blocks: 0 },
    ]);
    expect(usage.itemsRead).toBe(ENTRIES + 2);
    expect(requests.map((request) => request.command).at(-1)).toBe('BatchGetItemCommand');
  });

  it("bounds a chain's union of two ranges by one bound: at most bound + 1 items over both", async () => {
    const bound = HALF + 3; // each range alone is within it, the union is not
    const { result, usage } = await aggregate([rangeOf(HALF_A), rangeOf(HALF_B)], bound);
    expect(result).toBeInstanceOf(RangeTooLargeError);
    expect(usage.itemsRead).toBeLessThanOrEqual(bound + 1);

    const whole = await aggregate([rangeOf(HALF_A), rangeOf(HALF_B)], 2 * HALF);
    if (whole.result instanceof Error) throw whole.result;
    const rows = [...(entries.get(HALF_A) ?? []), ...(entries.get(HALF_B) ?? [])].map(row);
    expect(whole.result.aggregations).toEqual([aggregateRows(rows, byDayAndSender.aggregation!, TOKEN_TRANSFER_FIELDS, 'asc')]);
    expect(whole.usage.itemsRead).toBe(2 * HALF + 2);
  });
});
