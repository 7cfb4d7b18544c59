/**
 * A Query of a bucketed range (shared/table/buckets.ts) served as the Query of its entries would be:
 *
 *  - each bucket read is expanded into its entries (and an item written before buckets is one entry);
 *  - entries outside the key condition or at or before the ExclusiveStartKey are dropped: a bucket's
 *    key is its first entry's, so a bucket that starts before a bound may hold entries past it: a
 *    lower bound is moved back to the start of its block (a bucket never spans blocks). Newest first,
 *    only the first bucket read may hold entries above the bound: a page of Limit buckets holds at
 *    least Limit - 1 entries of the range (fewer with a LastEvaluatedKey, as a page DynamoDB cuts),
 *    and never reads more items than the Limit;
 *  - `Limit` counts entries newest first: the page ends at the Limit-th entry and its LastEvaluatedKey
 *    is that entry's key (DynamoDB starts after a key with no item there as after one with an item).
 *    In ascending order `Limit` counts buckets (a page holds up to 8 entries a bucket) and a page ends
 *    with a whole bucket, so a next page from its LastEvaluatedKey never starts inside a bucket; an
 *    ExclusiveStartKey inside a bucket would skip the rest of it (no reader pages a bucketed range
 *    ascending from an entry: E5 and the reorg's lookups read newest first);
 *  - Select COUNT counts entries; a ProjectionExpression is dropped (a bucket is read whole, and its
 *    entries come with every attribute); a FilterExpression is refused: DynamoDB would apply it to the
 *    buckets, not their entries (filter the entries read instead);
 *  - `scanned` is the items read, buckets as DynamoDB bills them;
 *  - an entry stored both as an item of its own (written before buckets) and in a bucket (its block
 *    written again once its manifest, which listed the single items, had expired) is served once.
 */
import { BLOCK_KEY_LENGTH, entriesOf } from '../table/buckets';
import { compareSortKeys } from '../table/keys';
import { type Item, namesUsed, type QueryInput, type QueryPage } from './union-query';

type SortKeyCheck = (sk: string) => boolean;

export async function queryBucketedRange(
  input: QueryInput,
  send: (input: QueryInput) => Promise<QueryPage<Item>>,
): Promise<QueryPage<Item>> {
  if (input.FilterExpression !== undefined) {
    throw new Error('a FilterExpression cannot see the entries of a bucketed range: filter the entries read');
  }
  const descending = input.ScanIndexForward === false;
  const counting = input.Select === 'COUNT';
  const condition = sortKeyCondition(input);
  const { Select: _select, ProjectionExpression: _projection, ...rest } = input;
  const request: QueryInput = { ...rest, KeyConditionExpression: condition.expression, ExpressionAttributeNames: namesUsed(rest) };
  if (Object.keys(request.ExpressionAttributeNames ?? {}).length === 0) delete request.ExpressionAttributeNames;
  if (condition.lowerBlock !== undefined) {
    // From the start of the lower bound's block: its buckets may hold entries past the bound (the
    // bound's own value is then unused: DynamoDB refuses unused values).
    const values = { ...request.ExpressionAttributeValues, [LOWER_BLOCK]: condition.lowerBlock };
    request.ExpressionAttributeValues = Object.fromEntries(
      Object.entries(values).filter(([name]) => new RegExp(`${name}(?![A-Za-z0-9_])`).test(condition.expression)),
    );
  }
  const page = await send(request);

  const start = input.ExclusiveStartKey?.sk;
  const after: SortKeyCheck =
    typeof start === 'string' ? (sk) => (descending ? compareSortKeys(sk, start) < 0 : compareSortKeys(sk, start) > 0) : () => true;
  let entries = page.items
    .flatMap((item) => {
      const expanded = entriesOf(item);
      return descending ? expanded.reverse() : expanded;
    })
    .filter((entry) => condition.check(String(entry.sk)) && after(String(entry.sk)))
    // An entry stored both ways (its one-entry item written before buckets, and a bucket of a block
    // written again after its manifest expired) is one entry: in key order, once.
    .sort((a, b) => (descending ? -1 : 1) * compareSortKeys(String(a.sk), String(b.sk)))
    .filter((entry, index, sorted) => index === 0 || sorted[index - 1]?.sk !== entry.sk);
  let lastKey = page.lastKey;
  // Newest first, the page ends at the Limit-th entry; in ascending order with the last bucket read.
  if (descending && input.Limit !== undefined && entries.length > input.Limit) {
    entries = entries.slice(0, input.Limit);
    const last = entries.at(-1);
    lastKey = last ? { pk: last.pk, sk: last.sk } : page.lastKey;
  }
  return { items: counting ? [] : entries, count: entries.length, scanned: page.scanned, lastKey };
}

/** The placeholder of a lower bound moved back to the start of its block. */
const LOWER_BLOCK = ':bucketBlockStart';

/**
 * The sort-key part of a KeyConditionExpression (`#pk = :pk AND <sk condition>`, the forms DynamoDB
 * allows) as a check of an entry's sort key, and the expression to send: a lower bound (`>`, `>=`,
 * `=`, BETWEEN's low end) moved back to the start of its block (LOWER_BLOCK), where the buckets that
 * may hold entries past it start.
 */
function sortKeyCondition(input: QueryInput): { check: SortKeyCheck; expression: string; lowerBlock?: string } {
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
  const blockOf = (sk: string): string => sk.slice(0, BLOCK_KEY_LENGTH);
  for (const [position, clause] of clauses.entries()) {
    const rebuild = (replacement: string): string => clauses.map((other, at) => (at === position ? replacement : other)).join(' AND ');
    const between = /^\s*(#?\w+)\s+BETWEEN\s+(:\w+)\s+AND\s+(:\w+)\s*$/i.exec(clause);
    if (between && isSortKey(between[1])) {
      const [low, high] = [value(between[2]), value(between[3])];
      return {
        check: (sk) => compareSortKeys(sk, low) >= 0 && compareSortKeys(sk, high) <= 0,
        expression: rebuild(`${between[1]} BETWEEN ${LOWER_BLOCK} AND ${between[3]}`),
        lowerBlock: blockOf(low),
      };
    }
    const begins = /^\s*begins_with\(\s*(#?\w+)\s*,\s*(:\w+)\s*\)\s*$/i.exec(clause);
    if (begins && isSortKey(begins[1])) {
      const prefix = value(begins[2]);
      // A prefix within the block key selects whole buckets; a longer one would start inside a bucket.
      if (prefix.length > BLOCK_KEY_LENGTH) throw new Error('begins_with past the block key of a bucketed range: use BETWEEN');
      return { check: (sk) => sk.startsWith(prefix), expression };
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
      if (operator === '<' || operator === '<=') return { check, expression };
      return {
        check,
        expression: rebuild(operator === '=' ? `${name} BETWEEN ${LOWER_BLOCK} AND ${placeholder}` : `${name} >= ${LOWER_BLOCK}`),
        lowerBlock: blockOf(bound),
      };
    }
  }
  return { check: () => true, expression };
}
