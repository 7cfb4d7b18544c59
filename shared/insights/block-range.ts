/**
 * Turning block filters into the block range of a key condition, per chain:
 *  - block number bounds are the range itself;
 *  - a timestamp bound becomes a block bound through the block-by-time index (GSI1, N1): the first
 *    block at or after the lower bound, the last block at or before the upper one (one Query with
 *    Limit 1 each, reading one key);
 *  - a block hash becomes its block number through the block-by-hash item (N2, one GetItem).
 * No item is read and then discarded; an impossible combination is an empty range read from nowhere.
 * (The index's two lookups are the table layer's: shared/db/blocks-by-time.ts.)
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { firstBlockAtOrAfter, lastBlockAtOrBefore } from '../db/blocks-by-time';
import { getItem } from '../db/operations';
import { blockKeys } from '../table/keys';
import { equalityOf, integerBounds, type Bounds, type Filter } from './filters';

/** Inclusive block bounds, or null when nothing can match. */
export type BlockRange = { from?: number; to?: number } | null;

export interface BlockNarrowing {
  numbers?: Bounds;
  timestamps?: Bounds;
  blockHash?: string;
}

/** What the filters say about the blocks a read may cover: number and timestamp bounds, and one block's hash. */
export function blockNarrowingOf(filters: readonly Filter[]): BlockNarrowing {
  return {
    numbers: integerBounds(filters, 'block_number'),
    timestamps: integerBounds(filters, 'block_timestamp'),
    blockHash: equalityOf(filters, 'block_hash'),
  };
}

/** The block range of one chain that the narrowing filters allow. */
export async function blockRangeOf(chainId: number, narrowing: BlockNarrowing): Promise<BlockRange> {
  const { numbers, timestamps, blockHash } = narrowing;
  if (numbers?.empty || timestamps?.empty) return null;
  const [firstByTime, lastByTime, byHash] = await Promise.all([
    timestamps?.min !== undefined ? firstBlockAtOrAfter(chainId, timestamps.min) : undefined,
    timestamps?.max !== undefined ? lastBlockAtOrBefore(chainId, timestamps.max) : undefined,
    blockHash !== undefined ? blockNumberOfHash(chainId, blockHash) : undefined,
  ]);
  if (firstByTime === null || lastByTime === null || byHash === null) return null;
  const lows = [numbers?.min, firstByTime, byHash].filter((value): value is number => value !== undefined);
  const highs = [numbers?.max, lastByTime, byHash].filter((value): value is number => value !== undefined);
  const from = lows.length > 0 ? Math.max(...lows) : undefined;
  const to = highs.length > 0 ? Math.min(...highs) : undefined;
  if (from !== undefined && to !== undefined && from > to) return null;
  return { from, to };
}

/** The number of the block with this hash, or null when the chain has none. */
export async function blockNumberOfHash(chainId: number, blockHash: string): Promise<number | null> {
  const item = await getItem(blockKeys.blockByHash(chainId, blockHash), {
    ProjectionExpression: '#n',
    ExpressionAttributeNames: { '#n': 'number' },
  });
  return item ? Number(item.number) : null;
}
