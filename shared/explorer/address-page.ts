/**
 * The address page's own calls (Blockscout v2): the address object (`/addresses/{hash}`), its counters
 * (`/counters`) and its tabs' capped counts (`/tabs-counters`), from what the ingest indexes: the X7
 * address item and the per-address ranges (X1, X3, X4, X5, X6, N4). Never a node call, never a whole
 * history: every read is bounded (decisions/explorer.md, "The address page").
 */
import { checksummed } from '../chain/address';
import { readChainStatus } from '../chain-status/status';
import { getItem, queryAll, queryPage, rangeQuery } from '../db/operations';
import { coinBalanceKey, type CoinBalanceRecord, type ProxyFields } from '../table/address-state';
import { expandTransaction } from '../table/compact';
import { addressKeys, logKeys, TOKEN_STANDARDS, tokenTransferKeys, tokenTypeSetKey, type KeyRange } from '../table/keys';
import { runningTotalOf, type AddressRecord, type BalanceCountsRecord, type TransactionRecord } from '../table/records';
import { COUNTER_BOUND, type ExplorerConfig } from './config';
import { measured } from './page-cost';
import { readPageDetails } from './page-details';
import type { AddressCountersResponse, AddressDetailsResponse, AddressTabsCountersResponse } from './schemas';
import { implementationsOf, tokenObject } from './serialise';

/** Blockscout's cap of a tab's count: it counts up to 51 (50 a page, and whether one more exists). */
export const TAB_COUNT_CAP = 51;

/** The address's ranges each question reads (the `all` direction, every token standard). */
function ranges(chainId: number, address: string) {
  return {
    tokenTransfers: tokenTransferKeys.byAddress(chainId, address, 'all', tokenTypeSetKey(undefined)),
    transactions: addressKeys.transactions(chainId, address, 'all'),
    internalTransactionsFrom: addressKeys.internalTransactions(chainId, address, 'from'),
    internalTransactionsTo: addressKeys.internalTransactions(chainId, address, 'to'),
    withdrawals: addressKeys.withdrawals(chainId, address),
    logs: logKeys.contractLogs(chainId, address),
  };
}

/** Up to `cap` entries of a range, counted (Select COUNT, one Query of at most `cap` items). */
async function countUpTo(range: KeyRange, cap: number): Promise<number> {
  const page = await queryPage({ ...rangeQuery(range), Select: 'COUNT', Limit: cap });
  return page.count;
}

/** A range's newest entry (a Limit-1 Query newest first; of a union, as the union's entry), if any. */
async function newestEntryOf(range: KeyRange): Promise<Record<string, unknown> | undefined> {
  return (await queryPage<Record<string, unknown>>({ ...rangeQuery(range), ScanIndexForward: false, Limit: 1 })).items[0];
}

/**
 * Up to `cap` entries of a counted range (X3, X4 and their `all` unions, N4): its newest entry's
 * position (`pos`; of a union, the union's), one Limit-1 Query a range, where a Select COUNT of `cap`
 * reads `cap` items, whole block buckets on a busy address; a range whose newest entry has no position
 * (written before positions) is counted as before, in the same round trip's place.
 */
async function countedUpTo(range: KeyRange, cap: number): Promise<number> {
  const newest = await newestEntryOf(range);
  if (!newest) return 0;
  if (typeof newest.pos === 'number') return Math.min(newest.pos, cap);
  return countUpTo(range, cap);
}

/** The sort keys of up to `cap` entries of a range (one Query of at most `cap` items, keys only). */
async function sortKeysUpTo(range: KeyRange, cap: number): Promise<string[]> {
  const query = rangeQuery(range);
  const page = await queryPage<{ sk: string }>({
    ...query,
    ExpressionAttributeNames: { ...query.ExpressionAttributeNames, '#sortKey': 'sk' },
    ProjectionExpression: '#sortKey',
    Limit: cap,
  });
  return page.items.map((item) => item.sk);
}

/**
 * Token balances of an address, up to `cap`: the sizes of its X1 ranges (one per standard, disjoint),
 * which the ingest keeps on its X10 item (one GetItem) in the same transaction as the balances.
 */
