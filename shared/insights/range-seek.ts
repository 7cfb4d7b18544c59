/**
 * Seeking by position in a counted range (range-positions.ts numbers its entries with `pos`, 1-based,
 * in sort-key order, and writes a seek chunk (N15) of sort keys for every 32 entries), so that any
 * page costs what the first one does:
 *
 *   1. the range's positions at its block bounds: `through` = pos of the last entry at or below `to`,
 *      `below` = pos of the last entry below `from` (Limit-1 Queries, in parallel). They give the
 *      count, and the positions [low, high] of the page's entries, in either order;
 *   2. the seek chunk holding `low` (GetItem) gives the sort key of the page's first entry;
 *   3. one Query from that sort key, Limit high - low + 1: exactly the page, reversed for `desc`.
 *
 * Round trips in sequence: 2 when the chunk is fetched with the positions: an ascending page without
 * a lower block bound (low = skip + 1 is known at once), or any page of a range and bounds this
 * container has read before, whose chunk is guessed from the positions it read then (right unless the
 * range grew past a chunk boundary since; a wrong guess costs one GetItem more). Otherwise 3. Items read: the two positions, the
 * chunk and the page's own entries. A page inside the range's newest, unfinished chunk (fewer than 32
 * entries; no chunk yet) is read from the range's top instead, reading at most 31 entries above it.
 * A chunk missing where one should be (entries numbered before seek chunks existed, or a chunk of the
 * old size of 16: seek-chunk.ts seekChunkKeys) falls back to the
 * same read from whichever end of the range is nearer, under the read bound.
 */
import { getItem, queryAll, queryPage, type Item, type QueryInput } from '../db/operations';
import { blockKey, rangeKeys, SEEK_CHUNK_ENTRIES, type ItemKey } from '../table/keys';
import type { SeekChunkRecord } from '../table/records';
import { seekChunkKeys } from '../table/seek-chunk';

/** The end of every sort key of block `to`: "~" sorts after every character they hold. */
const throughBlock = (to: number): string => `${blockKey(to)}~`;

/**
 * `pos` of range `pk`'s last entry at or below block `to` (the last of all without `to`); 0 when none,
 * undefined when that entry has no position (written before positions existed). One Query, newest
 * first, Limit 1, projected to the sort key and the position.
 */
export async function lastPosition(pk: string, to: number | undefined): Promise<number | undefined> {
  if (to !== undefined && to < 0) return 0;
  const bounded = to !== undefined;
  const { items } = await queryPage<ItemKey & { pos?: unknown }>({
    KeyConditionExpression: bounded ? '#pk = :pk AND #sk <= :bound' : '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#pos': 'pos' },
    ExpressionAttributeValues: bounded ? { ':pk': pk, ':bound': throughBlock(to) } : { ':pk': pk },
    ProjectionExpression: '#sk, #pos',
    ScanIndexForward: false,
    Limit: 1,
  });
  const item = items[0];
  if (!item) return 0;
  return typeof item.pos === 'number' ? item.pos : undefined;
}

/** Positions of range `pk` at blocks [from, to]: last at or below `to`, last below `from`; undefined without `pos`. */
export async function positionsAt(
  pk: string,
  blocks: { from?: number; to?: number },
): Promise<{ through: number; below: number } | undefined> {
  const { from, to } = blocks;
  const [through, below] = await Promise.all([lastPosition(pk, to), from === undefined || from <= 0 ? 0 : lastPosition(pk, from - 1)]);
  if (through === undefined || below === undefined) return undefined;
  return { through, below: Math.min(below, through) };
}

/** The positions [low, high] of a page's entries in a range counted `below` < p <= `through`. */
function pageBounds(through: number, below: number, order: 'asc' | 'desc', skip: number, take: number): { low: number; high: number } {
  if (order === 'asc') return { low: below + skip + 1, high: Math.min(below + skip + take, through) };
  return { low: Math.max(through - skip - take + 1, below + 1), high: through - skip };
}

/** Positions this container last read per range and block bounds (a guess for the next page's chunk). */
const lastSeen = new Map<string, { through: number; below: number }>();
const LAST_SEEN_CAPACITY = 10_000;

function remember(key: string, positions: { through: number; below: number }): void {
  lastSeen.delete(key);
  lastSeen.set(key, positions);
  if (lastSeen.size > LAST_SEEN_CAPACITY) lastSeen.delete(lastSeen.keys().next().value as string);
}

/** The seek chunk holding position `position` (1-based). */
const chunkOf = (position: number): number => Math.floor((position - 1) / SEEK_CHUNK_ENTRIES);

async function readChunk(pk: string, chunk: number): Promise<SeekChunkRecord | undefined> {
  return getItem<SeekChunkRecord>(rangeKeys.seekChunk(pk, chunk));
}

export interface SeekRequest {
  pk: string;
  blocks: { from?: number; to?: number };
  order: 'asc' | 'desc';
  skip: number;
  take: number;
  /** Items a fallback read may examine (config.maxItemsReadPerChain); beyond it `tooLarge` is thrown. */
  bound: number;
  tooLarge: () => Error;
  /**
   * An entry the list leaves out (range-reader.ts RangeRead.excluded), found beside the positions, or
   * undefined: the page is mapped past it by its position (read one entry further, or one wider where
   * it falls in the page, and dropped) and the count is the range's less one. An entry without a
   * position cannot be placed: undefined is returned (the caller reads the old way).
   */
  excluded?: Promise<Item | undefined>;
}

