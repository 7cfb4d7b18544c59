/** E4 GET /explorer/addresses/{address_hash}/transactions: transactions from, to or creating an address, by `filter`. */
import { explorerConfig } from '../../shared/explorer/config';
import { listTransactions } from '../../shared/explorer/pages';
import { addressPath, transactionsQuery, transactionsResponse } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = explorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: transactionsQuery,
  response: transactionsResponse,
  handle: async ({ path, query }) => ({ body: await listTransactions(config.chainId, path.address_hash, query) }),
});
