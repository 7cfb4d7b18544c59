/**
 * Retention of what nobody paid for (shared/orders/retention.ts), through the handlers and the real
 * SDK against the embedded table. dynalite never deletes expired items, so the tests check what
 * DynamoDB's TTL acts on and what an operator would look at: the `ttl` attribute (epoch seconds) of
 * each item, set to expiry + ORDER_RETENTION_DAYS on creation, removed when an order is paid (from the
 * order, its list pointers and its session) and when an order names a session, and given back to the
 * session of an order that expired unpaid. Items past their `ttl` read as absent.
 */
process.env.ORDER_RETENTION_DAYS = '10';

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../../shared/db/client';
import { detectOrderDepositsInBlocks } from '../../../shared/orders/deposits';
import { expireOverdueOrders } from '../../../shared/orders/orders';
import { orderKeys } from '../../../shared/table/keys';
import { useTestTable } from '../../support/table';
import { blockPaying, CREATOR, ethOrder, getOrder, getSession, postOrder, postSession } from './fixtures';

const table = useTestTable('retention');
const RETENTION_SECONDS = 10 * 86_400;

async function item(key: { pk: string; sk: string }): Promise<Record<string, any> | undefined> {
  return (await db.send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }))).Item;
}

/** The order item, its two list copies (every order, its creator's, at the positions it records) and its session, as stored. */
async function orderItems(order: { id: string; createdAt: number }, sessionId?: string) {
  const stored = await item(orderKeys.order(order.id));
  const [all, mine] = (stored?.listPositions ?? []) as number[];
  return {
    order: stored,
    allPointer: await item(orderKeys.listEntry(orderKeys.allOrders(), all!)),
    creatorPointer: await item(orderKeys.listEntry(orderKeys.creatorOrders(CREATOR), mine!)),
    session: sessionId ? await item(orderKeys.checkoutSession(sessionId)) : undefined,
  };
}

describe('retention of unpaid orders and unused checkout sessions (DynamoDB TTL)', () => {
  it('a new checkout session carries ttl = its expiry + ORDER_RETENTION_DAYS', async () => {
    const { status, body } = await postSession({ expires_in: 600 });
    expect(status).toBe(200);
    const session = await item(orderKeys.checkoutSession(body.data.id));
    expect(session?.ttl).toBe(Math.ceil(body.data.expiresAt / 1000) + RETENTION_SECONDS);
  });

  it('a new order and its list pointers carry ttl = its expiry + retention; the session it names loses its own', async () => {
    const session = (await postSession()).body.data;
    const { status, body } = await postOrder(ethOrder({ checkoutSessionId: session.id }));
    expect(status).toBe(200);
    const order = body.data;
    const expected = Math.ceil(order.expiredAt / 1000) + RETENTION_SECONDS;
    const stored = await orderItems(order, session.id);
    expect(stored.order?.ttl).toBe(expected);
    expect(stored.allPointer?.ttl).toBe(expected);
    expect(stored.creatorPointer?.ttl).toBe(expected);
    expect(stored.session).toMatchObject({ status: 'processing', orderId: order.id });
    expect(stored.session).not.toHaveProperty('ttl');
  });

  it('an order that expires unpaid keeps its ttl and gives it to its session again', async () => {
    const session = (await postSession()).body.data;
    const order = (await postOrder(ethOrder({ checkoutSessionId: session.id }))).body.data;
    await expireOverdueOrders(order.expiredAt);
    const stored = await orderItems(order, session.id);
    const expected = Math.ceil(order.expiredAt / 1000) + RETENTION_SECONDS;
    expect(stored.order).toMatchObject({ status: 'expired', ttl: expected });
    expect(stored.allPointer?.ttl).toBe(expected);
    expect(stored.session).toMatchObject({ status: 'expired', ttl: expected });
  });

  it('a paid order is kept: its deposit removes the ttl from the order, its pointers and its session', async () => {
    const session = (await postSession()).body.data;
    const order = (await postOrder(ethOrder({ checkoutSessionId: session.id }))).body.data;
    await detectOrderDepositsInBlocks([blockPaying(order.globalAddress, 1000n, order.createdAt + 1000)]);
    const stored = await orderItems(order, session.id);
    expect(stored.order?.status).toBe('quoting_after_deposit');
    for (const [name, stored_] of Object.entries(stored)) expect(stored_, name).toBeDefined();
    for (const [name, stored_] of Object.entries(stored)) expect(stored_, name).not.toHaveProperty('ttl');
    // Past what would have been its retention it is still there (nothing expires it now).
    expect((await getOrder(order.id)).status).toBe(200);
  });

  it('an order holding money to refund is kept: a deposit after its expiry, or a part of the amount, removes the ttl', async () => {
    const late = (await postOrder(ethOrder())).body.data;
    await detectOrderDepositsInBlocks([blockPaying(late.globalAddress, 1000n, late.expiredAt + 1000)]);
    const part = (await postOrder(ethOrder())).body.data;
    await detectOrderDepositsInBlocks([blockPaying(part.globalAddress, 400n, part.createdAt + 1000)]);
    await expireOverdueOrders(Math.max(late.expiredAt, part.expiredAt));
    for (const order of [late, part]) {
      const stored = await orderItems(order);
      expect(stored.order?.status, order.id).toBe('expired');
      expect(stored.order, order.id).not.toHaveProperty('ttl');
      expect(stored.allPointer, order.id).not.toHaveProperty('ttl');
    }
  });

  it('an order or a session past its ttl reads as absent (DynamoDB deletes expired items lazily)', async () => {
    const session = (await postSession()).body.data;
    const order = (await postOrder(ethOrder())).body.data;
    const past = Math.floor(Date.now() / 1000) - 1;
    for (const key of [orderKeys.order(order.id), orderKeys.checkoutSession(session.id)]) {
      await db.send(
        new UpdateCommand({
          TableName: table.name,
          Key: key,
          UpdateExpression: 'SET #ttl = :past',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':past': past },
        }),
      );
    }
    expect((await getOrder(order.id)).status).toBe(404);
    expect((await getSession(session.id)).status).toBe(404);
    // And an order can no longer name that session.
    const refused = await postOrder(ethOrder({ checkoutSessionId: session.id }));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/does not exist/);
  });
});
