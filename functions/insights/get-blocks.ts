/** I3. GET /insights/v1/blocks: blocks of one or more chains. */
import { httpHandler } from '../../shared/http/handler';
import { listBlocks } from '../../shared/insights/blocks';
import { blocksQuery, blocksResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

export const handler = httpHandler({
  group: 'insights',
  query: blocksQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: blocksResponse,
  handle: async ({ query, headers }) => ({ body: await listBlocks(query, headers.host) }),
});
