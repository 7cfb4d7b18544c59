/**
 * E5: internal transactions from or to an address (to: also the contracts it created), read from the
 * X5 range and joined with X7 (see docs/access-patterns.md).
 */
import { addressKeys, type Direction } from '../table/keys';
import type { InternalTransactionRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { echoFilter, internalTransactionStart } from './cursor';
import { measured } from './page-cost';
import { contractSidesOf, readPageDetails } from './page-details';
import { directionOf, readRange, type KeysetStart } from './range-reader';
import type { AddressRequest, InternalTransactionsQuery, InternalTransactionsResponse } from './schemas';
import { internalTransactionItem } from './serialise';

/** X5: internal transactions from / to an address (`to` includes contracts it created), block, transaction index, index desc. */
function readInternalTransactions(chainId: number, address: string, direction: Direction, start: KeysetStart) {
  return readRange<InternalTransactionRecord>(addressKeys.internalTransactions(chainId, address, direction).pk, start, 'newest first');
}

export function listInternalTransactions(
  { address, query }: AddressRequest<InternalTransactionsQuery>,
  config: ExplorerConfig,
): Promise<InternalTransactionsResponse> {
  return measured('internal-transactions', async () => {
    const read = await readInternalTransactions(config.chainId, address, directionOf(query.filter), internalTransactionStart(query));
    const page = read.items.slice(0, PAGE_SIZE);
    const details = await readPageDetails(config, {
      addresses: page.flatMap((internal) =>
        contractSidesOf(internal, { from: internal.from, to: internal.to, created: internal.createdContract }),
      ),
    });
    const last = page.at(-1);
    return {
      items: page.map((internal) => internalTransactionItem(internal, details)),
      next_page_params:
        read.more && last
          ? {
              block_number: last.blockNumber,
              index: last.index,
              items_count: (query.items_count ?? 0) + page.length,
              transaction_index: last.transactionIndex,
              ...echoFilter(query.filter),
            }
          : null,
    };
  });
}
