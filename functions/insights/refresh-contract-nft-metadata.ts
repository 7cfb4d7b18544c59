/**
 * I6q (see docs/access-patterns.md). GET /insights/v1/nfts/metadata/refresh/{contract_address}: queue a
 * fetch of the metadata of every token of an NFT contract again, on each requested chain that indexes it.
 */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { refreshContractNftMetadata } from '../../shared/insights/nft-refresh';
import { contractNftsPath, nftRefreshQuery, nftRefreshResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractNftsPath,
  query: nftRefreshQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: nftRefreshResponse,
  handle: async ({ path, query, headers }) => ({
    body: await refreshContractNftMetadata({ contractAddress: path.contract_address, query, host: headers.host }, config),
  }),
});
