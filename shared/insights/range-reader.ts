/**
 * Reading one key range of the table: a page (skip + take), the count of the range, or the whole
 * range for an aggregation. A range is one partition (pk) and optionally a sort-key condition: block
 * bounds on sort keys that start with the block number, a prefix, or one exact key.
 *
 * The count of a range under block bounds without checks comes from range positions: the ingest
 * numbers every entry of the ranges insights counts with `pos`, its 1-based position in the range
 * (shared/ingest/range-positions.ts), so the count over blocks [from, to] is pos(last entry at or
 * below `to`) - pos(last entry below `from`): two Limit-1 Queries, exact whatever the size of the
 * range. A list page with checks counts its range in the same pass (readPageAndCount: items, then
 * Select COUNT for the rest), examining at most maxItemsReadPerChain items like any checked read
 * (config.ts; a 400 asking for a narrower block range beyond), so it is exact too. A count with a prefix or exact-key condition (a transaction's own
 * partition, a handful of items) or on entries without `pos` (ingested before positions existed) is a
 * Select COUNT capped at maxCountedItemsPerChain examined items (a lower bound beyond).
 *
 * Checks are the documented bounded checks: filters that have no range of their own, applied as a
 * FilterExpression inside the already-narrowed range. Attribute names come from the fixed mappings of
 * the insights modules and every value travels as an ExpressionAttributeValue: request text never
 * becomes expression text. uint256 attributes (canonical decimal strings) compare exactly by length
 * first, then as strings. A checked read examines at most maxItemsReadPerChain items (config.ts;
 * 400 beyond), and so does an aggregation's read of the whole range.
 */
import { countItems, queryAll, queryPage, type Item, type QueryInput } from '../db/operations';
import { InvalidRequestError } from '../errors';
import { blockKey, compareSortKeys } from '../table/keys';
import type { InsightsConfig } from './config';
import { positionsAt, seekPage } from './range-seek';

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
}

export class RangeTooLargeError extends InvalidRequestError {
  /** `what`: the kind of read that is bounded (a checked read, an aggregation, a merge of two ranges). */
  constructor(chainId: number, bound: number, what = 'This') {
    super(
      `the request would read more than ${bound} items on chain ${chainId}; narrow the block range (filter_block_number_gte / _lte, or block_number_from / _to). ${what} is a bounded read: filters without a range of their own (transfer_type, value and gas filters, topics 1-3), aggregates other than count, sum and avg by time bucket, and lists of two token types cannot seek by position`,
    );
  }
}

/** The Query input of a range (without Limit / ExclusiveStartKey / Select). */
export function queryInput(read: RangeRead): QueryInput {
  const names: Record<string, string> = {};
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
  const filters = read.checks.map((check, index) => checkExpression(check, index, names, values));
  return {
    KeyConditionExpression: keyCondition,
    FilterExpression: filters.length > 0 ? filters.join(' AND ') : undefined,
    ExpressionAttributeNames: Object.keys(names).length > 0 ? names : undefined,
    ExpressionAttributeValues: values,
    ScanIndexForward: read.order === 'asc',
  };
}

function checkExpression(check: Check, index: number, names: Record<string, string>, values: Record<string, unknown>): string {
  const name = `#c${index}`;
  names[name] = check.attribute;
  const path = check.listIndex === undefined ? name : `${name}[${check.listIndex}]`;
  if (check.operator === 'in') {
    const list = check.value as readonly string[];
    const placeholders = list.map((item, position) => {
      values[`:c${index}_${position}`] = item;
      return `:c${index}_${position}`;
    });
    return `${path} IN (${placeholders.join(', ')})`;
  }
  const value = `:c${index}`;
  values[value] = check.value;
  if (check.kind !== 'uint' || check.operator === '=' || check.operator === '<>') return `${path} ${check.operator} ${value}`;
  // Canonical decimals: a longer string is a larger number; equal lengths compare as strings.
  const length = `:c${index}len`;
  values[length] = String(check.value).length;
  const longer = check.operator.startsWith('>') ? '>' : '<';
  return `(size(${path}) ${longer} ${length} OR (size(${path}) = ${length} AND ${path} ${check.operator} ${value}))`;
}

