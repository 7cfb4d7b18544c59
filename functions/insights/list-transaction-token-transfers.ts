/** I5b (see docs/access-patterns.md). GET /insights/v1/tokens/transfers/transaction/{transaction_hash}: token transfers of one transaction. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import {
  REPEATABLE_PARAMETERS,
  tokenTransfersResponse,
  transactionTokenTransfersPath,
  transactionTokenTransfersQuery,
} from '../../shared/insights/schemas';
import { listTransactionTokenTransfers } from '../../shared/insights/token-transfers';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: transactionTokenTransfersPath,
  query: transactionTokenTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listTransactionTokenTransfers({ transactionHash: path.transaction_hash, query, host: headers.host }, config),
  }),
});
