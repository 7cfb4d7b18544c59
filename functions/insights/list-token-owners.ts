/** I6l (see docs/access-patterns.md). GET /insights/v1/tokens/owners: the holders of an ERC-20 token (a bounded read). */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listTokenOwners } from '../../shared/insights/owners';
import { ownersResponse, REPEATABLE_PARAMETERS, tokenOwnersQuery } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: tokenOwnersQuery,
  repeatable: REPEATABLE_PARAMETERS.filter((name) => name !== 'contract_address'),
  response: ownersResponse,
  handle: async ({ query, headers }) => ({ body: await listTokenOwners({ query, host: headers.host }, config) }),
});
