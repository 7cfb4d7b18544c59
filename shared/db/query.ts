/**
 * Reading a whole key range: every page of one Query on the table or on a GSI (KeyRange.index), with
 * an optional sort-key prefix. The one place that pages through LastEvaluatedKey for whole ranges.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import type { KeyRange } from '../table/keys';
import { TABLE } from '../table/definition';

export interface RangeReadOptions {
  /** Stop after this many items. */
  limit?: number;
  newestFirst?: boolean;
  /** Strongly consistent (base table only; GSIs are always eventually consistent). */
  consistentRead?: boolean;
}

function keyCondition(range: KeyRange) {
  const index = TABLE.globalSecondaryIndexes.find((gsi) => gsi.indexName === range.index);
  const names = { '#pk': index?.partitionKey ?? TABLE.partitionKey, '#sk': index?.sortKey ?? TABLE.sortKey };
  return {
    TableName: tableName(),
    IndexName: range.index,
    KeyConditionExpression: range.skPrefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ExpressionAttributeNames: range.skPrefix ? names : { '#pk': names['#pk'] },
    ExpressionAttributeValues: range.skPrefix ? { ':pk': range.pk, ':prefix': range.skPrefix } : { ':pk': range.pk },
  };
}

/** Every item of a key range (all pages), optionally at most `limit`, in the order asked for. */
export async function queryRange<T = Record<string, unknown>>(range: KeyRange, options: RangeReadOptions = {}): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(
      new QueryCommand({
        ...keyCondition(range),
        ScanIndexForward: !options.newestFirst,
        ConsistentRead: range.index ? undefined : options.consistentRead,
        Limit: options.limit ? options.limit - items.length : undefined,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((result.Items ?? []) as T[]));
    start = result.LastEvaluatedKey;
  } while (start && (!options.limit || items.length < options.limit));
  return items;
}

/** The number of items in a key range (Select COUNT, every page): reads the range without returning it. */
export async function countRange(range: KeyRange, options: Pick<RangeReadOptions, 'consistentRead'> = {}): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(
      new QueryCommand({
        ...keyCondition(range),
        Select: 'COUNT',
        ConsistentRead: range.index ? undefined : options.consistentRead,
        ExclusiveStartKey: start,
      }),
    );
    count += result.Count ?? 0;
    start = result.LastEvaluatedKey;
  } while (start);
  return count;
}

/**
 * The last item of a base-table partition in sort-key order (one Query, Limit 1, newest first) whose
 * sort key is below `before`, or at most `atMost` (the partition's last with neither), projected to
 * `attributes`. Range positions use it: the last `pos` before a block.
 */
export async function lastItem(
  pk: string,
  bound: { before?: string; atMost?: string },
  options: { attributes: readonly string[]; consistentRead?: boolean },
): Promise<Record<string, unknown> | undefined> {
  const names: Record<string, string> = { '#pk': TABLE.partitionKey, '#sk': TABLE.sortKey };
  for (const attribute of options.attributes) names[`#${attribute}`] = attribute;
  const values: Record<string, unknown> = { ':pk': pk };
  let condition = '#pk = :pk';
  if (bound.before !== undefined) {
    condition += ' AND #sk < :bound';
    values[':bound'] = bound.before;
  } else if (bound.atMost !== undefined) {
    condition += ' AND #sk <= :bound';
    values[':bound'] = bound.atMost;
  }
  const result = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ProjectionExpression: options.attributes.map((attribute) => `#${attribute}`).join(', '),
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: options.consistentRead,
    }),
  );
  return result.Items?.[0];
}
