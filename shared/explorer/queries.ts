/**
 * The explorer's reads: one function per access pattern of shared/design/access-patterns.md (X1-X8),
 * each on the key ranges of shared/db/keys.ts that the ingest writes. A page is one Query per key
 * range it reads (Limit 51: the 51st item says whether a next page exists), with the keyset cursor
 * turned into the key condition (`sk < bound` newest first, `sk > bound` for ascending ranges). Every
 * page reads one range, except X1, X2 and X3 with a two-standard `type` filter: two single-standard
 * ranges (keys.ts typeSetsToRead), queried with the same bound and merged by sort key (`readRanges`).
 * The details a page embeds are then joined with ONE BatchGetItem (`readPageDetails`). No Scan, no filter.
 */
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import {
  addressKeys,
  chainKeys,
  compareSortKeys,
  nftKeys,
  tokenTransferKeys,
  transactionKeys,
  typeSetsToRead,
  type Direction,
  type ItemKey,
  type TokenStandard,
} from '../table/keys';
import type {
  AddressRecord,
  BalanceListingRecord,
  CursorRecord,
  InternalTransactionRecord,
  NftCollectionRecord,
  NftInstanceRecord,
  TokenTransferRecord,
  TransactionRecord,
  WithdrawalRecord,
} from '../table/records';
import { PAGE_SIZE } from './config';
// Installs the DynamoDB call counter on the document client (pages log, tests assert, what a page costs).
import './db-calls';
import { instanceId, type PageDetails } from './serialise';

/** A record as stored: with its key. */
export type Stored<T> = T & ItemKey;

/** Up to PAGE_SIZE + 1 items of a range, and whether the range holds more than the page. */
export interface RangeRead<T> {
  items: Stored<T>[];
  /** True when items beyond the first PAGE_SIZE exist. */
  more: boolean;
}

/** Where a read starts: strictly after `bound` in the read's order; the range's start when absent. */
export interface KeysetStart {
  bound?: string;
}

export type Order = 'newest first' | 'ascending';

/** One Query: up to PAGE_SIZE + 1 items after the bound, and `cutAt`, the last sk read when the 1 MB read cap stopped it early. */
async function queryPage<T>(pk: string, start: KeysetStart, order: Order): Promise<{ items: Stored<T>[]; cutAt?: string }> {
  const descending = order === 'newest first';
  const result = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: start.bound === undefined ? 'pk = :pk' : `pk = :pk AND sk ${descending ? '<' : '>'} :bound`,
      ExpressionAttributeValues: start.bound === undefined ? { ':pk': pk } : { ':pk': pk, ':bound': start.bound },
      ScanIndexForward: !descending,
      Limit: PAGE_SIZE + 1,
    }),
  );
  const items = (result.Items ?? []) as Stored<T>[];
  // Fewer items than the Limit with a LastEvaluatedKey means the 1 MB read cap cut the page: more follow.
  const cut = result.LastEvaluatedKey !== undefined && items.length < PAGE_SIZE + 1;
  return { items, cutAt: cut ? String(result.LastEvaluatedKey!.sk) : undefined };
}


/**
 * The first PAGE_SIZE + 1 items of the union of disjoint ranges, in `order` by sort key: each range is
 * queried with the same bound and Limit (at most PAGE_SIZE + 1 items each, in parallel), and their
 * items merged. Every item of the union's first PAGE_SIZE + 1 is among its own range's first
 * PAGE_SIZE + 1, so the merge is exact; a range cut by the 1 MB cap is only known down to the last sk
 * it read, so items of the other ranges past that point wait for the next page (and `more` is set).
 * The ranges never share a sort key (their keys carry the standard: X1 and X2 its type rank, X3 the
 * log of a transfer of one standard), so nothing is deduplicated. Keys are compared as DynamoDB orders
 * them (compareSortKeys). The next page's bound is the last item served, whichever range it came from.
 */
export async function readRanges<T>(pks: readonly string[], start: KeysetStart, order: Order): Promise<RangeRead<T>> {
  const reads = await Promise.all(pks.map((pk) => queryPage<T>(pk, start, order)));
  // One range: its own order as DynamoDB returned it.
  if (reads.length === 1) return { items: reads[0].items, more: reads[0].items.length > PAGE_SIZE || reads[0].cutAt !== undefined };
  const before = (a: string, b: string): number => (order === 'newest first' ? compareSortKeys(b, a) : compareSortKeys(a, b));
  const cuts = reads.flatMap((read) => (read.cutAt === undefined ? [] : [read.cutAt]));
  // The cut nearest the bound: past it, some range has not been read.
  const known = cuts.sort(before).at(0);
  const merged = reads
    .flatMap((read) => read.items)
    .filter((item) => known === undefined || before(item.sk, known) <= 0)
    .sort((a, b) => before(a.sk, b.sk))
    .slice(0, PAGE_SIZE + 1);
  return { items: merged, more: merged.length > PAGE_SIZE || cuts.length > 0 };
}

const readRange = <T>(pk: string, start: KeysetStart, order: Order): Promise<RangeRead<T>> => readRanges<T>([pk], start, order);

/**
 * X1: token balances of a holder, value desc then type, name, contract, id (see docs/decisions/explorer.md):
 * the type-set ranges of typeSetsToRead (ALL, one standard's, or two merged). The cursor's bound
 * `<value>#<rank>#<name>` is a prefix of the sort keys, the same in every range.
 */
