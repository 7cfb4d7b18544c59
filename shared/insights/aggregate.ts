/**
 * group_by / aggregate: the plan checked against an entity's fields, and its evaluation over the API
 * rows of one chain. uint256 fields add up exactly as bigint; counts are numbers.
 *
 * Output columns: the group_by names in order, then each aggregate (alias or canonical text).
 * Values: count -> number; sum / min / max -> the field's own type (number, or a decimal string for
 * uint256); avg -> a number for number fields, an exact decimal string (at most 18 fraction digits,
 * truncated) for uint256 fields; a time bucket -> `YYYY-MM-DD hh:mm:ss` (UTC) or `YYYY-MM-DD` for toDate;
 * intDiv(block_number, N) -> a number.
 */
import { InvalidRequestError } from '../errors';
import { parseAggregates, parseGroupBy, type FieldCatalogue, type FieldInfo, type Bucket, type NamedExpression } from './aggregate-parser';

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

/** The plan of a request, or null when it asks for no aggregation. Every mistake is a 400. */
export function planAggregation(request: AggregationRequest, fields: FieldCatalogue): AggregationPlan | null {
  if (request.aggregate.length === 0 && request.groupBy.length === 0) return null;
  const expressions = parseAggregates(request.aggregate, fields);
  const groupNames = parseGroupBy(request.groupBy);

  const byName = new Map<string, NamedExpression>();
  for (const named of expressions) {
    if (named.alias && Object.hasOwn(fields, named.alias)) {
      throw new InvalidRequestError(`aggregate: the alias ${named.alias} is a field name; choose another alias`);
    }
    if (byName.has(named.name)) throw new InvalidRequestError(`aggregate: ${named.name} appears twice; give each expression its own alias`);
    byName.set(named.name, named);
  }

  const groupKeys: GroupKey[] = [];
  for (const name of groupNames) {
    if (groupKeys.some((key) => key.name === name)) throw new InvalidRequestError(`group_by: ${name} appears twice`);
    const named = byName.get(name);
    if (named?.expression.type === 'bucket') {
      groupKeys.push({ name, field: named.expression.field, bucket: named.expression.bucket });
    } else if (named) {
      throw new InvalidRequestError(`group_by: ${name} is an aggregate; group by entity fields or time-bucket aliases`);
    } else if (Object.hasOwn(fields, name)) {
      groupKeys.push({ name, field: name, bucket: null });
    } else {
      const aliases = expressions.filter((e) => e.expression.type === 'bucket' && e.alias).map((e) => e.name);
      throw new InvalidRequestError(`group_by: unknown name ${name}; valid: ${[...Object.keys(fields), ...aliases].join(', ')}`);
    }
  }
  for (const named of expressions) {
    if (named.expression.type === 'bucket' && !groupKeys.some((key) => key.name === named.name)) {
      throw new InvalidRequestError(`aggregate: the time bucket ${named.name} must have an alias (AS name) listed in group_by`);
    }
  }

  const aggregates = expressions.filter((named) => named.expression.type === 'aggregate');
  const columns = [
    ...groupKeys.map((key) => ({
      name: key.name,
      kind: key.bucket
        ? key.bucket.fn === 'intDiv'
          ? ('number' as const)
          : ('string' as const)
        : FIELD_COLUMN_KIND[fieldInfo(fields, key.field).kind],
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

/**
 * The bucket of a value: the UTC time bucket of a timestamp (Unix seconds, as a number or a decimal
 * string), or a block number divided by the bucket size, rounded down.
 */
export function bucketOf(bucket: Bucket, value: unknown): string | number | null {
  const seconds = Number(value);
  if (!Number.isFinite(seconds)) return null;
  if (bucket.fn === 'intDiv') return Math.floor(seconds / bucket.size);
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const date = iso.slice(0, 10);
  switch (bucket.fn) {
    case 'toDate':
      return date;
    case 'toStartOfDay':
      return `${date} 00:00:00`;
    case 'toStartOfHour':
      return `${date} ${iso.slice(11, 13)}:00:00`;
    case 'toStartOfMinute':
      return `${date} ${iso.slice(11, 16)}:00`;
  }
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
