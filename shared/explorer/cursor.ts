/**
 * Keyset cursors, as Blockscout pages: `next_page_params` carries the key of the last item served
 * (the spec's fields for each endpoint), the client sends those fields back as query parameters, and
 * they become the key condition of the next page's Query (`sk < bound` newest first). Never an
 * offset, so blocks ingested between two requests neither shift nor repeat items.
 *
 * Cursor fields come as a set: when one of an endpoint's key fields is missing, the request is a
 * first page (as Blockscout ignores incomplete paging parameters). Endpoint and range ids (E1-E6,
 * X1): see docs/access-patterns.md.
 */
import {
  addressKeys,
  compareSortKeys,
  TOKEN_TYPE_RANK,
  tokenTransferKeys,
  transactionKeys,
  uint256Key,
  type TokenStandard,
} from '../table/keys';
import type { ListedBalanceRecord, TokenTransferRecord } from '../table/records';
import type { KeysetStart, Stored } from './range-reader';
import type { TokenBalancesPageParams } from './schemas';

/** The request's own `filter`, echoed in next_page_params (E3, E4, E5). */
export const echoFilter = (filter: 'to' | 'from' | undefined) => (filter ? { filter } : {});

// ---------------------------------------------------------------------------------------------------
// E3 token transfers: (block_number, index)

/**
 * `index` of a token transfer cursor. ERC-1155 batches are flattened into one item per id, all with
 * the batch's log index, so a page may end inside a batch; the spec's two fields must then also say
 * where. A cursor at the end of a log (every transfer that is not a batch, and the last id of one)
 * is the log index, as Blockscout's; a cursor inside a batch is BATCH_CURSOR_BASE + log index x
 * 10 000 + batch position (an integer above 10^10, so the two never meet: log indexes stay below 10^6).
 */
export const BATCH_CURSOR_BASE = 10_000_000_000;
const BATCH_SPAN = 10_000;

/** The cursor of the last transfer served. Batch positions are read in descending order, 0 last. */
export function tokenTransferCursor(transfer: Pick<TokenTransferRecord, 'blockNumber' | 'logIndex' | 'batchIndex'>) {
  const index = transfer.batchIndex === 0 ? transfer.logIndex : BATCH_CURSOR_BASE + transfer.logIndex * BATCH_SPAN + transfer.batchIndex;
  return { block_number: transfer.blockNumber, index };
}

export function tokenTransferStart(query: { block_number?: number; index?: number }): KeysetStart {
  if (query.block_number === undefined || query.index === undefined) return {};
  const inBatch = query.index >= BATCH_CURSOR_BASE;
  const offset = query.index - BATCH_CURSOR_BASE;
  const logIndex = inBatch ? Math.floor(offset / BATCH_SPAN) : query.index;
  const batchPosition = inBatch ? offset % BATCH_SPAN : 0;
  return { bound: tokenTransferKeys.sortKey(query.block_number, logIndex, batchPosition) };
}

// ---------------------------------------------------------------------------------------------------
// E4 transactions: (block_number, index = position in the block)

export function transactionStart(query: { block_number?: number; index?: number }): KeysetStart {
  if (query.block_number === undefined || query.index === undefined) return {};
  return { bound: transactionKeys.sortKey(query.block_number, query.index) };
}

// ---------------------------------------------------------------------------------------------------
// E5 internal transactions: (block_number, transaction_index, index)

export function internalTransactionStart(query: { block_number?: number; transaction_index?: number; index?: number }): KeysetStart {
  if (query.block_number === undefined || query.transaction_index === undefined || query.index === undefined) return {};
  return { bound: addressKeys.internalTransactionSortKey(query.block_number, query.transaction_index, query.index) };
}

// ---------------------------------------------------------------------------------------------------
// E6 withdrawals: (index)

export function withdrawalStart(query: { index?: number }): KeysetStart {
  return query.index === undefined ? {} : { bound: addressKeys.withdrawalSortKey(query.index) };
}

// ---------------------------------------------------------------------------------------------------
// E2 NFT collections: (token_type, token_contract_address_hash), read in ascending order

export function nftCollectionStart(query: { token_type?: TokenStandard; token_contract_address_hash?: string }): KeysetStart {
  if (query.token_type === undefined || query.token_contract_address_hash === undefined) return {};
  return { bound: addressKeys.nftCollectionSortKey(query.token_type, query.token_contract_address_hash) };
}

// ---------------------------------------------------------------------------------------------------
// E1 token balances: (value, token_type, token_name)

/**
 * The X1 ranges (gsi3) are sorted by `<value, 78 digits>#<type rank>#<token name>#<contract>#<id>` (gsi3sk,
 * see addressKeys.balanceByValueSortKey) and read newest first; a cursor (value, type, name) is the
 * bound `<value>#<rank>#<name>`: the next page holds every entry below it.
 */
export function tokenBalanceBound(value: bigint, type: TokenStandard, tokenName: string | null): string {
  return `${uint256Key(value)}#${TOKEN_TYPE_RANK[type]}#${(tokenName ?? '').slice(0, 64)}`;
}

/** A token name as a cursor carries it: the ingest lists a token without a name under ''. */
const cursorTokenName = (name: string | undefined): string => (name === undefined || name === 'null' ? '' : name);

