/**
 * GET /orders/{id}: one order with its transactions (AnySpend's `{order, depositTxs, relayTx,
 * executeTx, refundTxs}`); a waiting order past its expiry reads as expired.
 */
import { httpHandler } from '../../shared/http/handler';
import { ordersResponse } from '../../shared/orders/http';
import { getOrderWithTransactions } from '../../shared/orders/order-reads';
import { noQuerySchema, orderIdPathSchema, orderWithTransactionsResponseSchema } from '../../shared/orders/schemas';

export const handler = httpHandler({
  group: 'orders',
  path: orderIdPathSchema,
  query: noQuerySchema,
  response: orderWithTransactionsResponseSchema,
  handle: async ({ path }) => ordersResponse('Get order successfully', await getOrderWithTransactions(path.id)),
});
