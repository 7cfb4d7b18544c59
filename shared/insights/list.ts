/**
 * The multi-chain list of I1, I2, I3 and I5: each chain's key range is read in parallel (one Query
 * for the page and the range's count for `total_items`, or the whole bounded range for an
 * aggregation), then the rows are merged in the requested order. A chain's list may be the union of
 * disjoint ranges (I5a by owner with two token standards: two single-standard ranges): its page is
 * their merge by sort key, its count the sum of their counts, its aggregation input their union.
 * `limit` and `page` apply per chain; rows of different chains with the same position keep chain_ids
 * order. The count is exact: from range positions (two Limit-1 Queries per range), or for a range
 * with checks in the same pass as its page (every item of the range checked, under the read bound;
 * range-reader.ts).
 *
 * Paging: a page past the first of one range without checks seeks straight to its first entry by
 * position (range-seek.ts), so its cost does not depend on the page number. A checked range, or a
 * chain's union of two ranges, reads the first `(page + 1) * limit` items, under the read bound.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { InvalidRequestError } from '../errors';
import { type ChainStatus, readChainStatuses } from '../chain-status/status';
import {
  aggregateRows,
  planAggregation,
  recordFieldsOf,
  recordFieldsOfColumns,
  rowsOfCountedGroups,
  type AggregationPlan,
  type Row,
} from './aggregate';
import type { FieldCatalogue } from './aggregate-parser';
import type { InsightsConfig } from './config';
import { answerableByTotals, countGroupsByTotals, type SummedFields } from './prefix-aggregate';
import { readAll, readPageAndCount, type Item, type RangeRead } from './range-reader';

export type SortOrder = 'asc' | 'desc';

export interface ListParameters {
  chainIds: number[];
  page: number;
  limit: number;
  sortBy?: string;
  sortOrder: SortOrder;
  groupBy: readonly string[];
  aggregate: readonly string[];
}

/** The validated paging and aggregation of a list request. */
export interface ListPlan extends ListParameters {
  aggregation: AggregationPlan | null;
}

/** Checks page, sort_by and the aggregation grammar against the entity's fields. */
export function planList(parameters: ListParameters, fields: FieldCatalogue): ListPlan {
  const aggregation = planAggregation({ aggregate: parameters.aggregate, groupBy: parameters.groupBy, sortBy: parameters.sortBy }, fields);
  if (!aggregation) {
    if (parameters.sortBy !== undefined && parameters.sortBy !== 'block_number') {
      throw new InvalidRequestError('sort_by: must be block_number (or, with aggregate or group_by, an output column)');
    }
  }
  return { ...parameters, aggregation };
}

export interface ChainItems {
  chainId: number;
  items: Item[];
  /** Items matching on this chain (exact from positions; a lower bound only past the checked-count cap, see range-reader.ts). */
  total: number;
}

/**
 * What one chain's list reads: a key range, several disjoint ranges with the same sort-key shape and
 * order (their union is the list), or null (matches nothing).
 */
export type ChainRanges = RangeRead | readonly RangeRead[] | null;

const rangesOf = (ranges: ChainRanges): readonly RangeRead[] => (ranges === null ? [] : 'pk' in ranges ? [ranges] : ranges);

/** The page of every chain (and each chain's count: the sum over its ranges), read in parallel. */
export async function readChainPages(
  plan: ListPlan,
  rangeOf: (chainId: number) => Promise<ChainRanges>,
  config: InsightsConfig,
): Promise<ChainItems[]> {
  return Promise.all(
    plan.chainIds.map(async (chainId) => {
      const reads = rangesOf(await rangeOf(chainId));
      if (reads.length === 0) return { chainId, items: [], total: 0 };
      const { items, total } = await readPageAndCount(chainId, reads, plan.page * plan.limit, plan.limit, config);
      return { chainId, items, total };
    }),
  );
}

/**
 * A stored record as an aggregation's row; `wanted`: the record fields the row's read columns come
 * from (recordFieldsOf): only those need be expanded, and only those columns need be right.
 */
export type RowOf<R> = (record: R, wanted?: ReadonlySet<string>) => Row;

/**
 * Every chain's aggregated rows (ordered, before paging): from running totals where the aggregation
 * allows it (prefix-aggregate.ts: count, sum and avg of a summed field, at most one bucket, one range
 * without checks; a few items per bucket, whatever the range's size), otherwise from every matching
 * row of the chain's ranges, read under the read bound: at most `maxItemsReadPerChain + 1` items per
 * chain over all its ranges (read one after the other, each with what the others left), the last
 * only to learn that there are more (a 400). `besideTotals` is called when a chain starts on running
 * totals (list reads start the chains' status read there, beside that chain's first round).
 */
export async function aggregateChainRanges<R>(
  plan: ListPlan,
  rangeOf: (chainId: number) => Promise<ChainRanges>,
  config: InsightsConfig,
  options: { fields: FieldCatalogue; row: RowOf<R>; summed: SummedFields; besideTotals?: () => void },
): Promise<Row[][]> {
  const aggregation = plan.aggregation as AggregationPlan;
  const byTotals = answerableByTotals(aggregation, options.summed);
  // Only the record fields the rows read are expanded (a bounded read's thousands of records).
  const wanted = recordFieldsOf(aggregation, options.fields);
  const timestampFields = recordFieldsOfColumns(['block_timestamp'], options.fields);
  const timestampOf = (item: Item): number => Number(options.row(item as unknown as R, timestampFields).block_timestamp);
  return Promise.all(
    plan.chainIds.map(async (chainId) => {
      const reads = rangesOf(await rangeOf(chainId));
      const single = reads.length === 1 ? reads[0]! : undefined;
      if (byTotals && single && single.checks.length === 0 && (!single.sk || 'blocks' in single.sk)) {
        options.besideTotals?.();
        const groups = await countGroupsByTotals(chainId, single, aggregation, options.summed, timestampOf);
        if (groups) return rowsOfCountedGroups(groups, aggregation, options.fields, plan.sortOrder);
      }
      const items: Item[] = [];
      let examined = 0;
      for (const read of reads) {
        const part = await readAll(chainId, read, config, examined);
        items.push(...part.items);
        examined += part.scanned;
      }
      return aggregateRows(
        items.map((item) => options.row(item as unknown as R, wanted)),
        aggregation,
        options.fields,
        plan.sortOrder,
      );
    }),
  );
}

