/**
 * I12 (see docs/access-patterns.md): every Insight v1 route whose data is outside the chain (token
 * prices and lists, contract metadata from verified sources, webhooks): 501 in Insight's error format, saying why. One handler for all of them; each is a row of
 * the route table (shared/routes.ts, `notServed` holds the reason), named for the first, GetTokenPrices.
 * Listed in docs/decisions/clients.md.
 */
import { httpHandler } from '../../shared/http/handler';
import { notServedPath, notServedQuery } from '../../shared/insights/contract-schemas';
import { routes } from '../../shared/routes';

export const handler = httpHandler({
  group: 'insights',
  path: notServedPath,
  query: notServedQuery,
  handle: async ({ event }) => {
    const route = routes.find((candidate) => `${candidate.method} ${candidate.path}` === event.routeKey);
    const method = event.requestContext?.http?.method ?? route?.method ?? 'GET';
    const path = route?.path ?? event.rawPath;
    const why = route?.notServed ?? 'its data is outside the chain';
    return {
      statusCode: 501,
      body: { error: `${method} ${path} is not implemented by this service: ${why}. It serves what its ingest reads from the chain.` },
    };
  },
});
