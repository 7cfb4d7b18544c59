/** I6a (see docs/access-patterns.md). GET /insights/v1/tokens/erc20/{ownerAddress}: an owner's ERC-20 balances. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { erc20BalancesResponse, ownerPath, ownerTokensQuery, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';
import { listOwnerErc20Balances } from '../../shared/insights/token-balances';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: ownerPath,
  query: ownerTokensQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: erc20BalancesResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listOwnerErc20Balances({ ownerAddress: path.ownerAddress, query, host: headers.host }, config),
  }),
});