/** One array of aggregated rows per chain (chain_ids order), each paged by page and limit. */
export function pageAggregations(plan: ListPlan, all: readonly Row[][]): { aggregations: Row[][]; total: number; pages: number } {
  const start = plan.page * plan.limit;
  return {
    aggregations: all.map((rows) => rows.slice(start, start + plan.limit)),
    total: all.reduce((sum, rows) => sum + rows.length, 0),
    pages: Math.max(0, ...all.map((rows) => Math.ceil(rows.length / plan.limit))),
  };
}

/** Merges the chains' rows by position (block, then index within it) in the requested order. */
export function mergeByPosition<T>(
  chains: readonly { rows: readonly T[] }[],
  positionOf: (row: T) => readonly number[],
  order: SortOrder,
): T[] {
  const tagged = chains.flatMap((chain, chainIndex) =>
    chain.rows.map((row, index) => ({ row, chainIndex, index, position: positionOf(row) })),
  );
  tagged.sort((a, b) => {
    for (let i = 0; i < Math.max(a.position.length, b.position.length); i += 1) {
      const difference = (a.position[i] ?? 0) - (b.position[i] ?? 0);
      if (difference !== 0) return order === 'desc' ? -difference : difference;
    }
    return a.chainIndex - b.chainIndex || a.index - b.index;
  });
  return tagged.map((entry) => entry.row);
}

/** total_items across the chains and total_pages: the most pages any one chain has at this limit. */
export function totals(chains: readonly ChainItems[], limit: number): { total_items: number; total_pages: number } {
  return {
    total_items: chains.reduce((sum, chain) => sum + chain.total, 0),
    total_pages: Math.max(0, ...chains.map((chain) => Math.ceil(chain.total / limit))),
  };
}

/**
 * The indexed head of a chain a list read (meta `indexed_heads`): the last block whose data is all
 * served, its timestamp, and the chain's state (shared/chain-status/status.ts: `stopped`, `repairing`,
 * `catching_up` say the data is not current).
 */
export interface IndexedHead {
  chain_id: number;
  block_number: number | null;
  block_timestamp: number | null;
  state: ChainStatus['state'];
  lag_blocks: number | null;
}

export interface ListTotals {
  total_items: number;
  total_pages: number;
  indexed_heads?: IndexedHead[];
}

/** What a list request read: the aggregated rows, or the page's records merged across chains; and its totals. */
export type ListRead<R> =
  | { aggregations: Row[][]; records: null; totals: ListTotals }
  | { aggregations: null; records: R[]; totals: ListTotals };

function indexedHeadOf(status: ChainStatus): IndexedHead {
  return {
    chain_id: status.chainId,
    block_number: status.indexedHead?.number ?? null,
    block_timestamp: status.indexedHead?.timestamp ?? null,
    state: status.state,
    lag_blocks: status.lag?.blocks ?? null,
  };
}

/**
 * A list request's reads: with aggregate / group_by, every chain's whole bounded range, each record
 * made a row (`row`) and aggregated; otherwise every chain's page, merged by `position` (block, then
 * the record's index within it) in the requested order.
 */
export async function readList<R>(
  plan: ListPlan,
  rangeOf: (chainId: number) => Promise<ChainRanges>,
  config: InsightsConfig,
  options: { fields: FieldCatalogue; row: RowOf<R>; position: (record: R) => readonly number[]; summed: SummedFields },
): Promise<ListRead<R>> {
  // The chains' indexed heads (kept per container for a few seconds; reading them costs 2 items per chain).
  let heads: Promise<ChainStatus[]> | undefined;
  const readHeads = (): Promise<ChainStatus[]> => {
    if (heads === undefined) {
      heads = readChainStatuses(plan.chainIds, config.chainStatus, { cached: true });
      heads.catch(() => undefined); // (awaited below; a failure surfaces there)
    }
    return heads;
  };
  if (plan.aggregation) {
    // Beside the first round of running totals; after a bounded read of the rows, so that one reads at
    // most its bound + 1 items per chain in all, and its 400 past the bound reads nothing more.
    const all = await aggregateChainRanges(plan, rangeOf, config, { ...options, besideTotals: readHeads });
    const { aggregations, total, pages } = pageAggregations(plan, all);
    return {
      aggregations,
      records: null,
      totals: { total_items: total, total_pages: pages, indexed_heads: (await readHeads()).map(indexedHeadOf) },
    };
  }
  // Beside the page's first round trip.
  readHeads();
  const chains = await readChainPages(plan, rangeOf, config);
  const records = mergeByPosition(
    chains.map((chain) => ({ rows: chain.items as unknown as R[] })),
    options.position,
    plan.sortOrder,
  );
  return { aggregations: null, records, totals: { ...totals(chains, plan.limit), indexed_heads: (await readHeads()).map(indexedHeadOf) } };
}
