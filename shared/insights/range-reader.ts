/**
 * Reading one key range of the table: a page (skip + take), the count of the range (Select COUNT),
 * or the whole range for an aggregation. A range is one partition (pk) and optionally a sort-key
 * condition: block bounds on sort keys that start with the block number, a prefix, or one exact key.
 *
 * Checks are the documented bounded checks: filters that have no range of their own, applied as a
 * FilterExpression inside the already-narrowed range. Attribute names come from the fixed mappings of
 * the insights modules and every value travels as an ExpressionAttributeValue: request text never
 * becomes expression text. uint256 attributes (canonical decimal strings) compare exactly by length
 * first, then as strings. A checked read examines at most maxItemsReadPerChain items (config.ts;
 * 400 beyond), and so does an aggregation's read of the whole range.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { blockKey } from '../db/keys';
import { BadRequestError } from '../http/errors';
import { insightsConfig } from './config';

export type Item = Record<string, unknown>;

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

export type SortKeyCondition =
  | { blocks: { from?: number; to?: number } }
  | { prefix: string }
  | { equals: string };

export interface RangeRead {
  pk: string;
  sk?: SortKeyCondition;
  checks: readonly Check[];
  /** block_number order (the sort key's order). */
  order: 'asc' | 'desc';
}

export class RangeTooLargeError extends BadRequestError {
  constructor(chainId: number, bound: number) {
    super(
      `the request would read more than ${bound} items on chain ${chainId}; narrow the block range (filter_block_number_gte / _lte, or block_number_from / _to)`,
    );
  }
}

/** The Query input of a range (without Limit / ExclusiveStartKey / Select). */
export function queryInput(read: RangeRead): QueryCommandInput {
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
    TableName: tableName(),
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

/** Items `skip` to `skip + take` of the range, in its order. */
export async function readPage(chainId: number, read: RangeRead, skip: number, take: number): Promise<Item[]> {
  const wanted = skip + take;
  const bound = insightsConfig().maxItemsReadPerChain;
  const checked = read.checks.length > 0;
  const input = queryInput(read);
  const items: Item[] = [];
  let examined = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const limit = checked ? bound + 1 - examined : wanted - items.length;
    const result = await db.send(new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey: start }));
    items.push(...((result.Items ?? []) as Item[]));
    examined += result.ScannedCount ?? 0;
    start = result.LastEvaluatedKey;
    if (items.length >= wanted) break;
    if (checked && examined > bound) throw new RangeTooLargeError(chainId, bound);
  } while (start);
  return items.slice(skip, wanted);
}

/** Every item of the range, for an aggregation: a 400 when there are more than the documented bound. */
export async function readAll(chainId: number, read: RangeRead): Promise<Item[]> {
  const input = queryInput(read);
  const bound = insightsConfig().maxItemsReadPerChain;
  const items: Item[] = [];
  let examined = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(new QueryCommand({ ...input, Limit: bound + 1 - examined, ExclusiveStartKey: start }));
    items.push(...((result.Items ?? []) as Item[]));
    examined += result.ScannedCount ?? 0;
    start = result.LastEvaluatedKey;
    if (examined > bound) throw new RangeTooLargeError(chainId, bound);
  } while (start);
  return items;
}

/**
 * The number of items of the range that pass its checks: Select COUNT on the same key condition and
 * FilterExpression (no item is transferred). Stops after maxCountedItemsPerChain examined items.
 */
export async function countRange(read: RangeRead): Promise<number> {
  const input = queryInput(read);
  const cap = insightsConfig().maxCountedItemsPerChain;
  let count = 0;
  let examined = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(
      new QueryCommand({ ...input, Select: 'COUNT', Limit: cap - examined, ExclusiveStartKey: start }),
    );
    count += result.Count ?? 0;
    examined += result.ScannedCount ?? 0;
    start = result.LastEvaluatedKey;
  } while (start && examined < cap);
  return count;
}
