/** I6n (see docs/access-patterns.md). GET /insights/v1/nfts/owners/{contract_address}/{token_id}: the owners of one NFT. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listNftOwners } from '../../shared/insights/owners';
import { nftOwnersQuery, nftPath, ownersResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: nftPath,
  query: nftOwnersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: ownersResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listNftOwners({ contractAddress: path.contract_address, tokenId: path.token_id, query, host: headers.host }, config),
  }),
});
