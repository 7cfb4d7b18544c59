/** I10c (see docs/access-patterns.md). GET /insights/v1/wallets/{wallet_address}/transactions: transactions from or to a wallet. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import {
  REPEATABLE_PARAMETERS,
  transactionsResponse,
  walletTransactionsPath,
  walletTransactionsQuery,
} from '../../shared/insights/schemas';
import { listWalletTransactions } from '../../shared/insights/transaction-lists';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: walletTransactionsPath,
  query: walletTransactionsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: transactionsResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listWalletTransactions({ walletAddress: path.wallet_address, query, host: headers.host }, config),
  }),
});
