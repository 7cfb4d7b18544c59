/** POST /checkout-sessions: open a checkout session that one order may later name. Idempotency-Key supported. */
import { httpHandler } from '../../shared/http/handler';
import { createCheckoutSession } from '../../shared/orders/checkout-sessions';
import { loadOrderConfig } from '../../shared/orders/config';
import { idempotentCreate, ordersResponse } from '../../shared/orders/http';
import {
  checkoutSessionResponseSchema,
  createCheckoutSessionBodySchema,
  noQuerySchema,
  type CheckoutSession,
} from '../../shared/orders/schemas';

const config = loadOrderConfig();

const created = (session: CheckoutSession) => ordersResponse('Created checkout session successfully', session);

export const handler = httpHandler({
  group: 'orders',
  query: noQuerySchema,
  body: createCheckoutSessionBodySchema,
  response: checkoutSessionResponseSchema,
  handle: ({ body, headers }) =>
    idempotentCreate(
      { scope: 'POST /checkout-sessions', key: headers['idempotency-key'], body },
      (alongside) => createCheckoutSession(body, config, alongside),
      created,
    ),
});
