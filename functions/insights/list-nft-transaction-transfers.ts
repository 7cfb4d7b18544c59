/** I6i (see docs/access-patterns.md). GET /insights/v1/nfts/transfers/transaction/{transaction_hash}: NFT transfers of one transaction. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import {
  nftTransactionTransfersQuery,
  REPEATABLE_PARAMETERS,
  tokenTransfersResponse,
  transactionTokenTransfersPath,
} from '../../shared/insights/schemas';
import { listNftTransactionTransfers } from '../../shared/insights/token-transfers';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: transactionTokenTransfersPath,
  query: nftTransactionTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listNftTransactionTransfers({ transactionHash: path.transaction_hash, query, host: headers.host }, config),
  }),
});
