/** GET /orders/{id}: one order; a waiting order past its expiry reads as expired. */
import { httpHandler } from '../../shared/http/handler';
import { ordersResponse } from '../../shared/orders/http';
import { getOrder } from '../../shared/orders/orders';
import { orderIdPathSchema, orderResponseSchema } from '../../shared/orders/schemas';

export const handler = httpHandler({
  group: 'orders',
  path: orderIdPathSchema,
  response: orderResponseSchema,
  handle: async ({ path }) => ordersResponse('Get order successfully', await getOrder(path.id)),
});
