/** I4. GET /insights/v1/resolve/{input}: what a block number, hash, address, selector or signature is. */
import { httpHandler } from '../../shared/http/handler';
import { resolveInput } from '../../shared/insights/resolve';
import { REPEATABLE_PARAMETERS, resolvePath, resolveQuery, resolveResponse } from '../../shared/insights/schemas';

export const handler = httpHandler({
  group: 'insights',
  path: resolvePath,
  query: resolveQuery,
  repeatable: REPEATABLE_PARAMETERS,
  response: resolveResponse,
  handle: async ({ path, query, headers }) => ({ body: await resolveInput(path.input, query, headers.host) }),
});
