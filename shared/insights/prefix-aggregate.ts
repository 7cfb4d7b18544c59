/**
 * Aggregates at any size, from range positions and running totals (range-positions.ts): every entry of
 * a counted range holds `pos`, its position in the range, and for each summed field of its record
 * (records.ts SUMMED_FIELDS) the exact total of that field up to itself. So over any block range
 *   count = pos(last entry at or below `to`) - pos(last entry below `from`), and
 *   sum   = total(last entry at or below `to`) - total(last entry below `from`),
 * and a bucketed aggregate is the same difference between the entries at each bucket's boundaries:
 *  - time buckets (any nesting of toDate, toDateTime, toStartOfMinute / Hour / Day / Week / Month /
 *    Year, toUnixTimestamp over block_timestamp, and the built-in day ...): a boundary's last block
 *    comes from the block-by-time index (GSI1, one Limit-1 Query), then the range's last entry at or
 *    below that block (one Limit-1 Query). A nesting's boundaries are where its value changes between
 *    consecutive units of its innermost truncating function (aggregate.ts timeBucketsBetween);
 *  - block buckets (intDiv(block_number, N)): the range's last entry at or below each multiple of N
 *    minus one.
 * Reads: the range's first and last entries and the entry below `from` (one round, in parallel), then
 * one round of boundary lookups per kind of bucket, all in parallel: about 2 items per bucket, however
 * many rows the range holds (a month by day: 3 + 30 x 2 items per chain).
 *
 * Served this way: count() (and count(*), count(1), count(field), sum(1)), sum(field) and avg(field) of a summed field, with no
 * group_by or grouped by one bucket, on one range without checks. Everything else (group by a field,
 * min / max, count(distinct ...), checks, two-standard unions, entries without totals, more than
 * MAX_PREFIX_BUCKETS buckets) is the bounded read of every row (list.ts).
 */
import { inParallel, queryPage, type Item } from '../db/operations';
import { expandChainRecord } from '../table/compact';
import { blockKey } from '../table/keys';
import { legacyRunningTotalAttribute, runningTotalAttribute, runningTotalOf } from '../table/records';
import type { AggregationPlan, CountedGroup } from './aggregate';
import { timeBucketsBetween } from './aggregate';
import { lastBlockAtOrBefore } from '../db/blocks-by-time';
import { excludedIn, type RangeRead } from './range-reader';

/** Buckets one chain's aggregate may have when answered from running totals (2 lookups each). */
export const MAX_PREFIX_BUCKETS = 1000;
/** Boundary lookups in flight at once, per chain. */
const LOOKUP_CONCURRENCY = 50;

/** An entity's summed fields: API field name -> the record field whose running total entries hold. */
export type SummedFields = Readonly<Record<string, string>>;

/** Whether the plan's expressions and grouping can be answered from positions and running totals. */
export function answerableByTotals(plan: AggregationPlan, summed: SummedFields): boolean {
  if (plan.groupKeys.length > 1) return false;
  if (plan.groupKeys.length === 1 && plan.groupKeys[0]!.bucket === null) return false;
  return plan.aggregates.every((named) => {
    const expression = named.expression;
    if (expression.type !== 'aggregate') return false;
    if (expression.fn === 'count') return !expression.distinct;
    return (expression.fn === 'sum' || expression.fn === 'avg') && Object.hasOwn(summed, expression.field);
  });
}

/** Where a range stands at a boundary: its last entry's position and running totals (record field -> total). */
interface Boundary {
  position: number;
  totals: Map<string, bigint>;
}

const ZERO: Boundary = { position: 0, totals: new Map() };

/**
 * The counted groups of one chain's range (before ordering and paging), or undefined when its entries
 * lack positions or totals, or the buckets are too many: the caller then reads every row.
 * `timestampOf`: an entry's block timestamp (Unix seconds).
 */
