/** I4 (see docs/access-patterns.md). GET /insights/v1/resolve/{input}: what a block number, hash, address, selector or signature is. */
import { httpHandler } from '../../shared/http/handler';
import { resolveInput } from '../../shared/insights/resolve';
import { REPEATABLE_PARAMETERS, resolvePath, resolveQuery, resolveResponse } from '../../shared/insights/schemas';

export const handler = httpHandler({
  group: 'insights',
  path: resolvePath,
  query: resolveQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: resolveResponse,
  handle: async ({ path, query, headers }) => ({ body: await resolveInput({ input: path.input, query, host: headers.host }) }),
});
