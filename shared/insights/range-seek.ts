/**
 * Seeking by position in a counted range (range-positions.ts numbers its entries with `pos`, 1-based,
 * in sort-key order, and writes a seek chunk (N15) of sort keys for every 32 entries), so that any
 * page costs what the first one does:
 *
 *   1. the range's positions at its block bounds: `through` = pos of the last entry at or below `to`,
 *      `below` = pos of the last entry below `from` (Limit-1 Queries, in parallel). They give the
 *      count, and the positions [low, high] of the page's entries, in either order;
 *   2. the seek chunks holding `low` and `high` (GetItem, one or two) give the sort keys of the page's
 *      first and last entries; a page past the last complete chunk (in the newest, unfinished one)
 *      starts after that chunk's last key instead and reads to the range's bound;
 *   3. one Query between those keys: exactly the page, reversed for `desc`. In a range stored in
 *      block buckets (table/buckets.ts) that is the buckets holding the page (and, beside the Query,
 *      the bucket holding its first entry: db/bucket-query.ts), not a bucket for each entry.
 *
 * Round trips in sequence: 2 when the chunks are fetched with the positions: an ascending page without
 * a lower block bound (low = skip + 1 is known at once), or any page of a range and bounds this
 * container has read before, whose chunks are guessed from the positions it read then (right unless
 * the range grew past a chunk boundary since: a wrong guess of the first entry's chunk costs one
 * GetItem more, of the last's a page read to the range's bound with a Limit). Otherwise 3. Items
 * read: the two positions, the chunks and the page's own entries, plus at most 31 entries of the
 * newest, unfinished chunk where the page ends inside it.
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
  // The chunks the page's bounds need (pageChunks), fetched with the positions when they can be known
  // or guessed: ascending from the range's start they are known; otherwise guessed from the positions
  // this container last read for the same range and bounds (right while the range has not grown past
  // a chunk boundary since).
  let early: number[] = [];
  if (order === 'asc' && (blocks.from === undefined || blocks.from <= 0)) {
    early = pageChunks(Number.MAX_SAFE_INTEGER, 0, skip + 1, skip + take).needed;
  } else {
    const seen = lastSeen.get(boundsKey);
    if (seen !== undefined && seen.through - seen.below > skip) {
      const { low, high } = pageBounds(seen.through, seen.below, order, skip, take);
      early = pageChunks(seen.through, seen.below, low, high).needed;
    }
  }
  const [positions, earlyChunks, excluded] = await Promise.all([
    positionsAt(pk, blocks),
    Promise.all(early.map((chunk) => readChunk(pk, chunk))),
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
  const plan = pageChunks(through, below, low, high);
  // The chunks the positions did not bring: the lower bound's is worth a round trip (the page cannot
  // start without it); the upper bound's only comes with it (without it the page reads to the range's
  // bound with a Limit, as a range in block buckets reads up to Limit buckets).
  const chunks = new Map<number, SeekChunkRecord | undefined>(early.map((chunk, index) => [chunk, earlyChunks[index]]));
  const lower = plan.lower === undefined ? undefined : plan.lower.chunk;
  if (lower !== undefined && !chunks.has(lower)) {
    const missing = plan.needed.filter((chunk) => !chunks.has(chunk));
    const records = await Promise.all(missing.map((chunk) => readChunk(pk, chunk)));
    for (const [index, chunk] of missing.entries()) chunks.set(chunk, records[index]);
  }
  const keyAt = (position: number): string | undefined =>
    seekChunkKeys(chunks.get(chunkOf(position)))?.[(position - 1) % SEEK_CHUNK_ENTRIES];
  const lowerKey = plan.lower === undefined ? undefined : keyAt(plan.lower.position);
  const upperKey = plan.upper === undefined ? undefined : keyAt(plan.upper);

  let ascending: Item[];
  if (plan.lower === undefined || lowerKey !== undefined) {
    // From the lower bound's key (the page's first entry, or the last entry of the last complete chunk,
    // the page lying in the unfinished one after it), or from the range's start, to the upper bound's
    // key (the page's last entry) or the range's bound: the entries between are known by position.
    const first = plan.lower === undefined ? below + 1 : plan.lower.inclusive ? plan.lower.position : plan.lower.position + 1;
    const last = upperKey === undefined ? through : high;
    const input =
      plan.lower === undefined || plan.lower.inclusive
        ? window(pk, 'asc', { start: lowerKey, from: blocks.from, end: upperKey, to: blocks.to })
        : { ...window(pk, 'asc', { end: upperKey, to: blocks.to }), ExclusiveStartKey: { pk, sk: lowerKey } };
    const read = (await queryAll(input, { limit: last - first + 1 })).items;
    ascending = read.slice(low - first, high - first + 1);
  } else {
    // No chunk where one should be: entries numbered before seek chunks existed (or a chunk of the old
    // size of 16). Read from the nearer end: the top (entries above `high` wasted) or the bottom
    // (entries below `low`).
    const fromTop = through - low + 1;
    const fromBottom = high - below;
    if (Math.min(fromTop, fromBottom) > request.bound) throw request.tooLarge();
    if (fromTop <= fromBottom) {
      const { items } = await queryAll(window(pk, 'desc', blocks), { limit: fromTop });
      ascending = items.slice(through - high, through - low + 1).reverse(); // index i holds position through - i
    } else {
      const { items } = await queryAll(window(pk, 'asc', blocks), { limit: fromBottom });
      ascending = items.slice(low - below - 1);
    }
  }
  return { items: leftOut(order === 'asc' ? ascending : ascending.reverse()), total };
}

/**
 * Where a page's Query of positions [low, high] (of a range counted `below` < p <= `through`) is
 * bounded by sort keys the seek chunks hold (the positions of the complete chunks, 1 to the last
 * multiple of 32 at or below `through`): its lower bound, the page's first entry (inclusive) or, when
 * the page lies past the last complete chunk, that chunk's last entry (exclusive), or none (no
 * complete chunk above `below`: the range's start or `from` bound); its upper bound, the page's last
 * entry when a complete chunk holds it, else none (the range's `to` bound: at most 31 entries of the
 * unfinished chunk past the page). So a page reads its own entries, whole buckets of them, whatever
 * the range's density. `needed`: the chunks holding those keys.
 */
