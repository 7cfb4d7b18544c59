/** E5 GET /explorer/addresses/{address_hash}/internal-transactions: internal transactions from or to an address, by `filter`. */
import { explorerConfig } from '../../shared/explorer/config';
import { listInternalTransactions } from '../../shared/explorer/pages';
import { addressPath, internalTransactionsQuery, internalTransactionsResponse } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = explorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: internalTransactionsQuery,
  response: internalTransactionsResponse,
  handle: async ({ path, query }) => ({ body: await listInternalTransactions(config.chainId, path.address_hash, query) }),
});
