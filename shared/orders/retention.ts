/**
 * How long the orders group keeps what nobody paid for (DynamoDB TTL on the table's `ttl` attribute,
 * epoch seconds; shared/table/definition.ts):
 *  - an order, and its list pointers (O11, O12), carry `ttl` = its expiry + ORDER_RETENTION_DAYS from
 *    creation; the first deposit recorded for it, or any move to a paid state, removes the attribute
 *    from all of them (`keepOrderItems`): a paid order, or one holding money to refund, is kept;
 *  - a checkout session carries `ttl` = its own expiry + the retention from creation; an order naming
 *    it removes the attribute (the session then follows its order); when that order ends unpaid
 *    (expired, or failed while waiting), the session gets the order's `ttl` again.
 * DynamoDB deletes an item some time after its `ttl` (lazily); readers treat a past `ttl` as absent.
 */
import type { TransactItem } from '../db/operations';
import { orderKeys } from '../table/keys';

const DAY_SECONDS = 86_400;

/** The `ttl` (epoch seconds) of something that expires at `expiryMs` and is kept `retentionDays` after. */
export function retentionTtl(expiryMs: number, retentionDays: number): number {
  return Math.ceil(expiryMs / 1000) + retentionDays * DAY_SECONDS;
}

/** False once an item's `ttl` has passed at `at` (ms): DynamoDB may not have deleted it yet. */
export function isRetained(item: { ttl?: unknown }, at: number): boolean {
  return item.ttl === undefined || Number(item.ttl) > Math.floor(at / 1000);
}

/** What `keepOrderItems` needs of an order. */
export interface RetainedOrder {
  id: string;
  createdAt: number;
  creatorAddress?: string | null;
  checkoutSessionId?: string;
}

/** The list pointers of an order (O11 every order, O12 its creator's), by key. */
export function orderPointerKeys(order: RetainedOrder): { pk: string; sk: string }[] {
  const sk = orderKeys.orderPointerSortKey(order.createdAt, order.id);
  const ranges = [orderKeys.allOrders(), ...(order.creatorAddress ? [orderKeys.creatorOrders(order.creatorAddress)] : [])];
  return ranges.map((range) => ({ pk: range.pk, sk }));
}

const removeTtl = (Key: { pk: string; sk: string }, condition?: string): TransactItem => ({
  Update: {
    Key,
    UpdateExpression: 'REMOVE #ttl',
    ...(condition ? { ConditionExpression: condition } : {}),
    ExpressionAttributeNames: { '#ttl': 'ttl' },
  },
});

/**
 * The writes that keep an order for good, to add to the transaction that records its payment: `ttl`
 * removed from its list pointers and its checkout session (the order item's own update removes it
 * there). A pointer is key-only, so an unconditional update re-creates one that an order older than
 * the pointers lacks, which is what it should have; the session must still be this order's.
 */
export function keepOrderItems(order: RetainedOrder): TransactItem[] {
  const items = orderPointerKeys(order).map((key) => removeTtl(key));
  if (order.checkoutSessionId) {
    const session = removeTtl(orderKeys.checkoutSession(order.checkoutSessionId), 'orderId = :orderId');
    session.Update!.ExpressionAttributeValues = { ':orderId': order.id };
    items.push(session);
  }
  return items;
}
