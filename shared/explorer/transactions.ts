/**
 * E4: transactions from, to or creating an address, read from the X4 range and joined with X7 and
 * X8 (the indexed head, for confirmations; see docs/access-patterns.md).
 */
import { expandTransaction } from '../table/compact';
import { addressKeys, type Direction } from '../table/keys';
import type { TransactionRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { echoFilter, transactionStart } from './cursor';
import { measured } from './page-cost';
import { contractSidesOf, readPageDetails } from './page-details';
import { directionOf, readRange, type KeysetStart } from './range-reader';
import type { AddressRequest, TransactionsQuery, TransactionsResponse } from './schemas';
import { transactionItem } from './serialise';

/** X4: transactions from / to an address (`to` includes the transaction that created it), block desc, index desc. */
function readTransactions(chainId: number, address: string, direction: Direction, start: KeysetStart) {
  return readRange<TransactionRecord>(addressKeys.transactions(chainId, address, direction).pk, start, 'newest first');
}

export function listTransactions(
  { address, query }: AddressRequest<TransactionsQuery>,
  config: ExplorerConfig,
): Promise<TransactionsResponse> {
  return measured('transactions', async () => {
    const read = await readTransactions(config.chainId, address, directionOf(query.filter), transactionStart(query));
    // Items store compacted records (shared/table/compact.ts).
    const page = read.items.slice(0, PAGE_SIZE).map((item) => expandTransaction(item));
    const details = await readPageDetails(config, {
      addresses: page.flatMap((tx) => contractSidesOf(tx, { from: tx.from, to: tx.to, created: tx.contractAddress })),
      transactions: page.filter((tx) => tx.inputOmitted).map((tx) => tx.hash),
      head: page.length > 0,
    });
    const last = page.at(-1);
    return {
      items: page.map((tx) => transactionItem(tx, details)),
      next_page_params:
        read.more && last
          ? {
              block_number: last.blockNumber,
              index: last.transactionIndex,
              items_count: (query.items_count ?? 0) + page.length,
              ...echoFilter(query.filter),
            }
          : null,
    };
  });
}
