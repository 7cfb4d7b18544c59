/**
 * E2 GET /explorer/addresses/{address_hash}/nft/collections: NFT collections an address holds, up to 9 instances each.
 * Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { listNftCollections } from '../../shared/explorer/nft-collections';
import { addressPath, nftCollectionsQuery, nftCollectionsResponse } from '../../shared/explorer/schemas';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: nftCollectionsQuery,
  response: nftCollectionsResponse,
  handle: async ({ path, query }) => withIndexingHeaders(config, listNftCollections({ address: path.address_hash, query }, config)),
});
