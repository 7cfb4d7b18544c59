/**
 * GET /explorer/addresses/{address_hash}/nft: the NFT instances an address holds, flat (Blockscout v2's
 * AddressNFTsResponse): ERC-721, then ERC-1155, contract ascending, token id descending; `type` filters
 * the standards. The holder's G4 range is this list in this order (sk `<type rank>#<contract>#<inverted
 * token id>`). Round trips: (1) one Query of G4 after the cursor (the type's prefix when one standard is
 * asked for), (2) one BatchGetItem of the tokens, the holder, the instances (G3) and the metadata fetched
 * for them from the web (G7) (decisions/explorer.md, "The address page").
 */
import { checksummed } from '../chain/address';
import { queryPage, type QueryInput } from '../db/operations';
import { addressKeys, TOKEN_TYPE_RANK, type TokenStandard } from '../table/keys';
import type { NftHoldingRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { measured } from './page-cost';
import { readPageDetails } from './page-details';
import type { AddressNftItem, AddressNftsQuery, AddressNftsResponse, AddressRequest } from './schemas';
import { addressObject, instanceId, isUniqueSupply, mediaOf, tokenObject, type PageDetails } from './serialise';

/** The standards G4 holds (nothing is indexed as ERC-404: keys.ts). */
const HELD_STANDARDS = ['ERC-721', 'ERC-1155'] as const;

/** The sort key just after every key of `rank` (a key is `<rank>#<contract>#<digits>`: '~' sorts after them all). */
const afterRank = (rank: string) => `${rank}#~`;

/**
 * The Query of the page: G4 after the cursor's holding, of one standard when only one is wanted (a
 * BETWEEN on its keys: `begins_with` cannot be combined with a lower bound), Limit a page and one.
 */
function holdingsQuery(pk: string, standards: readonly ('ERC-721' | 'ERC-1155')[], after: string | undefined): QueryInput | undefined {
  const values: Record<string, string> = { ':pk': pk };
  let condition = 'pk = :pk';
  if (standards.length === 1) {
    const rank = TOKEN_TYPE_RANK[standards[0]!];
    // Every key of the rank is above `<rank>#` and below `<rank>#~`; after the cursor: above its key.
    values[':from'] = after !== undefined && after > `${rank}#` ? `${after}#` : `${rank}#`;
    values[':to'] = afterRank(rank);
    // A cursor past the standard's keys (a later standard's): nothing is left.
    if (values[':from']! > values[':to']) return undefined;
    condition += ' AND sk BETWEEN :from AND :to';
  } else if (after !== undefined) {
    values[':after'] = after;
    condition += ' AND sk > :after';
  }
  return { KeyConditionExpression: condition, ExpressionAttributeValues: values, Limit: PAGE_SIZE + 1 };
}

export function listAddressNfts(
  { address, query }: AddressRequest<AddressNftsQuery>,
  config: ExplorerConfig,
): Promise<AddressNftsResponse> {
  return measured('nft', async () => {
    const wanted = HELD_STANDARDS.filter((standard) => !query.type || query.type.includes(standard as TokenStandard));
    // Only ERC-20 or ERC-404 asked for: no NFT the ingest indexes can match.
    if (wanted.length === 0) return { items: [], next_page_params: null };
    const after =
      query.token_type && query.token_contract_address_hash && query.token_id !== undefined
        ? addressKeys.nftHoldingSortKey(query.token_type, query.token_contract_address_hash, query.token_id)
        : undefined;
    // Round trip 1: the page of the holder's G4 range.
    const read = holdingsQuery(addressKeys.nftHoldings(config.chainId, address).pk, wanted, after);
    if (!read) return { items: [], next_page_params: null };
    const holdings = await queryPage<NftHoldingRecord>(read);
    const page = holdings.items.slice(0, PAGE_SIZE);
    const more = holdings.items.length > PAGE_SIZE;
    // Round trip 2: tokens, the holder (owner of ERC-721 instances) and the instances' metadata.
    const details = await readPageDetails(config, {
      addresses: [...(page.some((held) => held.tokenStandard === 'ERC-721') ? [address] : []), ...page.map((held) => held.contract)],
      instances: page.map((held) => ({ contract: held.contract, tokenId: held.tokenId })),
    });
    const last = page.at(-1);
    return {
      items: page.map((held) => nftItem(address, held, details)),
      next_page_params:
        more && last
          ? {
              items_count: (query.items_count ?? 0) + page.length,
              token_id: last.tokenId,
              token_type: last.tokenStandard,
              token_contract_address_hash: checksummed(last.contract),
            }
          : null,
    };
  });
}

function nftItem(holder: string, held: NftHoldingRecord, details: PageDetails): AddressNftItem {
  const instance = details.instances.get(instanceId(held.contract, held.tokenId));
  const isErc721 = held.tokenStandard === 'ERC-721';
  const supply = instance?.totalSupply;
  return {
    is_unique: isErc721 || isUniqueSupply(supply),
    id: held.tokenId,
    owner: isErc721 ? addressObject(holder, details) : null,
    holder_address_hash: checksummed(holder),
    ...mediaOf(details, held.contract, held.tokenId),
    token: tokenObject(held.contract, held.tokenStandard, details),
    token_type: held.tokenStandard,
    value: held.value,
  };
}
