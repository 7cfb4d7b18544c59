/**
 * GET /explorer/addresses/{address_hash}/counters: Blockscout v2's address counters (transactions,
 * token transfers, gas used, validations), read cheaply; a count that stopped at its bound is named in
 * the `X-Counters-Capped` header.
 */
import { getAddressCounters } from '../../shared/explorer/address-page';
import { loadExplorerConfig } from '../../shared/explorer/config';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { addressCountersResponse, addressPath, noQuery } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: noQuery,
  response: addressCountersResponse,
  handle: async ({ path }) => {
    const { body, headers } = await withIndexingHeaders(config, getAddressCounters(path.address_hash, config));
    return {
      body: body.counters,
      headers: body.capped.length > 0 ? { ...headers, 'X-Counters-Capped': body.capped.join(',') } : headers,
    };
  },
});
