/** I6k (see docs/access-patterns.md). GET /insights/v1/nfts/transfers/{contract_address}/{token_id}: transfers of one NFT. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { nftPath, nftTokenTransfersQuery, REPEATABLE_PARAMETERS, tokenTransfersResponse } from '../../shared/insights/schemas';
import { listNftContractTransfers } from '../../shared/insights/token-transfers';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: nftPath,
  query: nftTokenTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listNftContractTransfers(
      { contractAddress: path.contract_address, tokenId: path.token_id, query, host: headers.host },
      config,
    ),
  }),
});
