/**
 * group_by / aggregate: the plan checked against an entity's fields, and its evaluation over the API
 * rows of one chain. uint256 fields add up exactly as bigint; counts are numbers.
 *
 * Output columns: the group_by names in order, then each aggregate (alias or canonical text).
 * Values: count -> number; sum / min / max -> the field's own type (number, or a decimal string for
 * uint256); avg -> a number for number fields, an exact decimal string (at most 18 fraction digits,
 * truncated) for uint256 fields; a time bucket -> as ClickHouse prints its outermost function's type (UTC):
 * a DateTime `YYYY-MM-DD hh:mm:ss` (toDateTime, toStartOfMinute / Hour / Day), a Date `YYYY-MM-DD`
 * (toDate, toStartOfWeek / Month / Year) or a number (toUnixTimestamp); intDiv(block_number, N) -> a number.
 *
 * Names as Insight answers them: an aggregate without alias is its canonical text, except `count()` and
 * `count(*)`, which are `count`. group_by also takes the built-in time buckets of BUILT_IN_GROUPS
 * (`day` ...), and without any aggregate function the rows carry a `count` of their group.
 */
import { InvalidRequestError } from '../errors';
import {
  parseAggregates,
  parseGroupByEntries,
  type FieldCatalogue,
  type FieldInfo,
  type Bucket,
  type NamedExpression,
  type TimeFunction,
} from './aggregate-parser';

export type Row = Record<string, unknown>;

/** How a column's values order: numbers, non-negative decimal strings, or text. */
export type ColumnKind = 'number' | 'decimal' | 'string';

export interface GroupKey {
  name: string;
  /** The entity field read (the bucket's field for a bucket). */
  field: string;
  bucket: Bucket | null;
}

export interface AggregationPlan {
  groupKeys: GroupKey[];
  aggregates: NamedExpression[];
  columns: { name: string; kind: ColumnKind }[];
  /** Column that orders the rows (sort_by), or null: the group keys ascending. */
  sortColumn: string | null;
}

export interface AggregationRequest {
  aggregate: readonly string[];
  groupBy: readonly string[];
  sortBy?: string;
}

const FIELD_COLUMN_KIND = { number: 'number', uint: 'decimal', string: 'string' } as const;

/**
 * group_by names that are time buckets of `block_timestamp` when no field or alias has the name:
 * the newer thirdweb dashboard sends `group_by=day` (rows with `day` and `count`). `day` is a Date
 * (`YYYY-MM-DD`), like `week`, `month` and `year` (their first day; weeks start on Sunday, as
 * ClickHouse's toStartOfWeek); `minute` and `hour` are DateTimes.
 */
export const BUILT_IN_GROUPS: Readonly<Record<string, Bucket>> = {
  minute: { fn: 'toStartOfMinute' },
  hour: { fn: 'toStartOfHour' },
  day: { fn: 'toDate' },
  week: { fn: 'time', steps: ['toStartOfWeek'] },
  month: { fn: 'time', steps: ['toStartOfMonth'] },
  year: { fn: 'time', steps: ['toStartOfYear'] },
};
const BUILT_IN_FIELD = 'block_timestamp';

/** The aggregate every group gets when a request names no aggregate function (Insight's default). */
const DEFAULT_COUNT: NamedExpression = {
  expression: { type: 'aggregate', fn: 'count', field: null, distinct: false },
  alias: null,
  name: 'count',
};

/** The output name of an aggregate: its alias, else as Insight names it (`count()` and `count(*)` are `count`). */
function outputName(named: NamedExpression): NamedExpression {
  if (named.alias === null && (named.name === 'count()' || named.name === 'count(*)')) return { ...named, name: 'count' };
  return named;
}