/**
 * Entries `skip` to `skip + take` of range `pk` within block bounds, in `order`, and the range's count
 * there; undefined when the range's entries have no positions (the caller reads the old way).
 */
export async function seekPage(request: SeekRequest): Promise<{ items: Item[]; total: number } | undefined> {
  const { pk, blocks, order, skip, take } = request;
  const boundsKey = `${pk}\n${blocks.from ?? ''}\n${blocks.to ?? ''}`;
  // The first entry's chunk, fetched with the positions when it can be known or guessed: ascending
  // from the range's start it is known; otherwise guessed from the positions this container last read
  // for the same range and bounds (right while the range has not grown past a chunk boundary since).
  let early: number | undefined;
  if (order === 'asc' && (blocks.from === undefined || blocks.from <= 0)) early = chunkOf(skip + 1);
  else {
    const seen = lastSeen.get(boundsKey);
    if (seen !== undefined && seen.through - seen.below > skip) {
      const guess = chunkOf(pageBounds(seen.through, seen.below, order, skip, take).low);
      if ((guess + 1) * SEEK_CHUNK_ENTRIES <= seen.through) early = guess;
    }
  }
  const [positions, earlyChunk, excluded] = await Promise.all([
    positionsAt(pk, blocks),
    early === undefined ? undefined : readChunk(pk, early),
    request.excluded,
  ]);
  if (positions === undefined) return undefined;
  const excludedAt = excluded?.pos;
  if (excluded !== undefined && typeof excludedAt !== 'number') return undefined;
  remember(boundsKey, positions);
  const { through, below } = positions;
  // The excluded entry, when it lies within the bounds: its rank in the requested order, 0-based.
  const rank =
    typeof excludedAt === 'number' && excludedAt > below && excludedAt <= through
      ? order === 'asc'
        ? excludedAt - below - 1
        : through - excludedAt
      : undefined;
  const total = through - below - (rank === undefined ? 0 : 1);
  if (skip >= total || take <= 0) return { items: [], total };
  // The page's entries in the range with the excluded one: past it, one further; over it, one more.
  const rawSkip = rank !== undefined && rank < skip ? skip + 1 : skip;
  const rawTake = rank !== undefined && rank >= rawSkip && rank < rawSkip + take ? take + 1 : take;
  const leftOut = (items: Item[]) => (rank === undefined ? items : items.filter((item) => item.sk !== excluded!.sk));

  const { low, high } = pageBounds(through, below, order, rawSkip, rawTake);
  const chunk = chunkOf(low);
  const complete = (chunk + 1) * SEEK_CHUNK_ENTRIES <= through;
  const record = complete ? (chunk === early ? earlyChunk : await readChunk(pk, chunk)) : undefined;
  const startKey = seekChunkKeys(record)?.[(low - 1) % SEEK_CHUNK_ENTRIES];

  let ascending: Item[];
  if (startKey !== undefined) {
    ascending = (await queryAll(window(pk, startKey, blocks.to, 'asc'), { limit: high - low + 1 })).items;
  } else {
    // No chunk: the page lies in the range's unfinished chunk, or its entries predate seek chunks.
    // Read from the nearer end: the top (entries above `high` wasted) or the bottom (entries below `low`).
    const fromTop = through - low + 1;
    const fromBottom = high - below;
    if (Math.min(fromTop, fromBottom) > request.bound) throw request.tooLarge();
    if (fromTop <= fromBottom) {
      const { items } = await queryAll(window(pk, undefined, blocks.to, 'desc', blocks.from), { limit: fromTop });
      ascending = items.slice(through - high, through - low + 1).reverse(); // index i holds position through - i
    } else {
      const { items } = await queryAll(window(pk, undefined, blocks.to, 'asc', blocks.from), { limit: fromBottom });
      ascending = items.slice(low - below - 1);
    }
  }
  return { items: leftOut(order === 'asc' ? ascending : ascending.reverse()), total };
}

/** A Query of range `pk` from sort key `start` (inclusive) or block `from`, to the end of block `to`, in `order`. */
function window(pk: string, start: string | undefined, to: number | undefined, order: 'asc' | 'desc', from?: number): QueryInput {
  const values: Record<string, unknown> = { ':pk': pk };
  const lowerBound = start ?? (from !== undefined && from > 0 ? blockKey(from) : undefined);
  if (lowerBound !== undefined) values[':low'] = lowerBound;
  if (to !== undefined) values[':high'] = throughBlock(to);
  const condition =
    lowerBound !== undefined && to !== undefined
      ? ' AND sk BETWEEN :low AND :high'
      : lowerBound !== undefined
        ? ' AND sk >= :low'
        : to !== undefined
          ? ' AND sk <= :high'
          : '';
  return { KeyConditionExpression: `pk = :pk${condition}`, ExpressionAttributeValues: values, ScanIndexForward: order === 'asc' };
}
