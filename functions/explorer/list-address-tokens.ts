/**
 * E1 GET /explorer/addresses/{address_hash}/tokens: token balances of an address (ERC-20, ERC-721, ERC-1155 ids), filtered by `type`.
 * Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { listTokenBalances } from '../../shared/explorer/token-balances';
import { addressPath, tokenBalancesQuery, tokenBalancesResponse } from '../../shared/explorer/schemas';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: tokenBalancesQuery,
  response: tokenBalancesResponse,
  handle: async ({ path, query }) => withIndexingHeaders(config, listTokenBalances({ address: path.address_hash, query }, config)),
});
