/**
 * E2: NFT collections an address holds, with up to 9 instances each, read from the X2 ranges and
 * joined with X7, and with G7 for the instances whose document was fetched from the web (see
 * docs/access-patterns.md).
 */
import { checksummed } from '../chain/address';
import { addressKeys, typeSetsToRead, type TokenStandard } from '../table/keys';
import type { NftCollectionRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { nftCollectionStart } from './cursor';
import { measured } from './page-cost';
import { readPageDetails } from './page-details';
import { readRanges, type KeysetStart } from './range-reader';
import type { AddressRequest, NftCollectionsQuery, NftCollectionsResponse } from './schemas';
import { nftCollectionItem } from './serialise';

/** X2: NFT collections of a holder: ERC-721, then ERC-1155, then ERC-404, contract ascending (ranges as X1). */
function readNftCollections(chainId: number, holder: string, types: TokenStandard[] | undefined, start: KeysetStart) {
  const pks = typeSetsToRead(types).map((typeSet) => addressKeys.nftCollections(chainId, holder, typeSet).pk);
  return readRanges<NftCollectionRecord>(pks, start, 'ascending');
}

export function listNftCollections(
  { address, query }: AddressRequest<NftCollectionsQuery>,
  config: ExplorerConfig,
): Promise<NftCollectionsResponse> {
  return measured('nft/collections', async () => {
    const read = await readNftCollections(config.chainId, address, query.type, nftCollectionStart(query));
    const page = read.items.slice(0, PAGE_SIZE);
    const details = await readPageDetails(config, {
      // The holder is shown as the owner of ERC-721 instances: asked for only when an entry says it
      // has an address item (entries written before `holderIsContract` ask, as before).
      addresses: [
        ...(page.some((collection) => collection.tokenStandard === 'ERC-721' && collection.holderIsContract !== false) ? [address] : []),
        ...page.map((collection) => collection.contract),
      ],
      // An entry embeds only the ingest's data: documents: the instance of one without (a web URI's
      // fetched document is on it, G7) or whose document was too large to embed is joined.
      instances: page.flatMap((collection) =>
        collection.instances
          .filter((embedded) => embedded.omitted || embedded.metadataJson === null)
          .map((embedded) => ({ contract: collection.contract, tokenId: embedded.tokenId })),
      ),
    });
    const last = page.at(-1);
    return {
      items: page.map((collection) => nftCollectionItem(collection, details)),
      next_page_params:
        read.more && last ? { token_contract_address_hash: checksummed(last.contract), token_type: last.tokenStandard } : null,
    };
  });
}
