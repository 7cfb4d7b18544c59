/**
 * Reading the explorer's key ranges (X1-X6, see docs/access-patterns.md) as the ingest writes them
 * (shared/table/keys.ts). A page is one Query per key range it reads (Limit 51: the 51st item says
 * whether a next page exists), with the keyset cursor turned into the key condition (`sk < bound`
 * newest first, `sk > bound` for ascending ranges). Every page reads one range, except X2 and X3
 * with a two-standard `type` filter: two single-standard ranges (keys.ts typeSetsToRead), and X1 (on
 * gsi3, one range per standard) with other than one standard: each standard's range, queried with the
 * same bound and merged by sort key (`readRanges`). No Scan, no filter.
 */
import { type OnColdParts, queryPage } from '../db/operations';
import { TABLE, type IndexName } from '../table/definition';
import { compareSortKeys, type Direction, type ItemKey } from '../table/keys';
import { PAGE_SIZE } from './config';

/** A record as stored: with its key. */
export type Stored<T> = T & ItemKey;

/** Up to PAGE_SIZE + 1 items of a range, and whether the range holds more than the page. */
export interface RangeRead<T> {
  items: Stored<T>[];
  /** True when items beyond the first PAGE_SIZE exist. */
  more: boolean;
}

/** Where a read starts: strictly after `bound` in the read's order; the range's start when absent. */
export interface KeysetStart {
  bound?: string;
}

export type Order = 'newest first' | 'ascending';

/** The ranges a request's `filter` reads: `to`, `from`, or both (`all`). */
export const directionOf = (filter: 'to' | 'from' | undefined): Direction => filter ?? 'all';

/** The key attributes of the table, or of one of its GSIs. */
function keyNamesOf(index: IndexName | undefined): { pk: string; sk: string } {
  const gsi = TABLE.globalSecondaryIndexes.find((candidate) => candidate.indexName === index);
  return gsi ? { pk: gsi.partitionKey, sk: gsi.sortKey } : { pk: TABLE.partitionKey, sk: TABLE.sortKey };
}

/** One Query: up to PAGE_SIZE + 1 items after the bound, and `cutAt`, the last sort key read when the 1 MB read cap stopped it early. */
async function readPage<T>(
  pk: string,
  start: KeysetStart,
  order: Order,
  index: IndexName | undefined,
  onColdParts: OnColdParts | undefined,
): Promise<{ items: Stored<T>[]; cutAt?: string }> {
  const descending = order === 'newest first';
  const names = keyNamesOf(index);
  const page = await queryPage<Stored<T>>(
    {
      ...(index === undefined ? {} : { IndexName: index }),
      KeyConditionExpression: start.bound === undefined ? '#pk = :pk' : `#pk = :pk AND #sk ${descending ? '<' : '>'} :bound`,
      ExpressionAttributeNames: start.bound === undefined ? { '#pk': names.pk } : { '#pk': names.pk, '#sk': names.sk },
      ExpressionAttributeValues: start.bound === undefined ? { ':pk': pk } : { ':pk': pk, ':bound': start.bound },
      ScanIndexForward: !descending,
      Limit: PAGE_SIZE + 1,
    },
    { onColdParts },
  );
  // Fewer items than the Limit with a LastEvaluatedKey means the 1 MB read cap cut the page: more follow.
  const cut = page.lastKey !== undefined && page.items.length < PAGE_SIZE + 1;
  return { items: page.items, cutAt: cut ? String(page.lastKey![names.sk]) : undefined };
}

/**
 * The first PAGE_SIZE + 1 items of the union of disjoint ranges, in `order` by sort key: each range is
 * queried with the same bound and Limit (at most PAGE_SIZE + 1 items each, in parallel), and their
 * items merged. Every item of the union's first PAGE_SIZE + 1 is among its own range's first
 * PAGE_SIZE + 1, so the merge is exact; a range cut by the 1 MB cap is only known down to the last sk
 * it read, so items of the other ranges past that point wait for the next page (and `more` is set).
 * Ranges of one standard each never share a sort key (their keys carry the standard: X1 and X2 its
 * type rank, X3 the log of a transfer of one standard); an `all` range (a union of `to` and `from`,
 * whose self-transfers both hold) comes merged from the table layer (shared/db/union-query.ts). Keys are
 * compared as DynamoDB orders them (compareSortKeys). The next page's bound is the last item served,
 * whichever range it came from. `index`: ranges of a GSI (X1 on gsi3), keyed and merged by its keys.
 * `onColdParts`: told when a range's read reaches its cold parts (page-details.ts EarlyDetails).
 */
export async function readRanges<T>(
  pks: readonly string[],
  start: KeysetStart,
  order: Order,
  index?: IndexName,
  onColdParts?: OnColdParts,
): Promise<RangeRead<T>> {
  if (pks.length === 0) return { items: [], more: false };
  const sortKey = keyNamesOf(index).sk;
  const skOf = (item: Stored<T>): string => String((item as Record<string, unknown>)[sortKey]);
  const reads = await Promise.all(pks.map((pk) => readPage<T>(pk, start, order, index, onColdParts)));
  // One range: its own order as DynamoDB returned it.
  const [only] = reads;
  if (reads.length === 1 && only) return { items: only.items, more: only.items.length > PAGE_SIZE || only.cutAt !== undefined };
  const before = (a: string, b: string): number => (order === 'newest first' ? compareSortKeys(b, a) : compareSortKeys(a, b));
  const cuts = reads.flatMap((read) => (read.cutAt === undefined ? [] : [read.cutAt]));
  // The cut nearest the bound: past it, some range has not been read.
  const known = cuts.sort(before).at(0);
  const merged = reads
    .flatMap((read) => read.items)
    .filter((item) => known === undefined || before(skOf(item), known) <= 0)
    .sort((a, b) => before(skOf(a), skOf(b)))
    .slice(0, PAGE_SIZE + 1);
  return { items: merged, more: merged.length > PAGE_SIZE || cuts.length > 0 };
}

/** One key range of the table (every explorer range but X1 and the type-filtered X2 and X3 ones). */
export const readRange = <T>(pk: string, start: KeysetStart, order: Order, onColdParts?: OnColdParts): Promise<RangeRead<T>> =>
  readRanges<T>([pk], start, order, undefined, onColdParts);
