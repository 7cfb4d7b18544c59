/**
 * E6 GET /explorer/addresses/{address_hash}/withdrawals: withdrawals received by an address.
 * Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { listWithdrawals } from '../../shared/explorer/withdrawals';
import { addressPath, withdrawalsQuery, withdrawalsResponse } from '../../shared/explorer/schemas';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: withdrawalsQuery,
  response: withdrawalsResponse,
  handle: async ({ path, query }) => withIndexingHeaders(config, listWithdrawals({ address: path.address_hash, query }, config)),
});
