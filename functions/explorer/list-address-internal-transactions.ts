/**
 * E5 GET /explorer/addresses/{address_hash}/internal-transactions: internal transactions from or to an address, by `filter`.
 * Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { listInternalTransactions } from '../../shared/explorer/internal-transactions';
import { addressPath, internalTransactionsQuery, internalTransactionsResponse } from '../../shared/explorer/schemas';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: internalTransactionsQuery,
  response: internalTransactionsResponse,
  handle: async ({ path, query }) => withIndexingHeaders(config, listInternalTransactions({ address: path.address_hash, query }, config)),
});
