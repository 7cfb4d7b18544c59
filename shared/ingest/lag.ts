/**
 * How far a chain's ingest is behind the node's head: in blocks (head - cursor) and in seconds. Worked
 * out by the scheduled Lambda for its metrics (LagBlocks, LagSeconds) and the IngestLag alarm
 * (lib/operations.ts) from the head the follow loop last read (shared/ingest/follow.ts): no call to the
 * node of its own, so publishing the metrics never holds up the next block.
 */
import type { CursorRecord } from '../table/records';

export interface IngestLag {
  blocks: number;
  seconds: number;
}

/** The head as the follow loop last read it: its number and when it was read (epoch ms). */
export interface SeenHead {
  number: number;
  seenAt: number;
}

/**
 * Undefined before the chain's first block is ingested (nothing to be behind of yet) or before the
 * head was read. Caught up (the cursor at or past the head): 0 and 0. Behind: the blocks between, and
 * the age of the cursor's block when the head was read (the head is at most a block time older than
 * that moment, so this overstates the head's timestamp minus the cursor's by at most a block time);
 * seconds undefined for a cursor without its block's timestamp.
 */
export function lagBehind(head: SeenHead | undefined, cursor: CursorRecord | undefined): Partial<IngestLag> | undefined {
  if (!cursor || !head) return undefined;
  if (cursor.blockNumber >= head.number) return { blocks: 0, seconds: 0 };
  const blocks = head.number - cursor.blockNumber;
  if (typeof cursor.blockTimestamp !== 'number') return { blocks };
  return { blocks, seconds: Math.max(0, Math.round(head.seenAt / 1000 - cursor.blockTimestamp)) };
}
