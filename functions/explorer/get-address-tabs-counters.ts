/**
 * GET /explorer/addresses/{address_hash}/tabs-counters: the counts of the address page's tabs, each
 * capped at 51 as Blockscout v2 caps them.
 */
import { getAddressTabsCounters } from '../../shared/explorer/address-page';
import { loadExplorerConfig } from '../../shared/explorer/config';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { addressPath, addressTabsCountersResponse, noQuery } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: noQuery,
  response: addressTabsCountersResponse,
  handle: async ({ path }) => withIndexingHeaders(config, getAddressTabsCounters(path.address_hash, config)),
});
