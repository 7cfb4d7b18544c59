/**
 * E1: token balances of an address (ERC-20 balances, ERC-721 holdings, ERC-1155 ids), read from the
 * X1 ranges (gsi3 of the balance items) and joined with X7 (see docs/access-patterns.md).
 */
import { addressKeys, standardsToRead, type TokenStandard } from '../table/keys';
import type { ListedBalanceRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { cutTokenBalancesPageExact, tokenBalanceStart } from './cursor';
import { measured } from './page-cost';
import { readPageDetails } from './page-details';
import { readRanges, type KeysetStart } from './range-reader';
import type { AddressRequest, TokenBalancesQuery, TokenBalancesResponse } from './schemas';
import { tokenBalanceItem } from './serialise';

/**
 * X1: token balances of a holder, value desc then type, name, contract, id (see docs/decisions/explorer.md):
 * the gsi3 range of each standard asked for (standardsToRead: without a `type`, ERC-20, ERC-721 and
 * ERC-1155, merged by sort key; each Query Limit 51, in parallel: one round trip). The cursor's bound
 * `<value>#<rank>#<name>` is a prefix of the sort keys, the same in every range.
 */
function readTokenBalances(chainId: number, holder: string, types: TokenStandard[] | undefined, start: KeysetStart) {
  const pks = standardsToRead(types).map((standard) => addressKeys.balancesByValue(chainId, holder, standard).pk);
  return readRanges<ListedBalanceRecord>(pks, start, 'newest first', 'gsi3');
}

export function listTokenBalances(
  { address, query }: AddressRequest<TokenBalancesQuery>,
  config: ExplorerConfig,
): Promise<TokenBalancesResponse> {
  return measured('tokens', async () => {
    const read = await readTokenBalances(config.chainId, address, query.type, tokenBalanceStart(query));
    const { page, cursor } = cutTokenBalancesPageExact(read.items, read.more, PAGE_SIZE);
    const details = await readPageDetails(config, {
      addresses: page.map((listing) => listing.token),
      instances: page.flatMap((listing) => (listing.tokenId === null ? [] : [{ contract: listing.token, tokenId: listing.tokenId }])),
    });
    return {
      items: page.map((listing) => tokenBalanceItem(listing, details)),
      next_page_params: cursor && { ...cursor, items_count: (query.items_count ?? 0) + page.length },
    };
  });
}
