/**
 * E4 GET /explorer/addresses/{address_hash}/transactions: transactions from, to or creating an address, by `filter`.
 * Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { listTransactions, SortedHistoryTooLongError } from '../../shared/explorer/transactions';
import { addressPath, transactionsQuery, transactionsResponse } from '../../shared/explorer/schemas';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { RequestValidationError } from '../../shared/http/errors';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: transactionsQuery,
  response: transactionsResponse,
  handle: async ({ path, query }) =>
    withIndexingHeaders(
      config,
      // A history too long to sort by value or fee: Blockscout's 422 on `sort`, saying why.
      listTransactions({ address: path.address_hash, query }, config).catch((error: unknown) => {
        if (error instanceof SortedHistoryTooLongError)
          throw new RequestValidationError([{ part: 'query', key: error.parameter, message: error.message }]);
        throw error;
      }),
    ),
});