async function countTokenBalances(chainId: number, address: string, cap: number): Promise<number> {
  const counts = await getItem<BalanceCountsRecord>(addressKeys.balanceCounts(chainId, address));
  const total = TOKEN_STANDARDS.reduce((sum, standard) => sum + Math.max(0, Number(counts?.[standard] ?? 0)), 0);
  return Math.min(cap, total);
}

/**
 * Internal transactions of an address, up to `cap`: the union of its X5 `from` and `to` ranges (a
 * self-call is in both), from the `from` range's sort keys (read in the first round) and, only when
 * `from` is short of the cap, the `to` range's (a second round trip).
 */
async function countInternalTransactionsUpTo(from: readonly string[], to: KeyRange, cap: number): Promise<number> {
  if (from.length >= cap) return cap;
  const union = new Set([...from, ...(await sortKeysUpTo(to, cap))]);
  return Math.min(cap, union.size);
}

// ---------------------------------------------------------------------------------------------------
// GET /explorer/addresses/{hash}

/**
 * The address object: `is_contract`, creator, creation transaction and token details from its X7 item
 * (none: an externally owned account, or an address no contract side the ingest met); `has_*` from one
 * Limit-1 Query per range, all in parallel with the item's read (one round trip). `coin_balance` and
 * `block_number_balance_updated_at`: the X9 item (the balance the ingest read with eth_getBalance at the
 * last block that touched the address), read in that same round; null without one (never touched, or
 * the ingest keeps no coin balances). `implementations`: the EIP-1967 implementation on a proxy's X7
 * item, named after its token name (its own X7 item: a second round trip, for proxies only);
 * `implementation_name` is that name. `has_validated_blocks` false (no range per block producer).
 */
