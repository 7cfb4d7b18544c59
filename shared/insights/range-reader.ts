/**
 * Reading one key range of the table: a page (skip + take), the count of the range, or the whole
 * range for an aggregation. A range is one partition (pk) and optionally a sort-key condition: block
 * bounds on sort keys that start with the block number, a prefix, or one exact key.
 *
 * The count of a range under block bounds without checks comes from range positions: the ingest
 * numbers every entry of the ranges insights counts with `pos`, its 1-based position in the range
 * (shared/ingest/range-positions.ts), so the count over blocks [from, to] is pos(last entry at or
 * below `to`) - pos(last entry below `from`): two Limit-1 Queries, exact whatever the size of the
 * range. A list page with checks counts its range in the same pass (readPageAndCount: every item of
 * the range checked, the first that pass kept), examining at most maxItemsReadPerChain items like any checked read
 * (config.ts; a 400 asking for a narrower block range beyond), so it is exact too. A count with a prefix or exact-key condition (a transaction's own
 * partition, a handful of items) or on entries without `pos` (ingested before positions existed) is a
 * Select COUNT capped at maxCountedItemsPerChain examined items (a lower bound beyond).
 *
 * Checks are the documented bounded checks: filters that have no range of their own, evaluated here,
 * on the whole record of every item the already-narrowed range returns (compact.ts expandChainRecord),
 * not as a FilterExpression. DynamoDB bills a filtered Query by the items it examines, not by those it
 * returns, so this reads the same units and round trips; and it lets the ingest pack the checked
 * fields with the rest (issue 27: the table stores no field only because some filter names it).
 * Attribute names come from the fixed mappings of the insights modules; request text is only ever a
 * value compared. uint256 attributes (canonical decimal strings) compare exactly by length first,
 * then as strings. A checked read examines at most maxItemsReadPerChain items (config.ts; 400
 * beyond), and so does an aggregation's read of the whole range.
 */
import { countItems, queryAll, queryPage, type Item, type QueryInput } from '../db/operations';
import { InvalidRequestError } from '../errors';
import { expandChainRecord } from '../table/compact';
import { blockKey, compareSortKeys } from '../table/keys';
import type { InsightsConfig } from './config';
import { lastPosition, positionsAt, seekPage } from './range-seek';

export type { Item };

export type CheckOperator = '=' | '<>' | '>=' | '>' | '<=' | '<';

export interface Check {
  /** A record attribute (fixed by the caller, never request text). */
  attribute: string;
  /** Element of a list attribute (topics[1]). */
  listIndex?: number;
  operator: CheckOperator | 'in';
  /** One value, or the values of `in`. */
  value: string | number | readonly string[];
  /** uint: canonical decimal strings compared numerically. */
  kind: 'number' | 'uint' | 'string';
}

export type SortKeyCondition = { blocks: { from?: number; to?: number } } | { prefix: string } | { equals: string };

export interface RangeRead {
  pk: string;
  sk?: SortKeyCondition;
  checks: readonly Check[];
  /** block_number order (the sort key's order). */
  order: 'asc' | 'desc';
  /**
   * One entry of the range that the list leaves out, as the range stores it (its `sk`, `pos` and
   * running totals), or undefined: a contract's creation in its X4 `to` range, which Insight does not
   * count among the transactions sent to the contract (transaction-lists.ts). Looked up beside the
   * range's first reads (a promise, awaited once those are sent), so it adds no round trip in sequence.
   * Pages, counts and aggregates are those of the range without it (see excludedIn).
   */
  excluded?: Promise<Item | undefined>;
}

export class RangeTooLargeError extends InvalidRequestError {
  /** `what`: the kind of read that is bounded (a checked read, an aggregation, a merge of two ranges). */
  constructor(chainId: number, bound: number, what = 'This') {
    super(
      `the request would read more than ${bound} items on chain ${chainId}; narrow the block range (filter_block_number_gte / _lte, or block_number_from / _to). ${what} is a bounded read: filters without a range of their own (transfer_type, value and gas filters, topics 1-3), aggregates other than count, sum and avg by time bucket, and lists of two token types cannot seek by position`,
    );
  }
}

