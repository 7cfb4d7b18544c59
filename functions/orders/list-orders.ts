/**
 * GET /orders?creatorAddress=&limit=&offset=: orders newest first, of one creator (any letter case)
 * or of everyone (AnySpend's order history). limit 1..100 (default 100), offset 0..5000 (default 0).
 */
import { httpHandler } from '../../shared/http/handler';
import { ordersResponse } from '../../shared/orders/http';
import { listOrders } from '../../shared/orders/order-reads';
import { listOrdersQuerySchema, orderListResponseSchema } from '../../shared/orders/schemas';

export const handler = httpHandler({
  group: 'orders',
  query: listOrdersQuerySchema,
  response: orderListResponseSchema,
  handle: async ({ query }) =>
    ordersResponse(query.creatorAddress ? 'Get orders by creator successfully' : 'Get orders successfully', await listOrders(query)),
});
