/**
 * E7 GET /explorer/main-page/indexing-status: Blockscout's indexing status of the explorer's chain, with
 * the chain's state, lag and capabilities. Endpoint ids: see docs/access-patterns.md.
 */
import { loadExplorerConfig } from '../../shared/explorer/config';
import { getIndexingStatus, indexingStatusQuery, indexingStatusResponse } from '../../shared/explorer/indexing-status';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  query: indexingStatusQuery,
  response: indexingStatusResponse,
  handle: async () => ({ body: await getIndexingStatus(config) }),
});
