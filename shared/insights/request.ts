/**
 * What every insights list request shares: its chains (checked in order: 400s before any read, then
 * the registry's 404), its paging and aggregation plan, and the meta block of the envelope.
 */
import type { FieldCatalogue } from './aggregate-parser';
import { assertChainsIndexed, requestedChains, type ChainParameters } from './chains';
import { planList, type ListPlan, type ListTotals, type SortOrder } from './list';
import type { InsightsMeta } from './schemas';

export interface ListQuery extends ChainParameters {
  limit: number;
  page: number;
  sort_by?: string;
  sort_order?: SortOrder;
  group_by: string[];
  aggregate: string[];
}

/** The chains and list plan of a request; throws its 400s, then the 404 of an unindexed chain. */
export async function planListRequest(query: ListQuery, host: string | undefined, fields: FieldCatalogue): Promise<ListPlan> {
  const chainIds = requestedChains(query, host);
  const plan = planList(
    {
      chainIds,
      page: query.page,
      limit: query.limit,
      sortBy: query.sort_by,
      sortOrder: query.sort_order ?? 'desc',
      groupBy: query.group_by,
      aggregate: query.aggregate,
    },
    fields,
  );
  await assertChainsIndexed(chainIds);
  return plan;
}

/** The first chain of a request: there is always one (requestedChains). */
export function firstChain(plan: ListPlan): number {
  const [chainId] = plan.chainIds;
  if (chainId === undefined) throw new Error('a list request names at least one chain');
  return chainId;
}

export function listMeta(plan: ListPlan, totals: ListTotals, address = '', signature = ''): InsightsMeta {
  return {
    chain_ids: plan.chainIds,
    address,
    signature,
    page: plan.page,
    limit_per_chain: plan.limit,
    total_items: totals.total_items,
    total_pages: totals.total_pages,
    ...(totals.indexed_heads ? { indexed_heads: totals.indexed_heads } : {}),
  };
}
