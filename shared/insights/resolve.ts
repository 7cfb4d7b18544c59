/**
 * I4: what an input is, on the requested chains. `type` values:
 *  - `block`: a decimal number (the block with that number, N2), or a 64-hex hash of a block (N2);
 *  - `transaction`: a 64-hex hash of a transaction (N2);
 *  - `event_signature`: a 64-hex topic0 with events (its latest 20 events per chain, N5), or a text
 *    signature whose event hash has events (or, when neither hash has rows, whose name starts upper-case);
 *  - `function_signature`: a 4-byte selector (its latest 20 transactions per chain, N6), or a text
 *    signature whose selector has transactions (or, when neither has rows, whose name starts lower-case);
 *  - `contract`: an address with an address item (the ingest met it as a contract) on a chain: its
 *    latest 20 transactions to it per chain (N7);
 *  - `address`: any other address: its latest 20 transactions from it per chain (N7);
 *    a registered name (N11) resolves as its address;
 *  - `unknown`: anything else, and a 64-hex value that matches nothing; every list empty.
 * Precedence for a 64-hex value: transaction, then block, then event_signature.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { toEventSelector, toFunctionSelector, type AbiEvent, type AbiFunction } from 'viem';
import { batchGetItems } from '../db/operations';
import { expandBlock, expandLog, expandTransaction } from '../table/compact';
import { addressKeys, blockKeys, keyId, transactionKeys, type ItemKey } from '../table/keys';
import { InvalidRequestError } from '../errors';
import type { BlockRecord, LogRecord, TransactionRecord } from '../table/records';
import { selectChains } from './chains';
import { parseSignatureItem } from './decode';
import { RESOLVE_LIST_LIMIT } from './limits';
import { mergeByPosition } from './list';
import { namedAddresses } from './names';
import { latestCallsWithSelector, latestLogsWithTopic0, latestTransactionsOfAddress } from './queries';
import type { ResolveQuery, ResolveResponse, ResolveType } from './schemas';
import { serialiseBlock, serialiseEvent, serialiseTransaction } from './serialise';

interface Resolved {
  type: ResolveType;
  blocks?: BlockRecord[];
  transactions?: TransactionRecord[];
  events?: LogRecord[];
  address?: string;
  signature?: string;
}

export interface ResolveRequest {
  input: string;
  query: ResolveQuery;
  /** The Host header (its first label may name the chain). */
  host: string | undefined;
}

export async function resolveInput({ input, query, host }: ResolveRequest): Promise<ResolveResponse> {
  const text = input.trim();
  if (!text) throw new InvalidRequestError('input: must not be empty');
  const chainIds = await selectChains(query, host);
  const resolved = await classify(text, chainIds);
  const [transactions, events] = await withFullPayloads(resolved.transactions ?? [], resolved.events ?? []);
  const data = {
    type: resolved.type,
    blocks: (resolved.blocks ?? []).map(serialiseBlock),
    transactions,
    events,
    address: resolved.address ?? '',
  };
  const total = data.blocks.length + data.transactions.length + data.events.length;
  return {
    meta: {
      chain_ids: chainIds,
      address: resolved.address ?? '',
      signature: resolved.signature ?? '',
      page: 0,
      limit_per_chain: RESOLVE_LIST_LIMIT,
      total_items: total,
      total_pages: total > 0 ? 1 : 0,
    },
    data,
    aggregations: null,
  };
}

async function classify(text: string, chainIds: number[]): Promise<Resolved> {
  if (/^[0-9]{1,15}$/.test(text)) return resolveBlockNumber(Number(text), chainIds);
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) return resolveHash(text.toLowerCase(), chainIds);
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return resolveAddress(text.toLowerCase(), chainIds);
  if (/^0x[0-9a-fA-F]{8}$/.test(text)) return resolveSelector(text.toLowerCase(), chainIds);
  const event = parseSignatureItem('event', text) as AbiEvent | null;
  const fn = parseSignatureItem('function', text) as AbiFunction | null;
  if (event || fn) return resolveTextSignature(event, fn, chainIds);
  return resolveName(text, chainIds);
}

async function resolveBlockNumber(blockNumber: number, chainIds: number[]): Promise<Resolved> {
  const items = await batchGetItems(chainIds.map((chainId) => blockKeys.block(chainId, blockNumber)));
  const blocks = chainIds
    .map((chainId) => items.get(keyId(blockKeys.block(chainId, blockNumber))))
    .filter((item) => item !== undefined)
    .map((item): BlockRecord => expandBlock(item));
  return { type: 'block', blocks };
}

