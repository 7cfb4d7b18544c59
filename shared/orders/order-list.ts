/**
 * The numbered order lists of GET /orders (O11 every order, O12 one creator's; keys in
 * shared/table/keys.ts, orderKeys.listEntry / listCounter; docs/decisions/orders.md "GET /orders"):
 *  - each range numbers its orders 1, 2, 3 ... in creation order. Position p holds a copy of what the
 *    list shows of the order (`ORDER_LIST_FIELDS`), so a page is read from the range alone;
 *  - the range's counter (`count` = positions given so far) moves from p - 1 to p in the order's
 *    creation transaction, on condition: two concurrent creations never share a position, and a
 *    creation that lost the race reads the counters again and retries (createOrder);
 *  - offset N of a range counted C is position C - N: offset 0 is one Query (the counter sorts above
 *    the copies, newest first), any other offset a GetItem of the counter and a Query of exactly the
 *    page's positions. Two round trips at most, nothing read that the page does not return but the counter;
 *  - a status change the list shows is applied to the copies in the transaction that changes the order
 *    (orders.ts, transitionOrder); waiting -> expired is not, since every reader derives it from
 *    `expiredAt` (read-time expiry); the copies carry the order's retention `ttl` and lose it with it.
 */
import { batchGetItems, type TransactItem } from '../db/operations';
import { type ItemKey, type KeyRange, keyId, orderKeys } from '../table/keys';
import { counterUpdate, localQueue } from '../db/numbered-range';

/** What an order's list copy holds: every attribute `toOrder` reads, and its retention `ttl`. */
export const ORDER_LIST_FIELDS = [
  'id',
  'type',
  'status',
  'recipientAddress',
  'globalAddress',
  'srcChain',
  'dstChain',
  'srcTokenAddress',
  'dstTokenAddress',
  'srcAmount',
  'payload',
  'metadata',
  'createdAt',
  'expiredAt',
  'filledAt',
  'receivedDepositAt',
  'errorDetails',
  'creatorAddress',
  'partnerId',
  'clientReferenceId',
  'onrampMetadata',
  'oneClickBuyUrl',
  'processorPaymentIntentId',
  'settlement',
  'fee',
  'ttl',
] as const;
const LISTED = new Set<string>(ORDER_LIST_FIELDS);

/** What the list ranges need of an order. */
export interface ListedOrder {
  creatorAddress?: string | null;
  /** The order's position in each of its ranges (orderListRanges order); absent on orders created before the numbered lists. */
  listPositions?: number[];
}

/** An order as stored (orders.ts `StoredOrder`), as far as its list copies go. */
export type ListedOrderItem = ListedOrder & {
  onrampMetadata?: (Record<string, unknown> & { ipAddress?: string }) | null;
  [attribute: string]: unknown;
};

/** The ranges an order is listed in: every order (O12), then its creator's (O11) when it names one. */
export function orderListRanges(order: { creatorAddress?: string | null }): KeyRange[] {
  return [orderKeys.allOrders(), ...(order.creatorAddress ? [orderKeys.creatorOrders(order.creatorAddress)] : [])];
}

/** The keys of an order's list copies (none for an order created before the numbered lists). */
export function orderListEntryKeys(order: ListedOrder): ItemKey[] {
  const positions = order.listPositions;
  if (!positions) return [];
  return orderListRanges(order).flatMap((range, index) =>
    positions[index] === undefined ? [] : [orderKeys.listEntry(range, positions[index])],
  );
}

/**
 * The counters of `ranges` (0 for a range never written): one strongly consistent BatchGetItem, since
 * the creation's conditions must see the latest count (a stale one only costs a retry).
 */
export async function readListCounters(ranges: readonly KeyRange[]): Promise<number[]> {
  const keys = ranges.map((range) => orderKeys.listCounter(range));
  const found = await batchGetItems<{ count?: number }>(keys, { consistent: true });
  return keys.map((key) => Number(found.get(keyId(key))?.count ?? 0));
}

/** The list copy of an order as stored. The caller's IP address is not copied. */
export function orderListCopy(order: ListedOrderItem): Record<string, unknown> {
  const copy: Record<string, unknown> = { entity: 'orderListEntry' };
  for (const field of ORDER_LIST_FIELDS) if (order[field] !== undefined) copy[field] = order[field];
  if (order.onrampMetadata) {
    const { ipAddress: _ip, ...onramp } = order.onrampMetadata;
    copy.onrampMetadata = onramp;
  }
  return copy;
}

/**
 * The writes that list a new order at the next position of each of its ranges, for its creation
 * transaction: a copy per range and each counter moved from `counts[i]` to `counts[i] + 1` on
 * condition that it still holds `counts[i]`. `order.listPositions` must be `counts[i] + 1`.
 */
export function listNewOrderItems(order: ListedOrderItem, counts: readonly number[]): TransactItem[] {
  const ranges = orderListRanges(order);
  const copy = orderListCopy(order);
  const puts = ranges.map((range, index) => ({ Put: { Item: { ...orderKeys.listEntry(range, counts[index]! + 1), ...copy } } }));
  const counters = ranges.map((range, index) => counterUpdate(orderKeys.listCounter(range), counts[index]!));
  return [...puts, ...counters];
}

/**
 * The updates that carry a change of an order onto its list copies: the attributes of `set` the list
 * shows, and the removal of `ttl` when the order is kept for good. Conditional on the copy existing
 * (it lives exactly as long as the order), so an update never leaves a partial copy behind.
 */
export function listCopyUpdates(order: ListedOrder, set: Record<string, unknown>, removeTtl: boolean): TransactItem[] {
  const shown = Object.entries(set).filter(([name]) => LISTED.has(name) && name !== 'ttl');
  if (shown.length === 0 && !removeTtl) return [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments = shown.map(([name, value], index) => {
    names[`#a${index}`] = name;
    values[`:v${index}`] = value;
    return `#a${index} = :v${index}`;
  });
  if (removeTtl) names['#ttl'] = 'ttl';
  const expression = [assignments.length > 0 ? `SET ${assignments.join(', ')}` : '', removeTtl ? 'REMOVE #ttl' : '']
    .filter(Boolean)
    .join(' ');
  return orderListEntryKeys(order).map((Key) => ({
    Update: {
      Key,
      UpdateExpression: expression,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ...(assignments.length > 0 ? { ExpressionAttributeValues: values } : {}),
    },
  }));
}

/** Creations of this process that number their list copies at once (shared/db/numbered-range.ts). */
export const numberingQueue = localQueue(4);
