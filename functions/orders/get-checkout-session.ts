/** GET /checkout-sessions/{id}: a checkout session, its status and its order. */
import { httpHandler } from '../../shared/http/handler';
import { getCheckoutSession } from '../../shared/orders/checkout-sessions';
import { ordersResponse } from '../../shared/orders/http';
import { checkoutSessionIdPathSchema, checkoutSessionResponseSchema, noQuerySchema } from '../../shared/orders/schemas';

export const handler = httpHandler({
  group: 'orders',
  path: checkoutSessionIdPathSchema,
  query: noQuerySchema,
  response: checkoutSessionResponseSchema,
  handle: async ({ path }) => ordersResponse('Get checkout session successfully', await getCheckoutSession(path.id)),
});
