/**
 * POST /orders: create a swap order. The body is checked by `createOrderBodySchema`; the optional
 * `Idempotency-Key` header makes a retry replay the first response. The order's ipAddress comes from
 * the request context, never from the body.
 */
import { httpHandler } from '../../shared/http/handler';
import { createOrder } from '../../shared/orders/orders';
import { createOrderBodySchema, orderResponseSchema } from '../../shared/orders/schemas';

export const handler = httpHandler({
  group: 'orders',
  body: createOrderBodySchema,
  response: orderResponseSchema,
  handle: ({ body, headers, event }) =>
    createOrder(body, { sourceIp: event.requestContext.http.sourceIp, idempotencyKey: headers['idempotency-key'] }),
});
