/**
 * A Query of a union range (shared/table/union-ranges.ts: an address's `all` range, the union of its
 * `to` and `from` ranges) served as the Query of a range with items of its own would be:
 *
 *  - the same Query is sent to both member ranges in parallel (each with the request's Limit and
 *    start key), and their items are merged in the request's order by sort key; the two entries of a
 *    self-transfer or self-send (equal sort keys) are served once;
 *  - a member that has more than it returned is only known down to its last key read (its frontier):
 *    merged items past the nearer frontier are left for the next page, and the page's LastEvaluatedKey
 *    is its last item (on the union's pk), from which every member continues;
 *  - items read as entries of the union: `upos` as `pos` and the union's running totals as the totals
 *    (an entry without them, written before unions, has neither), each keeping its member's pk, which
 *    its record's expansion reads (compact.ts);
 *  - a ProjectionExpression is kept, with the sort key and the union's position and totals where it
 *    names `pos` and totals; Select COUNT reads the members' sort keys and counts them deduplicated;
 *  - `scanned` is the items both members read: a read bound counts what DynamoDB bills.
 */
import { compareSortKeys } from '../table/keys';
import { legacyRunningTotalAttribute, runningTotalAttribute, SUMMED_FIELDS } from '../table/records';
import { legacyUnionTotalAttribute, membersOf, UNION_POSITION_ATTRIBUTE, unionTotalAttribute } from '../table/union-ranges';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';

export type Item = Record<string, unknown>;
export type QueryInput = Omit<QueryCommandInput, 'TableName'>;

export interface QueryPage<T> {
  items: T[];
  /** Items matched (after a filter); with Select COUNT the only result. */
  count: number;
  /** Items read (before a filter). */
  scanned: number;
  /** Where the next page starts; absent at the end of the range. */
  lastKey?: Item;
}

/** The member ranges a Query reads when its partition is a union range (base table only), else undefined. */
export function unionMembersOf(input: QueryInput): readonly string[] | undefined {
  if (input.IndexName !== undefined) return undefined;
  const pk = input.ExpressionAttributeValues?.[':pk'];
  return typeof pk === 'string' ? membersOf(pk) : undefined;
}

const SUMMED = [...new Set(Object.values(SUMMED_FIELDS).flat())];
const SORT_KEY_NAME = '#unionSortKey';

/** The union's Query as `members` serve it; `send` sends one Query to the table. */
export async function queryUnionPage(
  input: QueryInput,
  members: readonly string[],
  send: (input: QueryInput) => Promise<QueryPage<Item>>,
): Promise<QueryPage<Item>> {
  const union = String(input.ExpressionAttributeValues?.[':pk']);
  // A bucketed member (X3, X4, X5: table/buckets.ts) is read through bucket-query.ts in either order:
  // oldest first from inside a block, its page comes with the Query of the bucket holding the start.
  const counting = input.Select === 'COUNT';
  const { Select: _select, ExclusiveStartKey: start, ...rest } = input;
  const projection = counting ? { ProjectionExpression: SORT_KEY_NAME, names: { [SORT_KEY_NAME]: 'sk' } } : unionProjection(rest);
  const names = { ...(counting ? namesUsed(rest) : rest.ExpressionAttributeNames), ...projection?.names };
  const pages = await Promise.all(
    members.map((pk) =>
      send({
        ...rest,
        ProjectionExpression: projection?.ProjectionExpression,
        ExpressionAttributeNames: Object.keys(names).length > 0 ? names : undefined,
        ExpressionAttributeValues: { ...rest.ExpressionAttributeValues, ':pk': pk },
        ExclusiveStartKey: start === undefined ? undefined : { ...start, pk },
      }),
    ),
  );

  const direction = input.ScanIndexForward === false ? -1 : 1;
  const order = (a: string, b: string): number => direction * compareSortKeys(a, b);
  let frontier: string | undefined;
  for (const page of pages) {
    if (page.lastKey === undefined) continue;
    const last = String(page.lastKey.sk);
    if (frontier === undefined || order(last, frontier) < 0) frontier = last;
  }
  const merged = pages
    .flatMap((page) => page.items)
    .filter((item) => frontier === undefined || order(String(item.sk), frontier) <= 0)
    .sort((a, b) => order(String(a.sk), String(b.sk)));
  let items = merged.filter((item, index) => index === 0 || merged[index - 1]!.sk !== item.sk);
  let more = frontier !== undefined;
  if (input.Limit !== undefined && items.length > input.Limit) {
    items = items.slice(0, input.Limit);
    more = true;
  }
  const lastSk = items.length > 0 ? String(items.at(-1)!.sk) : frontier;
  return {
    items: counting ? [] : items.map(asUnionEntry),
    count: items.length,
    scanned: pages.reduce((sum, page) => sum + page.scanned, 0),
    lastKey: more && lastSk !== undefined ? { pk: union, sk: lastSk } : undefined,
  };
}

/** A member entry read as an entry of its union: its union position and totals in the place of its own. */
function asUnionEntry(item: Item): Item {
  const entry: Item = { ...item };
  delete entry.pos;
  delete entry[UNION_POSITION_ATTRIBUTE];
  if (typeof item[UNION_POSITION_ATTRIBUTE] === 'number') entry.pos = item[UNION_POSITION_ATTRIBUTE];
  for (const field of SUMMED) {
    const own = runningTotalAttribute(field);
    const ofUnion = unionTotalAttribute(field);
    const legacyOwn = legacyRunningTotalAttribute(field);
    const legacyOfUnion = legacyUnionTotalAttribute(field);
    for (const name of [own, ofUnion, legacyOwn, legacyOfUnion]) delete entry[name];
    if (ofUnion in item) entry[own] = item[ofUnion];
    else if (legacyOfUnion in item) entry[legacyOwn] = item[legacyOfUnion];
  }
  return entry;
}

/**
 * A projection of the union's entries as the members must be asked for it: with the sort key (the
 * merge's order) and, for the position and running totals it names, the union's own attributes.
 */
function unionProjection(input: QueryInput): { ProjectionExpression: string; names: Record<string, string> } | undefined {
  if (input.ProjectionExpression === undefined) return undefined;
  const names = input.ExpressionAttributeNames ?? {};
  const projected = new Set(input.ProjectionExpression.split(',').map((path) => names[path.trim()] ?? path.trim()));
  // DynamoDB rejects a path projected twice.
  const extra: Record<string, string> = projected.has('sk') ? {} : { [SORT_KEY_NAME]: 'sk' };
  if (projected.has('pos')) extra['#unionPosition'] = UNION_POSITION_ATTRIBUTE;
  for (const [index, field] of SUMMED.entries()) {
    if (projected.has(runningTotalAttribute(field))) extra[`#unionTotal${index}`] = unionTotalAttribute(field);
    if (projected.has(legacyRunningTotalAttribute(field))) extra[`#legacyUnionTotal${index}`] = legacyUnionTotalAttribute(field);
  }
  return { ProjectionExpression: [input.ProjectionExpression, ...Object.keys(extra)].join(', '), names: extra };
}

/** The expression attribute names the Query's remaining expressions still use (DynamoDB rejects unused ones). */
export function namesUsed(input: QueryInput): Record<string, string> {
  const text = [input.KeyConditionExpression, input.FilterExpression].filter(Boolean).join(' ');
  return Object.fromEntries(
    Object.entries(input.ExpressionAttributeNames ?? {}).filter(([name]) => new RegExp(`${name}(?![A-Za-z0-9_])`).test(text)),
  );
}