export async function countGroupsByTotals(
  chainId: number,
  read: RangeRead,
  plan: AggregationPlan,
  summed: SummedFields,
  timestampOf: (item: Item) => number,
): Promise<CountedGroup[] | undefined> {
  if (read.checks.length > 0 || (read.sk && !('blocks' in read.sk))) return undefined;
  const { from, to } = read.sk && 'blocks' in read.sk ? read.sk.blocks : {};
  const recordFields = [...new Set(Object.values(summed))];
  const neededFields = [
    ...new Set(
      plan.aggregates.flatMap((named) =>
        named.expression.type === 'aggregate' && named.expression.fn !== 'count' ? [summed[named.expression.field]!] : [],
      ),
    ),
  ];

  // An entry the list leaves out (RangeRead.excluded) is counted by the positions and totals like any
  // other: it is subtracted from its group below; the buckets span the entries the list keeps.
  const edgeCount = read.excluded === undefined ? 1 : 2;
  const [firstTwo, lastTwo, base, excluded] = await Promise.all([
    edgeEntries(read.pk, from, to, 'asc', edgeCount),
    edgeEntries(read.pk, from, to, 'desc', edgeCount),
    from === undefined || from <= 0 ? ZERO : boundaryAt(read.pk, from - 1, recordFields),
    excludedIn(read),
  ]);
  const kept = (item: Item) => excluded === undefined || item.sk !== excluded.sk;
  const [first, last] = [firstTwo.find(kept), lastTwo.find(kept)];
  if (first === undefined || last === undefined || lastTwo[0] === undefined) return [];
  const end = boundaryOf(lastTwo[0], recordFields);
  const complete = (boundary: Boundary | undefined): boundary is Boundary =>
    boundary !== undefined && (boundary.position === 0 || neededFields.every((field) => boundary.totals.has(field)));
  if (!complete(base) || !complete(end)) return undefined;
  const group = (keys: unknown[], low: Boundary, high: Boundary): CountedGroup => ({
    keys,
    count: high.position - low.position,
    sums: new Map(
      Object.entries(summed).map(([apiField, recordField]) => [
        apiField,
        (high.totals.get(recordField) ?? 0n) - (low.totals.get(recordField) ?? 0n),
      ]),
    ),
  });
  /** The groups less the excluded entry, from the one whose boundaries hold it (`indexOf` its bucket's index). */
  const withoutExcluded = (groups: CountedGroup[], indexOf: (item: Item) => number): CountedGroup[] => {
    if (excluded === undefined) return groups;
    const index = Math.min(Math.max(indexOf(excluded), 0), groups.length - 1);
    const record = expandChainRecord(excluded) as Record<string, unknown>;
    return groups.map((one, at) =>
      at !== index
        ? one
        : {
            keys: one.keys,
            count: one.count - 1,
            sums: new Map(
              [...one.sums].map(([apiField, sum]) => [apiField, sum - BigInt(String(record[summed[apiField]!] ?? 0))] as const),
            ),
          },
    );
  };
  const key = plan.groupKeys[0];
  if (key === undefined) return withoutExcluded([group([], base, end)], () => 0);
  const bucket = key.bucket;
  if (bucket === null) return undefined;

  // Each bucket's first value, in order; and the last block of every bucket but the last.
  let starts: number[];
  let labels: unknown[];
  let lastBlocks: () => Promise<(number | null)[]>;
  if (bucket.fn === 'intDiv') {
    const [firstBucket, lastBucket] = [Math.floor(blockOf(first) / bucket.size), Math.floor(blockOf(last) / bucket.size)];
    if (lastBucket - firstBucket + 1 > MAX_PREFIX_BUCKETS) return undefined;
    starts = range(firstBucket, lastBucket).map((index) => index * bucket.size);
    labels = range(firstBucket, lastBucket);
    lastBlocks = async () => starts.slice(1).map((start) => start - 1);
  } else {
    const buckets = timeBucketsBetween(bucket, timestampOf(first), timestampOf(last), MAX_PREFIX_BUCKETS);
    if (buckets === undefined) return undefined;
    starts = buckets.map((entry) => entry.start);
    labels = buckets.map((entry) => entry.value);
    lastBlocks = () => mapInParallel(starts.slice(1), (start) => lastBlockAtOrBefore(chainId, start - 1));
  }
  const blocks = await lastBlocks();
  const inner = await mapInParallel(blocks, async (block) =>
    block === null || (from !== undefined && block < from)
      ? base
      : boundaryAt(read.pk, to === undefined ? block : Math.min(block, to), recordFields),
  );
  if (!inner.every(complete)) return undefined;
  const edges = [base, ...(inner as Boundary[]), end];
  // The excluded entry's group: the last whose first value is at or below its own (the first group's
  // boundaries start below every entry of the range, the last's end above).
  const bucketValueOf = (item: Item) => (bucket.fn === 'intDiv' ? blockOf(item) : timestampOf(item));
  return withoutExcluded(
    labels.map((label, index) => group([label], edges[index]!, edges[index + 1]!)),
    (item) => starts.findLastIndex((start) => start <= bucketValueOf(item)),
  );
}

