/**
 * How far a chain's ingest is behind the node's head: in blocks (head - cursor) and in seconds (the
 * head block's timestamp - the cursor block's). Read after a run by the scheduled Lambda for its
 * metrics (LagBlocks, LagSeconds) and the IngestLag alarm (lib/operations.ts).
 */
import type { ChainClient } from '../chain/client';
import type { CursorRecord } from '../table/records';

export interface IngestLag {
  blocks: number;
  seconds: number;
}

/** Undefined before the chain's first block is ingested (nothing to be behind of yet). */
export async function ingestLag(client: ChainClient, cursor: CursorRecord | undefined): Promise<IngestLag | undefined> {
  if (!cursor) return undefined;
  const [head, reached] = await Promise.all([
    client.getBlock({ blockTag: 'latest' }),
    client.getBlock({ blockNumber: BigInt(cursor.blockNumber) }),
  ]);
  return {
    blocks: Math.max(0, Number(head.number) - cursor.blockNumber),
    seconds: Math.max(0, Number(head.timestamp - reached.timestamp)),
  };
}
