/** E6 GET /explorer/addresses/{address_hash}/withdrawals: withdrawals received by an address. */
import { explorerConfig } from '../../shared/explorer/config';
import { listWithdrawals } from '../../shared/explorer/pages';
import { addressPath, withdrawalsQuery, withdrawalsResponse } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = explorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: withdrawalsQuery,
  response: withdrawalsResponse,
  handle: async ({ path, query }) => ({ body: await listWithdrawals(config.chainId, path.address_hash, query) }),
});
