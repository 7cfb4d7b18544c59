import { afterEach, describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { findStoredOrder, markDepositReceived, transitionOrder } from '../../../shared/orders/orders';
import { ORDER_STATUSES, TRANSITIONS, canTransition, isTerminal, type OrderStatus } from '../../../shared/orders/states';
import { getOrder, getSession, onramp, orderBody, postOrder, postSession } from '../../functions/orders/fixtures';

const table = useTestTable('orders-states');

afterEach(() => resetClock());

const TX = `0x${'cd'.repeat(32)}`;

async function newOrder(overrides: Record<string, unknown> = {}) {
  const response = await postOrder(orderBody(overrides));
  expect(response.status).toBe(200);
  return response.body.data as { id: string; createdAt: number; expiredAt: number; status: string };
}

describe('the transition table', () => {
  it('reaches executed from both starting states along the documented path', () => {
    const path: OrderStatus[] = [
      'waiting_payment',
      'scanning_deposit_transaction',
      'quoting_after_deposit',
      'relay',
      'executing',
      'executed',
    ];
    for (let i = 0; i < path.length - 1; i += 1) expect(canTransition(path[i], path[i + 1])).toBe(true);
  });

  it('has exactly four terminal states and names only known states', () => {
    expect(ORDER_STATUSES.filter(isTerminal).sort()).toEqual(['executed', 'expired', 'failure', 'refunded']);
    for (const targets of Object.values(TRANSITIONS)) for (const target of targets) expect(ORDER_STATUSES).toContain(target);
  });

  it('lets only waiting states expire and only states after the deposit refund', () => {
    expect(ORDER_STATUSES.filter((status) => canTransition(status, 'expired')).sort()).toEqual([
      'scanning_deposit_transaction',
      'waiting_payment',
    ]);
    expect(ORDER_STATUSES.filter((status) => canTransition(status, 'refunding')).sort()).toEqual([
      'executing',
      'quoting_after_deposit',
      'relay',
    ]);
    expect(canTransition('refunding', 'refunded')).toBe(true);
    expect(canTransition('executed', 'refunding')).toBe(false);
  });
});

describe('transitionOrder', () => {
  it('walks an order to executed, setting filledAt, and completes its checkout session', async () => {
    const session = (await postSession()).body.data;
    const order = await newOrder({ checkoutSessionId: session.id });
    const deposit = await markDepositReceived(order.id, {
      transactionHash: TX.toUpperCase().replace('0X', '0x'),
      amount: '25000000',
      receivedAt: order.createdAt + 5,
    });
    expect(deposit.applied).toBe(true);
    for (const status of ['relay', 'executing', 'executed'] as const) {
      expect((await transitionOrder(order.id, status)).applied).toBe(true);
    }
    const read = (await getOrder(order.id)).body.data.order;
    expect(read.status).toBe('executed');
    expect(read.receivedDepositAt).toBe(order.createdAt + 5);
    expect(read.filledAt).toEqual(expect.any(Number));
    const stored = await findStoredOrder(order.id);
    expect(stored).toMatchObject({ depositTransactionHash: TX, depositAmount: '25000000' });
    expect((await getSession(session.id)).body.data.status).toBe('complete');
  });

  it('refuses a transition the table does not allow, changing nothing', async () => {
    const order = await newOrder();
    const before = await tableSnapshot(table.name);
    const result = await transitionOrder(order.id, 'executed');
    expect(result).toMatchObject({ applied: false, reason: 'not_allowed' });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('answers not_found for an unknown order', async () => {
    expect(await transitionOrder('0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30', 'failure')).toEqual({ applied: false, reason: 'not_found' });
  });

  it('applies only one of two concurrent changes from the same status', async () => {
    const order = await newOrder();
    // Both from the same view of the order (a deposit and a failure decided at once). Read apart, the
    // second would see the first's status and legitimately move on from it.
    const view = await findStoredOrder(order.id);
    const results = await Promise.all([
      transitionOrder(order.id, 'quoting_after_deposit', {
        current: view,
        at: order.createdAt + 1,
        set: { receivedDepositAt: order.createdAt + 1, depositTransactionHash: TX },
      }),
      transitionOrder(order.id, 'failure', { current: view, set: { errorDetails: 'quote unavailable' } }),
    ]);
    expect(results.filter((result) => result.applied)).toHaveLength(1);
    const stored = await findStoredOrder(order.id);
    expect(['quoting_after_deposit', 'failure']).toContain(stored?.status);
  });

  it('with a stale view of the order, conflicts instead of overwriting a newer status', async () => {
    const order = await newOrder();
    const stale = await findStoredOrder(order.id);
    expect((await transitionOrder(order.id, 'failure', { set: { errorDetails: 'x' } })).applied).toBe(true);
    const result = await transitionOrder(order.id, 'expired', { current: stale, at: order.expiredAt });
    expect(result).toMatchObject({ applied: false, reason: 'conflict' });
    expect((await findStoredOrder(order.id))?.status).toBe('failure');
  });

  it('does not expire an order before expiredAt', async () => {
    const order = await newOrder();
    expect(await transitionOrder(order.id, 'expired', { at: order.expiredAt - 1 })).toMatchObject({
      applied: false,
      reason: 'not_expired',
    });
  });
});

describe('markDepositReceived', () => {
  it('moves a waiting onramp order straight to quoting_after_deposit', async () => {
    const order = await newOrder({ onramp });
    expect((await findStoredOrder(order.id))?.status).toBe('waiting_payment');
    const result = await markDepositReceived(order.id, { transactionHash: TX, amount: '25000000', receivedAt: order.createdAt + 10 });
    expect(result.applied).toBe(true);
    expect(result.applied && result.order).toMatchObject({ status: 'quoting_after_deposit', receivedDepositAt: order.createdAt + 10 });
    expect(result.applied && result.order).not.toHaveProperty('gsi2pk');
  });

  it('refuses a deposit made at or after expiredAt, changing nothing', async () => {
    const order = await newOrder();
    const before = await tableSnapshot(table.name);
    const result = await markDepositReceived(order.id, { transactionHash: TX, amount: '1', receivedAt: order.expiredAt });
    expect(result).toMatchObject({ applied: false, reason: 'expired' });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('refuses a second deposit and a deposit on an expired order', async () => {
    const order = await newOrder();
    expect((await markDepositReceived(order.id, { transactionHash: TX, amount: '1', receivedAt: order.createdAt })).applied).toBe(true);
    expect(await markDepositReceived(order.id, { transactionHash: TX, amount: '1', receivedAt: order.createdAt })).toMatchObject({
      applied: false,
      reason: 'not_allowed',
    });

    const late = await newOrder();
    setClock(() => late.expiredAt + 1);
    expect((await transitionOrder(late.id, 'expired')).applied).toBe(true);
    expect(await markDepositReceived(late.id, { transactionHash: TX, amount: '1', receivedAt: late.createdAt })).toMatchObject({
      applied: false,
      reason: 'not_allowed',
    });
  });
});
