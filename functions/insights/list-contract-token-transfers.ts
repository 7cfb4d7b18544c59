/** I5c (see docs/access-patterns.md). GET /insights/v1/tokens/transfers/{contract_address}: token transfers of one token contract. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import {
  contractTokenTransfersPath,
  contractTokenTransfersQuery,
  REPEATABLE_PARAMETERS,
  tokenTransfersResponse,
} from '../../shared/insights/schemas';
import { listContractTokenTransfers } from '../../shared/insights/token-transfers';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractTokenTransfersPath,
  query: contractTokenTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listContractTokenTransfers({ contractAddress: path.contract_address, query, host: headers.host }, config),
  }),
});
