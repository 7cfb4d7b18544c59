/** I2 (see docs/access-patterns.md). GET /insights/v1/events/{contractAddress}: events (logs) a contract emitted. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listContractEvents } from '../../shared/insights/events';
import { contractEventsPath, contractEventsQuery, contractEventsResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: contractEventsPath,
  query: contractEventsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: contractEventsResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listContractEvents({ contractAddress: path.contractAddress, query, host: headers.host }, config),
  }),
});
