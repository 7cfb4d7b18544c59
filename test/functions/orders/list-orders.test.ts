/**
 * GET /orders: orders newest first, by creator (any letter case) or all; limit / offset paging over
 * numbered ranges (shared/orders/order-list.ts); at most two round trips a page, nothing read that
 * the page does not return but the range's counter, whatever the offset; never a Scan.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { measureTable, totalCalls } from '../../../shared/db/instrument';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { useTestTable } from '../../support/table';
import { CREATOR, orderBody, postOrder } from './fixtures';

useTestTable('list-orders');

const OTHER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const list = (query: string) => requestJson('orders', 'GET', `/orders${query ? `?${query}` : ''}`);
const ids = (response: { body: any }) => response.body.data.map((order: any) => order.id);

const mine: string[] = [];
const theirs: string[] = [];
const everyone: string[] = [];

beforeAll(async () => {
  // 7 orders of CREATOR, 3 of OTHER, 2 without creator, interleaved, 1 ms apart (two share a millisecond).
  const start = Date.now();
  const creators = [CREATOR, OTHER, CREATOR, undefined, CREATOR, CREATOR, OTHER, CREATOR, undefined, CREATOR, OTHER, CREATOR];
  for (const [index, creator] of creators.entries()) {
    setClock(() => start + Math.min(index, 10));
    const response = await postOrder(orderBody(creator ? { creatorAddress: creator } : {}));
    expect(response.status).toBe(200);
    everyone.push(response.body.data.id);
    if (creator === CREATOR) mine.push(response.body.data.id);
    if (creator === OTHER) theirs.push(response.body.data.id);
  }
  resetClock();
});

/**
 * Newest first: the reverse of creation order (each range numbers its orders as they are created),
 * which is createdAt descending; two orders of one millisecond are listed newest created first.
 */
async function expectedOrder(orderIds: string[]): Promise<string[]> {
  const read = await Promise.all(orderIds.map(async (id) => (await requestJson('orders', 'GET', `/orders/${id}`)).body.data.order));
  const times = read.map((order) => order.createdAt);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  return [...orderIds].reverse();
}

describe('GET /orders', () => {
  it("lists a creator's orders newest first, the address in any letter case", async () => {
    const expected = await expectedOrder(mine);
    for (const address of [CREATOR, CREATOR.toLowerCase(), `0x${CREATOR.slice(2).toUpperCase()}`]) {
      const response = await list(`creatorAddress=${address}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ success: true, statusCode: 200, message: 'Get orders by creator successfully' });
      expect(ids(response)).toEqual(expected);
    }
    expect(ids(await list(`creatorAddress=${OTHER}`))).toEqual(await expectedOrder(theirs));
    expect((await list('creatorAddress=0x0000000000000000000000000000000000000001')).body.data).toEqual([]);
  });

  it('lists every order newest first without creatorAddress, each order as GET /orders/{id} reads it', async () => {
    const response = await list('');
    expect(response.body.message).toBe('Get orders successfully');
    expect(response.body.data).toHaveLength(12);
    expect(ids(response)).toEqual(await expectedOrder(everyone));
    const one = response.body.data[3];
    expect((await requestJson('orders', 'GET', `/orders/${one.id}`)).body.data.order).toEqual(one);
  });

  it('pages with limit and offset without gaps or duplicates, by creator and over all orders', async () => {
    for (const creator of [`creatorAddress=${CREATOR}&`, '']) {
      const whole = ids(await list(`${creator}limit=100`));
      for (const limit of [1, 2, 5]) {
        const paged: string[] = [];
        for (let offset = 0; offset < whole.length + limit; offset += limit)
          paged.push(...ids(await list(`${creator}limit=${limit}&offset=${offset}`)));
        expect(paged, `limit ${limit}`).toEqual(whole);
      }
      expect(ids(await list(`${creator}offset=${whole.length}`))).toEqual([]);
    }
  });

  it('serves offset 0 with one Query: the counter and the page, nothing else', async () => {
    for (const query of [`creatorAddress=${CREATOR}&limit=3`, 'limit=100', 'limit=5']) {
      const { result, usage } = await measureTable(() => list(query));
      expect(result.status).toBe(200);
      expect(usage.calls, query).toEqual({ QueryCommand: 1 });
      expect(usage.itemsRead, query).toBe(result.body.data.length + 1);
    }
  });

  it('serves any other offset with a GetItem of the counter and one Query of exactly the page: the cost does not grow with the offset', async () => {
    const reads: number[] = [];
    for (const offset of [1, 3, 6]) {
      const { result, usage } = await measureTable(() => list(`limit=5&offset=${offset}`));
      expect(result.status).toBe(200);
      expect(usage.calls, `offset ${offset}`).toEqual({ GetItemCommand: 1, QueryCommand: 1 });
      expect(usage.itemsRead, `offset ${offset}`).toBe(result.body.data.length + 1);
      reads.push(usage.itemsRead);
    }
    expect(reads).toEqual([6, 6, 6]);
    // Past the end: the counter alone.
    for (const query of ['offset=5000', `creatorAddress=${CREATOR}&offset=7`]) {
      const { result, usage } = await measureTable(() => list(query));
      expect(result.body.data).toEqual([]);
      expect(usage.calls, query).toEqual({ GetItemCommand: 1 });
      expect(totalCalls(usage)).toBe(1);
      expect(usage.calls.ScanCommand).toBeUndefined();
    }
  });

  it.each([
    ['limit=0', 'limit: must be at least 1'],
    ['limit=101', 'limit: must be at most 100'],
    ['limit=abc', 'limit: must be a whole number'],
    ['offset=-1', 'offset: must be a whole number'],
    ['offset=5001', 'offset: must be at most 5000'],
    ['creatorAddress=0x1234', 'creatorAddress: must be an address'],
    ['creator=0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', 'creator'],
  ])('answers 400 in the B3 error format for %s', async (query, message) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, message: expect.stringContaining(message), statusCode: 400 });
  });
});