function pageChunks(
  through: number,
  below: number,
  low: number,
  high: number,
): { lower?: { position: number; inclusive: boolean; chunk: number }; upper?: number; needed: number[] } {
  const complete = Math.floor(through / SEEK_CHUNK_ENTRIES) * SEEK_CHUNK_ENTRIES;
  const lower =
    low <= complete
      ? { position: low, inclusive: true, chunk: chunkOf(low) }
      : complete > below
        ? { position: complete, inclusive: false, chunk: chunkOf(complete) }
        : undefined;
  const upper = high <= complete ? high : undefined;
  const needed = [...new Set([lower?.chunk, upper === undefined ? undefined : chunkOf(upper)])].filter(
    (chunk): chunk is number => chunk !== undefined,
  );
  return { lower, upper, needed };
}

/**
 * A Query of range `pk` in `order`, from sort key `start` (inclusive) or else block `from`, to sort key
 * `end` (inclusive) or else the end of block `to`.
 */
function window(
  pk: string,
  order: 'asc' | 'desc',
  { start, from, end, to }: { start?: string; from?: number; end?: string; to?: number },
): QueryInput {
  const values: Record<string, unknown> = { ':pk': pk };
  const lowerBound = start ?? (from !== undefined && from > 0 ? blockKey(from) : undefined);
  const upperBound = end ?? (to !== undefined ? throughBlock(to) : undefined);
  if (lowerBound !== undefined) values[':low'] = lowerBound;
  if (upperBound !== undefined) values[':high'] = upperBound;
  const condition =
    lowerBound !== undefined && upperBound !== undefined
      ? ' AND sk BETWEEN :low AND :high'
      : lowerBound !== undefined
        ? ' AND sk >= :low'
        : upperBound !== undefined
          ? ' AND sk <= :high'
          : '';
  return { KeyConditionExpression: `pk = :pk${condition}`, ExpressionAttributeValues: values, ScanIndexForward: order === 'asc' };
}
