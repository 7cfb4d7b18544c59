/** I6o (see docs/access-patterns.md). GET /insights/v1/nfts: the NFTs of one or more owners, optionally of some contracts. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listNfts } from '../../shared/insights/nfts';
import { nftsQuery, nftTokensResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: nftsQuery,
  repeatable: [...REPEATABLE_PARAMETERS, 'owner_address'],
  response: nftTokensResponse,
  handle: async ({ query, headers }) => ({ body: await listNfts({ query, host: headers.host }, config) }),
});
