/**
 * GET /explorer/addresses/{address_hash}/nft: the NFT instances an address holds, flat (Blockscout v2),
 * filtered by `type`.
 */
import { listAddressNfts } from '../../shared/explorer/address-nfts';
import { loadExplorerConfig } from '../../shared/explorer/config';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { addressNftsQuery, addressNftsResponse, addressPath } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: addressNftsQuery,
  response: addressNftsResponse,
  handle: async ({ path, query }) => withIndexingHeaders(config, listAddressNfts({ address: path.address_hash, query }, config)),
});
