/**
 * I2: events (logs) emitted by a contract, on each requested chain (N4). Ranges: the contract's logs,
 * or its per-topic0 range with filter_topic_0, or with filter_transaction_hash the transaction's own
 * logs; block number / timestamp / block hash bounds are the key condition. transaction_index,
 * log_index and topics 1 to 3 are bounded checks inside that range.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { batchGetItems } from '../db/operations';
import { expandLog } from '../table/compact';
import type { AbiEvent } from 'viem';
import { keyId, transactionKeys, type ItemKey } from '../table/keys';
import type { LogRecord } from '../table/records';
import { blockNarrowingOf, blockRangeOf } from './block-range';
import type { InsightsConfig } from './config';
import { decodeEvent } from './decode';
import { eventAbisOf, registryKeysOf } from './event-abis';
import { EVENT_FIELDS, withTopicFields } from './fields';
import { checksOf, collectFilters, equalityOf, EVENT_FILTERS, type CheckedField, type Filter } from './filters';
import { readList, type ChainRanges, type ListPlan } from './list';
import { parseAddressOrName, resolveAddresses } from './names';
import { contractLogsOfTransactionRange, contractLogsRange } from './queries';
import type { RangeRead } from './range-reader';
import { firstChain, listMeta, planListRequest } from './request';
import type { ContractEventsQuery, ContractEventsResponse } from './schemas';
import { serialiseEvent } from './serialise';

const CHECKED: Record<string, CheckedField> = {
  transaction_index: { attribute: 'transactionIndex', kind: 'number' },
  log_index: { attribute: 'logIndex', kind: 'number' },
  topic_1: { attribute: 'topics', listIndex: 1, kind: 'string' },
  topic_2: { attribute: 'topics', listIndex: 2, kind: 'string' },
  topic_3: { attribute: 'topics', listIndex: 3, kind: 'string' },
};

export interface ContractEventsRequest {
  contractAddress: string;
  query: ContractEventsQuery;
  host: string | undefined;
}

export async function listContractEvents(request: ContractEventsRequest, config: InsightsConfig): Promise<ContractEventsResponse> {
  const { query } = request;
  const contract = parseAddressOrName('contractAddress', request.contractAddress);
  const plan = await planListRequest(query, request.host, EVENT_FIELDS);
  const contracts = (await resolveAddresses({ contractAddress: contract }, plan.chainIds)).contractAddress;
  const filters = collectFilters(query, EVENT_FILTERS);
  const rangeOf = (chainId: number) => logsRange(chainId, contracts.get(chainId) as string, filters, plan);
  const address = contracts.get(firstChain(plan)) as string;
  const signature = equalityOf(filters, 'topic_0') ?? '';

  return readEventList(plan, rangeOf, config, { decode: query.decode, address, signature });
}

/**
 * An events page of every range `rangeOf` gives (I2, I10d, I10e): the list or its aggregations, then one
 * BatchGetItem for the data index copies leave out (over 1 KB) and the registered ABIs of the page's
 * topic0s; `abi` (a signature the request names) decodes before the registry's.
 */
export async function readEventList(
  plan: ListPlan,
  rangeOf: (chainId: number) => Promise<ChainRanges>,
  config: InsightsConfig,
  page: { decode: boolean | undefined; address: string; signature: string; abi?: AbiEvent },
) {
  const { address, signature } = page;
  const list = await readList<LogRecord>(plan, rangeOf, config, {
    summed: {},
    fields: EVENT_FIELDS,
    // Items store compacted records (shared/table/compact.ts).
    row: (item, wanted) => withTopicFields(serialiseEvent(expandLog(item, wanted))),
    position: (item) => {
      const log = expandLog(item);
      return [log.blockNumber, log.logIndex];
    },
  });
  if (list.aggregations) return { meta: listMeta(plan, list.totals, address, signature), data: [], aggregations: list.aggregations };
  const records = list.records.map((item): LogRecord => expandLog(item));
  const payloadKey = (log: LogRecord): ItemKey => transactionKeys.transactionLog(log.chainId, log.transactionHash, log.logIndex);
  const topic0s = page.decode ? records.map((log) => log.topics[0]).filter((topic): topic is string => Boolean(topic)) : [];
  const keys = [...records.filter((log) => log.dataOmitted).map(payloadKey), ...registryKeysOf(topic0s)];
  const fetched = keys.length > 0 ? await batchGetItems(keys) : new Map<string, Record<string, unknown>>();
  const data = records.map((log) => {
    const full = log.dataOmitted ? ((fetched.get(keyId(payloadKey(log)))?.data as string | undefined) ?? null) : log.data;
    const topic0 = log.topics[0];
    const abis = topic0 ? [...(page.abi ? [page.abi] : []), ...eventAbisOf(topic0, fetched)] : [];
    const decoded = page.decode && topic0 ? decodeEvent(abis, log.topics, full) : null;
    return { ...serialiseEvent(log, full), decoded };
  });
  return { meta: listMeta(plan, list.totals, address, signature), data, aggregations: null };
}

async function logsRange(chainId: number, contract: string, filters: Filter[], plan: ListPlan): Promise<RangeRead | null> {
  const blocks = await blockRangeOf(chainId, blockNarrowingOf(filters));
  if (!blocks) return null;
  const checks = checksOf(filters, CHECKED);
  const transactionHash = equalityOf(filters, 'transaction_hash');
  if (transactionHash) {
    const topic0 = equalityOf(filters, 'topic_0');
    const topicCheck = topic0
      ? [{ attribute: 'topics', listIndex: 0, operator: '=' as const, value: topic0, kind: 'string' as const }]
      : [];
    return contractLogsOfTransactionRange(chainId, transactionHash, contract, blocks, [...topicCheck, ...checks], plan.sortOrder);
  }
  return contractLogsRange(chainId, contract, equalityOf(filters, 'topic_0'), blocks, checks, plan.sortOrder);
}
