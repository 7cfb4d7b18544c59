/**
 * I3: blocks of each requested chain (N1). Block number and timestamp filters become the key range
 * (timestamps through the block-by-time index); filter_hash reads the block-by-hash item (N2).
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { expandBlock } from '../table/compact';
import type { BlockRecord } from '../table/records';
import { blockNarrowingOf, blockRangeOf } from './block-range';
import type { InsightsConfig } from './config';
import { BLOCK_FIELDS } from './fields';
import { BLOCK_FILTERS, collectFilters, equalityOf, type Filter } from './filters';
import { readList, type ListPlan } from './list';
import { blocksRange, blockWithHashRange } from './queries';
import type { RangeRead } from './range-reader';
import { listMeta, planListRequest } from './request';
import type { BlocksQuery, BlocksResponse } from './schemas';
import { serialiseBlock } from './serialise';

export interface BlocksRequest {
  query: BlocksQuery;
  /** The Host header (its first label may name the chain). */
  host: string | undefined;
}

export async function listBlocks({ query, host }: BlocksRequest, config: InsightsConfig): Promise<BlocksResponse> {
  const plan = await planListRequest(query, host, BLOCK_FIELDS);
  const filters = collectFilters(query, BLOCK_FILTERS);
  const rangeOf = (chainId: number) => blocksRangeOf(chainId, filters, plan);

  const list = await readList<BlockRecord>(plan, rangeOf, config, {
    summed: { gas_used: 'gasUsed' },
    fields: BLOCK_FIELDS,
    // Items store compacted records (shared/table/compact.ts).
    row: (item, wanted) => serialiseBlock(expandBlock(item, wanted)),
    position: (block) => [block.number],
  });
  if (list.aggregations) return { meta: listMeta(plan, list.totals), data: [], aggregations: list.aggregations };
  return { meta: listMeta(plan, list.totals), data: list.records.map((item) => serialiseBlock(expandBlock(item))), aggregations: null };
}

async function blocksRangeOf(chainId: number, filters: Filter[], plan: ListPlan): Promise<RangeRead | null> {
  const blocks = await blockRangeOf(chainId, blockNarrowingOf(filters));
  if (!blocks) return null;
  const hash = equalityOf(filters, 'hash');
  return hash ? blockWithHashRange(chainId, hash, blocks, plan.sortOrder) : blocksRange(chainId, blocks, [], plan.sortOrder);
}
