/**
 * I6s (see docs/access-patterns.md). GET /insights/v1/tokens/lookup: the indexed ERC-20 tokens carrying
 * one or more symbols (case-insensitive) on the requested chains, most holders first.
 */
import { httpHandler } from '../../shared/http/handler';
import { REPEATABLE_PARAMETERS } from '../../shared/insights/schemas';
import { lookupTokens, tokenLookupQuery, tokenLookupResponse } from '../../shared/insights/token-lookup';

export const handler = httpHandler({
  group: 'insights',
  query: tokenLookupQuery,
  repeatable: [...REPEATABLE_PARAMETERS, 'symbol'],
  response: tokenLookupResponse,
  handle: async ({ query, headers }) => ({ body: await lookupTokens({ query, host: headers.host }) }),
});