/** The plan of a request, or null when it asks for no aggregation. Every mistake is a 400. */
export function planAggregation(request: AggregationRequest, fields: FieldCatalogue): AggregationPlan | null {
  if (request.aggregate.length === 0 && request.groupBy.length === 0) return null;
  const expressions = parseAggregates(request.aggregate, fields).map(outputName);
  const entries = parseGroupByEntries(request.groupBy, fields);

  const byName = new Map<string, NamedExpression>();
  for (const named of expressions) {
    if (named.alias && Object.hasOwn(fields, named.alias)) {
      throw new InvalidRequestError(`aggregate: the alias ${named.alias} is a field name; choose another alias`);
    }
    if (byName.has(named.name)) throw new InvalidRequestError(`aggregate: ${named.name} appears twice; give each expression its own alias`);
    byName.set(named.name, named);
  }
  const builtIns = Object.hasOwn(fields, BUILT_IN_FIELD) && fields[BUILT_IN_FIELD]?.timestamp ? Object.keys(BUILT_IN_GROUPS) : [];

  const groupKeys: GroupKey[] = [];
  for (const entry of entries) {
    const name = entry.name;
    if (groupKeys.some((key) => key.name === name)) throw new InvalidRequestError(`group_by: ${name} appears twice`);
    if (entry.alias && Object.hasOwn(fields, entry.alias)) {
      throw new InvalidRequestError(`group_by: the alias ${entry.alias} is a field name; choose another alias`);
    }
    if (entry.bucket) {
      const same = byName.get(name);
      if (same && same.expression.type !== 'bucket')
        throw new InvalidRequestError(`group_by: ${name} is also an aggregate; choose another alias`);
      groupKeys.push({ name, field: entry.bucket.field, bucket: entry.bucket.bucket });
      continue;
    }
    const source = entry.source as string;
    const named = byName.get(source);
    if (entry.alias && byName.get(entry.alias)?.expression.type === 'aggregate') {
      throw new InvalidRequestError(`group_by: ${entry.alias} is also an aggregate; choose another alias`);
    }
    if (named?.expression.type === 'bucket') {
      groupKeys.push({ name, field: named.expression.field, bucket: named.expression.bucket });
    } else if (named) {
      throw new InvalidRequestError(`group_by: ${source} is an aggregate; group by entity fields or time-bucket aliases`);
    } else if (Object.hasOwn(fields, source)) {
      groupKeys.push({ name, field: source, bucket: null });
    } else if (builtIns.includes(source)) {
      groupKeys.push({ name, field: BUILT_IN_FIELD, bucket: BUILT_IN_GROUPS[source] as Bucket });
    } else {
      const aliases = expressions.filter((e) => e.expression.type === 'bucket' && e.alias).map((e) => e.name);
      throw new InvalidRequestError(
        `group_by: unknown name ${source}; valid: ${[...Object.keys(fields), ...aliases, ...builtIns].join(', ')}`,
      );
    }
  }
  for (const named of expressions) {
    if (named.expression.type === 'bucket' && !groupKeys.some((key) => key.name === named.name)) {
      throw new InvalidRequestError(`aggregate: the time bucket ${named.name} must have an alias (AS name) listed in group_by`);
    }
  }

  let aggregates = expressions.filter((named) => named.expression.type === 'aggregate');
  if (aggregates.length === 0 && !groupKeys.some((key) => key.name === DEFAULT_COUNT.name)) aggregates = [DEFAULT_COUNT];
  const columns = [
    ...groupKeys.map((key) => ({
      name: key.name,
      kind: key.bucket ? bucketKind(key.bucket) : FIELD_COLUMN_KIND[fieldInfo(fields, key.field).kind],
    })),
    ...aggregates.map((named) => ({ name: named.name, kind: aggregateKind(named, fields) })),
  ];
  let sortColumn: string | null = null;
  if (request.sortBy !== undefined) {
    if (!columns.some((column) => column.name === request.sortBy)) {
      throw new InvalidRequestError(
        `sort_by: with aggregate or group_by, sort by one of the output columns: ${columns.map((c) => c.name).join(', ')}`,
      );
    }
    sortColumn = request.sortBy;
  }
  return { groupKeys, aggregates, columns, sortColumn };
}

/**
 * The stored record's fields an aggregation's rows read (its group keys' and aggregates' fields, by the
 * catalogue's `record`), or undefined when a field does not say (the whole record is then expanded).
 */
export function recordFieldsOf(plan: AggregationPlan, fields: FieldCatalogue): ReadonlySet<string> | undefined {
  const named = [
    ...plan.groupKeys.map((key) => key.field),
    ...plan.aggregates.flatMap((aggregate) =>
      aggregate.expression.type === 'aggregate' && aggregate.expression.field !== null ? [aggregate.expression.field] : [],
    ),
  ];
  return recordFieldsOfColumns(named, fields);
}

/** The stored record's fields the row columns `names` are serialised from; undefined when one does not say. */
export function recordFieldsOfColumns(names: readonly string[], fields: FieldCatalogue): ReadonlySet<string> | undefined {
  const record = new Set<string>();
  for (const name of names) {
    const source = Object.hasOwn(fields, name) ? fields[name]?.record : undefined;
    if (source === undefined) return undefined;
    for (const field of source) record.add(field);
  }
  return record;
}

