/**
 * The items a block writes that never change afterwards: each record at its canonical key and its
 * index copies, one per list range that must show it (see keys.ts for the access pattern of each).
 * A token transfer, for instance: the canonical item (N10), its token's range (N8), for an NFT
 * (a token id) that NFT's own range (N16), and each side's `to` or `from` ranges (X3 / N9; an
 * address's `all` ranges are unions of those, numbered on their entries: union-ranges.ts). Keys and values are
 * functions of the block alone, so writing them again writes the same items (and range-positions.ts
 * numbers the entries of counted ranges the same way each time). A reorg deletes exactly these
 * items: the block's manifest (G2) lists their keys, whatever the range.
 */
import {
  addressKeys,
  blockKeys,
  logKeys,
  tokenTransferKeys,
  typeSetsWritten,
  transactionKeys,
  type Direction,
  type ItemKey,
  type TableItem,
} from '../table/keys';
import { isZeroAddress } from '../chain/address';
import type { DerivedBlock } from './derive';
import { checkZeroValueCallsRetention, zeroValueCallStorage } from './zero-value-calls';
import { TABLE } from '../table/definition';
import { isHistoryRange } from '../table/cold-parts';
import { checkColdHistory, type ColdHistorySettings, historyItemTtl } from './cold-settings';
import { bucketsAround, bucketsOf, isBucketedRange } from '../table/buckets';
import { CONTRACT_SIDE, CONTRACT_SIDES_ATTRIBUTE, MAX_COPIED_DATA_BYTES, type LogRecord, type TransactionRecord } from '../table/records';
import { compactBlock, compactInternalTransaction, compactLog, compactTokenTransfer, compactTransaction } from '../table/compact';

/**
 * Entries of the ranges whose size insights reads from positions (`total_items`): the blocks range
 * and the index copies of I1, I2, I5, I6k (N16, one NFT's transfers) and I10a-I10e (X4 per-address
 * transactions, N5, N6) (see docs/access-patterns.md; range-positions.ts numbers them with `pos`).
 * Marked here, where each copy is written; other ranges stay as they are.
 */
const countedEntries = new WeakSet<object>();

/** The record a counted entry was made from (its summed fields, unpacked: range-positions.ts running totals). */
const entryRecords = new WeakMap<object, Record<string, unknown>>();

/** Marks an item as an entry of a counted range (returns it); `record`: the record it holds, packed. */
export function countedEntry<T extends TableItem>(item: T, record?: object): T {
  countedEntries.add(item);
  if (record) entryRecords.set(item, record as Record<string, unknown>);
  return item;
}

/** Whether `item` (the very object immutableItems returned) is an entry of a counted range. */
export const isCountedEntry = (item: TableItem): boolean => countedEntries.has(item);

/**
 * The record counted entry `item` (the very object immutableItems returned) was made from, whose
 * summed fields its running totals add (without unpacking, and inflating, what was just packed); undefined when not kept.
 */
export const recordOfEntry = (item: TableItem): Record<string, unknown> | undefined => entryRecords.get(item);

/**
 * A block of more transactions than this is built, numbered and written in slices of this many
 * (ingest.ts: its memory stays bounded whatever the block's size). Fixed: a clean ingest and a re-run
 * cut the same slices, so they write the same items (a bucket never spans two slices).
 */
export const SLICE_TRANSACTIONS = 1_000;

/**
 * Part of a block's items: those of its transactions `from` to `to` (indexes, `to` excluded), with the
 * block's own items (its block items, withdrawals) or not. A block's last slice holds them: its block
 * item (N1), which tells a block written from one whose manifest expired (manifest.ts), is written
 * after the whole manifest.
 */
export interface BlockSlice {
  from: number;
  to: number;
  withBlock: boolean;
}

const WHOLE_BLOCK: BlockSlice = { from: 0, to: Number.POSITIVE_INFINITY, withBlock: true };

/** Whether the block's logs and token transfers, by log index, never go back to an earlier transaction. */
function logsInTransactionOrder(derived: DerivedBlock): boolean {
  for (const records of [derived.logs, derived.tokenTransfers]) {
    const sorted = [...records].sort((a, b) => a.logIndex - b.logIndex);
    for (let index = 1; index < sorted.length; index += 1)
      if (sorted[index]!.transactionIndex < sorted[index - 1]!.transactionIndex) return false;
  }
  return true;
}

