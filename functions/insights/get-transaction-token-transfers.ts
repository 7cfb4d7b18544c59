/** I5b. GET /insights/v1/tokens/transfers/transaction/{transaction_hash}: token transfers of one transaction. */
import { httpHandler } from '../../shared/http/handler';
import {
  REPEATABLE_PARAMETERS,
  tokenTransfersResponse,
  transactionTokenTransfersPath,
  transactionTokenTransfersQuery,
} from '../../shared/insights/schemas';
import { listTransactionTokenTransfers } from '../../shared/insights/token-transfers';

export const handler = httpHandler({
  group: 'insights',
  path: transactionTokenTransfersPath,
  query: transactionTokenTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ path, query, headers }) => ({ body: await listTransactionTokenTransfers(path.transaction_hash, query, headers.host) }),
});