/** `work` on every value, at most LOOKUP_CONCURRENCY at once; results in the values' order. */
async function mapInParallel<T, U>(values: readonly T[], work: (value: T) => Promise<U>): Promise<U[]> {
  const results = new Array<U>(values.length);
  await inParallel([...values.keys()], LOOKUP_CONCURRENCY, async (index) => {
    results[index] = await work(values[index] as T);
  });
  return results;
}

const range = (low: number, high: number): number[] => Array.from({ length: high - low + 1 }, (_, index) => low + index);

/** The block number a counted entry's sort key starts with. */
const blockOf = (item: Item): number => Number(String(item.sk).slice(0, 12));

/** The range's first (asc) or last (desc) `count` entries within block bounds, whole (their timestamps are needed). */
async function edgeEntries(
  pk: string,
  from: number | undefined,
  to: number | undefined,
  order: 'asc' | 'desc',
  count: number,
): Promise<Item[]> {
  const values: Record<string, unknown> = { ':pk': pk };
  const conditions = ['pk = :pk'];
  if (from !== undefined && from > 0 && to !== undefined) {
    if (to < from) return [];
    Object.assign(values, { ':from': blockKey(from), ':to': `${blockKey(to)}~` });
    conditions.push('sk BETWEEN :from AND :to');
  } else if (from !== undefined && from > 0) {
    values[':from'] = blockKey(from);
    conditions.push('sk >= :from');
  } else if (to !== undefined) {
    if (to < 0) return [];
    values[':to'] = `${blockKey(to)}~`;
    conditions.push('sk <= :to');
  }
  const { items } = await queryPage({
    KeyConditionExpression: conditions.join(' AND '),
    ExpressionAttributeValues: values,
    ScanIndexForward: order === 'asc',
    Limit: count,
  });
  return items;
}

/** An entry's position and running totals; undefined when it has no position. */
function boundaryOf(item: Item, recordFields: readonly string[]): Boundary | undefined {
  if (typeof item.pos !== 'number') return undefined;
  const totals = new Map<string, bigint>();
  for (const field of recordFields) {
    const total = runningTotalOf(item, field);
    if (total !== undefined) totals.set(field, total);
  }
  return { position: item.pos, totals };
}

/** The range at the end of block `block`: its last entry there (position 0 when none); undefined without positions. */
async function boundaryAt(pk: string, block: number, recordFields: readonly string[]): Promise<Boundary | undefined> {
  if (block < 0) return ZERO;
  const names: Record<string, string> = { '#pos': 'pos' };
  for (const [index, field] of recordFields.entries()) {
    names[`#t${index}`] = runningTotalAttribute(field);
    names[`#lt${index}`] = legacyRunningTotalAttribute(field);
  }
  const { items } = await queryPage({
    KeyConditionExpression: 'pk = :pk AND sk <= :to',
    ExpressionAttributeValues: { ':pk': pk, ':to': `${blockKey(block)}~` },
    ExpressionAttributeNames: names,
    ProjectionExpression: Object.keys(names).join(', '),
    ScanIndexForward: false,
    Limit: 1,
  });
  const item = items[0];
  return item === undefined ? ZERO : boundaryOf(item, recordFields);
}
