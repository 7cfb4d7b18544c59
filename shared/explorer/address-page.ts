/**
 * The address page's own calls (Blockscout v2): the address object (`/addresses/{hash}`), its counters
 * (`/counters`) and its tabs' capped counts (`/tabs-counters`), from what the ingest indexes: the X7
 * address item and the per-address ranges (X1, X3, X4, X5, X6, N4). Never a node call, never a whole
 * history: every read is bounded (decisions/explorer.md, "The address page").
 */
import { checksummed } from '../chain/address';
import { readChainStatus } from '../chain-status/status';
import { queryAll, queryPage, rangeQuery } from '../db/operations';
import { expandTransaction } from '../table/compact';
import { addressKeys, logKeys, tokenTransferKeys, tokenTypeSetKey, type KeyRange } from '../table/keys';
import type { TransactionRecord } from '../table/records';
import { COUNTER_BOUND, type ExplorerConfig } from './config';
import { measured } from './page-cost';
import { readPageDetails } from './page-details';
import type { AddressCountersResponse, AddressDetailsResponse, AddressTabsCountersResponse } from './schemas';
import { tokenObject } from './serialise';

/** Blockscout's cap of a tab's count: it counts up to 51 (50 a page, and whether one more exists). */
export const TAB_COUNT_CAP = 51;

/** The address's ranges each question reads (the `all` direction, every token standard). */
function ranges(chainId: number, address: string) {
  return {
    tokens: addressKeys.balancesByValue(chainId, address, tokenTypeSetKey(undefined)),
    tokenTransfers: tokenTransferKeys.byAddress(chainId, address, 'all', tokenTypeSetKey(undefined)),
    transactions: addressKeys.transactions(chainId, address, 'all'),
    internalTransactions: addressKeys.internalTransactions(chainId, address, 'all'),
    withdrawals: addressKeys.withdrawals(chainId, address),
    logs: logKeys.contractLogs(chainId, address),
  };
}

/** Up to `cap` entries of a range, counted (Select COUNT, one Query of at most `cap` items). */
async function countUpTo(range: KeyRange, cap: number): Promise<number> {
  const page = await queryPage({ ...rangeQuery(range), Select: 'COUNT', Limit: cap });
  return page.count;
}

// ---------------------------------------------------------------------------------------------------
// GET /explorer/addresses/{hash}

/**
 * The address object: `is_contract`, creator, creation transaction and token details from its X7 item
 * (none: an externally owned account, or an address no contract side the ingest met); `has_*` from one
 * Limit-1 Query per range, all in parallel with the item's read (one round trip). `coin_balance` is
 * null: the ingest keeps no native balance and the API reads no node. `implementations` is empty
 * (nothing indexed tells a proxy), `has_validated_blocks` false (no range per block producer).
 */
