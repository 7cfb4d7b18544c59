/**
 * A Query of a bucketed range (shared/table/buckets.ts) served as the Query of its entries would be:
 *
 *  - each bucket read is expanded into its entries (and an item written before buckets is one entry);
 *  - entries outside the key condition or at or before the ExclusiveStartKey are dropped: a bucket's
 *    key is its first entry's, so a bucket that starts before a bound may hold entries past it. Newest
 *    first, a lower bound is moved back to the start of its block (a bucket never spans blocks), and
 *    only the first bucket read may hold entries above the bound: a page of Limit buckets holds at
 *    least Limit - 1 entries of the range (fewer with a LastEvaluatedKey, as a page DynamoDB cuts),
 *    and never reads more items than the Limit;
 *  - `Limit` counts entries, in either order: the page ends at the Limit-th entry and its
 *    LastEvaluatedKey is that entry's key (DynamoDB starts after a key with no item there as after one
 *    with an item); a page DynamoDB cuts ends with a whole bucket, and its LastEvaluatedKey is that
 *    bucket's last entry, so a next page never repeats an entry;
 *  - in ascending order, a lower bound or ExclusiveStartKey that may fall inside a bucket (anything
 *    but the start of a block) is served by one more Query sent beside the page's, in parallel: the
 *    bucket holding the bound (newest first, Limit 1, from the bound back to the start of its block),
 *    whose entries past the bound come first. So a page that starts at any entry (a seek chunk's key,
 *    insights range-seek.ts) costs one round trip and one item more, not the rest of the block;
 *  - Select COUNT counts entries; a ProjectionExpression is applied to the entries (a bucket is read
 *    whole: what it saves is the bytes sent on, not the units read); a FilterExpression is refused:
 *    DynamoDB would apply it to the buckets, not their entries (filter the entries read instead);
 *  - `scanned` is the entries read (those of every bucket read, the ones outside the bounds too): a
 *    bucket holds its entries' bytes, which DynamoDB bills, so a read bound counted in `scanned`
 *    (insights' maxItemsReadPerChain) bounds the same cost whether a range is in buckets or not;
 *  - an entry stored both as an item of its own (written before buckets) and in a bucket (its block
 *    written again once its manifest, which listed the single items, had expired) is served once.
 */
import { bucketGroupsOf, entriesOf } from '../table/buckets';
import { compareSortKeys } from '../table/keys';
import { type Item, namesUsed, type QueryInput, type QueryPage } from './union-query';

type SortKeyCheck = (sk: string) => boolean;

/** The sort keys a key condition allows at most and at least (inclusive: an entry at a bound may still be outside it). */
export interface SortKeyBounds {
  lower?: string;
  upper?: string;
}

