/** I11a (see docs/access-patterns.md). GET /insights/v1/contracts/abi/{contractAddress}: the ABI this service knows for a contract. */
import { httpHandler } from '../../shared/http/handler';
import { getContractAbi } from '../../shared/insights/contract-abi';
import { contractAbiPath, contractAbiQuery, contractAbiResponse } from '../../shared/insights/contract-schemas';
import { REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

export const handler = httpHandler({
  group: 'insights',
  path: contractAbiPath,
  query: contractAbiQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: contractAbiResponse,
  handle: async ({ path, query, headers }) => ({
    body: await getContractAbi({ contractAddress: path.contractAddress, query, host: headers.host }),
  }),
});
