/**
 * The order reads AnySpend's client makes (see docs/access-patterns.md):
 *  - GET /orders/{id} (O10): the order with its transactions, from ONE consistent Query on the order's
 *    partition, which holds the order item and the deposit items deposit detection wrote (O7);
 *  - GET /orders (O11 by creator, O12 every order): the list copies at the page's positions of one
 *    numbered range (order-list.ts): one Query at offset 0, a GetItem of the range's counter and one
 *    Query at any other offset. Never a Scan, nothing skipped.
 */
import { getItem, queryAll, rangeQuery } from '../db/operations';
import { NotFoundError } from '../errors';
import { type ItemKey, listPosition, orderKeys } from '../table/keys';
import { now } from './clock';
import type { OrderDepositRecord } from './deposits';
import { type StoredOrder, toOrder } from './orders';
import { isRetained } from './retention';
import type { DepositTx, ListOrdersQuery, Order, OrderWithTransactions } from './schemas';

const ORDER_SORT_KEY = orderKeys.order('-').sk;

/** GET /orders/{id}: the order as it reads now, its deposits (null when none), and no relay, execution or refund yet. */
export async function getOrderWithTransactions(orderId: string): Promise<OrderWithTransactions> {
  const { items } = await queryAll<(StoredOrder | OrderDepositRecord) & ItemKey>({
    ...rangeQuery(orderKeys.orderPartition(orderId)),
    ConsistentRead: true,
  });
  const stored = items.find((item) => item.sk === ORDER_SORT_KEY) as StoredOrder | undefined;
  // Past its retention an unpaid order is gone for readers, whenever DynamoDB gets to delete it (retention.ts).
  if (!stored || !isRetained(stored, now())) throw new NotFoundError(`Order ${orderId} not found`);
  const deposits = items.filter((item): item is OrderDepositRecord & ItemKey => item.kind === 'orderDeposit');
  const depositTxs = deposits
    .filter((deposit) => !deposit.orphaned)
    .sort((a, b) => a.blockNumber - b.blockNumber || positionOf(a) - positionOf(b))
    .map((deposit) => toDepositTx(orderId, deposit));
  return {
    order: toOrder(stored, now()),
    depositTxs: depositTxs.length > 0 ? depositTxs : null,
    relayTx: null,
    executeTx: null,
    refundTxs: null,
  };
}

const positionOf = (deposit: OrderDepositRecord): number => deposit.logIndex ?? deposit.callIndex ?? 0;

/** A deposit item as AnySpend's DepositTx: `createdAt` is the deposit's block time in ms. */
function toDepositTx(orderId: string, deposit: OrderDepositRecord): DepositTx {
  return {
    orderId,
    chain: deposit.chainId,
    from: deposit.from,
    txHash: deposit.transactionHash,
    amount: deposit.amount,
    createdAt: deposit.blockTimestamp * 1000,
  };
}

/**
 * GET /orders: orders newest first, of one creator (any letter case) or of everyone; offset N is the
 * order N places below the newest of the range's positions (an order gone past its retention leaves
 * its position empty: a page holds the orders left in its positions). Eventually consistent reads:
 * a page may miss a change made within the last second; GET /orders/{id} reads the order consistently.
 */
export async function listOrders(query: ListOrdersQuery): Promise<Order[]> {
  const range = query.creatorAddress ? orderKeys.creatorOrders(query.creatorAddress) : orderKeys.allOrders();
  let copies: StoredOrder[];
  if (query.offset === 0) {
    // The counter and the newest `limit` copies, in one Query (the counter's sort key is above them;
    // more than one Query call only when the page's orders exceed 1 MB).
    const { items } = await queryAll<StoredOrder & ItemKey & { count?: number }>(
      {
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': range.pk, ':prefix': range.skPrefix },
        ScanIndexForward: false,
      },
      { limit: query.limit + 1 },
    );
    const counter = items[0]?.sk === orderKeys.listCounter(range).sk ? items.shift() : undefined;
    const lowest = Number(counter?.count ?? 0) - query.limit + 1;
    copies = items.filter((item) => listPosition(item.sk) >= lowest);
  } else {
    const counter = await getItem<{ count?: number }>(orderKeys.listCounter(range));
    const high = Number(counter?.count ?? 0) - query.offset;
    if (high < 1) return [];
    const low = Math.max(1, high - query.limit + 1);
    const { items } = await queryAll<StoredOrder>({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': range.pk, ':low': positionKey(low), ':high': positionKey(high) },
      ScanIndexForward: false,
    });
    copies = items;
  }
  const at = now();
  return copies.filter((copy) => isRetained(copy, at)).map((copy) => toOrder(copy, at));
}

const positionKey = (position: number): string => orderKeys.listEntry({ pk: '' }, position).sk;
