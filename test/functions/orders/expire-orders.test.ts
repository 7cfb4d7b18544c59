import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { db } from '../../../shared/db/client';
import { orderKeys } from '../../../shared/table/keys';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { markDepositReceived } from '../../../shared/orders/orders';
import { jobs } from '../../../shared/jobs';
import { getOrder, getSession, onramp, orderBody, postOrder, postSession, storedOrder } from './fixtures';

const table = useTestTable('orders-expiry');
const { handler: expireOrders } = await import('../../../functions/orders/expire-orders');

afterEach(() => resetClock());

/** Every order id in the O5 expiry ranges (all shards), as the sweeper would read them. */
async function pendingExpiryIds(): Promise<string[]> {
  const ids: string[] = [];
  for (let shard = 0; shard < orderKeys.expiryShards; shard += 1) {
    const range = orderKeys.pendingExpiryRange(shard);
    const page = await db.send(
      new QueryCommand({
        TableName: table.name,
        IndexName: range.index,
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': range.pk },
      }),
    );
    ids.push(...(page.Items ?? []).map((item) => String(item.pk).replace(/^ORDER#/, '')));
  }
  return ids;
}

describe('order expiry', () => {
  it('reads a waiting order as expired once expiredAt is reached, before anything is persisted', async () => {
    const { body } = await postOrder(orderBody());
    const order = body.data;
    setClock(() => order.expiredAt - 1);
    expect((await getOrder(order.id)).body.data.order.status).toBe('scanning_deposit_transaction');
    setClock(() => order.expiredAt);
    expect((await getOrder(order.id)).body.data.order.status).toBe('expired');
    expect((await storedOrder(table.name, order.id))?.status).toBe('scanning_deposit_transaction');
  });

  it('is a scheduled job of its own', () => {
    const job = jobs.find((candidate) => candidate.handler === 'functions/orders/expire-orders.ts');
    expect(job).toMatchObject({
      perChain: false,
      schedule: expect.stringMatching(/^rate\(/),
      table: { read: true, write: ['UpdateItem'] },
    });
  });

  it('persists expired for overdue waiting orders only, removes them from the sparse indexes, and expires their sessions', async () => {
    const start = Date.now();
    setClock(() => start);
    const session = (await postSession()).body.data;
    const overdue = (await postOrder(orderBody({ checkoutSessionId: session.id }))).body.data;
    const overdueOnramp = (await postOrder(orderBody({ onramp }))).body.data;
    const deposited = (await postOrder(orderBody())).body.data;
    setClock(() => start + 60_000);
    const fresh = (await postOrder(orderBody())).body.data;
    expect(
      (await markDepositReceived(deposited.id, { transactionHash: `0x${'ab'.repeat(32)}`, amount: '25000000', receivedAt: start + 1000 }))
        .applied,
    ).toBe(true);

    const sweepAt = overdue.expiredAt + 1;
    setClock(() => sweepAt);
    // What a full scan (test only) says is overdue: waiting and expiredAt <= now.
    const overdueIds = (await tableSnapshot(table.name))
      .filter((item) => item.entity === 'order' && ['waiting_payment', 'scanning_deposit_transaction'].includes(String(item.status)))
      .filter((item) => Number(item.expiredAt) <= sweepAt)
      .map((item) => String(item.id));
    expect(overdueIds).toEqual(expect.arrayContaining([overdue.id, overdueOnramp.id]));
    expect(overdueIds).not.toContain(fresh.id);
    const result = await expireOrders();
    expect(result).toEqual({ examined: overdueIds.length, expired: overdueIds.length, skipped: 0 });
    for (const id of overdueIds) expect((await storedOrder(table.name, id))?.status).toBe('expired');

    for (const id of [overdue.id, overdueOnramp.id]) {
      const stored = await storedOrder(table.name, id);
      expect(stored).toMatchObject({ status: 'expired', updatedAt: sweepAt });
      for (const attribute of ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']) expect(stored).not.toHaveProperty(attribute);
    }
    expect((await storedOrder(table.name, fresh.id))?.status).toBe('scanning_deposit_transaction');
    expect((await storedOrder(table.name, deposited.id))?.status).toBe('quoting_after_deposit');
    expect((await getSession(session.id)).body.data).toMatchObject({ status: 'expired', orderId: overdue.id });

    const pending = await pendingExpiryIds();
    expect(pending).toContain(fresh.id);
    expect(pending).not.toContain(overdue.id);
    expect(pending).not.toContain(deposited.id);

    // A second run finds nothing left to do and changes nothing.
    const before = await tableSnapshot(table.name);
    expect(await expireOrders()).toEqual({ examined: 0, expired: 0, skipped: 0 });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('leaves an order whose expiry has not come yet, even when it is the only one in its shard range', async () => {
    const { body } = await postOrder(orderBody());
    setClock(() => body.data.expiredAt - 1);
    await expireOrders();
    expect((await storedOrder(table.name, body.data.id))?.status).toBe('scanning_deposit_transaction');
    setClock(() => body.data.expiredAt);
    await expireOrders();
    expect((await storedOrder(table.name, body.data.id))?.status).toBe('expired');
  });
});