/** Items `skip` to `skip + take` of a range without checks, in its order. */
export async function readPage(read: RangeRead, skip: number, take: number): Promise<Item[]> {
  const { items } = await queryAll(queryInput(read), { limit: skip + take });
  return items.slice(skip, skip + take);
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
        const sought = await seekPage({ pk: read.pk, blocks: sk?.blocks ?? {}, order: read.order, skip, take, bound, tooLarge });
        if (sought) return sought;
      }
      // Otherwise the page is the range's first `from + count` items: bounded past the first page.
      if (from > 0 && from + count > bound) throw tooLarge();
      if (sk && !('blocks' in sk)) return readPageThenCount(read, from, count, config);
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
  const { items, lastKey } = await queryAll(input, { limit: skip + take });
  const cap = config.maxCountedItemsPerChain;
  const rest =
    lastKey && items.length < cap ? (await countItems({ ...input, ExclusiveStartKey: lastKey }, { maxRead: cap - items.length })).count : 0;
  return { items: items.slice(skip, skip + take), total: items.length + rest };
}

/**
 * A checked range's page and its exact count in ONE pass over the range: items until the page is
 * full, then Select COUNT for the rest (no item transferred); a 400 once more than `bound` items
 * would be examined. Every request may examine up to the rest of the bound (its Limit).
 */
async function readCheckedPage(
  chainId: number,
  read: RangeRead,
  skip: number,
  take: number,
  bound: number,
): Promise<{ items: Item[]; total: number }> {
  const wanted = skip + take;
  const input = queryInput(read);
  const items: Item[] = [];
  let examined = 0;
  let start: Item | undefined;
  do {
    const page = await queryPage({ ...input, Limit: bound + 1 - examined, ExclusiveStartKey: start });
    items.push(...page.items);
    examined += page.scanned;
    start = page.lastKey;
    if (examined > bound) throw new RangeTooLargeError(chainId, bound);
  } while (start && items.length < wanted);
  const rest = start
    ? await countItems({ ...input, ExclusiveStartKey: start }, { maxRead: bound + 1 - examined })
    : { count: 0, scanned: 0 };
  if (examined + rest.scanned > bound) throw new RangeTooLargeError(chainId, bound);
  return { items: items.slice(skip, wanted), total: items.length + rest.count };
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
  const { items, scanned } = await queryAll(queryInput(read), { maxRead: bound + 1 - examined });
  if (examined + scanned > bound) throw new RangeTooLargeError(chainId, bound);
  return { items, scanned };
}

/**
 * The number of items of a range without checks: from positions when the range has block bounds (or
 * none), otherwise (a transaction's own partition, or an entry without `pos`) the Select COUNT capped
 * at `maxCountedItemsPerChain` examined items. A range with checks is counted with its page, in one
 * pass (readPageAndCount).
 */
export async function countRange(read: RangeRead, config: InsightsConfig): Promise<number> {
  if (read.checks.length > 0) throw new Error('countRange: a range with checks is counted with its page (readPageAndCount)');
  const sk = read.sk;
  if (!sk || 'blocks' in sk) {
    const counted = await countByPositions(read.pk, sk?.blocks ?? {});
    if (counted !== undefined) return counted;
  }
  return (await countItems(queryInput(read), { maxRead: config.maxCountedItemsPerChain })).count;
}

/** Entries of range `pk` in blocks [from, to] from two positions; undefined when an entry lacks `pos`. */
async function countByPositions(pk: string, blocks: { from?: number; to?: number }): Promise<number | undefined> {
  const positions = await positionsAt(pk, blocks);
  return positions === undefined ? undefined : positions.through - positions.below;
}