/** How a bucket's values order: block buckets and Unix timestamps are numbers, dates sort as text. */
function bucketKind(bucket: Bucket): ColumnKind {
  if (bucket.fn === 'intDiv') return 'number';
  return bucket.fn === 'time' && bucket.steps[0] === 'toUnixTimestamp' ? 'number' : 'string';
}

function aggregateKind(named: NamedExpression, fields: FieldCatalogue): ColumnKind {
  const expression = named.expression;
  if (expression.type !== 'aggregate' || expression.fn === 'count') return 'number';
  return FIELD_COLUMN_KIND[fieldInfo(fields, expression.field).kind];
}

/** A field the parser checked against the catalogue. */
function fieldInfo(fields: FieldCatalogue, name: string): FieldInfo {
  const info = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (info === undefined) throw new Error(`${name} is not in the field catalogue`);
  return info;
}

// ---------------------------------------------------------------------------------------------------
// Evaluation

interface Accumulator {
  count: number;
  distinct: Set<string>;
  sum: bigint;
  min: bigint | null;
  max: bigint | null;
}

/** The aggregated rows of one chain, ordered (sort column, then group keys ascending). */
export function aggregateRows(rows: readonly Row[], plan: AggregationPlan, fields: FieldCatalogue, order: 'asc' | 'desc'): Row[] {
  // One accumulator per aggregate, in the plan's order.
  const newAccumulators = (): { named: NamedExpression; accumulator: Accumulator }[] =>
    plan.aggregates.map((named) => ({ named, accumulator: { count: 0, distinct: new Set(), sum: 0n, min: null, max: null } }));
  const groups = new Map<string, { keys: unknown[]; accumulators: { named: NamedExpression; accumulator: Accumulator }[] }>();
  for (const row of rows) {
    const keys = plan.groupKeys.map((key) => (key.bucket ? bucketOf(key.bucket, row[key.field]) : (row[key.field] ?? null)));
    const id = JSON.stringify(keys);
    let group = groups.get(id);
    if (!group) {
      group = { keys, accumulators: newAccumulators() };
      groups.set(id, group);
    }
    for (const { named, accumulator } of group.accumulators) accumulate(accumulator, named, row);
  }
  // With no group_by, an aggregation over no rows is still one row (count 0), as in SQL.
  if (groups.size === 0 && plan.groupKeys.length === 0) {
    groups.set('[]', { keys: [], accumulators: newAccumulators() });
  }
  const result = [...groups.values()].map(({ keys, accumulators }) => {
    const out: Row = {};
    for (const [index, key] of plan.groupKeys.entries()) out[key.name] = keys[index];
    for (const { named, accumulator } of accumulators) out[named.name] = finish(accumulator, named, fields);
    return out;
  });
  return sortRows(result, plan, order);
}

/** Groups whose count and sums were computed elsewhere (from running totals, prefix-aggregate.ts). */
export interface CountedGroup {
  keys: unknown[];
  count: number;
  /** Sum of each summed field (API name) over the group's rows. */
  sums: ReadonlyMap<string, bigint>;
}

/**
 * The aggregated rows of groups counted and summed elsewhere, as aggregateRows would make them from the
 * rows themselves (count, sum and avg only), ordered the same way. Groups with no rows are left out,
 * except the one group of an aggregation without group_by.
 */
export function rowsOfCountedGroups(
  groups: readonly CountedGroup[],
  plan: AggregationPlan,
  fields: FieldCatalogue,
  order: 'asc' | 'desc',
): Row[] {
  const kept = groups.filter((group) => group.count > 0);
  if (kept.length === 0 && plan.groupKeys.length === 0) kept.push({ keys: [], count: 0, sums: new Map() });
  const result = kept.map(({ keys, count, sums }) => {
    const out: Row = {};
    for (const [index, key] of plan.groupKeys.entries()) out[key.name] = keys[index];
    for (const named of plan.aggregates) {
      const expression = named.expression;
      if (
        expression.type !== 'aggregate' ||
        expression.fn === 'min' ||
        expression.fn === 'max' ||
        (expression.fn === 'count' && expression.distinct)
      ) {
        throw new Error(`rowsOfCountedGroups: ${named.name} is not answered from counts and sums`);
      }
      const sum = expression.fn === 'count' ? 0n : (sums.get(expression.field) ?? 0n);
      out[named.name] = finish({ count, distinct: new Set(), sum, min: null, max: null }, named, fields);
    }
    return out;
  });
  return sortRows(result, plan, order);
}

