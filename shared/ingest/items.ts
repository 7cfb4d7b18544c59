/**
 * The items a block writes that never change afterwards: each record at its canonical key and its
 * index copies, one per list range that must show it (see keys.ts for the access pattern of each).
 * Keys and values are functions of the block alone, so writing them again writes the same items
 * (and range-positions.ts numbers the entries of counted ranges the same way each time).
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
import { MAX_COPIED_DATA_BYTES, type LogRecord, type TransactionRecord } from '../table/records';

/**
 * Entries of the ranges whose size insights reads from positions (`total_items`): the blocks range
 * and the index copies of I1, I2 and I5 (see docs/access-patterns.md; range-positions.ts numbers
 * them with `pos`). Marked here, where each copy is written; other ranges stay as they are.
 */
const countedEntries = new WeakSet<object>();

/** Marks an item as an entry of a counted range (returns it). */
export function countedEntry<T extends TableItem>(item: T): T {
  countedEntries.add(item);
  return item;
}

/** Whether `item` (the very object immutableItems returned) is an entry of a counted range. */
export const isCountedEntry = (item: TableItem): boolean => countedEntries.has(item);

/** Every immutable item of a block, without duplicate keys (a self-transfer hits one `all` entry once). */
export function immutableItems(derived: DerivedBlock): TableItem[] {
  const { chainId, block } = derived;
  const items = new Map<string, TableItem>();
  const put = (key: ItemKey, record: object, counted = false): void => {
    const item: TableItem = { ...record, pk: key.pk, sk: key.sk };
    items.set(`${key.pk}\n${key.sk}`, counted ? countedEntry(item) : item);
  };
  const COUNTED = true;

  put(blockKeys.block(chainId, block.number), { ...block, ...blockKeys.blockByTime(chainId, block.timestamp, block.number) }, COUNTED);
  put(blockKeys.blockByHash(chainId, block.hash), block);

  for (const tx of derived.transactions) {
    put(transactionKeys.transaction(chainId, tx.hash), tx);
    const copy = transactionCopy(tx);
    const sk = transactionKeys.sortKey(tx.blockNumber, tx.transactionIndex);
    const touch = (address: string, direction: Direction): void => {
      put({ pk: addressKeys.transactions(chainId, address, direction).pk, sk }, copy);
      put({ pk: addressKeys.transactions(chainId, address, 'all').pk, sk }, copy);
    };
    touch(tx.from, 'from');
    if (tx.to) touch(tx.to, 'to');
    if (tx.contractAddress) touch(tx.contractAddress, 'to');
    if (tx.to && tx.methodSelector && tx.transactionTypes.includes('contract_call')) {
      put({ pk: transactionKeys.callsToContract(chainId, tx.to, tx.methodSelector).pk, sk }, copy, COUNTED);
      put({ pk: transactionKeys.callsToContract(chainId, tx.to, tx.methodSelector, tx.from).pk, sk }, copy, COUNTED);
      put({ pk: transactionKeys.callsWithSelector(chainId, tx.methodSelector).pk, sk }, copy);
    }
  }

  for (const log of derived.logs) {
    put(transactionKeys.transactionLog(chainId, log.transactionHash, log.logIndex), log);
    const copy = logCopy(log);
    const sk = logKeys.sortKey(log.blockNumber, log.logIndex);
    put({ pk: logKeys.contractLogs(chainId, log.address).pk, sk }, copy, COUNTED);
    const topic0 = log.topics[0];
    if (topic0) {
      put({ pk: logKeys.contractLogsWithTopic0(chainId, log.address, topic0).pk, sk }, copy, COUNTED);
      put({ pk: logKeys.logsWithTopic0(chainId, topic0).pk, sk }, copy);
    }
  }

  for (const transfer of derived.tokenTransfers) {
    put(transactionKeys.transactionTokenTransfer(chainId, transfer.transactionHash, transfer.logIndex, transfer.batchIndex), transfer);
    const sk = tokenTransferKeys.sortKey(transfer.blockNumber, transfer.logIndex, transfer.batchIndex);
    put({ pk: tokenTransferKeys.byToken(chainId, transfer.token).pk, sk }, transfer, COUNTED);
    // Its own standard's range and ALL (keys.ts typeSetsWritten), not every set containing it.
    const typeSets = typeSetsWritten(transfer.tokenStandard);
    const touch = (address: string, direction: Direction): void => {
      // The zero address (every mint and burn) would be one hot, unbounded partition: not indexed.
      if (isZeroAddress(address)) return;
      for (const typeSet of typeSets) {
        put({ pk: tokenTransferKeys.byAddress(chainId, address, direction, typeSet).pk, sk }, transfer, COUNTED);
        put({ pk: tokenTransferKeys.byAddress(chainId, address, 'all', typeSet).pk, sk }, transfer, COUNTED);
      }
      put({ pk: tokenTransferKeys.byAddressAndToken(chainId, address, direction, transfer.token).pk, sk }, transfer, COUNTED);
      put({ pk: tokenTransferKeys.byAddressAndToken(chainId, address, 'all', transfer.token).pk, sk }, transfer, COUNTED);
    };
    touch(transfer.from, 'from');
    touch(transfer.to, 'to');
  }

  for (const internal of derived.internalTransactions) {
    put(transactionKeys.transactionInternalTransaction(chainId, internal.transactionHash, internal.index), internal);
    const sk = addressKeys.internalTransactionSortKey(internal.blockNumber, internal.transactionIndex, internal.index);
    const touch = (address: string, direction: Direction): void => {
      put({ pk: addressKeys.internalTransactions(chainId, address, direction).pk, sk }, internal);
      put({ pk: addressKeys.internalTransactions(chainId, address, 'all').pk, sk }, internal);
    };
    touch(internal.from, 'from');
    if (internal.to) touch(internal.to, 'to');
    if (internal.createdContract) touch(internal.createdContract, 'to');
  }

  for (const withdrawal of derived.withdrawals) {
    put({ pk: addressKeys.withdrawals(chainId, withdrawal.address).pk, sk: addressKeys.withdrawalSortKey(withdrawal.index) }, withdrawal);
  }
  return [...items.values()];
}

/** A transaction as index copies carry it: calldata above 1 KB stays on the canonical item only. */
export function transactionCopy(tx: TransactionRecord): TransactionRecord {
  return tx.inputSize > MAX_COPIED_DATA_BYTES ? { ...tx, input: null, inputOmitted: true } : tx;
}

export function logCopy(log: LogRecord): LogRecord {
  const size = log.data ? (log.data.length - 2) / 2 : 0;
  return size > MAX_COPIED_DATA_BYTES ? { ...log, data: null, dataOmitted: true } : log;
}
