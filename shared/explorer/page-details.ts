/**
 * X7 + X8 (see docs/access-patterns.md): every detail a page embeds (address and token items, NFT
 * instances with the metadata fetched for them from the web (G7, on the instance), canonical transactions, the ingest
 * cursor) in ONE BatchGetItem, more only past 100 keys
 * or when DynamoDB returns unprocessed keys (shared/db/operations.ts batchGetItems). Nothing to join:
 * no call at all.
 *
 * Address items (X7) and NFT instances (G3, with their fetched metadata) are kept per container for `detailsCacheMs`
 * (EXPLORER_DETAILS_CACHE_SECONDS, 30 s by default) and not asked for again meanwhile: a page of 50
 * token balances would otherwise pay half a read unit for each of its tokens and ERC-1155 ids, every
 * time (a BatchGetItem bills each item on its own, however small). What a page shows of them may be
 * up to that long behind the table: a token's `holders` and `total_supply`, an instance's supply
 * (`is_unique`), owner and metadata, and, rarely, a token's name, symbol or decimals (probed again by
 * the ingest) or an address item a reorg deleted (`is_contract`).
 * The canonical transactions and the cursor (confirmations) are always read; items not found are not
 * kept; what is kept is bounded by its size and evicted least recently used (shared/db/kept-items.ts).
 */
import { getItemsKept } from '../db/kept-items';
import type { Item } from '../db/operations';
import { expandTransaction } from '../table/compact';
import { addressKeys, chainKeys, nftKeys, transactionKeys } from '../table/keys';
import {
  CONTRACT_SIDE,
  CONTRACT_SIDES_ATTRIBUTE,
  type AddressRecord,
  type CursorRecord,
  type NftInstanceRecord,
  isJoinedDetail,
  type TransactionRecord,
} from '../table/records';
import type { ExplorerConfig } from './config';
import { emptyDetails, instanceId, type PageDetails } from './serialise';

/** What a page needs joined to its items. */
export interface DetailsRequest {
  /** Addresses to embed (is_contract, name) and token contracts (token details). */
  addresses?: Iterable<string>;
  /** NFT instances (metadata) by contract and token id: their items (G3, with the metadata fetched for them). */
  instances?: Iterable<{ contract: string; tokenId: string }>;
  /** Canonical transactions, for index copies that left out their input. */
  transactions?: Iterable<string>;
  /** The ingest cursor (X8), for confirmations. */
  head?: boolean;
}

/** The address sides of an index copy (X3, X4, X5), as its `cs` bits name them (records.ts CONTRACT_SIDE). */
export type CopySides = Partial<Record<keyof typeof CONTRACT_SIDE, string | null>>;

/**
 * The sides of a copy that have an address item (X7), from the copy's own `cs` bits: only those are
 * asked for, so no key of the page's BatchGetItem is missing. A copy written before the bits existed
 * (no `cs`) names every side, as every side was asked for then.
 */
export function contractSidesOf(copy: object, sides: CopySides): string[] {
  const flags = (copy as Record<string, unknown>)[CONTRACT_SIDES_ATTRIBUTE];
  const known = typeof flags === 'number';
  return (Object.entries(sides) as [keyof typeof CONTRACT_SIDE, string | null | undefined][]).flatMap(([side, address]) =>
    address && (!known || (flags & CONTRACT_SIDE[side]) !== 0) ? [address] : [],
  );
}

export async function readPageDetails(config: ExplorerConfig, request: DetailsRequest): Promise<PageDetails> {
  const { chainId, detailsCacheMs } = config;
  const details = emptyDetails(config.gateways);
  const found = await getItemsKept(
    [
      ...[...(request.addresses ?? [])].map((address) => addressKeys.address(chainId, address)),
      ...[...(request.instances ?? [])].map(({ contract, tokenId }) => nftKeys.instance(chainId, contract, tokenId)),
      ...[...(request.transactions ?? [])].map((hash) => transactionKeys.transaction(chainId, hash)),
      ...(request.head ? [chainKeys.cursor(chainId)] : []),
    ],
    { keepMs: detailsCacheMs, keep: isJoinedDetail },
  );
  for (const item of found.values()) addDetail(details, item);
  return details;
}

function addDetail(details: PageDetails, item: Item): void {
  switch (item.kind) {
    case 'address': {
      const record = item as unknown as AddressRecord;
      details.addresses.set(record.address.toLowerCase(), record);
      break;
    }
    case 'nftInstance': {
      const record = item as unknown as NftInstanceRecord;
      details.instances.set(instanceId(record.contract, record.tokenId), record);
      break;
    }
    case 'transaction': {
      const record: TransactionRecord = expandTransaction(item);
      details.transactions.set(record.hash.toLowerCase(), record);
      break;
    }
    case 'cursor':
      details.head = (item as unknown as CursorRecord).blockNumber;
      break;
  }
}
