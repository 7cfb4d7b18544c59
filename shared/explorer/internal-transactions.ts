/**
 * E5: internal transactions from or to an address (to: also the contracts it created), read from the
 * X5 range and joined with X7 (see docs/access-patterns.md).
 *
 * On a chain whose node serves no trace API (the chain's status records `traceMethod: 'none'`:
 * shared/chain-status/status.ts), no internal transaction is indexed: the answer is a 404 saying so, never
 * an empty list that would mean "none" (docs/decisions/explorer.md, "Internal transactions not indexed").
 */
import { NotFoundError } from '../errors';
import { readChainStatus } from '../chain-status/status';
import { expandInternalTransaction } from '../table/compact';
import { addressKeys, type Direction } from '../table/keys';
import type { InternalTransactionRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { echoFilter, internalTransactionStart } from './cursor';
import { measured } from './page-cost';
import { EarlyDetails, readPageDetails } from './page-details';
import { joinsOfRecords } from '../table/joins';
import { directionOf, readRange, type KeysetStart } from './range-reader';
import type { AddressRequest, InternalTransactionsQuery, InternalTransactionsResponse } from './schemas';
import { internalTransactionItem } from './serialise';

/**
 * X5: internal transactions from / to an address (`to` includes contracts it created), block, transaction
 * index, index desc; without a filter the `all` range, the union of the two that the table layer merges
 * (union-ranges.ts: two Queries in parallel, a self-call once).
 */
async function readInternalTransactions(chainId: number, address: string, direction: Direction, start: KeysetStart, early: EarlyDetails) {
  const read = await readRange<InternalTransactionRecord>(
    addressKeys.internalTransactions(chainId, address, direction).pk,
    start,
    'newest first',
    early.onColdParts,
  );
  // Items store their records compacted (shared/table/compact.ts): the whole record back.
  return { ...read, items: read.items.map((item) => expandInternalTransaction(item)) };
}

export function listInternalTransactions(
  { address, query }: AddressRequest<InternalTransactionsQuery>,
  config: ExplorerConfig,
): Promise<InternalTransactionsResponse> {
  return measured('internal-transactions', async () => {
    // The chain's capabilities (kept per container) beside the page's first read.
    const early = new EarlyDetails(config);
    const [read, status] = await Promise.all([
      readInternalTransactions(config.chainId, address, directionOf(query.filter), internalTransactionStart(query), early),
      readChainStatus(config.chainId, config.chainStatus, { cached: true }),
    ]);
    if (status.capabilities.traceMethod === 'none') {
      throw new NotFoundError(
        `internal transactions are not indexed on chain ${config.chainId}: its node serves no trace API (debug_traceBlockByNumber, trace_block)`,
      );
    }
    const page = read.items.slice(0, PAGE_SIZE);
    // Contract sides (table/joins.ts).
    const details = await readPageDetails(config, joinsOfRecords(page), early);
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