async function resolveHash(hash: string, chainIds: number[]): Promise<Resolved> {
  const [items, logs] = await Promise.all([
    batchGetItems(chainIds.flatMap((chainId) => [transactionKeys.transaction(chainId, hash), blockKeys.blockByHash(chainId, hash)])),
    Promise.all(chainIds.map((chainId) => latestLogsWithTopic0(chainId, hash, RESOLVE_LIST_LIMIT))),
  ]);
  const found = (key: (chainId: number) => ItemKey) =>
    chainIds.map((chainId) => items.get(keyId(key(chainId)))).filter((item) => item !== undefined);
  // Items store compacted records (shared/table/compact.ts).
  const transactions = found((chainId) => transactionKeys.transaction(chainId, hash)).map(
    (item): TransactionRecord => expandTransaction(item),
  );
  if (transactions.length > 0) return { type: 'transaction', transactions };
  const blocks = found((chainId) => blockKeys.blockByHash(chainId, hash)).map((item): BlockRecord => expandBlock(item));
  if (blocks.length > 0) return { type: 'block', blocks };
  const events = latestEvents(logs);
  if (events.length > 0) return { type: 'event_signature', events, signature: hash };
  return { type: 'unknown' };
}

async function resolveAddress(address: string, chainIds: number[]): Promise<Resolved> {
  const items = await batchGetItems(chainIds.map((chainId) => addressKeys.address(chainId, address)));
  const isContract = chainIds.some((chainId) => items.has(keyId(addressKeys.address(chainId, address))));
  const direction = isContract ? 'to' : 'from';
  const lists = await Promise.all(chainIds.map((chainId) => latestTransactionsOfAddress(chainId, address, direction, RESOLVE_LIST_LIMIT)));
  return { type: isContract ? 'contract' : 'address', transactions: latestTransactions(lists), address };
}

async function resolveSelector(selector: string, chainIds: number[]): Promise<Resolved> {
  const lists = await Promise.all(chainIds.map((chainId) => latestCallsWithSelector(chainId, selector, RESOLVE_LIST_LIMIT)));
  return { type: 'function_signature', transactions: latestTransactions(lists), signature: selector };
}

async function resolveTextSignature(event: AbiEvent | null, fn: AbiFunction | null, chainIds: number[]): Promise<Resolved> {
  const topic0 = event ? toEventSelector(event).toLowerCase() : undefined;
  const selector = fn ? toFunctionSelector(fn).toLowerCase() : undefined;
  const [logs, calls] = await Promise.all([
    topic0 ? Promise.all(chainIds.map((chainId) => latestLogsWithTopic0(chainId, topic0, RESOLVE_LIST_LIMIT))) : [],
    selector ? Promise.all(chainIds.map((chainId) => latestCallsWithSelector(chainId, selector, RESOLVE_LIST_LIMIT))) : [],
  ]);
  const events = latestEvents(logs);
  const transactions = latestTransactions(calls);
  const name = (event ?? fn)?.name ?? '';
  const asEvent = events.length > 0 || (transactions.length === 0 && topic0 !== undefined && /^[A-Z]/.test(name));
  return asEvent
    ? { type: 'event_signature', events, signature: topic0 }
    : { type: 'function_signature', transactions, signature: selector ?? '' };
}

/** A registered name (N11, through its item across chains) on any requested chain resolves as that address; otherwise unknown. */
async function resolveName(text: string, chainIds: number[]): Promise<Resolved> {
  if (!/^[^\s\p{Cc}/]{1,64}$/u.test(text)) return { type: 'unknown' };
  const addressesOf = await namedAddresses([text], chainIds);
  for (const chainId of chainIds) {
    const addresses = addressesOf(text, chainId);
    if (addresses.length === 1) return resolveAddress(addresses[0]!.toLowerCase(), chainIds);
  }
  return { type: 'unknown' };
}

function latestTransactions(lists: readonly Record<string, unknown>[][]): TransactionRecord[] {
  const chains = lists.map((items) => ({ rows: items.map((item): TransactionRecord => expandTransaction(item)) }));
  return mergeByPosition(chains, (tx) => [tx.blockNumber, tx.transactionIndex], 'desc');
}

function latestEvents(lists: readonly Record<string, unknown>[][]): LogRecord[] {
  const chains = lists.map((items) => ({ rows: items.map((item): LogRecord => expandLog(item)) }));
  return mergeByPosition(chains, (log) => [log.blockNumber, log.logIndex], 'desc');
}

/** Calldata and log data that index copies leave out, from the canonical items: one BatchGetItem. */
async function withFullPayloads(transactions: TransactionRecord[], events: LogRecord[]) {
  const txKey = (tx: TransactionRecord) => transactionKeys.transaction(tx.chainId, tx.hash);
  const logKey = (log: LogRecord) => transactionKeys.transactionLog(log.chainId, log.transactionHash, log.logIndex);
  const keys = [...transactions.filter((tx) => tx.inputOmitted).map(txKey), ...events.filter((log) => log.dataOmitted).map(logKey)];
  const items = keys.length > 0 ? await batchGetItems(keys) : new Map<string, Record<string, unknown>>();
  return [
    transactions.map((tx) =>
      serialiseTransaction(tx, tx.inputOmitted ? ((items.get(keyId(txKey(tx)))?.input as string) ?? null) : tx.input),
    ),
    events.map((log) => serialiseEvent(log, log.dataOmitted ? ((items.get(keyId(logKey(log)))?.data as string) ?? null) : log.data)),
  ] as const;
}