/** The Query input of a range (without Limit / ExclusiveStartKey / Select); its checks are not part of it (passesChecks). */
export function queryInput(read: RangeRead): QueryInput {
  const values: Record<string, unknown> = { ':pk': read.pk };
  let keyCondition = 'pk = :pk';
  const sk = read.sk;
  if (sk && 'blocks' in sk) {
    const { from, to } = sk.blocks;
    // Sort keys are `<12-digit block>#...`: "~" sorts after every character they hold.
    if (from !== undefined) values[':skFrom'] = blockKey(from);
    if (to !== undefined) values[':skTo'] = `${blockKey(to)}~`;
    if (from !== undefined && to !== undefined) keyCondition += ' AND sk BETWEEN :skFrom AND :skTo';
    else if (from !== undefined) keyCondition += ' AND sk >= :skFrom';
    else if (to !== undefined) keyCondition += ' AND sk <= :skTo';
  } else if (sk && 'prefix' in sk) {
    values[':skPrefix'] = sk.prefix;
    keyCondition += ' AND begins_with(sk, :skPrefix)';
  } else if (sk && 'equals' in sk) {
    values[':sk'] = sk.equals;
    keyCondition += ' AND sk = :sk';
  }
  return { KeyConditionExpression: keyCondition, ExpressionAttributeValues: values, ScanIndexForward: read.order === 'asc' };
}

/**
 * Whether an item's record passes every check, as DynamoDB's comparisons would judge the stored
 * attribute: a value of another type (or none: a missing field, a topic past the log's last) passes
 * no comparison; numbers compare as numbers, strings by their characters (hex and decimal digits, so
 * code units and UTF-8 bytes agree), uint256 decimals by length, then digits.
 */
export function passesChecks(item: Item, checks: readonly Check[]): boolean {
  if (checks.length === 0) return true;
  const record = expandChainRecord(item) as Record<string, unknown>;
  return checks.every((check) => passesCheck(record, check));
}

function passesCheck(record: Record<string, unknown>, check: Check): boolean {
  const whole = record[check.attribute];
  const value = check.listIndex === undefined ? whole : Array.isArray(whole) ? whole[check.listIndex] : undefined;
  if (check.operator === 'in') return typeof value === 'string' && (check.value as readonly string[]).includes(value);
  const expected = check.value as string | number;
  if (check.kind === 'number' ? typeof value !== 'number' : typeof value !== 'string') return false;
  if (typeof expected !== typeof value) return false;
  const order = compareValues(value as string | number, expected, check.kind === 'uint');
  switch (check.operator) {
    case '=':
      return order === 0;
    case '<>':
      return order !== 0;
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '<':
      return order < 0;
  }
}

