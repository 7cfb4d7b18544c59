/** I1 (see docs/access-patterns.md). GET /insights/v1/transactions/{contractAddress}/{signature}: transactions of a contract calling one function. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import {
  contractTransactionsPath,
  contractTransactionsQuery,
  contractTransactionsResponse,
  REPEATABLE_PARAMETERS,
} from '../../shared/insights/schemas';
import { listContractTransactions } from '../../shared/insights/transactions';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractTransactionsPath,
  query: contractTransactionsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: contractTransactionsResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listContractTransactions(
      { contractAddress: path.contractAddress, signature: path.signature, query, host: headers.host },
      config,
    ),
  }),
});