/** The item options of an ingest's or a backfill worker's settings, checked (the two must write the same items). */
export function itemOptionsOf(settings: {
  zeroValueCallsRetentionDays?: number;
  sliceTransactions?: number;
  coldHistory?: ColdHistorySettings;
}): ItemOptions {
  const coldHistory = checkColdHistory(settings.coldHistory);
  return {
    zeroValueCallsRetentionDays: checkZeroValueCallsRetention(settings.zeroValueCallsRetentionDays),
    ...(coldHistory === undefined ? {} : { coldHistory }),
    ...(settings.sliceTransactions === undefined ? {} : { sliceTransactions: settings.sliceTransactions }),
  };
}

/** The slices a block's items are built in: one (the whole block) up to SLICE_TRANSACTIONS transactions. */
export function slicesOf(derived: DerivedBlock, size: number = SLICE_TRANSACTIONS): BlockSlice[] {
  const count = derived.transactions.length;
  // Slices number a range's entries in transaction order, which is their sort-key order only while the
  // logs' indexes grow with their transactions' (as a node numbers them): otherwise the block is one slice.
  if (count <= size || !logsInTransactionOrder(derived)) return [WHOLE_BLOCK];
  const slices: BlockSlice[] = [];
  for (let from = 0; from < count; from += size) slices.push({ from, to: from + size, withBlock: from + size >= count });
  return slices;
}

/** How the ingest stores what it may keep for a while only (zero-value-calls.ts). */
export interface ItemOptions {
  /** Unset: kept; N: zero-value calls' copies expire N days after their block; 0: not stored. */
  zeroValueCallsRetentionDays?: number;
  /**
   * The cold tier (docs/decisions/cold-history.md, step 5): the items of history ranges (`isHistoryRange`:
   * records, index copies, their buckets) get a `ttl` past the window and the compaction job's margin,
   * or keep their own when it ends within the window (cold-settings.ts historyItemTtl). Unset: history
   * stays in the table for good.
   */
  coldHistory?: ColdHistorySettings;
  /**
   * A block of more transactions than this is written in slices of this many (default
   * SLICE_TRANSACTIONS). Tests set it low; the same chain must keep the same value (slices decide where
   * block buckets are cut: a block written again with another is written again whole).
   */
  sliceTransactions?: number;
}

/**
 * Every immutable item of a block, without duplicate keys.
 * Items store their record compacted for their key (shared/table/compact.ts: fields the key or other
 * fields give back are left out, the rest packed; insights checks the expanded records).
 *
 * `isContract`: whether an address is a contract as of the block (the block's chain facts,
 * block-work.ts). The explorer's copies (X3, X4, X5) record which of their sides are
 * (`CONTRACT_SIDES_ATTRIBUTE`, records.ts); the caller answers true only for addresses the batch
 * writes an address item for. Without it no side is flagged.
 */
