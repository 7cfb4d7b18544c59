/**
 * Extension point: code that must see every ingested block (deposit detection: shared/orders/
 * deposits.ts, registered by default in ingest.ts) registers a listener here.
 *
 * Block listeners are called once the block's items are all written and BEFORE the cursor moves
 * past it, so delivery is at least once: if a listener throws, or the process dies before the
 * cursor moves, the block is ingested again and the listener called again. A repair run (blocks at
 * or below the cursor written again) delivers its blocks again too (`mode: 'repair'`). Listeners
 * must therefore be idempotent (key their effects by transaction hash and log index / internal index).
 *
 * Orphan listeners are called by the reorg procedure with the blocks it is about to undo (their
 * number and the hash that is no longer canonical), before their manifests are deleted and before
 * the cursor moves back: a crash repeats the call, so they must be idempotent too. The canonical
 * blocks that replace them are then delivered to the block listeners as usual.
 */
import type { NativeTransfer } from './derive';
import type { BlockRecord, TokenTransferRecord } from '../table/records';

export interface BlockIngestedEvent {
  chainId: number;
  block: BlockRecord;
  /** advance: the block moves the cursor; repair: a block at or below the cursor written again. */
  mode: 'advance' | 'repair';
  /** Native currency moved by the block's transactions and internal calls that took effect. */
  nativeTransfers: NativeTransfer[];
  /** The block's ERC-20 transfers. */
  erc20Transfers: TokenTransferRecord[];
}

export type BlockIngestedListener = (event: BlockIngestedEvent) => Promise<void> | void;

export interface BlocksOrphanedEvent {
  chainId: number;
  /** The blocks being undone, with the hash the table held for them. */
  blocks: { number: number; hash: string }[];
}

export type BlocksOrphanedListener = (event: BlocksOrphanedEvent) => Promise<void> | void;

const listeners = new Set<BlockIngestedListener>();
const orphanListeners = new Set<BlocksOrphanedListener>();

/** Registers a listener for every block ingested in this process; returns a function that removes it. */
export function onBlockIngested(listener: BlockIngestedListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Registers a listener for every block a reorg undoes in this process; returns a function that removes it. */
export function onBlocksOrphaned(listener: BlocksOrphanedListener): () => void {
  orphanListeners.add(listener);
  return () => orphanListeners.delete(listener);
}

export async function notifyBlockIngested(event: BlockIngestedEvent, extra: readonly BlockIngestedListener[] = []): Promise<void> {
  for (const listener of [...listeners, ...extra]) await listener(event);
}

export async function notifyBlocksOrphaned(event: BlocksOrphanedEvent, extra: readonly BlocksOrphanedListener[] = []): Promise<void> {
  if (event.blocks.length === 0) return;
  for (const listener of [...orphanListeners, ...extra]) await listener(event);
}
