/**
 * I6: lists read from the explorer's state items (balances, NFT holdings, NFT instances, a token's
 * holders). Those ranges hold current values, not history: their entries move when a value changes, so
 * they carry no range positions (`pos`) and no seek chunks. A page of one is its first `skip + take`
 * entries (a 400 past INSIGHTS_MAX_ITEMS_READ_PER_CHAIN for a page after the first, like any bounded
 * read). `total_items` is not counted from the range: it is the counter the ingest keeps of the range's
 * size in the same transactions that move its entries (X10 per holder, X7 per contract, the ERC-1155
 * instance's `holders` per id), read with the page in the same round trip, so it is exact whatever the
 * range's size. What the ranges' sizes are bounded by: a holder's tokens, a contract's token ids and holders.
 * Ids of endpoints and access patterns (I6, X1, X2 ...): see docs/access-patterns.md.
 */
import { type ChainStatus, readChainStatuses } from '../chain-status/status';
import { queryAll, type Item, type QueryInput } from '../db/operations';
import { TABLE } from '../table/definition';
import { compareSortKeys } from '../table/keys';
import type { AddressRecord, NftInstanceRecord } from '../table/records';
import { type Gateways, resolveMediaUrl } from '../nft-metadata/uri';
import { shownMetadata } from '../nft-metadata/view';
import type { InsightsConfig } from './config';
import type { IndexedHead, ListPlan, ListTotals } from './list';
import { RangeTooLargeError } from './range-reader';
import type { NftMetadataFields } from './schemas';

/**
 * Items `skip` to `skip + take` of the union of `ranges` (Query inputs of the table or an index, merged
 * by sort key (the table's `sk`, or the index's: X1's gsi3sk) in the first one's order when there are
 * several): each range's first `skip + take`
 * items, one Query each (more only past 1 MB), in parallel. A page after the first that would read more
 * than the read bound is a 400.
 */
export async function readStatePage(
  chainId: number,
  ranges: readonly QueryInput[],
  skip: number,
  take: number,
  config: InsightsConfig,
): Promise<Item[]> {
  if (ranges.length === 0 || take <= 0) return [];
  assertStatePageWithinBound(chainId, skip, take, config);
  const parts = await Promise.all(ranges.map(async (input) => (await queryAll(input, { limit: skip + take })).items));
  const ascending = ranges[0]!.ScanIndexForward !== false;
  const index = TABLE.globalSecondaryIndexes.find((gsi) => gsi.indexName === ranges[0]!.IndexName);
  const sortKey = index?.sortKey ?? TABLE.sortKey;
  const items =
    parts.length === 1
      ? parts[0]!
      : parts.flat().sort((a, b) => (ascending ? 1 : -1) * compareSortKeys(String(a[sortKey]), String(b[sortKey])));
  return items.slice(skip, skip + take);
}

/** A page after the first reads the range's first `skip + take` entries: a 400 past the read bound. */
export function assertStatePageWithinBound(chainId: number, skip: number, take: number, config: InsightsConfig): void {
  if (skip > 0 && skip + take > config.maxItemsReadPerChain) throw new RangeTooLargeError(chainId, config.maxItemsReadPerChain);
}

/** A counter the ingest keeps (an attribute of X7, X10 or an instance): absent is 0, never negative. */
export const counterOf = (value: unknown): number => (typeof value === 'number' && value > 0 ? value : 0);

/**
 * The chains' indexed heads (meta `indexed_heads`, from the status kept per container, as every insights
 * list), started before the list's first round trip so that a read of them shares it.
 */
export function readIndexedHeads(plan: ListPlan, config: InsightsConfig): Promise<IndexedHead[]> {
  const heads = readChainStatuses(plan.chainIds, config.chainStatus, { cached: true }).then((statuses) => statuses.map(indexedHeadOf));
  heads.catch(() => undefined); // (awaited by stateTotals; a failure surfaces there)
  return heads;
}

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
 * total_items (every chain's), total_pages (the most pages one chain has at this limit) and the chains'
 * indexed heads (`heads`: readIndexedHeads, started with the list's reads; read here when not given).
 */
export async function stateTotals(
  plan: ListPlan,
  totals: readonly number[],
  config: InsightsConfig,
  heads: Promise<IndexedHead[]> = readIndexedHeads(plan, config),
): Promise<ListTotals> {
  return {
    total_items: totals.reduce((sum, total) => sum + total, 0),
    total_pages: Math.max(0, ...totals.map((total) => Math.ceil(total / plan.limit))),
    indexed_heads: await heads,
  };
}

const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** How NFT metadata is shown: `resolve_metadata_links` of the request, and the gateways it resolves through. */
export interface MetadataOptions {
  resolveLinks: boolean;
  gateways: Gateways;
}

/**
 * The metadata fields of an NFT as Insight names them, from the document the ingest resolved from a
 * data: token URI or the one the fetcher stored on it for a web URI (G7, `fetched`: shared/nft-metadata/
 * view.ts). Fields the document lacks are null; everything else it holds is `extra_metadata`
 * (`attributes` among them). `status` says where the fetch is (`pending`, `resolved`, `failed` with
 * `metadata_error`, an extra field). Links are given as the document has them (ipfs://, ar://) unless
 * `resolve_metadata_links=true`: then `image_url`, `video_url`, `animation_url` and `metadata_url`
 * go through the gateways.
 */
export function nftMetadataFields(
  instance: Pick<NftInstanceRecord, 'metadataJson' | 'tokenUri' | 'metadataStatus' | 'fetched'> | undefined,
  options: MetadataOptions,
): NftMetadataFields {
  const shown = shownMetadata(instance);
  const { name, description, image, image_url, animation_url, background_color, external_url, video_url, ...extra } = shown.document ?? {};
  const link = (value: unknown): string | null => {
    const text = textOf(value);
    return text !== null && options.resolveLinks ? resolveMediaUrl(text, options.gateways) : text;
  };
  return {
    name: textOf(name),
    description: textOf(description),
    image_url: link(textOf(image_url) ?? textOf(image)),
    video_url: link(video_url),
    animation_url: link(animation_url),
    background_color: textOf(background_color),
    external_url: textOf(external_url),
    status: shown.status,
    metadata_url: link(instance?.tokenUri ?? null),
    extra_metadata: extra,
    ...(shown.error === null ? {} : { metadata_error: shown.error }),
  };
}

/** The options of a request with `resolve_metadata_links`. */
export const metadataOptions = (query: { resolve_metadata_links?: boolean }, config: InsightsConfig): MetadataOptions => ({
  resolveLinks: query.resolve_metadata_links === true,
  gateways: config.gateways,
});

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
