/**
 * I10a to I10c (see docs/access-patterns.md): Insight v1's transaction lists beside I1, on each requested
 * chain, from ranges the ingest writes (all counted: exact totals, any page at the first page's cost):
 *  - I10a GET /v1/transactions/{contractAddress}: the contract's X4 `to` range (every transaction sent to
 *    it), less the transaction that created it, which the ingest puts there for the explorer (E4 lists
 *    it) but Insight does not count (it selects `to_address` = the contract, and a creation has none);
 *    with filter_function_selector N3 (with filter_from_address its per-sender range), as I1;
 *  - I10b GET /v1/transactions: by filter_to_address as I10a (the creation left out too), else filter_from_address (X4 `from`), else
 *    filter_function_selector alone (N6, the selector across contracts); with none of the three, a 400
 *    (no range holds a chain's every transaction: it would be one hot partition per chain);
 *  - I10c GET /v1/wallets/{wallet_address}/transactions: the wallet's X4 `all` range (from or to it).
 * Block number / timestamp / hash bounds are the key condition; every other filter (hash,
 * transaction_index, value, gas_price, gas, and a sender or selector the range does not name) is a
 * bounded check inside the range, under the read bound (400 past it), as I1's.
 */
import { getItem, queryAll, queryPage, type Item } from '../db/operations';
import { InvalidRequestError } from '../errors';
import { expandTransaction } from '../table/compact';
import { addressKeys, blockKey, keyId, transactionKeys, type Direction } from '../table/keys';
import type { AddressRecord, TransactionRecord } from '../table/records';
import { blockNarrowingOf, blockRangeOf } from './block-range';
import type { InsightsConfig } from './config';
import { TRANSACTION_FIELDS } from './fields';
import { checksOf, collectFilters, equalityOf, type CheckedField, type Filter, type FilterCatalogue } from './filters';
import { readList, type ChainRanges, type ListPlan } from './list';
import { ALL_TRANSACTION_FILTERS, CONTRACT_ALL_TRANSACTION_FILTERS, WALLET_TRANSACTION_FILTERS } from './list-filters';
import { parseAddressOrName, resolveAddresses, type AddressOrName } from './names';
import type { Check, RangeRead } from './range-reader';
import { firstChain, listMeta, planListRequest, type ListQuery } from './request';
import type { ContractAllTransactionsQuery, TransactionsQuery, TransactionsResponse, WalletTransactionsQuery } from './schemas';
import { serialiseTransaction } from './serialise';
import { fullInputs } from './transactions';

/** Filters checked inside the range, and the record attributes they read (kept on every copy read here). */
const CHECKED: Record<string, CheckedField> = {
  transaction_index: { attribute: 'transactionIndex', kind: 'number' },
  value: { attribute: 'value', kind: 'uint' },
  gas_price: { attribute: 'gasPrice', kind: 'uint' },
  gas: { attribute: 'gas', kind: 'number' },
  hash: { attribute: 'hash', kind: 'string' },
};

/** What names the range of a request: a recipient, a sender, a wallet (either side), a selector. */
interface Selection {
  to?: string;
  from?: string;
  wallet?: string;
  selector?: string;
}

const equals = (attribute: string, value: string): Check => ({ attribute, operator: '=', value, kind: 'string' });

/** The range of one chain for a selection (and the checks of what its key does not name), or null. */
async function transactionsRange(chainId: number, selection: Selection, filters: Filter[], plan: ListPlan): Promise<ChainRanges> {
  const { to, from, wallet, selector } = selection;
  // A recipient's X4 `to` range is read without the contract's creation, looked up beside the block
  // bounds and the range's first reads (the readers await it once those are sent: no round trip more).
  const creation = to !== undefined && !wallet && !selector ? creationEntry(chainId, to) : undefined;
  creation?.catch(() => undefined); // (awaited by the readers; a failure surfaces there)
  const blocks = await blockRangeOf(chainId, blockNarrowingOf(filters));
  if (!blocks) return null;
  const checks = checksOf(filters, CHECKED);
  const range = (pk: string, more: Check[] = []): RangeRead => ({
    pk,
    sk: { blocks },
    checks: [...more, ...checks],
    order: plan.sortOrder,
  });
  const x4 = (address: string, direction: Direction) => addressKeys.transactions(chainId, address, direction).pk;
  if (wallet) return range(x4(wallet, 'all'), selector ? [equals('methodSelector', selector)] : []);
  // N3: the contract's calls of one selector (from one sender: its own range).
  if (to && selector) return range(transactionKeys.callsToContract(chainId, to, selector, from).pk);
  if (to) return { ...range(x4(to, 'to'), from ? [equals('from', from)] : []), excluded: creation };
  if (from) return range(x4(from, 'from'), selector ? [equals('methodSelector', selector)] : []);
  if (selector) return range(transactionKeys.callsWithSelector(chainId, selector).pk);
  throw new InvalidRequestError(
    'filter_to_address, filter_from_address or filter_function_selector: one is required (a chain’s transactions are listed by sender, recipient or selector; no range holds all of them)',
  );
}

/**
 * The entry of `contract`'s creation in its X4 `to` range (the ingest writes a creation there, for the
 * explorer's E4), or undefined when the range holds none (a contract created by another contract, an
 * account). A transaction's own creation of an address happens once (the address comes from the
 * sender and its nonce) and before any call of the contract, so it is the range's oldest entry unless
 * transactions were sent to the address before the contract was there. One round trip, two small
 * reads in parallel: the range's oldest entry (a Query, Limit 1) and the contract's address item (X7:
 * its creation block). Only when the oldest entry is not the creation and not later than that block,
 * a second round reads the range's entries of that block (a block's few transactions to the address).
 * Creation entries carry `contractAddress` (the created contract), which no other entry of the range has.
 */
