/**
 * GET /explorer/addresses/{address_hash}/nft: the NFT instances an address holds, flat (Blockscout v2's
 * AddressNFTsResponse): ERC-721, then ERC-1155, contract ascending, token id descending; `type` filters
 * the standards. No range holds this list flat: it is the X2 collections of the holder (ascending, as
 * E2 reads them) expanded into their instances: a collection whose embedded instances (at most 9) are
 * all it holds is expanded from its X2 entry; a larger one from its G4 holdings range (token id desc).
 * Round trips: (1) the X2 Query, with the cursor's own collection's G4 Query beside it; (2) the G4
 * Queries of the larger collections the page reaches, in parallel (none when every collection reached
 * is small); (3) one BatchGetItem of the tokens, the holder and the instances' metadata
 * (decisions/explorer.md, "The address page").
 */
import { checksummed } from '../chain/address';
import { queryPage } from '../db/operations';
import { addressKeys, typeSetsToRead, type TokenStandard } from '../table/keys';
import type { EmbeddedNftInstance, NftCollectionRecord, NftHoldingRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { measured } from './page-cost';
import { readPageDetails } from './page-details';
import { readRanges, type KeysetStart } from './range-reader';
import type { AddressNftItem, AddressNftsQuery, AddressNftsResponse, AddressRequest } from './schemas';
import { addressObject, instanceId, instanceMedia, isUniqueSupply, tokenObject, type PageDetails } from './serialise';

/** One instance of the list, before its details are joined. */
interface Held {
  contract: string;
  standard: 'ERC-721' | 'ERC-1155';
  tokenId: string;
  value: string;
  /** The embedded copy (metadata inline unless `omitted`), or none: read the instance item. */
  embedded?: EmbeddedNftInstance;
  holderIsContract?: boolean;
}

const NFT_STANDARDS: readonly TokenStandard[] = ['ERC-721', 'ERC-1155', 'ERC-404'];

/** The number of ids a collection entry holds (ERC-721: its balance; ERC-1155: its distinct ids). */
function idsHeld(collection: NftCollectionRecord): number {
  if (typeof collection.distinctTokenIds === 'number') return collection.distinctTokenIds;
  return collection.tokenStandard === 'ERC-721' ? Number(collection.amount) : collection.instances.length;
}

/** G4: a holder's ids in one collection, token id desc, below `belowTokenId` when given. */
async function readHoldings(chainId: number, holder: string, contract: string, limit: number, belowTokenId?: string) {
  const range = addressKeys.nftHoldings(chainId, holder, contract);
  const page = await queryPage<NftHoldingRecord>({
    KeyConditionExpression: belowTokenId === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :bound',
    ExpressionAttributeValues:
      belowTokenId === undefined ? { ':pk': range.pk } : { ':pk': range.pk, ':bound': addressKeys.nftHoldingSortKey(belowTokenId) },
    ScanIndexForward: false,
    Limit: limit,
  });
  return { items: page.items, more: page.lastKey !== undefined };
}

const fromHolding = (holding: NftHoldingRecord, holderIsContract?: boolean): Held => ({
  contract: holding.contract,
  standard: holding.tokenStandard,
  tokenId: holding.tokenId,
  value: holding.value,
  holderIsContract,
});

export function listAddressNfts(
  { address, query }: AddressRequest<AddressNftsQuery>,
  config: ExplorerConfig,
): Promise<AddressNftsResponse> {
  return measured('nft', async () => {
    const wanted = query.type?.filter((type) => NFT_STANDARDS.includes(type));
    // Only ERC-20 asked for: no NFT can match.
    if (query.type && wanted?.length === 0) return { items: [], next_page_params: null };
    const cursor =
      query.token_type && query.token_contract_address_hash && query.token_id !== undefined
        ? { type: query.token_type, contract: query.token_contract_address_hash, tokenId: query.token_id }
        : undefined;
    const start: KeysetStart = cursor ? { bound: addressKeys.nftCollectionSortKey(cursor.type, cursor.contract) } : {};
    const pks = typeSetsToRead(wanted).map((typeSet) => addressKeys.nftCollections(config.chainId, address, typeSet).pk);
    // Round trip 1: the collections after the cursor's, and the rest of the cursor's own collection.
    const [collections, rest] = await Promise.all([
      readRanges<NftCollectionRecord>(pks, start, 'ascending'),
      cursor && cursor.type !== 'ERC-404'
        ? readHoldings(config.chainId, address, cursor.contract, PAGE_SIZE + 1, cursor.tokenId)
        : Promise.resolve(undefined),
    ]);
    // Segments in list order: held instances known now, or a G4 read to make (round trip 2).
    const segments: (Held[] | { collection: NftCollectionRecord; limit: number })[] = [];
    let counted = 0;
    let more = false;
    if (rest) {
      segments.push(rest.items.map((holding) => fromHolding(holding)));
      counted += rest.items.length;
      more ||= rest.more && counted <= PAGE_SIZE;
    }
    let reachedEnd = true;
    for (const collection of collections.items) {
      if (counted > PAGE_SIZE) {
        reachedEnd = false;
        break;
      }
      const held = idsHeld(collection);
      if (collection.instances.length >= held) {
        segments.push(
          collection.instances.map((embedded) => ({
            contract: collection.contract,
            standard: collection.tokenStandard,
            tokenId: embedded.tokenId,
            value: embedded.value,
            embedded,
            holderIsContract: collection.holderIsContract,
          })),
        );
        counted += collection.instances.length;
      } else {
        const limit = Math.min(held, PAGE_SIZE + 1 - counted);
        segments.push({ collection, limit });
        counted += limit;
      }
    }
    const read = await Promise.all(
      segments.map(async (segment) => {
        if (Array.isArray(segment)) return segment;
        const { collection, limit } = segment;
        const holdings = await readHoldings(config.chainId, address, collection.contract, limit);
        return holdings.items.map((holding) => fromHolding(holding, collection.holderIsContract));
      }),
    );
    const all = read.flat();
    const page = all.slice(0, PAGE_SIZE);
    more ||= all.length > PAGE_SIZE || (reachedEnd && collections.more) || !reachedEnd;
    // Round trip 3: tokens, the holder (owner of ERC-721 instances, when it has an item) and metadata.
    const details = await readPageDetails(config, {
      addresses: [
        ...(page.some((held) => held.standard === 'ERC-721' && held.holderIsContract !== false) ? [address] : []),
        ...page.map((held) => held.contract),
      ],
      instances: page
        .filter((held) => !held.embedded || held.embedded.omitted)
        .map((held) => ({ contract: held.contract, tokenId: held.tokenId })),
    });
    const last = page.at(-1);
    return {
      items: page.map((held) => nftItem(address, held, details)),
      next_page_params:
        more && last
          ? {
              items_count: (query.items_count ?? 0) + page.length,
              token_id: last.tokenId,
              token_type: last.standard,
              token_contract_address_hash: checksummed(last.contract),
            }
          : null,
    };
  });
}

function nftItem(holder: string, held: Held, details: PageDetails): AddressNftItem {
  const instance = details.instances.get(instanceId(held.contract, held.tokenId));
  const metadataJson = held.embedded && !held.embedded.omitted ? held.embedded.metadataJson : (instance?.metadataJson ?? null);
  const isErc721 = held.standard === 'ERC-721';
  const supply = instance ? instance.totalSupply : held.embedded?.totalSupply;
  return {
    is_unique: isErc721 || isUniqueSupply(supply),
    id: held.tokenId,
    owner: isErc721 ? addressObject(holder, details) : null,
    holder_address_hash: checksummed(holder),
    ...instanceMedia(metadataJson),
    token: tokenObject(held.contract, held.standard, details),
    token_type: held.standard,
    value: held.value,
  };
}
