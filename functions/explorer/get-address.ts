/**
 * GET /explorer/addresses/{address_hash}: the address object of Blockscout v2's address page
 * (is_contract, creator, creation transaction, token details, has_* flags).
 */
import { getAddressDetails } from '../../shared/explorer/address-page';
import { loadExplorerConfig } from '../../shared/explorer/config';
import { withIndexingHeaders } from '../../shared/explorer/indexing-status';
import { addressDetailsResponse, addressPath, noQuery } from '../../shared/explorer/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = loadExplorerConfig();

export const handler = httpHandler({
  group: 'explorer',
  path: addressPath,
  query: noQuery,
  response: addressDetailsResponse,
  handle: async ({ path }) => withIndexingHeaders(config, getAddressDetails(path.address_hash, config)),
});
