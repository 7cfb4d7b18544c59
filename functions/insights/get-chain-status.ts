/** I5 (see docs/access-patterns.md). GET /insights/v1/chains/{chainId}/status: whether the chain's data is current, and why not. */
import { httpHandler } from '../../shared/http/handler';
import { chainStatusPath, chainStatusQuery, chainStatusResponse, getChainStatus } from '../../shared/insights/chain-status';
import { loadInsightsConfig } from '../../shared/insights/config';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: chainStatusPath,
  query: chainStatusQuery,
  response: chainStatusResponse,
  handle: async ({ path }) => ({ body: await getChainStatus(path.chainId, config.chainStatus) }),
});
