/** GET /checkout-sessions/{id}: a checkout session, its status and its order. */
import { httpHandler } from '../../shared/http/handler';
import { getCheckoutSession } from '../../shared/orders/checkout-sessions';
import { checkoutSessionIdPathSchema, checkoutSessionResponseSchema } from '../../shared/orders/schemas';

export const handler = httpHandler({
  group: 'orders',
  path: checkoutSessionIdPathSchema,
  response: checkoutSessionResponseSchema,
  handle: ({ path }) => getCheckoutSession(path.id),
});
