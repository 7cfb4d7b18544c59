/**
 * I6: lists read from the explorer's state items (balances, NFT holdings, NFT instances). Those ranges
 * hold current values, not history: their entries move when a value changes, so they carry no range
 * positions (`pos`) and no seek chunks. A page of one is its first `skip + take` entries (a 400 past
 * INSIGHTS_MAX_ITEMS_READ_PER_CHAIN, like any bounded read), and `total_items` its Select COUNT capped at
 * INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN (a lower bound beyond), read in parallel with the page: one round
 * trip per chain. What the ranges' sizes are bounded by: a holder's tokens, a contract's token ids.
 * Ids of endpoints and access patterns (I6, X1, X2 ...): see docs/access-patterns.md.
 */
import { readChainStatuses } from '../chain-status/status';
import { countItems, queryAll, type Item } from '../db/operations';
import { compareSortKeys } from '../table/keys';
import type { AddressRecord, NftInstanceRecord } from '../table/records';
import type { InsightsConfig } from './config';
import type { IndexedHead, ListPlan, ListTotals } from './list';
import { queryInput, RangeTooLargeError, type RangeRead } from './range-reader';
import type { NftMetadataFields } from './schemas';

/** The first `skip + take` items of the union of `reads` (merged by sort key in their order), and their count. */
export async function readStatePage(
  chainId: number,
  reads: readonly RangeRead[],
  skip: number,
  take: number,
  config: InsightsConfig,
): Promise<{ items: Item[]; total: number }> {
  if (reads.length === 0) return { items: [], total: 0 };
  if (skip + take > config.maxItemsReadPerChain && skip > 0) throw new RangeTooLargeError(chainId, config.maxItemsReadPerChain);
  const parts = await Promise.all(
    reads.map(async (read) => {
      const input = queryInput(read);
      const [page, counted] = await Promise.all([
        queryAll(input, { limit: skip + take }),
        countItems(input, { maxRead: config.maxCountedItemsPerChain }),
      ]);
      return { items: page.items, total: counted.count };
    }),
  );
  const ascending = reads[0]?.order === 'asc';
  const items =
    parts.length === 1
      ? parts[0]!.items
      : parts.flatMap((part) => part.items).sort((a, b) => (ascending ? 1 : -1) * compareSortKeys(String(a.sk), String(b.sk)));
  return { items: items.slice(skip, skip + take), total: parts.reduce((sum, part) => sum + part.total, 0) };
}

/**
 * total_items (every chain's), total_pages (the most pages one chain has at this limit) and the chains'
 * indexed heads (meta `indexed_heads`, from the status kept per container, as every insights list).
 */
export async function stateTotals(plan: ListPlan, totals: readonly number[], config: InsightsConfig): Promise<ListTotals> {
  const statuses = await readChainStatuses(plan.chainIds, config.chainStatus, { cached: true });
  const heads: IndexedHead[] = statuses.map((status) => ({
    chain_id: status.chainId,
    block_number: status.indexedHead?.number ?? null,
    block_timestamp: status.indexedHead?.timestamp ?? null,
    state: status.state,
    lag_blocks: status.lag?.blocks ?? null,
  }));
  return {
    total_items: totals.reduce((sum, total) => sum + total, 0),
    total_pages: Math.max(0, ...totals.map((total) => Math.ceil(total / plan.limit))),
    indexed_heads: heads,
  };
}

const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The metadata fields of an NFT as Insight names them, from the metadata document the ingest resolved
 * from its token URI (data: URIs only: nothing is fetched from the web). Fields the document lacks are
 * null; everything else it holds is `extra_metadata`.
 */
export function nftMetadataFields(
  instance: Pick<NftInstanceRecord, 'metadataJson' | 'tokenUri' | 'metadataStatus'> | undefined,
): NftMetadataFields {
  let document: Record<string, unknown> = {};
  if (instance?.metadataJson) {
    try {
      const parsed = JSON.parse(instance.metadataJson) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) document = parsed as Record<string, unknown>;
    } catch {
      document = {};
    }
  }
  const { name, description, image, image_url, animation_url, background_color, external_url, video_url, ...extra } = document;
  return {
    name: textOf(name),
    description: textOf(description),
    image_url: textOf(image_url) ?? textOf(image),
    video_url: textOf(video_url),
    animation_url: textOf(animation_url),
    background_color: textOf(background_color),
    external_url: textOf(external_url),
    status: instance?.metadataStatus ?? null,
    metadata_url: instance?.tokenUri ?? null,
    extra_metadata: extra,
  };
}

const NFT_TYPE = { 'ERC-721': 'erc721', 'ERC-1155': 'erc1155' } as const;

/** The `contract` object of an NFT row, from the contract's address item (X7). */
export function nftContractOf(
  chainId: number,
  address: string,
  item: AddressRecord | undefined,
): NonNullable<NftMetadataFields['contract']> {
  const type = item?.tokenType === 'ERC-721' || item?.tokenType === 'ERC-1155' ? NFT_TYPE[item.tokenType] : undefined;
  return {
    chain_id: chainId,
    address,
    ...(item?.tokenName ? { name: item.tokenName } : {}),
    ...(item?.tokenSymbol ? { symbol: item.tokenSymbol } : {}),
    ...(type ? { type } : {}),
  };
}

export const nftTypeName = (standard: 'ERC-721' | 'ERC-1155'): 'erc721' | 'erc1155' => NFT_TYPE[standard];
