/** E3 GET /explorer/addresses/{address_hash}/token-transfers: token transfers touching an address, by `type`, `filter` and `token`. */
import { explorerConfig } from '../../shared/explorer/config';
import { listTokenTransfers } from '../../shared/explorer/pages';
import { addressPath, tokenTransfersQuery, tokenTransfersResponse } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = explorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: tokenTransfersQuery,
  response: tokenTransfersResponse,
  handle: async ({ path, query }) => ({ body: await listTokenTransfers(config.chainId, path.address_hash, query) }),
});