export function getAddressDetails(address: string, config: ExplorerConfig): Promise<AddressDetailsResponse> {
  return measured('address', async () => {
    const range = ranges(config.chainId, address);
    const [details, hasTokens, hasTransfers, hasLogs, hasWithdrawals] = await Promise.all([
      readPageDetails(config, { addresses: [address] }),
      countUpTo(range.tokens, 1),
      countUpTo(range.tokenTransfers, 1),
      countUpTo(range.logs, 1),
      countUpTo(range.withdrawals, 1),
    ]);
    const record = details.addresses.get(address);
    const creationHash = record?.creationTransactionHash ?? null;
    return {
      hash: checksummed(address),
      is_contract: record?.isContract === true,
      is_verified: false,
      name: record?.tokenName ?? null,
      implementation_name: null,
      implementations: [],
      proxy_type: null,
      coin_balance: null,
      block_number_balance_updated_at: null,
      exchange_rate: null,
      creator_address_hash: record?.creator ? checksummed(record.creator) : null,
      creation_transaction_hash: creationHash,
      creation_tx_hash: creationHash,
      ens_domain_name: null,
      metadata: null,
      token: record?.tokenType ? tokenObject(address, record.tokenType, details) : null,
      has_tokens: hasTokens > 0,
      has_token_transfers: hasTransfers > 0,
      has_logs: hasLogs > 0,
      has_validated_blocks: false,
      has_beacon_chain_withdrawals: hasWithdrawals > 0,
      watchlist_address_id: null,
      private_tags: [],
      watchlist_names: [],
      public_tags: [],
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// GET /explorer/addresses/{hash}/counters

/** Counters, and which of them stopped at COUNTER_BOUND (a lower bound: header `X-Counters-Capped`). */
export interface AddressCounters {
  counters: AddressCountersResponse;
  capped: string[];
}

/**
 * Blockscout's counters, read cheaply:
 *  - `token_transfers_count`: the X3 `all` range is a counted range (every entry carries `pos`, its
 *    1-based position: shared/ingest/range-positions.ts), so the newest entry's `pos` is the count:
 *    one Limit-1 Query. An entry without `pos` (written before positions) falls back to a bounded count.
 *  - `transactions_count` and `gas_usage_count` (gas used by the transactions it sent): the X4 range is
 *    not counted, so its entries are read, at most COUNTER_BOUND of them (one or two 1 MB Queries);
 *    past the bound `transactions_count` is the bound (a lower bound, named in `capped`) and
 *    `gas_usage_count` null (Blockscout's type allows it: not known).
 *  - `validations_count`: null (no range per block producer is indexed).
 */
export function getAddressCounters(address: string, config: ExplorerConfig): Promise<AddressCounters> {
  return measured('counters', async () => {
    const range = ranges(config.chainId, address);
    const [newestTransfer, transactions] = await Promise.all([
      queryPage<Record<string, unknown>>({ ...rangeQuery(range.tokenTransfers), ScanIndexForward: false, Limit: 1 }),
      queryAll<Record<string, unknown>>(rangeQuery(range.transactions), { limit: COUNTER_BOUND + 1 }),
    ]);
    const capped: string[] = [];
    let transfers: number;
    const newest = newestTransfer.items[0];
    if (!newest) transfers = 0;
    else if (typeof newest.pos === 'number') transfers = newest.pos;
    else {
      const counted = await queryAll(rangeQuery(range.tokenTransfers), { limit: COUNTER_BOUND + 1 });
      transfers = Math.min(counted.items.length, COUNTER_BOUND);
      if (counted.items.length > COUNTER_BOUND) capped.push('token_transfers_count');
    }
    const over = transactions.items.length > COUNTER_BOUND;
    if (over) capped.push('transactions_count', 'gas_usage_count');
    const sent = transactions.items
      .map((item): TransactionRecord => expandTransaction(item))
      .filter((tx) => tx.from.toLowerCase() === address);
    const gasUsed = sent.reduce((sum, tx) => sum + BigInt(tx.gasUsed), 0n);
    return {
      counters: {
        transactions_count: String(Math.min(transactions.items.length, COUNTER_BOUND)),
        token_transfers_count: String(transfers),
        gas_usage_count: over ? null : String(gasUsed),
        validations_count: null,
      },
      capped,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// GET /explorer/addresses/{hash}/tabs-counters

/**
 * Blockscout's tab counts, each capped at 51 as Blockscout caps them: one Select COUNT Query of at
 * most 51 entries per range, all in parallel (one round trip). `internal_transactions_count` is null
 * on a chain whose node serves no traces (nothing indexed, as E5's 404 says), `validations_count` null
 * (no range per block producer). `logs_count`: logs the address emitted (N4), as Blockscout's Logs tab.
 */
export function getAddressTabsCounters(address: string, config: ExplorerConfig): Promise<AddressTabsCountersResponse> {
  return measured('tabs-counters', async () => {
    const range = ranges(config.chainId, address);
    const [transactions, tokenTransfers, tokenBalances, internals, logs, withdrawals, status] = await Promise.all([
      countUpTo(range.transactions, TAB_COUNT_CAP),
      countUpTo(range.tokenTransfers, TAB_COUNT_CAP),
      countUpTo(range.tokens, TAB_COUNT_CAP),
      countUpTo(range.internalTransactions, TAB_COUNT_CAP),
      countUpTo(range.logs, TAB_COUNT_CAP),
      countUpTo(range.withdrawals, TAB_COUNT_CAP),
      readChainStatus(config.chainId, config.chainStatus, { cached: true }),
    ]);
    return {
      internal_transactions_count: status.capabilities.traceMethod === 'none' ? null : internals,
      logs_count: logs,
      token_balances_count: tokenBalances,
      token_transfers_count: tokenTransfers,
      transactions_count: transactions,
      validations_count: null,
      withdrawals_count: withdrawals,
    };
  });
}
