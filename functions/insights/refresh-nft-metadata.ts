/**
 * I6r (see docs/access-patterns.md). GET /insights/v1/nfts/metadata/refresh/{contract_address}/{token_id}:
 * queue a fetch of one NFT's metadata from the web again, on each requested chain that has it.
 */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { refreshNftMetadata } from '../../shared/insights/nft-refresh';
import { nftPath, nftRefreshQuery, nftRefreshResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: nftPath,
  query: nftRefreshQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: nftRefreshResponse,
  handle: async ({ path, query, headers }) => ({
    body: await refreshNftMetadata({ contractAddress: path.contract_address, tokenId: path.token_id, query, host: headers.host }, config),
  }),
});
