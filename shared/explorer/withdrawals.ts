/** E6: withdrawals received by an address, read from the X6 range; nothing to join (see docs/access-patterns.md). */
import { addressKeys } from '../table/keys';
import type { WithdrawalRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { withdrawalStart } from './cursor';
import { measured } from './page-cost';
import { readRange } from './range-reader';
import type { AddressRequest, WithdrawalsQuery, WithdrawalsResponse } from './schemas';
import { withdrawalItem } from './serialise';

/** X6: withdrawals received by an address, index desc: one Query a page. */
export function listWithdrawals(
  { address, query }: AddressRequest<WithdrawalsQuery>,
  config: ExplorerConfig,
): Promise<WithdrawalsResponse> {
  return measured('withdrawals', async () => {
    const read = await readRange<WithdrawalRecord>(
      addressKeys.withdrawals(config.chainId, address).pk,
      withdrawalStart(query),
      'newest first',
    );
    const page = read.items.slice(0, PAGE_SIZE);
    const last = page.at(-1);
    return {
      items: page.map(withdrawalItem),
      next_page_params: read.more && last ? { index: last.index, items_count: (query.items_count ?? 0) + page.length } : null,
    };
  });
}
