/**
 * `filter_<field>` parameters: each endpoint's filterable fields, the valibot schema of every filter
 * parameter (typed per field: integers, uint256, hashes, addresses, topics), and the typed filters a
 * request carries. `filter_<field>` is equality; `_gte`, `_gt`, `_lte`, `_lt` compare (number and
 * uint256 fields only). An unknown parameter is a 400 that lists the endpoint's valid filter fields.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import * as v from 'valibot';
import type { Check } from './range-reader';

export type FilterKind = 'integer' | 'uint256' | 'hash' | 'address' | 'topic' | 'topics';
export type FilterOperator = 'eq' | 'gte' | 'gt' | 'lte' | 'lt';
export const COMPARISONS: readonly Exclude<FilterOperator, 'eq'>[] = ['gte', 'gt', 'lte', 'lt'];

/**
 * One filter of a request; integer values are numbers, uint256 values bigints, hex values lowercase;
 * a `topics` field's equality with several values (repeated, as thirdweb's SDK sends a prepared event's
 * filter on one indexed argument by several values, or comma-separated) is a list: any of them.
 */
export interface Filter {
  field: string;
  operator: FilterOperator;
  value: number | bigint | string | readonly string[];
}

/** Most values one `topics` filter takes (an OR of them). */
export const MAX_TOPIC_VALUES = 20;

export type FilterCatalogue = Readonly<Record<string, FilterKind>>;

/** I1: transactions of a contract calling a function. */
export const TRANSACTION_FILTERS = {
  block_number: 'integer',
  block_timestamp: 'integer',
  transaction_index: 'integer',
  value: 'uint256',
  gas_price: 'uint256',
  gas: 'integer',
  block_hash: 'hash',
  hash: 'hash',
  from_address: 'address',
} as const satisfies FilterCatalogue;

/** I2: events of a contract. */
export const EVENT_FILTERS = {
  block_number: 'integer',
  block_timestamp: 'integer',
  transaction_index: 'integer',
  log_index: 'integer',
  block_hash: 'hash',
  transaction_hash: 'hash',
  topic_0: 'topic',
  topic_1: 'topics',
  topic_2: 'topics',
  topic_3: 'topics',
} as const satisfies FilterCatalogue;

/** I3: blocks. */
export const BLOCK_FILTERS = {
  block_number: 'integer',
  block_timestamp: 'integer',
  hash: 'hash',
} as const satisfies FilterCatalogue;

const comparable = (kind: FilterKind): boolean => kind === 'integer' || kind === 'uint256';

/** A topic as stored: 0x and 64 lowercase hex digits (a shorter one left-padded, as an indexed value is). */
const paddedTopic = (text: string): string => `0x${text.slice(2).toLowerCase().padStart(64, '0')}`;

const MAX_UINT256 = 2n ** 256n - 1n;

/** The schema of one filter value (a query string) for a field kind. */
export function filterValueSchema(kind: FilterKind) {
  switch (kind) {
    case 'integer':
      return v.pipe(v.string(), v.regex(/^[0-9]{1,15}$/, 'must be a non-negative integer'), v.transform(Number));
    case 'uint256':
      return v.pipe(
        v.string(),
        v.regex(/^[0-9]{1,78}$/, 'must be a non-negative decimal integer'),
        // Guarded: validation actions still run after the regex fails.
        v.check((text) => !/^[0-9]{1,78}$/.test(text) || BigInt(text) <= MAX_UINT256, 'must be at most 2^256 - 1'),
        v.transform((text) => BigInt(text)),
      );
    case 'hash':
      return v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits'), v.toLowerCase());
    case 'address':
      return v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hex digits'), v.toLowerCase());
    case 'topic':
      return v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be 0x followed by 1 to 64 hex digits'), v.transform(paddedTopic));
    case 'topics':
      // Repeats reach validation comma-joined (shared/http/query.ts): one topic, or any of several.
      return v.pipe(
        v.string(),
        v.regex(
          new RegExp(`^0x[0-9a-fA-F]{1,64}(,0x[0-9a-fA-F]{1,64}){0,${MAX_TOPIC_VALUES - 1}}$`),
          `must be 0x followed by 1 to 64 hex digits, or up to ${MAX_TOPIC_VALUES} of them (repeated or comma-separated: any of them)`,
        ),
        v.transform((text) => {
          const topics = [...new Set(text.split(',').map(paddedTopic))];
          return topics.length === 1 ? topics[0]! : topics;
        }),
      );
  }
}

