/** I6g (see docs/access-patterns.md). GET /insights/v1/nfts/{contract_address}/{token_id}: one NFT on each requested chain. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { getNft } from '../../shared/insights/nfts';
import { nftPath, nftQuery, nftTokensResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: nftPath,
  query: nftQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: nftTokensResponse,
  handle: async ({ path, query, headers }) => ({
    body: await getNft({ contractAddress: path.contract_address, tokenId: path.token_id, query, host: headers.host }, config),
  }),
});
