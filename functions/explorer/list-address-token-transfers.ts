/**
 * E3 GET /explorer/addresses/{address_hash}/token-transfers: token transfers touching an address, by `type`, `filter` and `token`.
 * Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { listTokenTransfers } from '../../shared/explorer/token-transfers';
import { addressPath, tokenTransfersQuery, tokenTransfersResponse } from '../../shared/explorer/schemas';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: tokenTransfersQuery,
  response: tokenTransfersResponse,
  handle: async ({ path, query }) => withIndexingHeaders(config, listTokenTransfers({ address: path.address_hash, query }, config)),
});
