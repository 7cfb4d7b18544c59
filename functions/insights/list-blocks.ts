/** I3 (see docs/access-patterns.md). GET /insights/v1/blocks: blocks of one or more chains. */
import { httpHandler } from '../../shared/http/handler';
import { listBlocks } from '../../shared/insights/blocks';
import { loadInsightsConfig } from '../../shared/insights/config';
import { blocksQuery, blocksResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: blocksQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: blocksResponse,
  handle: async ({ query, headers }) => ({ body: await listBlocks({ query, host: headers.host }, config) }),
});
