/**
 * Which webhooks a block's events and transactions go to. The filters of a chain's webhooks (H4, read
 * by the caller) are indexed once by what a record is looked up by: an event by its emitter and its
 * topic0, a transaction by its recipient, its sender and its selector. A record costs a few map lookups
 * and a check of the candidate filters those lookups return, however many webhooks there are; a filter
 * is a candidate only for records that have one of its addresses or signatures.
 *
 * Semantics (Insight's): an event matches `v1.events` when its emitter is one of `addresses` (if any) and
 * its topic0 is one of the `signatures` (if any) whose `params` (if any) equal its decoded values; a
 * transaction matches `v1.transactions` when its sender is one of `from_addresses` (if any), its recipient
 * one of `to_addresses` (if any), and its selector one of the `signatures` (if any), params likewise.
 * A matched signature with an ABI decodes the record for the delivery (`decoded`).
 */
import type { AbiEvent, AbiFunction } from 'viem';
import type { LogRecord, TransactionRecord } from '../table/records';
import { type DecodedCall, type DecodedEvent, decodeCall, decodeEvent, type JsonValue } from './decode';
import type { CompiledSignature, Filters } from './webhook-filters';

/** A webhook as delivery matches it (its H4 item). */
export interface WebhookFilterEntry {
  webhookId: string;
  project: string;
  filters: Filters;
  disabled: boolean;
}

/** One record a webhook is to get, with its decoding when its signature has an ABI. */
export type WebhookMatch =
  | { type: 'event'; log: LogRecord; decoded: DecodedEvent | null }
  | { type: 'transaction'; transaction: TransactionRecord; decoded: DecodedCall | null };

type EventFilter = NonNullable<Filters['events']> & { webhookId: string };
type TransactionFilter = NonNullable<Filters['transactions']> & { webhookId: string };

const add = <T>(map: Map<string, T[]>, key: string, value: T): void => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

export class WebhookIndex {
  private readonly eventsByAddress = new Map<string, EventFilter[]>();
  private readonly eventsByTopic0 = new Map<string, EventFilter[]>();
  private readonly transactionsByTo = new Map<string, TransactionFilter[]>();
  private readonly transactionsByFrom = new Map<string, TransactionFilter[]>();
  private readonly transactionsBySelector = new Map<string, TransactionFilter[]>();
  readonly size: number;

  /** `chainId`: the chain whose blocks it matches (a filter naming other chains only is left out). */
  constructor(entries: readonly WebhookFilterEntry[], chainId: number) {
    let size = 0;
    for (const entry of entries) {
      if (entry.disabled) continue;
      const onChain = (chainIds: readonly number[]) => chainIds.length === 0 || chainIds.includes(chainId);
      const events = entry.filters.events;
      if (events && onChain(events.chainIds)) {
        const filter: EventFilter = { ...events, webhookId: entry.webhookId };
        // One key per filter: its addresses when it has any (the narrowest), else its topic0s.
        if (events.addresses.length > 0) for (const address of events.addresses) add(this.eventsByAddress, address, filter);
        else for (const signature of events.signatures) add(this.eventsByTopic0, signature.hash, filter);
        size += 1;
      }
      const transactions = entry.filters.transactions;
      if (transactions && onChain(transactions.chainIds)) {
        const filter: TransactionFilter = { ...transactions, webhookId: entry.webhookId };
        if (transactions.toAddresses.length > 0)
          for (const address of transactions.toAddresses) add(this.transactionsByTo, address, filter);
        else if (transactions.fromAddresses.length > 0)
          for (const address of transactions.fromAddresses) add(this.transactionsByFrom, address, filter);
        else for (const signature of transactions.signatures) add(this.transactionsBySelector, signature.hash, filter);
        size += 1;
      }
    }
    this.size = size;
  }

  /** Every webhook each record of the block goes to, by webhook id, in the block's order (transactions, then logs). */
  match(block: { transactions: readonly TransactionRecord[]; logs: readonly LogRecord[] }): Map<string, WebhookMatch[]> {
    const matches = new Map<string, WebhookMatch[]>();
    if (this.size === 0) return matches;
    for (const transaction of block.transactions) {
      const candidates = new Set<TransactionFilter>([
        ...(transaction.to ? (this.transactionsByTo.get(transaction.to) ?? []) : []),
        ...(this.transactionsByFrom.get(transaction.from) ?? []),
        ...(transaction.methodSelector ? (this.transactionsBySelector.get(transaction.methodSelector) ?? []) : []),
      ]);
      for (const filter of candidates) {
        const outcome = matchTransaction(filter, transaction);
        if (outcome) add(matches, filter.webhookId, { type: 'transaction', transaction, decoded: outcome.decoded });
      }
    }
    for (const log of block.logs) {
      const topic0 = log.topics[0];
      const candidates = new Set<EventFilter>([
        ...(this.eventsByAddress.get(log.address) ?? []),
        ...(topic0 ? (this.eventsByTopic0.get(topic0) ?? []) : []),
      ]);
      for (const filter of candidates) {
        const outcome = matchEvent(filter, log);
        if (outcome) add(matches, filter.webhookId, { type: 'event', log, decoded: outcome.decoded });
      }
    }
    return matches;
  }
}

function matchEvent(filter: EventFilter, log: LogRecord): { decoded: DecodedEvent | null } | null {
  if (filter.addresses.length > 0 && !filter.addresses.includes(log.address)) return null;
  if (filter.signatures.length === 0) return { decoded: null };
  const topic0 = log.topics[0];
  for (const signature of filter.signatures) {
    if (signature.hash !== topic0) continue;
    if (!signature.abi) return { decoded: null };
    const decoded = decodeEvent([signature.abi as AbiEvent], log.topics, log.data);
    if (paramsMatch(signature, decoded ? { ...decoded.indexed_params, ...decoded.non_indexed_params } : null)) return { decoded };
  }
  return null;
}

function matchTransaction(filter: TransactionFilter, transaction: TransactionRecord): { decoded: DecodedCall | null } | null {
  if (filter.fromAddresses.length > 0 && !filter.fromAddresses.includes(transaction.from)) return null;
  if (filter.toAddresses.length > 0 && !(transaction.to && filter.toAddresses.includes(transaction.to))) return null;
  if (filter.signatures.length === 0) return { decoded: null };
  for (const signature of filter.signatures) {
    if (signature.hash !== transaction.methodSelector) continue;
    if (!signature.abi) return { decoded: null };
    const decoded = decodeCall(signature.abi as AbiFunction, transaction.input);
    if (paramsMatch(signature, decoded?.inputs ?? null)) return { decoded };
  }
  return null;
}

/** Whether the decoded values equal every param (hex and addresses compared without case); no params: any decoding. */
function paramsMatch(signature: CompiledSignature, values: Record<string, JsonValue> | null): boolean {
  if (!signature.params) return true;
  if (!values) return false;
  return Object.entries(signature.params).every(([name, expected]) => {
    const value = values[name];
    if (value === undefined || value === null || typeof value === 'object') return false;
    return String(value).toLowerCase() === expected.toLowerCase();
  });
}
