/** I10b (see docs/access-patterns.md). GET /insights/v1/transactions: transactions of one or more chains by recipient, sender or selector. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { REPEATABLE_PARAMETERS, transactionsQuery, transactionsResponse } from '../../shared/insights/schemas';
import { listAllTransactions } from '../../shared/insights/transaction-lists';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: transactionsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: transactionsResponse,
  handle: async ({ query, headers }) => ({ body: await listAllTransactions({ query, host: headers.host }, config) }),
});
