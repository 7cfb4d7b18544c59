/**
 * I1: transactions sent to a contract calling one function, on each requested chain (N3).
 * Ranges: the (contract, selector) range, or its per-sender range with filter_from_address, or with
 * filter_hash the transaction's own item; block number / timestamp / block hash bounds are the key
 * condition. transaction_index, value, gas_price and gas are bounded checks inside that range.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { batchGetItems } from '../db/operations';
import { expandTransaction } from '../table/compact';
import { keyId, transactionKeys } from '../table/keys';
import type { TransactionRecord } from '../table/records';
import { blockNarrowingOf, blockRangeOf } from './block-range';
import type { InsightsConfig } from './config';
import { decodeCall, parseFunctionSignature } from './decode';
import { TRANSACTION_FIELDS } from './fields';
import { checksOf, collectFilters, equalityOf, TRANSACTION_FILTERS, type CheckedField, type Filter } from './filters';
import { readList, type ListPlan } from './list';
import { parseAddressOrName, resolveAddresses } from './names';
import { contractCallsRange, contractCallWithHashRange } from './queries';
import type { RangeRead } from './range-reader';
import { firstChain, listMeta, planListRequest } from './request';
import type { ContractTransactionsQuery, ContractTransactionsResponse } from './schemas';
import { serialiseTransaction } from './serialise';

/** Filters checked on the items of the narrowed range, and the record attributes they read. */
const CHECKED: Record<string, CheckedField> = {
  transaction_index: { attribute: 'transactionIndex', kind: 'number' },
  value: { attribute: 'value', kind: 'uint' },
  gas_price: { attribute: 'gasPrice', kind: 'uint' },
  gas: { attribute: 'gas', kind: 'number' },
};

export interface ContractTransactionsRequest {
  contractAddress: string;
  signature: string;
  query: ContractTransactionsQuery;
  host: string | undefined;
}

export async function listContractTransactions(
  request: ContractTransactionsRequest,
  config: InsightsConfig,
): Promise<ContractTransactionsResponse> {
  const { query } = request;
  const contract = parseAddressOrName('contractAddress', request.contractAddress);
  const { selector, abi } = parseFunctionSignature(request.signature);
  const plan = await planListRequest(query, request.host, TRANSACTION_FIELDS);
  const contracts = (await resolveAddresses({ contractAddress: contract }, plan.chainIds)).contractAddress;
  const filters = collectFilters(query, TRANSACTION_FILTERS);
  const rangeOf = (chainId: number) => callsRange(chainId, contracts.get(chainId) as string, selector, filters, plan);
  const address = contracts.get(firstChain(plan)) as string;

  const list = await readList<TransactionRecord>(plan, rangeOf, config, {
    summed: { value: 'value', gas_used: 'gasUsed' },
    fields: TRANSACTION_FIELDS,
    // Items store compacted records (shared/table/compact.ts).
    row: (item, wanted) => serialiseTransaction(expandTransaction(item, wanted)),
    position: (item) => {
      const tx = expandTransaction(item);
      return [tx.blockNumber, tx.transactionIndex];
    },
  });
  if (list.aggregations) return { meta: listMeta(plan, list.totals, address, selector), data: [], aggregations: list.aggregations };
  const records = list.records.map((item): TransactionRecord => expandTransaction(item));
  const inputs = await fullInputs(records);
  const data = records.map((tx) => {
    const input = tx.inputOmitted ? (inputs.get(keyId(transactionKeys.transaction(tx.chainId, tx.hash))) ?? null) : tx.input;
    return { ...serialiseTransaction(tx, input), decoded: query.decode && abi ? decodeCall(abi, input) : null };
  });
  return { meta: listMeta(plan, list.totals, address, selector), data, aggregations: null };
}

/** The key range (and checks) of one chain, or null when the block filters leave nothing. */
async function callsRange(
  chainId: number,
  contract: string,
  selector: string,
  filters: Filter[],
  plan: ListPlan,
): Promise<RangeRead | null> {
  const blocks = await blockRangeOf(chainId, blockNarrowingOf(filters));
  if (!blocks) return null;
  const checks = checksOf(filters, CHECKED);
  const from = equalityOf(filters, 'from_address');
  const hash = equalityOf(filters, 'hash');
  return hash
    ? contractCallWithHashRange(chainId, hash, contract, selector, from, blocks, checks, plan.sortOrder)
    : contractCallsRange(chainId, contract, selector, from, blocks, checks, plan.sortOrder);
}

/** Calldata that index copies leave out (over 1 KB), from the canonical items: one BatchGetItem. */
export async function fullInputs(records: readonly TransactionRecord[]): Promise<Map<string, string | null>> {
  const omitted = records.filter((tx) => tx.inputOmitted).map((tx) => transactionKeys.transaction(tx.chainId, tx.hash));
  if (omitted.length === 0) return new Map();
  const items = await batchGetItems(omitted);
  return new Map([...items].map(([id, item]) => [id, (item.input as string | null) ?? null]));
}
