import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { db } from '../../../shared/db/client';
import { orderKeys } from '../../../shared/table/keys';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { checkoutSessionResponseSchema } from '../../../shared/orders/schemas';
import { getSession, orderBody, postOrder, postSession, storedOrder } from './fixtures';

const table = useTestTable('orders-sessions');

afterEach(() => resetClock());

describe('POST /checkout-sessions and GET /checkout-sessions/{id}', () => {
  it('creates an open session that expires after 1800 s by default', async () => {
    const before = Date.now();
    const response = await postSession({ clientReferenceId: 'cart-7' });
    expect(response.status).toBe(200);
    expect(v.safeParse(checkoutSessionResponseSchema, response.body).success).toBe(true);
    const session = response.body.data;
    expect(response.body.message).toBe('Created checkout session successfully');
    expect(session).toMatchObject({ status: 'open', orderId: null, clientReferenceId: 'cart-7' });
    expect(session.createdAt).toBeGreaterThanOrEqual(before);
    expect(session.expiresAt - session.createdAt).toBe(1_800_000);

    const read = await getSession(session.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, message: 'Get checkout session successfully', statusCode: 200, data: session });
  });

  it.each([300, 86_400])('accepts expires_in %i', async (seconds) => {
    const { status, body } = await postSession({ expires_in: seconds });
    expect(status).toBe(200);
    expect(body.data.expiresAt - body.data.createdAt).toBe(seconds * 1000);
  });

  const invalid: [string, unknown, string][] = [
    ['expires_in below 300', { expires_in: 299 }, 'expires_in: must be at least 300 seconds'],
    ['expires_in above 86400', { expires_in: 86_401 }, 'expires_in: must be at most 86400 seconds'],
    ['expires_in fractional', { expires_in: 600.5 }, 'expires_in: must be an integer'],
    ['expires_in a string', { expires_in: '600' }, 'expires_in: must be a number'],
    ['clientReferenceId with a dot', { clientReferenceId: 'a.b' }, 'clientReferenceId: may only contain'],
    ['an unknown field', { successUrl: 'https://x.example' }, 'successUrl: is not an allowed field'],
  ];

  it.each(invalid)('rejects %s with 400 and writes nothing', async (_name, body, message) => {
    const before = await tableSnapshot(table.name);
    const response = await postSession(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, message: expect.stringContaining(message), statusCode: 400 });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('answers 404 for an unknown session and 400 for a malformed id', async () => {
    const unknown = await getSession('5e0f8a2b-9d4c-4f1e-8b3a-2c7d6e9f0a1b');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      success: false,
      message: 'Checkout session 5e0f8a2b-9d4c-4f1e-8b3a-2c7d6e9f0a1b not found',
      statusCode: 404,
    });
    const malformed = await getSession('abc');
    expect(malformed.status).toBe(400);
  });

  it('reads an open session past expiresAt as expired', async () => {
    const { body } = await postSession({ expires_in: 300 });
    setClock(() => body.data.expiresAt);
    expect((await getSession(body.data.id)).body.data.status).toBe('expired');
  });
});

describe('an order naming a checkout session', () => {
  it('links the order to the session, which becomes processing', async () => {
    const session = (await postSession()).body.data;
    const order = await postOrder(orderBody({ checkoutSessionId: session.id.toUpperCase() }));
    expect(order.status).toBe(200);
    const read = await getSession(session.id);
    expect(read.body.data).toMatchObject({ status: 'processing', orderId: order.body.data.id });
    expect((await storedOrder(table.name, order.body.data.id))?.checkoutSessionId).toBe(session.id);
  });

  it('answers 400 for a session that does not exist, writing nothing', async () => {
    const before = await tableSnapshot(table.name);
    const response = await postOrder(orderBody({ checkoutSessionId: '11111111-2222-4333-8444-555555555555' }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      message: 'checkoutSessionId: checkout session 11111111-2222-4333-8444-555555555555 does not exist',
      statusCode: 400,
    });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('answers 400 for an expired session, writing nothing', async () => {
    const session = (await postSession({ expires_in: 300 })).body.data;
    setClock(() => session.expiresAt + 1);
    const before = await tableSnapshot(table.name);
    const response = await postOrder(orderBody({ checkoutSessionId: session.id }));
    expect(response.status).toBe(400);
    expect(response.body.message).toBe(`checkoutSessionId: checkout session ${session.id} is expired, not open`);
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('answers 400 for a session that is no longer open without an order', async () => {
    const session = (await postSession()).body.data;
    await db.send(
      new UpdateCommand({
        TableName: table.name,
        Key: orderKeys.checkoutSession(session.id),
        UpdateExpression: 'SET #s = :complete',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':complete': 'complete' },
      }),
    );
    const response = await postOrder(orderBody({ checkoutSessionId: session.id }));
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('is complete, not open');
  });

  it('answers 409 for a session that already has an order, writing nothing', async () => {
    const session = (await postSession()).body.data;
    expect((await postOrder(orderBody({ checkoutSessionId: session.id }))).status).toBe(200);
    const before = await tableSnapshot(table.name);
    const second = await postOrder(orderBody({ checkoutSessionId: session.id }));
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      success: false,
      message: `checkoutSessionId: checkout session ${session.id} already has an order`,
      statusCode: 409,
    });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('lets exactly one of 50 concurrent orders on one session win; the others get 409 and write nothing', async () => {
    const session = (await postSession()).body.data;
    const ordersBefore = (await tableSnapshot(table.name)).filter((item) => item.entity === 'order').length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        postOrder(orderBody({ checkoutSessionId: session.id, clientReferenceId: `racer-${index}` })),
      ),
    );
    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(49);
    const orders = (await tableSnapshot(table.name)).filter((item) => item.entity === 'order');
    expect(orders).toHaveLength(ordersBefore + 1);
    expect((await getSession(session.id)).body.data).toMatchObject({ status: 'processing', orderId: winners[0].body.data.id });
  });
});