function accumulate(accumulator: Accumulator, named: NamedExpression, row: Row): void {
  const expression = named.expression;
  if (expression.type !== 'aggregate') return;
  accumulator.count += 1;
  if (expression.fn === 'count') {
    if (expression.distinct && expression.field) accumulator.distinct.add(JSON.stringify(row[expression.field] ?? null));
    return;
  }
  const value = integerOf(row[expression.field]);
  accumulator.sum += value;
  if (accumulator.min === null || value < accumulator.min) accumulator.min = value;
  if (accumulator.max === null || value > accumulator.max) accumulator.max = value;
}

function finish(accumulator: Accumulator, named: NamedExpression, fields: FieldCatalogue): unknown {
  const expression = named.expression;
  if (expression.type !== 'aggregate') return null;
  if (expression.fn === 'count') return expression.distinct ? accumulator.distinct.size : accumulator.count;
  const uint = fieldInfo(fields, expression.field).kind === 'uint';
  const output = (value: bigint | null): unknown => (value === null ? null : uint ? value.toString() : Number(value));
  switch (expression.fn) {
    case 'sum':
      return output(accumulator.sum);
    case 'min':
      return output(accumulator.min);
    case 'max':
      return output(accumulator.max);
    case 'avg':
      if (accumulator.count === 0) return null;
      return uint ? exactQuotient(accumulator.sum, BigInt(accumulator.count)) : Number(accumulator.sum) / accumulator.count;
  }
}

/** Field values are integers: JSON numbers or decimal strings. */
function integerOf(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value)) return BigInt(value);
  return 0n;
}

/** `numerator / denominator` as a decimal string with at most 18 fraction digits (truncated). */
export function exactQuotient(numerator: bigint, denominator: bigint): string {
  const negative = numerator < 0n;
  const absolute = negative ? -numerator : numerator;
  const whole = absolute / denominator;
  let remainder = absolute % denominator;
  let fraction = '';
  for (let digit = 0; digit < 18 && remainder !== 0n; digit += 1) {
    remainder *= 10n;
    fraction += (remainder / denominator).toString();
    remainder %= denominator;
  }
  const text = fraction ? `${whole}.${fraction}` : whole.toString();
  return negative && text !== '0' ? `-${text}` : text;
}

/** The time functions of a time bucket, outermost first (null for a block bucket). */
export function timeStepsOf(bucket: Bucket): readonly TimeFunction[] | null {
  if (bucket.fn === 'intDiv') return null;
  return bucket.fn === 'time' ? bucket.steps : [bucket.fn];
}

const DAY = 86_400;
/** The units time functions truncate to, from the finest. */
export type TimeUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';
const UNIT_OF: Record<TimeFunction, TimeUnit> = {
  toDateTime: 'second',
  toUnixTimestamp: 'second',
  toStartOfMinute: 'minute',
  toStartOfHour: 'hour',
  toDate: 'day',
  toStartOfDay: 'day',
  toStartOfWeek: 'week',
  toStartOfMonth: 'month',
  toStartOfYear: 'year',
};
/** What ClickHouse's function returns: a DateTime, a Date, or a number (Unix seconds). */
const OUTPUT_OF: Record<TimeFunction, 'datetime' | 'date' | 'number'> = {
  toDateTime: 'datetime',
  toStartOfMinute: 'datetime',
  toStartOfHour: 'datetime',
  toStartOfDay: 'datetime',
  toDate: 'date',
  toStartOfWeek: 'date',
  toStartOfMonth: 'date',
  toStartOfYear: 'date',
  toUnixTimestamp: 'number',
};

