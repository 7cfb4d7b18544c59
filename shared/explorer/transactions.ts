/**
 * E4: transactions from, to or creating an address, read from the X4 range and joined with X7 and
 * X8 (the indexed head, for confirmations; see docs/access-patterns.md).
 */
import { queryAll, queryPage, rangeQuery } from '../db/operations';
import { InvalidRequestError } from '../errors';
import { expandTransaction } from '../table/compact';
import { addressKeys, type Direction } from '../table/keys';
import type { TransactionRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { echoFilter, transactionStart } from './cursor';
import { measured } from './page-cost';
import { EarlyDetails, readPageDetails } from './page-details';
import { joinsOfRecords } from '../table/joins';
import { directionOf, readRange, type KeysetStart } from './range-reader';
import type { AddressRequest, TransactionSort, TransactionsQuery, TransactionsResponse } from './schemas';
import { transactionItem } from './serialise';

/**
 * X4: transactions from / to an address (`to` includes the transaction that created it), block desc,
 * index desc (`newest first`), or block asc, index asc (`ascending`: Blockscout's `sort=block_number&order=asc`).
 */
function readTransactions(
  chainId: number,
  address: string,
  direction: Direction,
  start: KeysetStart,
  order: 'newest first' | 'ascending',
  early: EarlyDetails,
) {
  return readRange<TransactionRecord>(addressKeys.transactions(chainId, address, direction).pk, start, order, early.onColdParts);
}

/**
 * `sort=value` / `sort=fee` past the bound: the answer would need more than `sortedHistoryBound`
 * transactions read (config `sortedHistoryBound`), so it is refused (the handler answers Blockscout's 422 on `sort`).
 */
export class SortedHistoryTooLongError extends InvalidRequestError {
  readonly parameter = 'sort';
}

/** The page of one sort: its records (in the sort's order), whether more follow, and the cursor's extra fields. */
interface SortedPage {
  page: TransactionRecord[];
  more: boolean;
}

/** The amount a `sort=value` / `sort=fee` orders by. */
const amountOf = (tx: TransactionRecord, sort: 'value' | 'fee'): bigint => BigInt(sort === 'value' ? tx.value : tx.fee);

/**
 * Blockscout's `sort=value|fee`: no range is ordered by an amount, so the address's whole X4 range of
 * the direction is read (Query after Query, 1 MB each) when it holds at most `sortedHistoryBound`
 * transactions, and sorted here: by the amount, ties by block then position, all in `order`. The
 * cursor (amount, block_number, index) is the last item served; the next page re-reads and starts
 * strictly after it, so nothing is skipped or repeated, and transactions ingested meanwhile take
 * their place in the order. Past the bound: SortedHistoryTooLongError (decisions/explorer.md, cost),
 * told by the range's newest entry's position before anything else is read.
 */
async function readSortedByAmount(
  { chainId, sortedHistoryBound }: ExplorerConfig,
  address: string,
  direction: Direction,
  sort: 'value' | 'fee',
  descending: boolean,
  query: TransactionsQuery,
): Promise<SortedPage> {
  const range = rangeQuery(addressKeys.transactions(chainId, address, direction));
  const tooLong = () =>
    new SortedHistoryTooLongError(
      `sort=${sort} reads the address's whole transaction history and sorts it, which is served for at most ${sortedHistoryBound} transactions; this address has more: sort by block_number (or leave sort out)`,
    );
  // The range's size is its newest entry's position (range-positions.ts; of the union, for `all`):
  // past the bound, the 422 reads that one entry (two, of a union's members), not the bound's worth.
  const newest = (await queryPage<{ pos?: unknown }>({ ...range, ScanIndexForward: false, Limit: 1 })).items[0];
  if (typeof newest?.pos === 'number' && newest.pos > sortedHistoryBound) throw tooLong();
  const read = await queryAll<Record<string, unknown>>(range, { limit: sortedHistoryBound + 1 });
  if (read.items.length > sortedHistoryBound) throw tooLong();
  const sign = descending ? -1 : 1;
  const compare = (a: [bigint, number, number], b: [bigint, number, number]): number => {
    for (let i = 0; i < 3; i += 1) if (a[i]! !== b[i]!) return (a[i]! < b[i]! ? -1 : 1) * sign;
    return 0;
  };
  const keyOf = (tx: TransactionRecord): [bigint, number, number] => [amountOf(tx, sort), tx.blockNumber, tx.transactionIndex];
  const sorted = read.items.map((item) => expandTransaction(item)).sort((a, b) => compare(keyOf(a), keyOf(b)));
  const amount = query[sort];
  const after =
    amount !== undefined && query.block_number !== undefined && query.index !== undefined
      ? sorted.filter((tx) => compare(keyOf(tx), [BigInt(amount), query.block_number!, query.index!]) > 0)
      : sorted;
  return { page: after.slice(0, PAGE_SIZE), more: after.length > PAGE_SIZE };
}

async function readSorted(
  config: ExplorerConfig,
  address: string,
  query: TransactionsQuery,
  early: EarlyDetails,
): Promise<SortedPage & { sort: TransactionSort }> {
  const sort = query.sort ?? 'block_number';
  const descending = (query.order ?? 'desc') === 'desc';
  const direction = directionOf(query.filter);
  if (sort !== 'block_number') return { sort, ...(await readSortedByAmount(config, address, direction, sort, descending, query)) };
  const read = await readTransactions(
    config.chainId,
    address,
    direction,
    transactionStart(query),
    descending ? 'newest first' : 'ascending',
    early,
  );
  // Items store compacted records (shared/table/compact.ts).
  return { sort, page: read.items.slice(0, PAGE_SIZE).map((item) => expandTransaction(item)), more: read.more };
}

/** `sort` and `order` as the request gave them, echoed in next_page_params (as `filter`). */
const echoSorting = (query: TransactionsQuery) => ({
  ...(query.sort ? { sort: query.sort } : {}),
  ...(query.order ? { order: query.order } : {}),
});

export function listTransactions(
  { address, query }: AddressRequest<TransactionsQuery>,
  config: ExplorerConfig,
): Promise<TransactionsResponse> {
  return measured('transactions', async () => {
    const early = new EarlyDetails(config, true);
    const read = await readSorted(config, address, query, early);
    const { page } = read;
    // Contract sides, the canonical transaction of a copy that left out its input (table/joins.ts), the cursor.
    const details = await readPageDetails(config, { ...joinsOfRecords(page), head: page.length > 0 }, early);
    const last = page.at(-1);
    return {
      items: page.map((tx) => transactionItem(tx, details)),
      next_page_params:
        read.more && last
          ? {
              block_number: last.blockNumber,
              index: last.transactionIndex,
              items_count: (query.items_count ?? 0) + page.length,
              ...echoFilter(query.filter),
              ...echoSorting(query),
              ...(read.sort === 'block_number' ? {} : { [read.sort]: String(amountOf(last, read.sort)) }),
            }
          : null,
    };
  });
}
