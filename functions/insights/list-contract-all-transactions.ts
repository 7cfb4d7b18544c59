/** I10a (see docs/access-patterns.md). GET /insights/v1/transactions/{contractAddress}: every transaction sent to a contract. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import {
  contractAllTransactionsPath,
  contractAllTransactionsQuery,
  REPEATABLE_PARAMETERS,
  transactionsResponse,
} from '../../shared/insights/schemas';
import { listContractAllTransactions } from '../../shared/insights/transaction-lists';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractAllTransactionsPath,
  query: contractAllTransactionsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: transactionsResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listContractAllTransactions({ contractAddress: path.contractAddress, query, host: headers.host }, config),
  }),
});
