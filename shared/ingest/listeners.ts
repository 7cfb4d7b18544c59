/**
 * Extension point: code that must see every ingested block (deposit detection, later) registers a
 * listener here. A listener is called once the block's items are all written and BEFORE the cursor
 * moves past it, so delivery is at least once: if the listener throws, or the process dies before
 * the cursor moves, the block is ingested again and the listener called again. Listeners must
 * therefore be idempotent (key their effects by transaction hash and log index / internal index).
 * Blocks re-written below the cursor (a repair run) are not delivered again. A reorg does not call
 * listeners for the orphaned blocks; a listener that needs to undo something reads the block again.
 */
import type { NativeTransfer } from './derive';
import type { BlockRecord, TokenTransferRecord } from './records';

export interface BlockIngestedEvent {
  chainId: number;
  block: BlockRecord;
  /** Native currency moved by the block's transactions and internal calls that took effect. */
  nativeTransfers: NativeTransfer[];
  /** The block's ERC-20 transfers. */
  erc20Transfers: TokenTransferRecord[];
}

export type BlockIngestedListener = (event: BlockIngestedEvent) => Promise<void> | void;

const listeners = new Set<BlockIngestedListener>();

/** Registers a listener for every block ingested in this process; returns a function that removes it. */
export function onBlockIngested(listener: BlockIngestedListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function notifyBlockIngested(event: BlockIngestedEvent, extra: readonly BlockIngestedListener[] = []): Promise<void> {
  for (const listener of [...listeners, ...extra]) await listener(event);
}
