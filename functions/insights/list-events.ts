/** I10d (see docs/access-patterns.md). GET /insights/v1/events: events of one or more chains by contract, topic 0 or transaction. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listEvents } from '../../shared/insights/event-lists';
import { eventsQuery, eventsResponse, REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  query: eventsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: eventsResponse,
  handle: async ({ query, headers }) => ({ body: await listEvents({ query, host: headers.host }, config) }),
});