function compareValues(a: string | number, b: string | number, uint: boolean): number {
  if (typeof a === 'number' || typeof b === 'number') return Math.sign(Number(a) - Number(b));
  // Canonical decimals: a longer string is a larger number; equal lengths compare as strings.
  if (uint && a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The range's excluded entry (RangeRead.excluded) when its key condition holds it, else undefined. A
 * read of a range with an excluded entry reads one item more than its page (the entry may be among
 * them) and drops the entry; its count is the range's less one when it holds the entry; a seek maps the
 * page past the entry by its position (range-seek.ts); an aggregate's rows leave it out, and one from
 * running totals subtracts it from its bucket (prefix-aggregate.ts).
 */
export async function excludedIn(read: RangeRead): Promise<Item | undefined> {
  const entry = await read.excluded;
  if (entry === undefined) return undefined;
  const sk = String(entry.sk);
  const condition = read.sk;
  if (condition === undefined) return entry;
  if ('prefix' in condition) return sk.startsWith(condition.prefix) ? entry : undefined;
  if ('equals' in condition) return sk === condition.equals ? entry : undefined;
  const { from, to } = condition.blocks;
  if (from !== undefined && sk < blockKey(from)) return undefined;
  if (to !== undefined && sk > `${blockKey(to)}~`) return undefined;
  return entry;
}

/** One item more for a read of a range with an excluded entry (it may be one of the items read). */
const extraFor = (read: RangeRead): number => (read.excluded === undefined ? 0 : 1);

/** `items` without `entry` (the range's excluded entry, when it holds one). */
const without = (items: Item[], entry: Item | undefined): Item[] =>
  entry === undefined ? items : items.filter((item) => item.sk !== entry.sk);

/** Items `skip` to `skip + take` of a range without checks, in its order (its excluded entry left out). */
export async function readPage(read: RangeRead, skip: number, take: number): Promise<Item[]> {
  // (One request: a first page that took a second one for a sparse range's rest broke the two round
  // trips of a page that joins after it, such as metadata. Of a dense range in block buckets it reads up
  // to a bucket an entry: docs/decisions/ingest.md, "Block buckets".)
  const [{ items }, excluded] = await Promise.all([queryAll(queryInput(read), { limit: skip + take + extraFor(read) }), excludedIn(read)]);
  return without(items, excluded).slice(skip, skip + take);
}

/**
 * Items `skip` to `skip + take` of the union of disjoint ranges with the same sort-key shape and
 * order (merged by sort key; one range: its own order), and the number of items in the union (each
 * range's count: from positions, or, for a checked range, counted in the same pass as its page).
 */
export async function readPageAndCount(
  chainId: number,
  reads: readonly RangeRead[],
  skip: number,
  take: number,
  config: InsightsConfig,
): Promise<{ items: Item[]; total: number }> {
  const single = reads.length === 1;
  const bound = config.maxItemsReadPerChain;
  const tooLarge = () => new RangeTooLargeError(chainId, bound, single ? 'This' : 'A list of two token types');
  const parts = await Promise.all(
    reads.map(async (read) => {
      const [from, count] = single ? [skip, take] : [0, skip + take];
      if (read.checks.length > 0) return readCheckedPage(chainId, read, from, count, bound);
      // A page past the first of one range without checks seeks to its first entry by position.
      const sk = read.sk;
      if (single && skip > 0 && (!sk || 'blocks' in sk)) {
        const excluded = read.excluded && excludedIn(read);
        const sought = await seekPage({ pk: read.pk, blocks: sk?.blocks ?? {}, order: read.order, skip, take, bound, tooLarge, excluded });
        if (sought) return sought;
      }
      // Otherwise the page is the range's first `from + count` items: bounded past the first page.
      if ((single ? from : skip) > 0 && from + count > bound) throw tooLarge();
      if (sk && !('blocks' in sk)) return readPageThenCount(read, from, count, config);
      if (!single) return readFirstThenCount(read, count, config);
      const [items, total] = await Promise.all([readPage(read, from, count), countRange(read, config)]);
      return { items, total };
    }),
  );
  const total = parts.reduce((sum, part) => sum + part.total, 0);
  if (single) return { items: parts[0]!.items, total };
  const ascending = reads[0]?.order === 'asc';
  const merged = parts.flatMap((part) => part.items).sort((a, b) => (ascending ? 1 : -1) * compareSortKeys(String(a.sk), String(b.sk)));
  return { items: merged.slice(skip, skip + take), total };
}

/**
 * One of several ranges of a list (two token standards, or a token's three: each possibly a union of
 * an address's `to` and `from` ranges, two Queries): its first `take` items, then its count, only
 * when the read did not reach the range's end, from ONE position more. The first item read is the
 * range's last entry at or below `to` (newest first) or its first at or above `from` (oldest first),
 * so its `pos` is one of the two positions the count needs. The Queries of all the list's ranges go
 * out together and their counts' together after them: two rounds of at most 6 Queries however the
 * list combines its (union) ranges, where reading each range's page and both positions at once
 * would not be.
 */
async function readFirstThenCount(read: RangeRead, take: number, config: InsightsConfig): Promise<{ items: Item[]; total: number }> {
  const [{ items: found, complete }, excluded] = await Promise.all([
    queryAll(queryInput(read), { limit: take + extraFor(read) }),
    excludedIn(read),
  ]);
  const kept = without(found, excluded);
  const items = kept.slice(0, take);
  if (complete) return { items, total: kept.length };
  const first = found[0];
  if (first === undefined || typeof first.pos !== 'number') return { items, total: await countRange(read, config) };
  const { from, to } = read.sk && 'blocks' in read.sk ? read.sk.blocks : {};
  const other =
    read.order === 'desc' ? (from === undefined || from <= 0 ? 0 : await lastPosition(read.pk, from - 1)) : await lastPosition(read.pk, to);
  if (other === undefined) return { items, total: await countRange(read, config) };
  const counted = read.order === 'desc' ? first.pos - other : other - (first.pos - 1);
  return { items, total: counted - (excluded === undefined ? 0 : 1) };
}

/**
 * A range that positions cannot count (a transaction's own partition, read by prefix or key): its
 * first `skip + take` items, then, only when DynamoDB says more may follow, a Select COUNT of the rest
 * from where the page stopped (the whole count capped like countRange). A transaction's few transfers
 * or logs on one page are one Query that reads each item once.
 */
async function readPageThenCount(
  read: RangeRead,
  skip: number,
  take: number,
  config: InsightsConfig,
): Promise<{ items: Item[]; total: number }> {
  const input = queryInput(read);
  const [{ items, lastKey }, excluded] = await Promise.all([queryAll(input, { limit: skip + take + extraFor(read) }), excludedIn(read)]);
  const cap = config.maxCountedItemsPerChain;
  const rest =
    lastKey && items.length < cap ? (await countItems({ ...input, ExclusiveStartKey: lastKey }, { maxRead: cap - items.length })).count : 0;
  return { items: without(items, excluded).slice(skip, skip + take), total: items.length + rest - (excluded === undefined ? 0 : 1) };
}

/**
 * A checked range's page and its exact count in ONE pass over the range: every item examined is
 * checked here (the page keeps the first `skip + take` that pass, the count all of them); a 400 once
 * more than `bound` items would be examined. Every request may examine up to the rest of the bound
 * (its Limit), so the units and round trips are those of the FilterExpression this replaces.
 */
async function readCheckedPage(
  chainId: number,
  read: RangeRead,
  skip: number,
  take: number,
  bound: number,
): Promise<{ items: Item[]; total: number }> {
  // One item more is kept where the excluded entry may be one of them (it is known once the reads are sent).
  const wanted = skip + take + extraFor(read);
  const excludedEntry = excludedIn(read);
  excludedEntry.catch(() => undefined); // (awaited below; a failure surfaces there)
  const input = queryInput(read);
  const items: Item[] = [];
  let total = 0;
  let examined = 0;
  let start: Item | undefined;
  do {
    const page = await queryPage({ ...input, Limit: bound + 1 - examined, ExclusiveStartKey: start });
    examined += page.scanned;
    if (examined > bound) throw new RangeTooLargeError(chainId, bound);
    for (const item of page.items) {
      if (!passesChecks(item, read.checks)) continue;
      total += 1;
      if (items.length < wanted) items.push(item);
    }
    start = page.lastKey;
  } while (start);
  // The excluded entry, when the range holds it and it passes the checks, was counted and maybe kept.
  const excluded = await excludedEntry;
  const counted = excluded !== undefined && passesChecks(excluded, read.checks);
  return { items: without(items, excluded).slice(skip, skip + take), total: total - (counted ? 1 : 0) };
}

/**
 * Every item of the range, for an aggregation, and the items examined: a 400 when the chain's reads
 * examine more than `maxItemsReadPerChain`, `examined` of them already (its other ranges). Reads at
 * most the rest of the bound + 1.
 */
export async function readAll(
  chainId: number,
  read: RangeRead,
  config: InsightsConfig,
  examined = 0,
): Promise<{ items: Item[]; scanned: number }> {
  const bound = config.maxItemsReadPerChain;
  const [{ items, scanned }, excluded] = await Promise.all([
    queryAll(queryInput(read), { maxRead: bound + 1 - examined }),
    excludedIn(read),
  ]);
  if (examined + scanned > bound) throw new RangeTooLargeError(chainId, bound);
  return { items: without(items, excluded).filter((item) => passesChecks(item, read.checks)), scanned };
}

/**
 * The number of items of a range without checks: from positions when the range has block bounds (or
 * none), otherwise (a transaction's own partition, or an entry without `pos`) the Select COUNT capped
 * at `maxCountedItemsPerChain` examined items. A range with checks is counted with its page, in one
 * pass (readPageAndCount).
 */
export async function countRange(read: RangeRead, config: InsightsConfig): Promise<number> {
  if (read.checks.length > 0) throw new Error('countRange: a range with checks is counted with its page (readPageAndCount)');
  const excluded = excludedIn(read);
  excluded.catch(() => undefined); // (awaited below; a failure surfaces there)
  const less = async (count: number) => Math.max(0, count - ((await excluded) === undefined ? 0 : 1));
  const sk = read.sk;
  if (!sk || 'blocks' in sk) {
    const counted = await countByPositions(read.pk, sk?.blocks ?? {});
    if (counted !== undefined) return less(counted);
  }
  return less((await countItems(queryInput(read), { maxRead: config.maxCountedItemsPerChain })).count);
}

/** Entries of range `pk` in blocks [from, to] from two positions; undefined when an entry lacks `pos`. */
async function countByPositions(pk: string, blocks: { from?: number; to?: number }): Promise<number | undefined> {
  const positions = await positionsAt(pk, blocks);
  return positions === undefined ? undefined : positions.through - positions.below;
}
