/**
 * How long the orders group keeps what nobody paid for (DynamoDB TTL on the table's `ttl` attribute,
 * epoch seconds; shared/table/definition.ts):
 *  - an order, and its list copies (O11, O12, order-list.ts), carry `ttl` = its expiry + ORDER_RETENTION_DAYS
 *    from creation; the first deposit recorded for it, or any move to a paid state, removes the attribute
 *    from all of them (`keepOrderItems`): a paid order, or one holding money to refund, is kept. An
 *    order deleted this way leaves its list positions empty (docs/decisions/orders.md, GET /orders);
 *  - a checkout session carries `ttl` = its own expiry + the retention from creation; an order naming
 *    it removes the attribute (the session then follows its order); when that order ends unpaid
 *    (expired, or failed while waiting), the session gets the order's `ttl` again.
 * DynamoDB deletes an item some time after its `ttl` (lazily); readers treat a past `ttl` as absent.
 */
import type { TransactItem } from '../db/operations';
import { orderKeys } from '../table/keys';
import { listCopyUpdates, type ListedOrder } from './order-list';

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
export interface RetainedOrder extends ListedOrder {
  id: string;
  checkoutSessionId?: string;
}

/**
 * The writes that keep an order for good, to add to the transaction that records its payment: `ttl`
 * removed from its list copies (`list: false` when the caller updates them itself) and its checkout
 * session (`session: false` likewise); the order item's own update removes it there. An order created
 * before the numbered lists has no copies; the session must still be this order's.
 */
export function keepOrderItems(order: RetainedOrder, parts: { list?: boolean; session?: boolean } = {}): TransactItem[] {
  const items = parts.list === false ? [] : listCopyUpdates(order, {}, true);
  if (order.checkoutSessionId && parts.session !== false) {
    items.push({
      Update: {
        Key: orderKeys.checkoutSession(order.checkoutSessionId),
        UpdateExpression: 'REMOVE #ttl',
        ConditionExpression: 'orderId = :orderId',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':orderId': order.id },
      },
    });
  }
  return items;
}
