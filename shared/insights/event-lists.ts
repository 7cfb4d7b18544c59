/**
 * I10d and I10e (see docs/access-patterns.md): Insight v1's event lists beside I2, on each requested
 * chain, from counted ranges:
 *  - I10d GET /v1/events: filter_address reads N4 (with filter_topic_0 its per-topic0 range), else
 *    filter_topic_0 reads N5 (the topic0 across contracts), else filter_transaction_hash reads the
 *    transaction's own logs; with none of them a 400 (no range holds a chain's every log);
 *  - I10e GET /v1/events/{contractAddress}/{signature}: N4 per topic0, the topic0 being the path's event
 *    signature hashed (or a 32-byte topic given as is); decode=true decodes with that signature.
 * Other filters are I2's bounded checks.
 */
import { toEventSelector, type AbiEvent } from 'viem';
import { InvalidRequestError } from '../errors';
import { logKeys, transactionKeys } from '../table/keys';
import { blockNarrowingOf, blockRangeOf } from './block-range';
import type { InsightsConfig } from './config';
import { parseSignatureItem } from './decode';
import { EVENT_FIELDS } from './fields';
import { blockChecks, checksOf, collectFilters, equalityOf, type CheckedField, type Filter, type FilterCatalogue } from './filters';
import type { ChainRanges, ListPlan } from './list';
import { ALL_EVENT_FILTERS, SIGNATURE_EVENT_FILTERS } from './list-filters';
import { parseAddressOrName, resolveAddresses, type AddressOrName } from './names';
import type { Check, RangeRead } from './range-reader';
import { firstChain, planListRequest, type ListQuery } from './request';
import type { EventsQuery, EventsResponse, SignatureEventsQuery } from './schemas';
import { readEventList } from './events';

const CHECKED: Record<string, CheckedField> = {
  transaction_index: { attribute: 'transactionIndex', kind: 'number' },
  log_index: { attribute: 'logIndex', kind: 'number' },
  topic_1: { attribute: 'topics', listIndex: 1, kind: 'string' },
  topic_2: { attribute: 'topics', listIndex: 2, kind: 'string' },
  topic_3: { attribute: 'topics', listIndex: 3, kind: 'string' },
};

const equals = (attribute: string, value: string, listIndex?: number): Check => ({
  attribute,
  listIndex,
  operator: '=',
  value,
  kind: 'string',
});

async function eventsRange(
  chainId: number,
  contract: string | undefined,
  topic0: string | undefined,
  filters: Filter[],
  plan: ListPlan,
): Promise<ChainRanges> {
  const blocks = await blockRangeOf(chainId, blockNarrowingOf(filters));
  if (!blocks) return null;
  const checks = checksOf(filters, CHECKED);
  const transactionHash = equalityOf(filters, 'transaction_hash');
  if (transactionHash) {
    const own: Check[] = [
      ...(contract ? [equals('address', contract)] : []),
      ...(topic0 ? [equals('topics', topic0, 0)] : []),
      ...blockChecks('blockNumber', blocks),
    ];
    return {
      pk: transactionKeys.transaction(chainId, transactionHash).pk,
      sk: { prefix: 'LOG#' },
      checks: [...own, ...checks],
      order: plan.sortOrder,
    };
  }
  const range = (pk: string): RangeRead => ({ pk, sk: { blocks }, checks, order: plan.sortOrder });
  if (contract)
    return range(topic0 ? logKeys.contractLogsWithTopic0(chainId, contract, topic0).pk : logKeys.contractLogs(chainId, contract).pk);
  if (topic0) return range(logKeys.logsWithTopic0(chainId, topic0).pk);
  throw new InvalidRequestError(
    'filter_address, filter_topic_0 or filter_transaction_hash: one is required (a chain’s events are listed by contract, topic 0 or transaction; no range holds all of them)',
  );
}

interface EventListRequest {
  query: ListQuery & { decode?: boolean } & Record<string, unknown>;
  host: string | undefined;
  catalogue: FilterCatalogue;
  contract?: AddressOrName;
  topic0?: string;
  /** The ABI of the path's signature (I10e), tried before the registry. */
  abi?: AbiEvent;
}

async function listEventsOf(request: EventListRequest, config: InsightsConfig): Promise<EventsResponse> {
  const { query } = request;
  const plan = await planListRequest(query, request.host, EVENT_FIELDS);
  const contracts = (await resolveAddresses({ contract: request.contract }, plan.chainIds)).contract;
  const filters = collectFilters(query, request.catalogue);
  const rangeOf = (chainId: number) => eventsRange(chainId, contracts?.get(chainId), request.topic0, filters, plan);
  const address = contracts?.get(firstChain(plan)) ?? '';
  const signature = request.topic0 ?? '';

  return readEventList(plan, rangeOf, config, { decode: query.decode, address, signature, abi: request.abi });
}

/** I10d: events of a chain by contract, topic 0 or transaction. */
export function listEvents(request: { query: EventsQuery; host: string | undefined }, config: InsightsConfig): Promise<EventsResponse> {
  const filters = collectFilters(request.query, { address: 'address', topic_0: 'topic' });
  const contract = equalityOf(filters, 'address');
  return listEventsOf(
    {
      query: request.query,
      host: request.host,
      catalogue: ALL_EVENT_FILTERS,
      contract: contract ? { address: contract } : undefined,
      topic0: equalityOf(filters, 'topic_0'),
    },
    config,
  );
}

const TOPIC = /^0x[0-9a-fA-F]{64}$/;

/** The topic0 of an I10e signature (and its ABI when it is a text signature); a 400 otherwise. */
function parseEventSignature(text: string): { topic0: string; abi?: AbiEvent } {
  if (TOPIC.test(text)) return { topic0: text.toLowerCase() };
  const abi = parseSignatureItem('event', text);
  if (abi?.type !== 'event') {
    throw new InvalidRequestError('signature: must be an event signature such as Transfer(address,address,uint256) or a 32-byte topic');
  }
  return { topic0: toEventSelector(abi), abi };
}

/** I10e: a contract's events of one signature. */
export function listSignatureEvents(
  request: { contractAddress: string; signature: string; query: SignatureEventsQuery; host: string | undefined },
  config: InsightsConfig,
): Promise<EventsResponse> {
  const contract = parseAddressOrName('contractAddress', request.contractAddress);
  const { topic0, abi } = parseEventSignature(request.signature);
  return listEventsOf({ query: request.query, host: request.host, catalogue: SIGNATURE_EVENT_FILTERS, contract, topic0, abi }, config);
}
