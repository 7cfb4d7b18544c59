/** E2 GET /explorer/addresses/{address_hash}/nft/collections: NFT collections an address holds, up to 9 instances each. */
import { explorerConfig } from '../../shared/explorer/config';
import { listNftCollections } from '../../shared/explorer/pages';
import { addressPath, nftCollectionsQuery, nftCollectionsResponse } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = explorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: nftCollectionsQuery,
  response: nftCollectionsResponse,
  handle: async ({ path, query }) => ({ body: await listNftCollections(config.chainId, path.address_hash, query) }),
});
