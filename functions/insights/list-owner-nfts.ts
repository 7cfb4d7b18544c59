/** I6d (see docs/access-patterns.md). GET /insights/v1/nfts/balance/{ownerAddress}: the NFTs an owner holds, one row per token id. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listOwnerNfts } from '../../shared/insights/nfts';
import { nftBalancesResponse, ownerNftsQuery, ownerPath, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: ownerPath,
  query: ownerNftsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: nftBalancesResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listOwnerNfts({ ownerAddress: path.ownerAddress, query, host: headers.host, types: query.token_types }, config),
  }),
});