/** The query-schema entries of every filter parameter of a catalogue, all optional. */
export function filterEntries(catalogue: FilterCatalogue): Record<string, v.OptionalSchema<v.GenericSchema<string, unknown>, undefined>> {
  const entries: Record<string, v.OptionalSchema<v.GenericSchema<string, unknown>, undefined>> = {};
  for (const [field, kind] of Object.entries(catalogue)) {
    const schema = filterValueSchema(kind) as v.GenericSchema<string, unknown>;
    entries[`filter_${field}`] = v.optional(schema);
    if (comparable(kind)) for (const operator of COMPARISONS) entries[`filter_${field}_${operator}`] = v.optional(schema);
  }
  return entries;
}

/** What a 400 for an unknown parameter says: the valid filter fields and the other parameters. */
export function unknownParameterMessage(catalogue: FilterCatalogue, otherParameters: readonly string[]): string {
  const fields = Object.entries(catalogue).map(([field, kind]) => (comparable(kind) ? `${field} (also _gte, _gt, _lte, _lt)` : field));
  const filters = fields.length > 0 ? `valid filter fields: ${fields.join(', ')}; ` : '';
  return `unknown parameter; ${filters}other parameters: ${otherParameters.join(', ')}`;
}

/** The filters a validated query carries, in catalogue order. */
export function collectFilters(query: Record<string, unknown>, catalogue: FilterCatalogue): Filter[] {
  const filters: Filter[] = [];
  for (const field of Object.keys(catalogue)) {
    const equal = query[`filter_${field}`];
    if (equal !== undefined) filters.push({ field, operator: 'eq', value: equal as Filter['value'] });
    for (const operator of COMPARISONS) {
      const value = query[`filter_${field}_${operator}`];
      if (value !== undefined) filters.push({ field, operator, value: value as Filter['value'] });
    }
  }
  return filters;
}

/** Inclusive integer bounds; `empty` when the filters cannot all hold. */
export interface Bounds {
  min?: number;
  max?: number;
  empty: boolean;
}

/** The inclusive bounds that the filters of one integer field give. */
export function integerBounds(filters: readonly Filter[], field: string): Bounds {
  const bounds: Bounds = { empty: false };
  const raise = (value: number) => (bounds.min = bounds.min === undefined ? value : Math.max(bounds.min, value));
  const lower = (value: number) => (bounds.max = bounds.max === undefined ? value : Math.min(bounds.max, value));
  for (const filter of filters) {
    if (filter.field !== field) continue;
    const value = Number(filter.value);
    if (filter.operator === 'eq' || filter.operator === 'gte') raise(value);
    if (filter.operator === 'eq' || filter.operator === 'lte') lower(value);
    if (filter.operator === 'gt') raise(value + 1);
    if (filter.operator === 'lt') lower(value - 1);
  }
  bounds.empty = bounds.min !== undefined && bounds.max !== undefined && bounds.min > bounds.max;
  if (bounds.max !== undefined && bounds.max < 0) bounds.empty = true;
  return bounds;
}

/** The equality value of a field, if the request has one. */
export function equalityOf(filters: readonly Filter[], field: string): string | undefined {
  const filter = filters.find((candidate) => candidate.field === field && candidate.operator === 'eq');
  return filter === undefined ? undefined : String(filter.value);
}

/** Where a filter field is checked on stored records: the attribute and how it compares. */
export interface CheckedField {
  attribute: string;
  listIndex?: number;
  kind: Check['kind'];
}

const CHECK_OPERATORS: Record<FilterOperator, Check['operator']> = { eq: '=', gte: '>=', gt: '>', lte: '<=', lt: '<' };

/**
 * The bounded checks of the filters on `fields` (those with no range of their own), as range-reader
 * checks on the mapped record attributes.
 */
export function checksOf(filters: readonly Filter[], fields: Readonly<Record<string, CheckedField>>): Check[] {
  return filters.flatMap((filter): Check[] => {
    const field = Object.hasOwn(fields, filter.field) ? fields[filter.field] : undefined;
    if (field === undefined) return [];
    if (Array.isArray(filter.value)) {
      return [{ attribute: field.attribute, listIndex: field.listIndex, operator: 'in', value: filter.value, kind: field.kind }];
    }
    const value = field.kind === 'number' ? Number(filter.value) : String(filter.value);
    return [
      {
        attribute: field.attribute,
        listIndex: field.listIndex,
        operator: CHECK_OPERATORS[filter.operator],
        value,
        kind: field.kind,
      },
    ];
  });
}

/** Checks that keep a record's block number within a range (for ranges not keyed by block). */
export function blockChecks(attribute: string, range: { from?: number; to?: number }): Check[] {
  const checks: Check[] = [];
  if (range.from !== undefined) checks.push({ attribute, operator: '>=', value: range.from, kind: 'number' });
  if (range.to !== undefined) checks.push({ attribute, operator: '<=', value: range.to, kind: 'number' });
  return checks;
}
