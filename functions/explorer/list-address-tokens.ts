/** E1 GET /explorer/addresses/{address_hash}/tokens: token balances of an address (ERC-20, ERC-721, ERC-1155 ids), filtered by `type`. */
import { explorerConfig } from '../../shared/explorer/config';
import { listTokenBalances } from '../../shared/explorer/pages';
import { addressPath, tokenBalancesQuery, tokenBalancesResponse } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = explorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: tokenBalancesQuery,
  response: tokenBalancesResponse,
  handle: async ({ path, query }) => ({ body: await listTokenBalances(config.chainId, path.address_hash, query) }),
});
