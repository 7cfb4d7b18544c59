/** I6j (see docs/access-patterns.md). GET /insights/v1/nfts/transfers/{contract_address}: transfers of one NFT contract. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { contractNftsPath, nftContractTransfersQuery, REPEATABLE_PARAMETERS, tokenTransfersResponse } from '../../shared/insights/schemas';
import { listNftContractTransfers } from '../../shared/insights/token-transfers';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractNftsPath,
  query: nftContractTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listNftContractTransfers({ contractAddress: path.contract_address, query, host: headers.host }, config),
  }),
});
