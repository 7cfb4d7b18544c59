/**
 * Extension point: code that must see every ingested block (deposit detection: shared/orders/
 * deposits.ts) is a listener that the ingest's caller hands it (IngestOptions.listeners); the ingest
 * knows no listener of its own. The composition roots wire deposit detection: in process for the CLI
 * (scripts/ingest.ts) and `npm start` (scripts/start.ts); in AWS the ingest Lambda
 * (functions/ingest/ingest-chain.ts) registers the queue listener (shared/ingest/queue-listener.ts)
 * and the orders group consumes the queue (functions/orders/detect-deposits.ts).
 *
 * `blocksIngested` is called with each batch's blocks (consecutive, in block order) once their items
 * are all written and BEFORE the cursor moves past them, so delivery is at least once: if a listener
 * throws, or the process dies before the cursor moves, the blocks are ingested again and the listener
 * called again. A repair run (blocks at or below the cursor written again) delivers its blocks again
 * too (`mode: 'repair'`). Listeners must therefore be idempotent (key their effects by transaction
 * hash and log index / internal index).
 *
 * `blocksOrphaned` is called by the reorg procedure with the blocks it is about to undo (their number
 * and the hash that is no longer canonical), before their manifests are deleted and before the cursor
 * moves back: a crash repeats the call, so it must be idempotent too. The canonical blocks that
 * replace them are then delivered to `blocksIngested` as usual.
 *
 * `nftInstancesWritten` is called once a batch's state is written (advance mode only: a repair leaves
 * state alone), before the cursor moves, with the NFT instances the batch touched, their token URIs
 * as read at its last block and the URI their fetched metadata is about (the NFT metadata fetcher
 * queues the web ones not fetched yet, without a read of its own: shared/nft-metadata/listener.ts).
 * At least once, like the others.
 *
 * Listeners are called one after the other, in the order given.
 */
import type { NativeTransfer } from './derive';
import type { BlockRecord, LogRecord, TokenTransferRecord, TransactionRecord } from '../table/records';

export interface BlockIngestedEvent {
  chainId: number;
  block: BlockRecord;
  /** advance: the block moves the cursor; repair: a block at or below the cursor written again. */
  mode: 'advance' | 'repair';
  /** Native currency moved by the block's transactions and internal calls that took effect. */
  nativeTransfers: NativeTransfer[];
  /** The block's ERC-20 transfers. */
  erc20Transfers: TokenTransferRecord[];
  /** The block's transactions, as the table's canonical records (webhook delivery matches them). */
  transactions: TransactionRecord[];
  /** The block's logs, as the table's canonical records. */
  logs: LogRecord[];
}

export interface BlocksOrphanedEvent {
  chainId: number;
  /** The blocks being undone, with the hash the table held for them. */
  blocks: { number: number; hash: string }[];
}

export interface NftInstancesWrittenEvent {
  chainId: number;
  /** The batch's last block: the instances' state (owner, token URI) was read at it. */
  blockNumber: number;
  instances: {
    contract: string;
    standard: 'ERC-721' | 'ERC-1155';
    /** Decimal. */
    tokenId: string;
    /** tokenURI / uri (ERC-1155 `{id}` expanded) as read; null when the call reverted. */
    tokenUri: string | null;
    /**
     * The token URI the instance's fetched metadata (its `fetched` state, written by the NFT metadata
     * fetcher alone) was about when the ingest read the item, before writing it; null: none. A fetch
     * written since can only make it stale towards "not fetched" (a request queued twice), never the
     * other way: the fetcher writes only a state about the URI the item holds.
     */
    fetchedTokenUri: string | null;
  }[];
}

export interface IngestListener {
  blocksIngested: (events: readonly BlockIngestedEvent[]) => Promise<void> | void;
  /** Needed by a listener that writes: what it did for a block must be undone when the block is orphaned. */
  blocksOrphaned?: (event: BlocksOrphanedEvent) => Promise<void> | void;
  /** The NFT instances a batch wrote (see above). */
  nftInstancesWritten?: (event: NftInstancesWrittenEvent) => Promise<void> | void;
}

export async function notifyBlocksIngested(listeners: readonly IngestListener[], events: readonly BlockIngestedEvent[]): Promise<void> {
  for (const listener of listeners) await listener.blocksIngested(events);
}

export async function notifyBlocksOrphaned(listeners: readonly IngestListener[], event: BlocksOrphanedEvent): Promise<void> {
  if (event.blocks.length === 0) return;
  for (const listener of listeners) await listener.blocksOrphaned?.(event);
}

export async function notifyNftInstancesWritten(listeners: readonly IngestListener[], event: NftInstancesWrittenEvent): Promise<void> {
  if (event.instances.length === 0) return;
  for (const listener of listeners) await listener.nftInstancesWritten?.(event);
}
