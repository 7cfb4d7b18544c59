/** I5c. GET /insights/v1/tokens/transfers/{contract_address}: token transfers of one token contract. */
import { httpHandler } from '../../shared/http/handler';
import { contractTokenTransfersPath, contractTokenTransfersQuery, REPEATABLE_PARAMETERS, tokenTransfersResponse } from '../../shared/insights/schemas';
import { listContractTokenTransfers } from '../../shared/insights/token-transfers';

export const handler = httpHandler({
  group: 'insights',
  path: contractTokenTransfersPath,
  query: contractTokenTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ path, query, headers }) => ({ body: await listContractTokenTransfers(path.contract_address, query, headers.host) }),
});
