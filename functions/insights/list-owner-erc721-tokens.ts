/** I6b (see docs/access-patterns.md). GET /insights/v1/tokens/erc721/{ownerAddress}: an owner's ERC721 tokens, one row per token id. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listOwnerNfts } from '../../shared/insights/nfts';
import { nftBalancesResponse, ownerPath, ownerTokensQuery, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: ownerPath,
  query: ownerTokensQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: nftBalancesResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listOwnerNfts({ ownerAddress: path.ownerAddress, query, host: headers.host, types: ['erc721'] }, config),
  }),
});
