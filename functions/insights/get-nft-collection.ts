/** I6p (see docs/access-patterns.md). GET /insights/v1/nfts/collections/{contract_address}: an NFT contract as a collection, with stats on request. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { getNftCollection } from '../../shared/insights/nfts';
import { contractNftsPath, nftCollectionQuery, nftCollectionResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractNftsPath,
  query: nftCollectionQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: nftCollectionResponse,
  handle: async ({ path, query, headers }) => ({
    body: await getNftCollection({ contractAddress: path.contract_address, query, host: headers.host }, config),
  }),
});