export function immutableItems(
  derived: DerivedBlock,
  isContract: (address: string) => boolean = () => false,
  options: ItemOptions = {},
  slice: BlockSlice = WHOLE_BLOCK,
): TableItem[] {
  const { chainId, block } = derived;
  const items = new Map<string, TableItem>();
  /** Whether a record of transaction `index` is in the slice. */
  const inSlice = (index: number): boolean => index >= slice.from && index < slice.to;
  const { coldHistory } = options;
  // (Read once for the block, and only with the tier: the day it is written decides late history's expiry.)
  const writtenAt = coldHistory === undefined ? 0 : Date.now();
  const put = (key: ItemKey, stored: object, counted = false, record?: object): void => {
    const item: TableItem = { ...stored, pk: key.pk, sk: key.sk };
    if (coldHistory !== undefined && isHistoryRange(key.pk)) {
      item[TABLE.ttlAttribute] = historyItemTtl(
        derived.block.timestamp,
        coldHistory,
        item[TABLE.ttlAttribute] as number | undefined,
        writtenAt,
      );
    }
    items.set(`${key.pk}\n${key.sk}`, counted ? countedEntry(item, record) : item);
  };
  const COUNTED = true;
  /** The `cs` attribute of an explorer copy: the bits of its sides that are contracts. */
  const sides = (from: string | null, to: string | null, created: string | null = null) => ({
    [CONTRACT_SIDES_ATTRIBUTE]:
      (from && isContract(from) ? CONTRACT_SIDE.from : 0) |
      (to && isContract(to) ? CONTRACT_SIDE.to : 0) |
      (created && isContract(created) ? CONTRACT_SIDE.created : 0),
  });

  if (slice.withBlock) {
    const blockKey = blockKeys.block(chainId, block.number);
    put(blockKey, { ...compactBlock(block, blockKey), ...blockKeys.blockByTime(chainId, block.timestamp, block.number) }, COUNTED, block);
    const byHash = blockKeys.blockByHash(chainId, block.hash);
    put(byHash, compactBlock(block, byHash));
  }

  for (const tx of derived.transactions) {
    if (!inSlice(tx.transactionIndex)) continue;
    const canonical = transactionKeys.transaction(chainId, tx.hash);
    put(canonical, compactTransaction(tx, canonical));
    const copy = transactionCopy(tx);
    const sk = transactionKeys.sortKey(tx.blockNumber, tx.transactionIndex);
    const putCopy = (pk: string, counted = false, flags: object = {}) =>
      put({ pk, sk }, { ...compactTransaction(copy, { pk, sk }), ...flags }, counted, copy);
    const flags = sides(tx.from, tx.to, tx.contractAddress);
    // The address's `all` range is the union of these (union-ranges.ts): no copy of its own.
    const touch = (address: string, direction: Direction): void => {
      putCopy(addressKeys.transactions(chainId, address, direction).pk, COUNTED, flags);
    };
    touch(tx.from, 'from');
    if (tx.to) touch(tx.to, 'to');
    if (tx.contractAddress) touch(tx.contractAddress, 'to');
    if (tx.to && tx.methodSelector && tx.transactionTypes.includes('contract_call')) {
      putCopy(transactionKeys.callsToContract(chainId, tx.to, tx.methodSelector).pk, COUNTED);
      putCopy(transactionKeys.callsToContract(chainId, tx.to, tx.methodSelector, tx.from).pk, COUNTED);
      putCopy(transactionKeys.callsWithSelector(chainId, tx.methodSelector).pk, COUNTED);
    }
  }

  // A transaction's logs and token transfers: in block buckets of its partition (table/buckets.ts),
  // but a log whose copies leave its data out, which readers get by its key (insights events.ts,
  // resolve.ts): an item of its own, between buckets (a bucket holds consecutive entries only).
  const partitionEntries = new Map<string, TableItem[]>();
  const readByKey = new Set<TableItem>();
  const putInPartition = (key: ItemKey, stored: object, ownItem = false): void => {
    const entry = { ...stored, pk: key.pk, sk: key.sk } as TableItem;
    if (ownItem) readByKey.add(entry);
    const entries = partitionEntries.get(key.pk);
    if (entries) entries.push(entry);
    else partitionEntries.set(key.pk, [entry]);
  };
  for (const log of derived.logs) {
    if (!inSlice(log.transactionIndex)) continue;
    const canonical = transactionKeys.transactionLog(chainId, log.transactionHash, log.logIndex);
    const copy = logCopy(log);
    putInPartition(canonical, compactLog(log, canonical), copy.dataOmitted);
    const sk = logKeys.sortKey(log.blockNumber, log.logIndex);
    const putCopy = (pk: string, counted = false) => put({ pk, sk }, compactLog(copy, { pk, sk }), counted);
    putCopy(logKeys.contractLogs(chainId, log.address).pk, COUNTED);
    const topic0 = log.topics[0];
    if (topic0) {
      putCopy(logKeys.contractLogsWithTopic0(chainId, log.address, topic0).pk, COUNTED);
      putCopy(logKeys.logsWithTopic0(chainId, topic0).pk, COUNTED);
    }
  }

  for (const transfer of derived.tokenTransfers) {
    if (!inSlice(transfer.transactionIndex)) continue;
    const canonical = transactionKeys.transactionTokenTransfer(chainId, transfer.transactionHash, transfer.logIndex, transfer.batchIndex);
    putInPartition(canonical, compactTokenTransfer(transfer, canonical));
    const sk = tokenTransferKeys.sortKey(transfer.blockNumber, transfer.logIndex, transfer.batchIndex);
    const putCopy = (pk: string, flags: object = {}) =>
      put({ pk, sk }, { ...compactTokenTransfer(transfer, { pk, sk }), ...flags }, COUNTED, transfer);
    putCopy(tokenTransferKeys.byToken(chainId, transfer.token).pk);
    // N16: an NFT's own transfers (ERC-721, ERC-1155: a token id), numbered like N8.
    if (transfer.tokenId !== null) putCopy(tokenTransferKeys.byTokenId(chainId, transfer.token, transfer.tokenId).pk);
    // The token always has an address item (it emitted the log): only its two sides are flagged.
    const flags = sides(transfer.from, transfer.to);
    // Its own standard's range and ALL (keys.ts typeSetsWritten), not every set containing it.
    const typeSets = typeSetsWritten(transfer.tokenStandard);
    const touch = (address: string, direction: Direction): void => {
      // The zero address (every mint and burn) would be one hot, unbounded partition: not indexed.
      if (isZeroAddress(address)) return;
      // The `all` ranges are the unions of these (union-ranges.ts): no copies of their own.
      for (const typeSet of typeSets) putCopy(tokenTransferKeys.byAddress(chainId, address, direction, typeSet).pk, flags);
      putCopy(tokenTransferKeys.byAddressAndToken(chainId, address, direction, transfer.token, transfer.tokenStandard).pk, flags);
    };
    touch(transfer.from, 'from');
    touch(transfer.to, 'to');
  }

  // An internal transaction is stored in its sides' X5 ranges only (in block buckets): no canonical item in its
  // transaction's partition (issue 27, lever 10: E5 reads the copies, and a creation's copy says whether
  // it took effect, which the reorg's creation lookup asked of the transaction's calls).
  // Entries of a bucketed range: written in block buckets (table/buckets.ts), up to 8 to an item.
  const internalEntries = new Map<string, TableItem>();
  for (const internal of derived.internalTransactions) {
    if (!inSlice(internal.transactionIndex)) continue;
    const storage = zeroValueCallStorage(internal, options.zeroValueCallsRetentionDays);
    if (storage.kind === 'dropped') continue;
    const expiry = storage.kind === 'expires' ? { [TABLE.ttlAttribute]: storage.ttl } : {};
    const sk = addressKeys.internalTransactionSortKey(internal.blockNumber, internal.transactionIndex, internal.index);
    const flags = sides(internal.from, internal.to, internal.createdContract);
    // Its sides' `to` and `from` ranges only: E5 without a filter merges the two (no `all` range, issue 27).
    const touch = (address: string, direction: 'to' | 'from'): void => {
      const key = { pk: addressKeys.internalTransactions(chainId, address, direction).pk, sk };
      internalEntries.set(`${key.pk}\n${key.sk}`, { ...compactInternalTransaction(internal, key), ...flags, ...expiry, ...key });
    };
    touch(internal.from, 'from');
    if (internal.to) touch(internal.to, 'to');
    if (internal.createdContract) touch(internal.createdContract, 'to');
  }

  for (const bucket of bucketsOf([...internalEntries.values()])) put(bucket, bucket);

  for (const entries of partitionEntries.values())
    for (const item of bucketsAround(entries, (entry) => readByKey.has(entry))) put(item, item);

  for (const withdrawal of slice.withBlock ? derived.withdrawals : []) {
    put({ pk: addressKeys.withdrawals(chainId, withdrawal.address).pk, sk: addressKeys.withdrawalSortKey(withdrawal.index) }, withdrawal);
  }
  return [...items.values()];
}

/**
 * A block's numbered entries of bucketed ranges (range positions are on them now) replaced, in its
 * list, by the buckets that hold them (table/buckets.ts bucketsOf).
 */
export function bucketNumberedEntries(items: TableItem[]): void {
  const entries = items.filter((item) => isCountedEntry(item) && isBucketedRange(item.pk));
  if (entries.length === 0) return;
  const bucketed = new Set(entries);
  const kept = items.filter((item) => !bucketed.has(item));
  items.length = 0;
  for (const item of kept) items.push(item);
  for (const bucket of bucketsOf(entries)) items.push(bucket);
}

/** A transaction as index copies carry it: calldata above 1 KB stays on the canonical item only. */
export function transactionCopy(tx: TransactionRecord): TransactionRecord {
  return tx.inputSize > MAX_COPIED_DATA_BYTES ? { ...tx, input: null, inputOmitted: true } : tx;
}

export function logCopy(log: LogRecord): LogRecord {
  const size = log.data ? (log.data.length - 2) / 2 : 0;
  return size > MAX_COPIED_DATA_BYTES ? { ...log, data: null, dataOmitted: true } : log;
}