export function getAddressDetails(address: string, config: ExplorerConfig): Promise<AddressDetailsResponse> {
  return measured('address', async () => {
    const range = ranges(config.chainId, address);
    const [details, coin, hasTokens, hasTransfers, hasLogs, hasWithdrawals] = await Promise.all([
      readPageDetails(config, { addresses: [address] }),
      getItem<CoinBalanceRecord>(coinBalanceKey(config.chainId, address)),
      // X10: the sizes of the X1 ranges (one GetItem; the ranges themselves are three, on gsi3).
      countTokenBalances(config.chainId, address, 1),
      // X3 `all`: a union range, one Query to each of its two members (four Queries with the two below).
      countUpTo(range.tokenTransfers, 1),
      countUpTo(range.logs, 1),
      countUpTo(range.withdrawals, 1),
    ]);
    const record: (AddressRecord & ProxyFields) | undefined = details.addresses.get(address);
    const implementation = record?.implementation;
    if (implementation) {
      const named = await readPageDetails(config, { addresses: [implementation] });
      for (const [known, item] of named.addresses) details.addresses.set(known, item);
    }
    const implementations = implementationsOf(record, details);
    const creationHash = record?.creationTransactionHash ?? null;
    return {
      hash: checksummed(address),
      is_contract: record?.isContract === true,
      is_verified: false,
      name: record?.tokenName ?? null,
      implementation_name: implementations[0]?.name ?? null,
      implementations,
      proxy_type: implementations.length > 0 ? ('eip1967' as const) : null,
      coin_balance: coin?.value ?? null,
      block_number_balance_updated_at: coin?.updatedAtBlock ?? null,
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
 * Blockscout's counters, exact and cheap: every range read is counted (range-positions.ts: each entry
 * carries `pos`, its 1-based position, and the running totals of its record's summed fields), so the
 * newest entry of a range answers for the whole range. One round trip of five Limit-1 Queries (the
 * `all` ranges are unions of `to` and `from`, two Queries each, their entries numbered in the union):
 *  - `token_transfers_count`: the newest X3 `all#ALL` entry's `pos` (flattened entries, each id of an
 *    ERC-1155 batch, as E3 lists them);
 *  - `transactions_count`: the newest X4 `all` entry's `pos` (sent, received, or created);
 *  - `gas_usage_count` (gas used by the transactions it sent): the newest X4 `from` entry's
 *    running total of `gasUsed` (records.ts runningTotalOf).
 * A range whose newest entry lacks them (written before positions or totals existed) falls back to a
 * read of at most COUNTER_BOUND entries: past it the count is the bound (a lower bound, named in
 * `capped`) and the gas null (Blockscout's type allows it: not known). `validations_count`: null (no
 * range per block producer is indexed).
 */
export function getAddressCounters(address: string, config: ExplorerConfig): Promise<AddressCounters> {
  return measured('counters', async () => {
    const range = ranges(config.chainId, address);
    const sentRange = addressKeys.transactions(config.chainId, address, 'from');
    const [newestTransfer, newestTransaction, newestSent] = await Promise.all([
      newestEntryOf(range.tokenTransfers),
      newestEntryOf(range.transactions),
      newestEntryOf(sentRange),
    ]);
    const capped: string[] = [];
    /** The number of entries of a range from its newest entry's position, else a bounded read. */
    const countOf = async (of: KeyRange, newest: Record<string, unknown> | undefined, name: string) => {
      if (!newest) return 0;
      if (typeof newest.pos === 'number') return newest.pos;
      const read = await queryAll(rangeQuery(of), { limit: COUNTER_BOUND + 1 });
      if (read.items.length > COUNTER_BOUND) capped.push(name);
      return Math.min(read.items.length, COUNTER_BOUND);
    };
    /** The gas the address's sent transactions used: the newest `from` entry's running total, else summed under the bound. */
    const gasOf = async (): Promise<string | null> => {
      if (!newestSent) return '0';
      const total = runningTotalOf(newestSent, 'gasUsed');
      if (total !== undefined) return total.toString();
      const read = await queryAll<Record<string, unknown>>(rangeQuery(sentRange), { limit: COUNTER_BOUND + 1 });
      if (read.items.length > COUNTER_BOUND) {
        capped.push('gas_usage_count');
        return null;
      }
      return String(read.items.map((item): TransactionRecord => expandTransaction(item)).reduce((sum, tx) => sum + BigInt(tx.gasUsed), 0n));
    };
    const [transfers, transactions, gasUsed] = await Promise.all([
      countOf(range.tokenTransfers, newestTransfer, 'token_transfers_count'),
      countOf(range.transactions, newestTransaction, 'transactions_count'),
      gasOf(),
    ]);
    return {
      counters: {
        transactions_count: String(transactions),
        token_transfers_count: String(transfers),
        gas_usage_count: gasUsed,
        validations_count: null,
      },
      capped,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// GET /explorer/addresses/{hash}/tabs-counters

/**
 * Blockscout's tab counts, each capped at 51 as Blockscout caps them, in two rounds of at most 6
 * Queries (the `all` ranges of X3 and X4 are unions: two Queries each): a counted range's (X3, X4, N4)
 * from its newest entry's position (countedUpTo: a Limit-1 Query), the others' a Select COUNT of at
 * most 51 entries. First: transactions, token transfers, the sent internal transactions'
 * sort keys and the logs, with the X10 item (token balances: the sizes of the three standards' X1
 * ranges) and the chain's status. Second: withdrawals, and the received internal transactions when
 * fewer than 51 were sent (countInternalTransactionsUpTo: the union of X5 `from` and `to`).
 * `internal_transactions_count` is null
 * on a chain whose node serves no traces (nothing indexed, as E5's 404 says), `validations_count` null
 * (no range per block producer). `logs_count`: logs the address emitted (N4), as Blockscout's Logs tab.
 */
export function getAddressTabsCounters(address: string, config: ExplorerConfig): Promise<AddressTabsCountersResponse> {
  return measured('tabs-counters', async () => {
    const range = ranges(config.chainId, address);
    const [transactions, tokenTransfers, sentInternals, logs, tokenBalances, status] = await Promise.all([
      countedUpTo(range.transactions, TAB_COUNT_CAP),
      countedUpTo(range.tokenTransfers, TAB_COUNT_CAP),
      sortKeysUpTo(range.internalTransactionsFrom, TAB_COUNT_CAP),
      countedUpTo(range.logs, TAB_COUNT_CAP),
      countTokenBalances(config.chainId, address, TAB_COUNT_CAP),
      readChainStatus(config.chainId, config.chainStatus, { cached: true }),
    ]);
    const [withdrawals, internals] = await Promise.all([
      countUpTo(range.withdrawals, TAB_COUNT_CAP),
      countInternalTransactionsUpTo(sentInternals, range.internalTransactionsTo, TAB_COUNT_CAP),
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
