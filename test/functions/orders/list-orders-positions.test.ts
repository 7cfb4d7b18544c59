/**
 * The numbered order lists (shared/orders/order-list.ts) through the handlers and the real SDK against
 * the embedded table: concurrent creations never share or lose a position; a status change shows in
 * the list as in GET /orders/{id} (a deposit through the copies, an expiry at read time); an order gone
 * past its retention leaves its position empty without shifting the other pages.
 */
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { db } from '../../../shared/db/client';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { detectOrderDepositsInBlocks } from '../../../shared/orders/deposits';
import { expireOverdueOrders } from '../../../shared/orders/orders';
import { listPosition, orderKeys } from '../../../shared/table/keys';
import { tableSnapshot, useTestTable } from '../../support/table';
import { CREATOR, getOrder, orderBody, postOrder, blockPaying, ethOrder } from './fixtures';

const table = useTestTable('list-orders-positions');
const OTHER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

const list = async (query: string) => (await requestJson('orders', 'GET', `/orders?${query}`)).body.data as any[];
const item = async (key: { pk: string; sk: string }) =>
  (await db.send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }))).Item;

describe('numbered order lists', () => {
  it('gives 40 concurrent creations 40 distinct positions in every range, losing none', async () => {
    const creators = Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? CREATOR : OTHER));
    const responses = await Promise.all(creators.map((creatorAddress) => postOrder(orderBody({ creatorAddress }))));
    expect(responses.map((response) => response.status)).toEqual(Array(40).fill(200));
    const created = responses.map((response) => response.body.data.id as string);

    const items = await tableSnapshot(table.name);
    for (const [pk, expected] of [
      [orderKeys.allOrders().pk, 40],
      [orderKeys.creatorOrders(CREATOR).pk, 20],
      [orderKeys.creatorOrders(OTHER).pk, 20],
    ] as const) {
      const copies = items.filter((stored) => stored.pk === pk && stored.sk !== orderKeys.listCounter({ pk }).sk);
      expect(copies.map((copy) => listPosition(String(copy.sk))).sort((a, b) => a - b)).toEqual(
        Array.from({ length: expected }, (_, index) => index + 1),
      );
      expect(new Set(copies.map((copy) => copy.id)).size).toBe(expected);
      expect(items.find((stored) => stored.pk === pk && stored.sk === orderKeys.listCounter({ pk }).sk)?.count).toBe(expected);
    }
    // Each order records its positions, and the copies there are its own; the IP address is not copied.
    for (const id of created) {
      const order = await item(orderKeys.order(id));
      const [all, mine] = (order?.listPositions ?? []) as number[];
      const ranges = [orderKeys.allOrders(), orderKeys.creatorOrders(order?.creatorAddress)];
      for (const [index, position] of [all!, mine!].entries()) {
        const copy = await item(orderKeys.listEntry(ranges[index]!, position));
        expect(copy).toMatchObject({ id, ttl: order?.ttl, status: order?.status });
      }
    }

    const listed = await list('limit=100');
    expect(listed.map((order) => order.id).sort()).toEqual([...created].sort());
    expect((await list(`creatorAddress=${OTHER}&limit=100`)).map((order) => order.id).sort()).toEqual(
      created.filter((_, index) => creators[index] === OTHER).sort(),
    );
    // Newest first in position order, createdAt never increasing.
    const times = listed.map((order) => order.createdAt);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('shows a deposit in the list as GET /orders/{id} does, and an expiry at read time without the expiry job writing the list', async () => {
    const paid = (await postOrder(ethOrder())).body.data;
    const unpaid = (await postOrder(ethOrder())).body.data;
    await detectOrderDepositsInBlocks([blockPaying(paid.globalAddress, 1000n, paid.createdAt + 1000)]);
    const byId = async () => new Map((await list(`creatorAddress=${CREATOR}&limit=100`)).map((order) => [order.id, order]));
    expect((await byId()).get(paid.id)).toEqual((await getOrder(paid.id)).body.data.order);
    expect((await byId()).get(paid.id).status).toBe('sending_token_from_vault');

    setClock(() => unpaid.expiredAt + 1);
    try {
      expect((await byId()).get(unpaid.id).status).toBe('expired');
      const stored = await item(orderKeys.order(unpaid.id));
      const copyKey = orderKeys.listEntry(orderKeys.allOrders(), ((stored?.listPositions ?? []) as number[])[0]!);
      const before = await item(copyKey);
      await expireOverdueOrders(unpaid.expiredAt + 1);
      expect((await item(orderKeys.order(unpaid.id)))?.status).toBe('expired');
      expect(await item(copyKey)).toEqual(before);
      expect((await byId()).get(unpaid.id)).toEqual((await getOrder(unpaid.id)).body.data.order);
    } finally {
      resetClock();
    }
  });

  it('leaves the position of an order past its retention empty: the other pages do not shift', async () => {
    const tag = `gap-${Date.now()}`;
    const creator = `0x${'9'.repeat(39)}1`;
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1)
      ids.push((await postOrder(orderBody({ creatorAddress: creator, clientReferenceId: `${tag}-${index}` }))).body.data.id);
    const pages = async () =>
      [0, 2, 4].map(async (offset) => (await list(`creatorAddress=${creator}&limit=2&offset=${offset}`)).map((order) => order.id));
    expect(await Promise.all(await pages())).toEqual([
      [ids[5], ids[4]],
      [ids[3], ids[2]],
      [ids[1], ids[0]],
    ]);
    // ids[3]: its ttl passed (DynamoDB deletes lazily); ids[1]: deleted by DynamoDB already.
    const past = Math.floor(Date.now() / 1000) - 1;
    const positionOf = async (id: string) => (((await item(orderKeys.order(id)))?.listPositions ?? []) as number[])[1]!;
    const range = orderKeys.creatorOrders(creator);
    await db.send(
      new UpdateCommand({
        TableName: table.name,
        Key: orderKeys.listEntry(range, await positionOf(ids[3]!)),
        UpdateExpression: 'SET #ttl = :past',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':past': past },
      }),
    );
    await db.send(new DeleteCommand({ TableName: table.name, Key: orderKeys.listEntry(range, await positionOf(ids[1]!)) }));
    expect(await Promise.all(await pages())).toEqual([[ids[5], ids[4]], [ids[2]], [ids[0]]]);
  });

  it('serves a page of orders larger than 1 MB whole (one Query call per MB), at offset 0 and deeper', async () => {
    const creator = `0x${'8'.repeat(39)}2`;
    const contract = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    // 24 KiB of calldata each (the most a custom order takes): 60 orders are about 3 MB.
    const data = `0x${'ab'.repeat(24 * 1024)}`;
    for (let index = 0; index < 60; index += 1) {
      const response = await postOrder(
        orderBody({ type: 'custom', creatorAddress: creator, payload: { data, to: contract, amount: String(index) } }),
      );
      expect(response.status).toBe(200);
    }
    const first = await list(`creatorAddress=${creator}&limit=50`);
    expect(first.map((order) => order.payload.amount)).toEqual(Array.from({ length: 50 }, (_, index) => String(59 - index)));
    const deeper = await list(`creatorAddress=${creator}&limit=50&offset=5`);
    expect(deeper.map((order) => order.payload.amount)).toEqual(Array.from({ length: 50 }, (_, index) => String(54 - index)));
  });
});
