/** I6m (see docs/access-patterns.md). GET /insights/v1/nfts/owners/{contract_address}: the owners of an NFT contract. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listNftOwners } from '../../shared/insights/owners';
import { contractNftsPath, nftOwnersQuery, ownersResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractNftsPath,
  query: nftOwnersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: ownersResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listNftOwners({ contractAddress: path.contract_address, query, host: headers.host }, config),
  }),
});
