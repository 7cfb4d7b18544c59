/**
 * The order reads AnySpend's client makes (see docs/access-patterns.md):
 *  - GET /orders/{id} (O10): the order with its transactions, from ONE consistent Query on the order's
 *    partition, which holds the order item and the deposit items deposit detection wrote (O7);
 *  - GET /orders (O11 by creator, O12 every order): `offset + limit` key-only pointers newest first
 *    from one range, then one BatchGetItem of the orders they name. Two round trips, never a Scan.
 */
import { batchGetItems, queryAll, rangeQuery } from '../db/operations';
import { NotFoundError } from '../errors';
import { type ItemKey, keyId, orderKeys } from '../table/keys';
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
 * GET /orders: orders newest first, of one creator (any letter case) or of everyone. Reads the
 * first `offset + limit` pointers of the range (key-only items, about 110 bytes each) and the page's
 * orders with one BatchGetItem (limit <= 100 keys), both strongly consistent, so a page reflects
 * every order created before it and each order's current status.
 */
export async function listOrders(query: ListOrdersQuery): Promise<Order[]> {
  const range = query.creatorAddress ? orderKeys.creatorOrders(query.creatorAddress) : orderKeys.allOrders();
  const { items: pointers } = await queryAll<ItemKey>(
    { ...rangeQuery(range), ScanIndexForward: false, ConsistentRead: true },
    { limit: query.offset + query.limit },
  );
  const keys = pointers.slice(query.offset).map((pointer) => orderKeys.order(orderKeys.orderIdOfPointer(pointer.sk)));
  if (keys.length === 0) return [];
  const found = await batchGetItems<StoredOrder>(keys, { consistent: true });
  const at = now();
  return keys.flatMap((key) => {
    const stored = found.get(keyId(key));
    return stored && isRetained(stored, at) ? [toOrder(stored, at)] : [];
  });
}