/**
 * The bound of an E1 cursor. With its `id` tie-breaker (balanceTieBreaker: the last entry's exact
 * value, contract and token id) it is the last entry's own sort key, rebuilt exactly
 * (addressKeys.balanceByValueSortKey), so the next page starts right after it, whatever ties it
 * (a cursor of Blockscout's, which breaks ties with its row id, likewise). Without `id` (a client of
 * the spec's three fields): the prefix `<value>#<rank>#<name>`.
 */
export function tokenBalanceStart(query: { value?: number; token_type?: TokenStandard; token_name?: string; id?: string }): KeysetStart {
  if (query.value === undefined || query.token_type === undefined) return {};
  const tie = query.id === undefined ? undefined : parseBalanceTieBreaker(query.id);
  if (tie) {
    return {
      bound: addressKeys.balanceByValueSortKey(tie.value, query.token_type, cursorTokenName(query.token_name), tie.token, tie.tokenId),
    };
  }
  return { bound: tokenBalanceBound(BigInt(Math.floor(query.value)), query.token_type, cursorTokenName(query.token_name)) };
}

/** E1's `id`: `<exact value>-<token contract>-<token id, empty for ERC-20 / ERC-721>` of the last entry. */
export function balanceTieBreaker(listing: Pick<ListedBalanceRecord, 'value' | 'token' | 'tokenId'>): string {
  return `${BigInt(listing.value)}-${listing.token.toLowerCase()}-${listing.tokenId ?? ''}`;
}

export function parseBalanceTieBreaker(id: string): { value: bigint; token: string; tokenId: string | null } | undefined {
  const match = /^([0-9]+)-(0x[0-9a-fA-F]{40})-([0-9]*)$/.exec(id);
  if (!match) return undefined;
  return { value: BigInt(match[1]!), token: match[2]!.toLowerCase(), tokenId: match[3] ? match[3] : null };
}

/**
 * Where an E1 page ends, with the tie-breaker: after the first `pageSize` entries, always (the
 * cursor's `id` makes its bound the last entry's exact sort key, so no tie can be skipped or
 * repeated). `value` stays the spec's JSON number (the largest double at most the last value).
 */
export function cutTokenBalancesPageExact(items: Stored<ListedBalanceRecord>[], more: boolean, pageSize: number) {
  if (items.length <= pageSize && !more) return { page: items, cursor: null };
  const page = items.slice(0, pageSize);
  const last = page.at(-1);
  if (last === undefined) return { page, cursor: null };
  return {
    page,
    cursor: {
      value: doubleAtMost(BigInt(last.value)),
      token_type: last.tokenStandard,
      token_name: last.tokenName === '' ? null : last.tokenName,
      fiat_value: null,
      id: balanceTieBreaker(last),
    },
  };
}

/** The largest double that is at most `value` (a non-negative integer), so that it prints and parses back exactly. */
export function doubleAtMost(value: bigint): number {
  const nearest = Number(value);
  if (BigInt(nearest) <= value) return nearest;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, nearest);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

type BalanceCursor = Pick<TokenBalancesPageParams, 'value' | 'token_type' | 'token_name'>;

/**
 * The spec gives `value` as a JSON number, which holds integers exactly only up to 2^53: most wei
 * balances do not fit. A cursor must still separate the last entry served (L) from the next (N):
 * its bound B must satisfy sk(N) < B <= sk(L). The value sent is the largest double at most L's
 * value; with L's type and name that makes B = `<double>#<rank>#<name>`, which is <= sk(L) always and
 * above sk(N) unless N is within the same double (or ties L on value, type and name).
 */
export function tokenBalanceSeparator(
  last: Stored<ListedBalanceRecord>,
  next: Stored<ListedBalanceRecord> | undefined,
): BalanceCursor | undefined {
  const value = doubleAtMost(BigInt(last.value));
  const bound = tokenBalanceBound(BigInt(value), last.tokenStandard, last.tokenName);
  if (next && !(compareSortKeys(next.gsi3sk, bound) < 0)) return undefined;
  return { value, token_type: last.tokenStandard, token_name: last.tokenName === '' ? null : last.tokenName };
}

/**
 * Where an E1 page ends: after the last of the first `pageSize` entries that a cursor can separate
 * from the entry after it (normally the 50th; earlier only when entries share a rounded value, or
 * value, type and name). If none can, the page is the first `pageSize` entries and the cursor the
 * last one's, which may skip the entries that tie with it (documented in docs/decisions/explorer.md).
 */
export function cutTokenBalancesPage(items: Stored<ListedBalanceRecord>[], more: boolean, pageSize: number) {
  if (items.length <= pageSize && !more) return { page: items, cursor: null };
  const limit = Math.min(pageSize, items.length);
  for (let last = limit - 1; last >= 0; last -= 1) {
    // last < limit <= items.length.
    const cursor = tokenBalanceSeparator(items[last]!, items[last + 1]);
    if (cursor) return { page: items.slice(0, last + 1), cursor };
  }
  const last = items[limit - 1];
  if (last === undefined) throw new Error('cutTokenBalancesPage: no entry to end the page on');
  return { page: items.slice(0, limit), cursor: tokenBalanceSeparator(last, undefined)! };
}