async function creationEntry(chainId: number, contract: string): Promise<Item | undefined> {
  const pk = addressKeys.transactions(chainId, contract, 'to').pk;
  const isCreation = (item: Item): boolean => item.contractAddress === contract;
  const [oldest, details] = await Promise.all([
    queryPage({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ScanIndexForward: true, Limit: 1 }),
    getItem<AddressRecord>(addressKeys.address(chainId, contract)),
  ]);
  const first = oldest.items[0];
  if (first === undefined || isCreation(first)) return first;
  const block = details?.creationBlockNumber;
  if (typeof block !== 'number' || String(first.sk) > `${blockKey(block)}~`) return undefined;
  const { items } = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :block)',
    ExpressionAttributeValues: { ':pk': pk, ':block': `${blockKey(block)}#` },
  });
  return items.find(isCreation);
}

interface TransactionListRequest {
  query: ListQuery & Record<string, unknown>;
  host: string | undefined;
  catalogue: FilterCatalogue;
  /** Path or query addresses (names allowed), resolved per chain. */
  addresses: { to?: AddressOrName; from?: AddressOrName; wallet?: AddressOrName };
  selector?: string;
  /** meta.address: which of the addresses. */
  metaAddress: 'to' | 'wallet' | 'none';
}

async function listTransactionsOf(request: TransactionListRequest, config: InsightsConfig): Promise<TransactionsResponse> {
  const { query } = request;
  const plan = await planListRequest(query, request.host, TRANSACTION_FIELDS);
  const resolved = await resolveAddresses(request.addresses, plan.chainIds);
  const filters = collectFilters(query, request.catalogue);
  const selection = (chainId: number): Selection => ({
    to: resolved.to?.get(chainId),
    from: resolved.from?.get(chainId),
    wallet: resolved.wallet?.get(chainId),
    selector: request.selector,
  });
  const rangeOf = (chainId: number) => transactionsRange(chainId, selection(chainId), filters, plan);
  const first = firstChain(plan);
  const address = request.metaAddress === 'none' ? '' : (resolved[request.metaAddress]?.get(first) ?? '');
  const signature = request.selector ?? '';

  const list = await readList<TransactionRecord>(plan, rangeOf, config, {
    summed: { value: 'value', gas_used: 'gasUsed' },
    fields: TRANSACTION_FIELDS,
    row: (item, wanted) => serialiseTransaction(expandTransaction(item, wanted)),
    position: (item) => {
      const tx = expandTransaction(item);
      return [tx.blockNumber, tx.transactionIndex];
    },
  });
  if (list.aggregations) return { meta: listMeta(plan, list.totals, address, signature), data: [], aggregations: list.aggregations };
  const records = list.records.map((item): TransactionRecord => expandTransaction(item));
  const inputs = await fullInputs(records);
  // No function ABI is known for these routes (Insight decodes with the contract's verified ABI): decoded is null.
  const data = records.map((tx) => {
    const input = tx.inputOmitted ? (inputs.get(keyId(transactionKeys.transaction(tx.chainId, tx.hash))) ?? null) : tx.input;
    return { ...serialiseTransaction(tx, input), decoded: null };
  });
  return { meta: listMeta(plan, list.totals, address, signature), data, aggregations: null };
}

/** The sender filter as an address selection (it names a range when no recipient does). */
function senderOf(query: Record<string, unknown>): AddressOrName | undefined {
  const from = equalityOf(collectFilters(query, { from_address: 'address' }), 'from_address');
  return from ? { address: from } : undefined;
}

/** I10a: every transaction sent to a contract (not its creation), or with filter_function_selector I1's range. */
export function listContractAllTransactions(
  request: { contractAddress: string; query: ContractAllTransactionsQuery; host: string | undefined },
  config: InsightsConfig,
): Promise<TransactionsResponse> {
  const { query } = request;
  return listTransactionsOf(
    {
      query,
      host: request.host,
      catalogue: CONTRACT_ALL_TRANSACTION_FILTERS,
      addresses: { to: parseAddressOrName('contractAddress', request.contractAddress), from: senderOf(query) },
      selector: query.filter_function_selector,
      metaAddress: 'to',
    },
    config,
  );
}

/** I10b: transactions of a chain by recipient, sender or selector. */
export function listAllTransactions(
  request: { query: TransactionsQuery; host: string | undefined },
  config: InsightsConfig,
): Promise<TransactionsResponse> {
  const { query } = request;
  const to = equalityOf(collectFilters(query, { to_address: 'address' }), 'to_address');
  return listTransactionsOf(
    {
      query,
      host: request.host,
      catalogue: ALL_TRANSACTION_FILTERS,
      addresses: { to: to ? { address: to } : undefined, from: senderOf(query) },
      selector: query.filter_function_selector,
      metaAddress: to ? 'to' : 'none',
    },
    config,
  );
}

/** I10c: transactions from or to a wallet. */
export function listWalletTransactions(
  request: { walletAddress: string; query: WalletTransactionsQuery; host: string | undefined },
  config: InsightsConfig,
): Promise<TransactionsResponse> {
  const { query } = request;
  return listTransactionsOf(
    {
      query,
      host: request.host,
      catalogue: WALLET_TRANSACTION_FILTERS,
      addresses: { wallet: parseAddressOrName('wallet_address', request.walletAddress) },
      selector: query.filter_function_selector,
      metaAddress: 'wallet',
    },
    config,
  );
}