/** The first second of the UTC unit holding `seconds` (weeks start on Sunday, ClickHouse's toStartOfWeek mode 0). */
export function unitStart(unit: TimeUnit, seconds: number): number {
  switch (unit) {
    case 'second':
      return Math.floor(seconds);
    case 'minute':
      return Math.floor(seconds / 60) * 60;
    case 'hour':
      return Math.floor(seconds / 3600) * 3600;
    case 'day':
      return Math.floor(seconds / DAY) * DAY;
    case 'week': {
      const day = Math.floor(seconds / DAY);
      const weekday = (((day + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday (Sunday = 0)
      return (day - weekday) * DAY;
    }
    case 'month': {
      const date = new Date(seconds * 1000);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 1000;
    }
    case 'year':
      return Date.UTC(new Date(seconds * 1000).getUTCFullYear(), 0, 1) / 1000;
  }
}

/** The first second of the unit after the one starting at `start`. */
export function nextUnitStart(unit: TimeUnit, start: number): number {
  const sizes: Partial<Record<TimeUnit, number>> = { second: 1, minute: 60, hour: 3600, day: DAY, week: 7 * DAY };
  const size = sizes[unit];
  if (size !== undefined) return start + size;
  const date = new Date(start * 1000);
  return unit === 'month'
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 1000
    : Date.UTC(date.getUTCFullYear() + 1, 0, 1) / 1000;
}

/**
 * The unit a time bucket is constant on: its innermost truncating function's (the outer ones only see
 * that function's value), `second` when none truncates.
 */
export function innermostUnit(steps: readonly TimeFunction[]): TimeUnit {
  for (let index = steps.length - 1; index >= 0; index -= 1) {
    const unit = UNIT_OF[steps[index] as TimeFunction];
    if (unit !== 'second') return unit;
  }
  return 'second';
}

/**
 * The bucket of a value: the UTC time bucket of a timestamp (Unix seconds, as a number or a decimal
 * string), or a block number divided by the bucket size, rounded down.
 */
export function bucketOf(bucket: Bucket, value: unknown): string | number | null {
  const seconds = Number(value);
  if (!Number.isFinite(seconds)) return null;
  if (bucket.fn === 'intDiv') return Math.floor(seconds / bucket.size);
  const steps = timeStepsOf(bucket) as readonly TimeFunction[];
  let time = Math.floor(seconds);
  for (let index = steps.length - 1; index >= 0; index -= 1) time = unitStart(UNIT_OF[steps[index] as TimeFunction], time);
  const output = OUTPUT_OF[steps[0] as TimeFunction];
  if (output === 'number') return time;
  const iso = new Date(time * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  return output === 'date' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/**
 * The time buckets from `from` to `to` (Unix seconds) in order: each one's first second (its first
 * unit's start; the first bucket's may precede `from`) and its value. Undefined when there are more
 * than `maxBuckets`, or more than `maxUnits` units to step through.
 */
export function timeBucketsBetween(
  bucket: Bucket,
  from: number,
  to: number,
  maxBuckets: number,
  maxUnits = 100_000,
): { start: number; value: string | number | null }[] | undefined {
  const steps = timeStepsOf(bucket);
  if (steps === null) throw new Error('timeBucketsBetween takes a time bucket');
  const unit = innermostUnit(steps);
  const buckets: { start: number; value: string | number | null }[] = [];
  let units = 0;
  for (let start = unitStart(unit, from); start <= to; start = nextUnitStart(unit, start)) {
    units += 1;
    if (units > maxUnits) return undefined;
    const value = bucketOf(bucket, start);
    if (buckets.length > 0 && buckets[buckets.length - 1]?.value === value) continue;
    if (buckets.length === maxBuckets) return undefined;
    buckets.push({ start, value });
  }
  return buckets;
}

function sortRows(rows: Row[], plan: AggregationPlan, order: 'asc' | 'desc'): Row[] {
  const kinds = new Map(plan.columns.map((column) => [column.name, column.kind]));
  const byKeys = (a: Row, b: Row): number => {
    for (const key of plan.groupKeys) {
      const difference = compareValues(a[key.name], b[key.name], kinds.get(key.name) ?? 'string');
      if (difference !== 0) return difference;
    }
    return 0;
  };
  const sortColumn = plan.sortColumn;
  return [...rows].sort((a, b) => {
    if (sortColumn) {
      const difference = compareValues(a[sortColumn], b[sortColumn], kinds.get(sortColumn) ?? 'string');
      if (difference !== 0) return order === 'desc' ? -difference : difference;
    }
    return byKeys(a, b);
  });
}

/** Orders two column values; nulls first. */
export function compareValues(a: unknown, b: unknown, kind: ColumnKind): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  if (kind === 'number' && typeof a === 'number' && typeof b === 'number') return a - b;
  if (kind === 'decimal') return compareDecimals(String(a), String(b));
  const [left, right] = [String(a), String(b)];
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Compares decimal strings (optional sign and fraction) exactly. */
export function compareDecimals(a: string, b: string): number {
  const scale = (text: string): bigint => {
    const [whole, fraction = ''] = text.split('.');
    return BigInt(whole + fraction.padEnd(18, '0').slice(0, 18));
  };
  const [left, right] = [scale(a), scale(b)];
  return left < right ? -1 : left > right ? 1 : 0;
}
