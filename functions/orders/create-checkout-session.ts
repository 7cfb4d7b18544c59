/** POST /checkout-sessions: open a checkout session that one order may later name. Idempotency-Key supported. */
import { httpHandler } from '../../shared/http/handler';
import { createCheckoutSession } from '../../shared/orders/checkout-sessions';
import { checkoutSessionResponseSchema, createCheckoutSessionBodySchema } from '../../shared/orders/schemas';

export const handler = httpHandler({
  group: 'orders',
  body: createCheckoutSessionBodySchema,
  response: checkoutSessionResponseSchema,
  handle: ({ body, headers }) => createCheckoutSession(body, headers['idempotency-key']),
});
