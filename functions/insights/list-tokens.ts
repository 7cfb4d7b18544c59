/** I6e (see docs/access-patterns.md). GET /insights/v1/tokens: ERC-20 balances of one or more owners. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { erc20BalancesResponse, REPEATABLE_PARAMETERS, tokensQuery } from '../../shared/insights/schemas';
import { listTokens } from '../../shared/insights/token-balances';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: tokensQuery,
  repeatable: [...REPEATABLE_PARAMETERS, 'owner_address', 'token_address'],
  response: erc20BalancesResponse,
  handle: async ({ query, headers }) => ({ body: await listTokens({ query, host: headers.host }, config) }),
});
