/** I6h (see docs/access-patterns.md). GET /insights/v1/nfts/transfers: NFT transfers of an owner and / or NFT contracts. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { nftTransfersQuery, REPEATABLE_PARAMETERS, tokenTransfersResponse } from '../../shared/insights/schemas';
import { listNftTransfers } from '../../shared/insights/token-transfers';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: nftTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ query, headers }) => ({ body: await listNftTransfers({ query, host: headers.host }, config) }),
});
