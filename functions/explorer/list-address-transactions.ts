/**
 * E4 GET /explorer/addresses/{address_hash}/transactions: transactions from, to or creating an address, by `filter`.
 * Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { listTransactions } from '../../shared/explorer/transactions';
import { addressPath, transactionsQuery, transactionsResponse } from '../../shared/explorer/schemas';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: transactionsQuery,
  response: transactionsResponse,
  handle: async ({ path, query }) => withIndexingHeaders(config, listTransactions({ address: path.address_hash, query }, config)),
});
