/** I10e (see docs/access-patterns.md). GET /insights/v1/events/{contractAddress}/{signature}: a contract's events of one signature. */
import { httpHandler } from '../../shared/http/handler';
import { loadInsightsConfig } from '../../shared/insights/config';
import { listSignatureEvents } from '../../shared/insights/event-lists';
import { eventsResponse, REPEATABLE_PARAMETERS, signatureEventsPath, signatureEventsQuery } from '../../shared/insights/schemas';

const config = loadInsightsConfig();

export const handler = httpHandler({
  group: 'insights',
  path: signatureEventsPath,
  query: signatureEventsQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: eventsResponse,
  handle: async ({ path, query, headers }) => ({
    body: await listSignatureEvents(
      { contractAddress: path.contractAddress, signature: path.signature, query, host: headers.host },
      config,
    ),
  }),
});
