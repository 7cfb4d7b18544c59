/**
 * One function per access pattern of the insights group (ids: see docs/access-patterns.md): each
 * returns the key range (shared/table/keys.ts) a request reads, with the block bounds as its key
 * condition and any bounded checks, or reads its one item.
 */
import {
  addressKeys,
  blockKeys,
  logKeys,
  standardsToRead,
  tokenTransferKeys,
  transactionKeys,
  typeSetsToRead,
  type Direction,
  type TokenStandard,
} from '../table/keys';
import { blockChecks } from './filters';
import { readPage, type Check, type Item, type RangeRead } from './range-reader';
import type { SortOrder } from './list';

export interface BlockBounds {
  from?: number;
  to?: number;
}

/** N1: blocks of a chain by number. */
export function blocksRange(chainId: number, blocks: BlockBounds, checks: Check[], order: SortOrder): RangeRead {
  return { pk: blockKeys.blocksRange(chainId).pk, sk: { blocks }, checks, order };
}

/** N2 (I3 filter_hash): the one block with this hash, its number checked against the bounds. */
export function blockWithHashRange(chainId: number, blockHash: string, blocks: BlockBounds, order: SortOrder): RangeRead {
  return { pk: blockKeys.blockByHash(chainId, blockHash).pk, sk: { equals: 'BLOCK' }, checks: blockChecks('number', blocks), order };
}

/** N3: transactions sent to a contract with a selector (and, with filter_from_address, from one sender). */
export function contractCallsRange(
  chainId: number,
  contract: string,
  selector: string,
  from: string | undefined,
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead {
  return { pk: transactionKeys.callsToContract(chainId, contract, selector, from).pk, sk: { blocks }, checks, order };
}

/**
 * N3 with filter_hash: the transaction's own item (N2), checked to be a call of the contract and
 * selector (and the other filters): at most one item examined.
 */
export function contractCallWithHashRange(
  chainId: number,
  hash: string,
  contract: string,
  selector: string,
  from: string | undefined,
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead {
  const own: Check[] = [
    { attribute: 'to', operator: '=', value: contract, kind: 'string' },
    { attribute: 'methodSelector', operator: '=', value: selector, kind: 'string' },
    ...(from ? [{ attribute: 'from', operator: '=' as const, value: from, kind: 'string' as const }] : []),
    ...blockChecks('blockNumber', blocks),
  ];
  return { pk: transactionKeys.transaction(chainId, hash).pk, sk: { equals: 'TX' }, checks: [...own, ...checks], order };
}

/** N4: logs of a contract (with filter_topic_0: the contract's range for that topic0). */
export function contractLogsRange(
  chainId: number,
  contract: string,
  topic0: string | undefined,
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead {
  const pk = topic0 ? logKeys.contractLogsWithTopic0(chainId, contract, topic0).pk : logKeys.contractLogs(chainId, contract).pk;
  return { pk, sk: { blocks }, checks, order };
}

/** N4 with filter_transaction_hash: the transaction's logs (its own partition), checked to be the contract's. */
export function contractLogsOfTransactionRange(
  chainId: number,
  hash: string,
  contract: string,
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead {
  const own: Check[] = [{ attribute: 'address', operator: '=', value: contract, kind: 'string' }, ...blockChecks('blockNumber', blocks)];
  return { pk: transactionKeys.transaction(chainId, hash).pk, sk: { prefix: 'LOG#' }, checks: [...own, ...checks], order };
}

/** N5: the latest logs with a topic0 across contracts (resolve of an event signature). */
export function latestLogsWithTopic0(chainId: number, topic0: string, limit: number): Promise<Item[]> {
  return readPage({ pk: logKeys.logsWithTopic0(chainId, topic0).pk, checks: [], order: 'desc' }, 0, limit);
}

/** N6: the latest transactions with a selector across contracts (resolve of a selector). */
export function latestCallsWithSelector(chainId: number, selector: string, limit: number): Promise<Item[]> {
  return readPage({ pk: transactionKeys.callsWithSelector(chainId, selector).pk, checks: [], order: 'desc' }, 0, limit);
}

/** N7: the latest transactions to (contracts) or from (accounts) an address. */
export function latestTransactionsOfAddress(chainId: number, address: string, direction: Direction, limit: number): Promise<Item[]> {
  return readPage({ pk: addressKeys.transactions(chainId, address, direction).pk, checks: [], order: 'desc' }, 0, limit);
}

/** N8: token transfers of a token contract. */
export function tokenTransfersOfTokenRange(
  chainId: number,
  token: string,
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead {
  return { pk: tokenTransferKeys.byToken(chainId, token).pk, sk: { blocks }, checks, order };
}

/** N16: transfers of one NFT (an ERC-721 or ERC-1155 token id; no range for ERC-20 tokens). */
export function tokenTransfersOfTokenIdRange(
  chainId: number,
  token: string,
  tokenId: string,
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead {
  return { pk: tokenTransferKeys.byTokenId(chainId, token, tokenId).pk, sk: { blocks }, checks, order };
}

/**
 * N9: token transfers of an owner in a direction, for a set of standards (empty = all): the ALL range
 * or one standard's range, or for two standards both single-standard ranges, which the list merges
 * by sort key (keys.ts typeSetsToRead).
 */
export function tokenTransfersOfOwnerRanges(
  chainId: number,
  owner: string,
  direction: Direction,
  standards: readonly TokenStandard[],
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead[] {
  return typeSetsToRead(standards).map((typeSet) => ({
    pk: tokenTransferKeys.byAddress(chainId, owner, direction, typeSet).pk,
    sk: { blocks },
    checks,
    order,
  }));
}

/**
 * N9 with a contract: token transfers of an owner in one token, per direction, one range per standard
 * (the key carries the token's standard, keys.ts byAddressAndToken): the ranges of the standards asked
 * for (standardsToRead), so a token of another standard reads an empty range; with no standard asked
 * for, all three, of which the token's own is the only one with entries (the list merges them).
 */
export function tokenTransfersOfOwnerInTokenRanges(
  chainId: number,
  owner: string,
  direction: Direction,
  token: string,
  standards: readonly TokenStandard[],
  blocks: BlockBounds,
  checks: Check[],
  order: SortOrder,
): RangeRead[] {
  return standardsToRead(standards).map((standard) => ({
    pk: tokenTransferKeys.byAddressAndToken(chainId, owner, direction, token, standard).pk,
    sk: { blocks },
    checks,
    order,
  }));
}

/** N10: token transfers of a transaction, by log index (sort key TT#<log>#<batch>). */
export function tokenTransfersOfTransactionRange(chainId: number, hash: string, checks: Check[], order: SortOrder): RangeRead {
  const range = transactionKeys.transactionTokenTransfersRange(chainId, hash);
  return { pk: range.pk, sk: { prefix: range.skPrefix ?? 'TT#' }, checks, order };
}