export function readTokenBalances(chainId: number, holder: string, types: TokenStandard[] | undefined, start: KeysetStart) {
  const pks = typeSetsToRead(types).map((typeSet) => addressKeys.balancesByValue(chainId, holder, typeSet).pk);
  return readRanges<BalanceListingRecord>(pks, start, 'newest first');
}

/** X2: NFT collections of a holder: ERC-721, then ERC-1155, then ERC-404, contract ascending (ranges as X1). */
export function readNftCollections(chainId: number, holder: string, types: TokenStandard[] | undefined, start: KeysetStart) {
  const pks = typeSetsToRead(types).map((typeSet) => addressKeys.nftCollections(chainId, holder, typeSet).pk);
  return readRanges<NftCollectionRecord>(pks, start, 'ascending');
}

export interface TokenTransferFilter {
  direction: Direction;
  types: TokenStandard[] | undefined;
  token: string | undefined;
}

/**
 * X3: token transfers touching an address, block desc then log index desc (batches flattened): the
 * range of (direction, token) when a token is given, else the (direction, type set) ranges of
 * typeSetsToRead: ALL or one standard's range (one Query), or for two standards both
 * single-standard ranges merged (two Queries). A token has one standard, so `type` with `token` is
 * checked on the items read (see listTokenTransfers).
 */
export function readTokenTransfers(chainId: number, address: string, filter: TokenTransferFilter, start: KeysetStart) {
  const pks = filter.token
    ? [tokenTransferKeys.byAddressAndToken(chainId, address, filter.direction, filter.token).pk]
    : typeSetsToRead(filter.types).map((typeSet) => tokenTransferKeys.byAddress(chainId, address, filter.direction, typeSet).pk);
  return readRanges<TokenTransferRecord>(pks, start, 'newest first');
}

/** X4: transactions from / to an address (`to` includes the transaction that created it), block desc, index desc. */
export function readTransactions(chainId: number, address: string, direction: Direction, start: KeysetStart) {
  return readRange<TransactionRecord>(addressKeys.transactions(chainId, address, direction).pk, start, 'newest first');
}

/** X5: internal transactions from / to an address (`to` includes contracts it created), block, transaction index, index desc. */
export function readInternalTransactions(chainId: number, address: string, direction: Direction, start: KeysetStart) {
  return readRange<InternalTransactionRecord>(addressKeys.internalTransactions(chainId, address, direction).pk, start, 'newest first');
}

/** X6: withdrawals received by an address, index desc. */
export function readWithdrawals(chainId: number, address: string, start: KeysetStart) {
  return readRange<WithdrawalRecord>(addressKeys.withdrawals(chainId, address).pk, start, 'newest first');
}

/** What a page needs joined to its items. */
export interface DetailsRequest {
  /** Addresses to embed (is_contract, name) and token contracts (token details). */
  addresses?: Iterable<string>;
  /** NFT instances (metadata) by contract and token id. */
  instances?: Iterable<{ contract: string; tokenId: string }>;
  /** Canonical transactions, for index copies that left out their input. */
  transactions?: Iterable<string>;
  /** The ingest cursor (X8), for confirmations. */
  head?: boolean;
}

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_LIMIT = 100;
const MAX_UNPROCESSED_ROUNDS = 5;

/**
 * X7 + X8: every detail a page embeds, in ONE BatchGetItem (more only past 100 keys, or when
 * DynamoDB returns unprocessed keys). Nothing to join: no call at all.
 */
export async function readPageDetails(chainId: number, request: DetailsRequest): Promise<PageDetails> {
  const keys = new Map<string, ItemKey>();
  const add = (key: ItemKey): void => void keys.set(`${key.pk}\n${key.sk}`, key);
  for (const address of request.addresses ?? []) add(addressKeys.address(chainId, address));
  for (const { contract, tokenId } of request.instances ?? []) add(nftKeys.instance(chainId, contract, tokenId));
  for (const hash of request.transactions ?? []) add(transactionKeys.transaction(chainId, hash));
  if (request.head) add(chainKeys.cursor(chainId));

  const details: PageDetails = { addresses: new Map(), instances: new Map(), transactions: new Map(), head: null };
  const all = [...keys.values()];
  for (let offset = 0; offset < all.length; offset += BATCH_GET_LIMIT) {
    let pending = all.slice(offset, offset + BATCH_GET_LIMIT);
    for (let round = 0; pending.length > 0; round += 1) {
      if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`BatchGetItem: ${pending.length} keys still unprocessed`);
      const table = tableName();
      const result = await db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }));
      for (const item of result.Responses?.[table] ?? []) addDetail(details, item);
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as ItemKey[];
    }
  }
  return details;
}

function addDetail(details: PageDetails, item: Record<string, unknown>): void {
  switch (item.kind) {
    case 'address': {
      const record = item as unknown as AddressRecord;
      details.addresses.set(record.address.toLowerCase(), record);
      break;
    }
    case 'nftInstance': {
      const record = item as unknown as NftInstanceRecord;
      details.instances.set(instanceId(record.contract, record.tokenId), record);
      break;
    }
    case 'transaction': {
      const record = item as unknown as TransactionRecord;
      details.transactions.set(record.hash.toLowerCase(), record);
      break;
    }
    case 'cursor':
      details.head = (item as unknown as CursorRecord).blockNumber;
      break;
  }
}
