/** I11b (see docs/access-patterns.md). POST /insights/v1/decode/{contractAddress}: transactions' calldata and logs decoded with the contract's known ABI. */
import { httpHandler } from '../../shared/http/handler';
import { decodeWithContractAbi } from '../../shared/insights/contract-abi';
import { contractAbiPath, contractAbiQuery, decodeBody, decodeResponse } from '../../shared/insights/contract-schemas';
import { REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

export const handler = httpHandler({
  group: 'insights',
  path: contractAbiPath,
  query: contractAbiQuery,
  repeatable: REPEATABLE_PARAMETERS,
  body: decodeBody,
  response: decodeResponse,
  handle: async ({ path, query, body, headers }) => ({
    body: await decodeWithContractAbi({ contractAddress: path.contractAddress, query, body, host: headers.host }),
  }),
});
