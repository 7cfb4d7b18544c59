/** I5a (see docs/access-patterns.md). GET /insights/v1/tokens/transfers: token transfers of an owner and / or a token contract. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { REPEATABLE_PARAMETERS, tokenTransfersQuery, tokenTransfersResponse } from '../../shared/insights/schemas';
import { listTokenTransfers } from '../../shared/insights/token-transfers';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: tokenTransfersQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: tokenTransfersResponse,
  handle: async ({ query, headers }) => ({ body: await listTokenTransfers({ query, host: headers.host }, config) }),
});