export async function queryBucketedRange(
  input: QueryInput,
  send: (input: QueryInput) => Promise<QueryPage<Item>>,
  /** Items (buckets) to read at most, below the Limit (which counts the entries returned): operations.ts PageOptions. */
  bucketLimit?: number,
): Promise<QueryPage<Item>> {
  if (input.FilterExpression !== undefined) {
    throw new Error('a FilterExpression cannot see the entries of a bucketed range: filter the entries read');
  }
  const descending = input.ScanIndexForward === false;
  const counting = input.Select === 'COUNT';
  /** Where the buckets that may hold entries past a sort key start (the block's key: table/buckets.ts bucketGroupsOf). */
  const groupOf = bucketGroupsOf(String(input.ExpressionAttributeValues?.[':pk'] ?? ''));
  const condition = sortKeyCondition(input, groupOf);
  const { Select: _select, ProjectionExpression: projection, ...rest } = input;
  const request: QueryInput = { ...rest, ExpressionAttributeNames: namesUsed(rest) };
  if (bucketLimit !== undefined && (input.Limit === undefined || bucketLimit < input.Limit)) request.Limit = bucketLimit;
  if (Object.keys(request.ExpressionAttributeNames ?? {}).length === 0) delete request.ExpressionAttributeNames;
  if (descending && condition.lowerBlock !== undefined) {
    // From the start of the lower bound's block: its buckets may hold entries past the bound (the
    // bound's own value is then unused: DynamoDB refuses unused values).
    request.KeyConditionExpression = condition.expression;
    const values = { ...request.ExpressionAttributeValues, [LOWER_BLOCK]: condition.lowerBlock };
    request.ExpressionAttributeValues = Object.fromEntries(
      Object.entries(values).filter(([name]) => new RegExp(`${name}(?![A-Za-z0-9_])`).test(condition.expression)),
    );
  }
  const start = input.ExclusiveStartKey?.sk;
  // In ascending order, the bucket that may hold the first entries past the start key or lower bound.
  const straddled = descending ? undefined : straddlePoint(typeof start === 'string' ? start : undefined, condition.lower, groupOf);
  const [page, straddling] = await Promise.all([
    send(request),
    straddled === undefined ? undefined : send(bucketHolding(input, straddled, groupOf)),
  ]);

  const after: SortKeyCheck =
    typeof start === 'string' ? (sk) => (descending ? compareSortKeys(sk, start) < 0 : compareSortKeys(sk, start) > 0) : () => true;
  const read = [...(straddling?.items ?? []), ...page.items].flatMap((item) => {
    const expanded = entriesOf(item);
    return descending ? expanded.reverse() : expanded;
  });
  let entries = read
    .filter((entry) => condition.check(String(entry.sk)) && after(String(entry.sk)))
    // An entry stored both ways (its one-entry item written before buckets, and a bucket of a block
    // written again after its manifest expired), or read by both Queries, is one entry: in key order, once.
    .sort((a, b) => (descending ? -1 : 1) * compareSortKeys(String(a.sk), String(b.sk)))
    .filter((entry, index, sorted) => index === 0 || sorted[index - 1]?.sk !== entry.sk);
  let more = page.lastKey !== undefined;
  // The page ends at the Limit-th entry, or with the last bucket DynamoDB returned.
  if (input.Limit !== undefined && entries.length > input.Limit) {
    entries = entries.slice(0, input.Limit);
    more = true;
  }
  const last = entries.at(-1);
  const lastKey = !more ? undefined : last ? { pk: last.pk, sk: last.sk } : page.lastKey;
  const project = projection === undefined ? undefined : projectionOf(projection, input.ExpressionAttributeNames ?? {});
  return {
    items: counting ? [] : project ? entries.map(project) : entries,
    count: entries.length,
    scanned: read.length,
    lastKey,
  };
}

/**
 * A ProjectionExpression as DynamoDB applies it to an item, for the entries of a bucket: the top-level
 * attributes its paths name (a nested path keeps its whole top-level attribute).
 */
