import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { canonicalJson } from '../../../shared/orders/http';
import { getOrder, orderBody, postOrder, postSession } from './fixtures';

const table = useTestTable('orders-idempotency');

afterEach(() => resetClock());

const ordersIn = async () => (await tableSnapshot(table.name)).filter((item) => item.entity === 'order');

describe('Idempotency-Key on POST /orders', () => {
  it('replays the first response for the same body, with Idempotent-Replayed: true, creating nothing more', async () => {
    const key = randomUUID();
    const first = await postOrder(orderBody(), { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const after = await tableSnapshot(table.name);

    // Same body with its keys in another order and other spacing: the same request.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(orderBody()).reverse()), null, 2);
    const second = await postOrder(reordered, { 'Idempotency-Key': key });
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await tableSnapshot(table.name)).toEqual(after);
  });

  it('answers 409 for the same key with a different body, writing nothing', async () => {
    const key = randomUUID();
    expect((await postOrder(orderBody(), { 'Idempotency-Key': key })).status).toBe(200);
    const before = await tableSnapshot(table.name);
    const response = await postOrder(orderBody({ srcAmount: '26000000' }), { 'Idempotency-Key': key });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      success: false,
      message: 'Idempotency-Key was already used with a different request body',
      statusCode: 409,
    });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('replays the first response even after the order has changed', async () => {
    const key = randomUUID();
    const first = await postOrder(orderBody(), { 'Idempotency-Key': key });
    setClock(() => first.body.data.expiredAt + 1);
    expect((await getOrder(first.body.data.id)).body.data.order.status).toBe('expired');
    const replay = await postOrder(orderBody(), { 'Idempotency-Key': key });
    expect(replay.body).toEqual(first.body);
  });

  it('forgets a key after 24 hours: a past ttl reads as absent and the key can be used again', async () => {
    const key = randomUUID();
    const start = Date.now();
    setClock(() => start);
    const first = await postOrder(orderBody(), { 'Idempotency-Key': key });
    const stored = (await tableSnapshot(table.name)).find((item) => String(item.pk).includes(key));
    expect(stored?.ttl).toBe(Math.floor(start / 1000) + 24 * 60 * 60);

    setClock(() => start + 24 * 60 * 60 * 1000 - 1000);
    expect((await postOrder(orderBody({ srcAmount: '1' }), { 'Idempotency-Key': key })).status).toBe(409);

    setClock(() => start + 24 * 60 * 60 * 1000);
    const later = await postOrder(orderBody({ srcAmount: '1' }), { 'Idempotency-Key': key });
    expect(later.status).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });

  it('creates exactly one order for 50 concurrent identical requests; the other 49 replay it', async () => {
    const key = randomUUID();
    const ordersBefore = (await ordersIn()).length;
    const responses = await Promise.all(Array.from({ length: 50 }, () => postOrder(orderBody(), { 'Idempotency-Key': key })));
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    const ids = new Set(responses.map((response) => response.body.data.id));
    expect(ids.size).toBe(1);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
    const orders = await ordersIn();
    expect(orders).toHaveLength(ordersBefore + 1);
    expect(orders.map((order) => order.id)).toContain([...ids][0]);
  });

  it('keeps nothing from a failed request: the same key may be retried', async () => {
    const key = randomUUID();
    const before = await tableSnapshot(table.name);
    const failed = await postOrder(orderBody({ partnerId: 'unknown-partner' }), { 'Idempotency-Key': key });
    expect(failed.status).toBe(400);
    expect(await tableSnapshot(table.name)).toEqual(before);
    const retried = await postOrder(orderBody(), { 'Idempotency-Key': key });
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays the winner of a checkout session for the same key instead of answering 409', async () => {
    const session = (await postSession()).body.data;
    const key = randomUUID();
    const body = orderBody({ checkoutSessionId: session.id });
    const first = await postOrder(body, { 'Idempotency-Key': key });
    const retry = await postOrder(body, { 'Idempotency-Key': key });
    expect(retry.status).toBe(200);
    expect(retry.body.data.id).toBe(first.body.data.id);
    const other = await postOrder(body, { 'Idempotency-Key': randomUUID() });
    expect(other.status).toBe(409);
  });

  it('rejects a malformed Idempotency-Key with 400', async () => {
    const before = await tableSnapshot(table.name);
    const response = await postOrder(orderBody(), { 'Idempotency-Key': 'has spaces in it' });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Idempotency-Key must be 1 to 255 printable ASCII characters without spaces');
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('keeps keys of orders and checkout sessions apart', async () => {
    const key = randomUUID();
    expect((await postOrder(orderBody(), { 'Idempotency-Key': key })).status).toBe(200);
    const session = await postSession({}, { 'Idempotency-Key': key });
    expect(session.status).toBe(200);
    expect(session.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('Idempotency-Key on POST /checkout-sessions', () => {
  it('replays the session, answers 409 for another body, and creates one session for 50 concurrent requests', async () => {
    const key = randomUUID();
    const sessionsBefore = (await tableSnapshot(table.name)).filter((item) => item.entity === 'checkout-session').length;
    const responses = await Promise.all(Array.from({ length: 50 }, () => postSession({ expires_in: 600 }, { 'Idempotency-Key': key })));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(new Set(responses.map((response) => response.body.data.id)).size).toBe(1);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
    const sessions = (await tableSnapshot(table.name)).filter((item) => item.entity === 'checkout-session');
    expect(sessions).toHaveLength(sessionsBefore + 1);

    const conflict = await postSession({ expires_in: 900 }, { 'Idempotency-Key': key });
    expect(conflict.status).toBe(409);
  });
});

describe('canonical JSON of a body', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });
});
