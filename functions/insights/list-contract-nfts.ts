/** I6f (see docs/access-patterns.md). GET /insights/v1/nfts/{contract_address}: the NFTs of a contract, token id ascending. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listContractNfts } from '../../shared/insights/nfts';
import { contractNftsPath, contractNftsQuery, nftTokensResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractNftsPath,
  query: contractNftsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: nftTokensResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listContractNfts({ contractAddress: path.contract_address, query, host: headers.host }, config),
  }),
});
