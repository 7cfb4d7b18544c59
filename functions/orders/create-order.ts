/**
 * POST /orders: create a swap order. The body is checked by `createOrderBodySchema` (with this
 * deployment's chains and onramp vendors); the optional `Idempotency-Key` header makes a retry replay
 * the first response. The order's ipAddress comes from the request context, never from the body.
 */
import { httpHandler } from '../../shared/http/handler';
import { loadOrderConfig } from '../../shared/orders/config';
import { idempotentCreate, ordersResponse } from '../../shared/orders/http';
import { createOrder } from '../../shared/orders/orders';
import { createOrderBodySchema, noQuerySchema, orderResponseSchema, type Order } from '../../shared/orders/schemas';

const config = loadOrderConfig();

const created = (order: Order) => ordersResponse('Created order successfully', order);

export const handler = httpHandler({
  group: 'orders',
  query: noQuerySchema,
  body: createOrderBodySchema(config),
  response: orderResponseSchema,
  handle: ({ body, headers, event }) =>
    idempotentCreate(
      { scope: 'POST /orders', key: headers['idempotency-key'], body },
      (alongside) => createOrder(body, { config, sourceIp: event.requestContext.http.sourceIp, alongside }),
      created,
    ),
});