export function projectionOf(expression: string, names: Record<string, string>): (entry: Item) => Item {
  const kept = expression.split(',').map((path) => {
    const top = path.trim().split(/[.[]/)[0] ?? '';
    return names[top] ?? top;
  });
  return (entry) => Object.fromEntries(kept.filter((name) => name in entry).map((name) => [name, entry[name]]));
}

/**
 * The sort key a bucket read in ascending order may straddle: the later of the start key and the lower
 * bound; undefined when no bucket can (none, or the start of a block: buckets never span blocks).
 */
function straddlePoint(start: string | undefined, lower: string | undefined, groupOf: (sk: string) => string): string | undefined {
  const point = start === undefined ? lower : lower === undefined || compareSortKeys(start, lower) >= 0 ? start : lower;
  return point === undefined || point.length <= groupOf(point).length ? undefined : point;
}

/** The Query of the bucket holding sort key `point`, if any: the last item from the start of its block to it. */
function bucketHolding(input: QueryInput, point: string, groupOf: (sk: string) => string): QueryInput {
  return {
    KeyConditionExpression: '#bucketPk = :bucketPk AND #bucketSk BETWEEN :bucketFrom AND :bucketTo',
    ExpressionAttributeNames: { '#bucketPk': 'pk', '#bucketSk': 'sk' },
    ExpressionAttributeValues: {
      ':bucketPk': input.ExpressionAttributeValues?.[':pk'],
      ':bucketFrom': groupOf(point),
      ':bucketTo': point,
    },
    ScanIndexForward: false,
    Limit: 1,
    ...(input.ConsistentRead === undefined ? {} : { ConsistentRead: input.ConsistentRead }),
  };
}

/** The placeholder of a lower bound moved back to the start of its block. */
const LOWER_BLOCK = ':bucketBlockStart';

/**
 * The sort-key part of a KeyConditionExpression (`#pk = :pk AND <sk condition>`, the forms DynamoDB
 * allows) as a check of an entry's sort key, and the expression to send: a lower bound (`>`, `>=`,
 * `=`, BETWEEN's low end) moved back to the start of its block (LOWER_BLOCK), where the buckets that
 * may hold entries past it start (sent newest first), and the lower bound itself (`lower`: in
 * ascending order the page is read from it, and the bucket holding it beside: bucketHolding).
 */
export function sortKeyCondition(
  input: QueryInput,
  blockOf: (sk: string) => string,
): { check: SortKeyCheck; expression: string; lowerBlock?: string; lower?: string; bounds: SortKeyBounds } {
  const expression = input.KeyConditionExpression ?? '';
  const values = input.ExpressionAttributeValues ?? {};
  const names = input.ExpressionAttributeNames ?? {};
  const isSortKey = (name: string | undefined): boolean => name !== undefined && (names[name] ?? name) === 'sk';
  const value = (placeholder: string | undefined): string => {
    const found = placeholder === undefined ? undefined : values[placeholder];
    if (typeof found !== 'string') throw new Error(`key condition value ${placeholder} is not a string`);
    return found;
  };
  // `a AND b`, where BETWEEN's own AND joins its two values.
  const clauses: string[] = [];
  for (const part of expression.split(/\s+AND\s+/i)) {
    if (clauses.length > 0 && /\sBETWEEN\s+:\w+$/i.test(clauses.at(-1)!)) clauses[clauses.length - 1] += ` AND ${part}`;
    else clauses.push(part);
  }
  for (const [position, clause] of clauses.entries()) {
    const rebuild = (replacement: string): string => clauses.map((other, at) => (at === position ? replacement : other)).join(' AND ');
    const between = /^\s*(#?\w+)\s+BETWEEN\s+(:\w+)\s+AND\s+(:\w+)\s*$/i.exec(clause);
    if (between && isSortKey(between[1])) {
      const [low, high] = [value(between[2]), value(between[3])];
      return {
        check: (sk) => compareSortKeys(sk, low) >= 0 && compareSortKeys(sk, high) <= 0,
        expression: rebuild(`${between[1]} BETWEEN ${LOWER_BLOCK} AND ${between[3]}`),
        lowerBlock: blockOf(low),
        lower: low,
        bounds: { lower: low, upper: high },
      };
    }
    const begins = /^\s*begins_with\(\s*(#?\w+)\s*,\s*(:\w+)\s*\)\s*$/i.exec(clause);
    if (begins && isSortKey(begins[1])) {
      const prefix = value(begins[2]);
      // A prefix within the block key selects whole buckets; a longer one would start inside a bucket.
      if (prefix.length > blockOf(prefix).length) throw new Error('begins_with past the block key of a bucketed range: use BETWEEN');
      return { check: (sk) => sk.startsWith(prefix), expression, bounds: { lower: prefix, upper: `${prefix}\uffff` } };
    }
    const compare = /^\s*(#?\w+)\s*(<=|>=|<|>|=)\s*(:\w+)\s*$/.exec(clause);
    if (compare && isSortKey(compare[1])) {
      const [, name = '', operator, placeholder] = compare;
      const bound = value(placeholder);
      const check: SortKeyCheck = (sk) => {
        const order = compareSortKeys(sk, bound);
        if (operator === '<') return order < 0;
        if (operator === '<=') return order <= 0;
        if (operator === '>') return order > 0;
        if (operator === '>=') return order >= 0;
        return order === 0;
      };
      if (operator === '<' || operator === '<=') return { check, expression, bounds: { upper: bound } };
      return {
        check,
        expression: rebuild(operator === '=' ? `${name} BETWEEN ${LOWER_BLOCK} AND ${placeholder}` : `${name} >= ${LOWER_BLOCK}`),
        lowerBlock: blockOf(bound),
        lower: bound,
        bounds: operator === '=' ? { lower: bound, upper: bound } : { lower: bound },
      };
    }
  }
  return { check: () => true, expression, bounds: {} };
}
