import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { accountFor, expectGroupError, getCollections, newestFirst, postCollection, signedBody } from './fixtures';

const table = useTestTable('collections-list');
const { listCollectionsResponse } = await import('../../../shared/collections/schemas');

const creators = [accountFor('lc0'), accountFor('lc1'), accountFor('lc2')];
const owners = [accountFor('lo0'), accountFor('lo1')];
const COUNT = 24;

interface Created {
  predictedAddress: string;
  createdAt: string;
  uuid: string;
  creator: string;
  gameOwner: string;
  symbol: string;
  chainId: number;
  referrer?: string;
  gameId?: string;
}

let created: Created[] = [];

/** Collections created one after another, with filter values spread so that combinations overlap. */
beforeAll(async () => {
  for (let i = 0; i < COUNT; i += 1) {
    const body = await signedBody(creators[i % 3], {
      name: `Listed ${i}`,
      // 'alpha' and 'ALPHA' are different symbols: the symbol filter is exact.
      symbol: ['ALPHA', 'BETA', 'alpha', 'GAMMA'][i % 4],
      gameOwner: owners[Math.floor(i / 3) % 2].address,
      chainId: i < 12 ? 1 : 8453,
      ...(i % 5 === 0 ? {} : { referrer: i % 2 === 0 ? 'partnera' : 'partnerb' }),
      ...(i % 3 === 2 ? {} : { gameId: `game-${i % 4}` }),
    });
    const response = await postCollection(body);
    expect(response.status).toBe(201);
    created.push(response.body.data);
  }
  created = newestFirst(created);
});

type Filters = Partial<Record<'creator' | 'gameOwner' | 'symbol' | 'referrer' | 'chainId' | 'gameId', string | number>>;

function expectedFor(filters: Filters): string[] {
  return created
    .filter((collection) =>
      Object.entries(filters).every(([field, value]) => {
        const actual = (collection as unknown as Record<string, unknown>)[field];
        return field === 'creator' || field === 'gameOwner'
          ? String(actual).toLowerCase() === String(value).toLowerCase()
          : actual === value;
      }),
    )
    .map((collection) => collection.predictedAddress);
}

async function list(query: string) {
  const response = await getCollections(query);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(v.safeParse(listCollectionsResponse, response.body).success).toBe(true);
  return response.body as { success: true; total: number; page: number; limit: number; collections: Created[] };
}

const toQuery = (filters: Filters, extra = 'limit=100') =>
  [...Object.entries(filters).map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`), extra].filter(Boolean).join('&');

describe('GET /collections', () => {
  it('lists the newest first, 10 per page and page 1 by default, with the total of all matches', async () => {
    const body = await list('');
    expect(body).toMatchObject({ success: true, total: COUNT, page: 1, limit: 10 });
    expect(body.collections.map((c) => c.predictedAddress)).toEqual(created.slice(0, 10).map((c) => c.predictedAddress));
    const times = body.collections.map((c) => Date.parse(c.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  describe('each filter alone', () => {
    const single: Filters[] = [
      { creator: creators[0].address },
      { creator: creators[1].address.toLowerCase() },
      { creator: `0x${creators[2].address.slice(2).toUpperCase()}` },
      { gameOwner: owners[0].address },
      { gameOwner: owners[1].address },
      { symbol: 'ALPHA' },
      { symbol: 'alpha' },
      { symbol: 'NOPE' },
      { referrer: 'partnera' },
      { referrer: 'partnerb' },
      { referrer: 'nobody' },
      { chainId: 1 },
      { chainId: 8453 },
      { chainId: 10 },
      { gameId: 'game-0' },
      { gameId: 'game-3' },
      { gameId: 'game-9' },
    ];
    it.each(single)('%o', async (filters) => {
      const expected = expectedFor(filters);
      const body = await list(toQuery(filters));
      expect(body.total).toBe(expected.length);
      expect(body.collections.map((c) => c.predictedAddress)).toEqual(expected);
    });

    it('the fixtures exercise non-empty and empty ranges', () => {
      expect(expectedFor({ symbol: 'ALPHA' }).length).toBeGreaterThan(0);
      expect(expectedFor({ symbol: 'alpha' }).length).toBeGreaterThan(0);
      expect(expectedFor({ symbol: 'NOPE' })).toEqual([]);
    });
  });

  describe('combinations of filters', () => {
    const combinations: Filters[] = [
      { creator: creators[0].address, chainId: 1 },
      { creator: creators[1].address, symbol: 'BETA' },
      { symbol: 'ALPHA', referrer: 'partnera' },
      { gameOwner: owners[1].address, gameId: 'game-1', chainId: 8453 },
      { chainId: 8453, referrer: 'partnerb', symbol: 'BETA' },
      { creator: creators[2].address, gameOwner: owners[0].address, symbol: 'alpha', referrer: 'partnerb', chainId: 1, gameId: 'game-1' },
      { creator: creators[0].address, symbol: 'BETA' },
      { creator: creators[0].address, gameId: 'game-404' },
    ];
    it.each(combinations)('%o', async (filters) => {
      const expected = expectedFor(filters);
      const body = await list(toQuery(filters));
      expect(body.total).toBe(expected.length);
      expect(body.collections.map((c) => c.predictedAddress)).toEqual(expected);
    });

    it('the fixtures give combinations with several, one and no matches', () => {
      const sizes = combinations.map((filters) => expectedFor(filters).length);
      expect(sizes.some((size) => size > 1)).toBe(true);
      expect(sizes.some((size) => size === 0)).toBe(true);
    });

    it('pages through a combination', async () => {
      const filters = { chainId: 8453, gameOwner: owners[0].address };
      const expected = expectedFor(filters);
      expect(expected.length).toBeGreaterThan(3);
      const first = await list(toQuery(filters, 'limit=2&page=1'));
      const second = await list(toQuery(filters, 'limit=2&page=2'));
      expect(first.total).toBe(expected.length);
      expect(second.total).toBe(expected.length);
      expect([...first.collections, ...second.collections].map((c) => c.predictedAddress)).toEqual(expected.slice(0, 4));
      const past = await list(toQuery(filters, 'limit=2&page=50'));
      expect(past).toMatchObject({ total: expected.length, page: 50, limit: 2, collections: [] });
    });
  });

  describe('paging', () => {
    it('walks every page in order without gaps or repeats, the last one partial', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 4; page += 1) {
        const body = await list(`limit=7&page=${page}`);
        expect(body).toMatchObject({ total: COUNT, page, limit: 7 });
        expect(body.collections).toHaveLength(page < 4 ? 7 : COUNT - 21);
        seen.push(...body.collections.map((c) => c.predictedAddress));
      }
      expect(seen).toEqual(created.map((c) => c.predictedAddress));
    });

    it('returns an empty page with the total past the end', async () => {
      expect(await list('limit=7&page=5')).toMatchObject({ success: true, total: COUNT, page: 5, limit: 7, collections: [] });
      expect(await list('page=1000000')).toMatchObject({ total: COUNT, page: 1000000, collections: [] });
    });

    it('serves limit 1 and limit 100', async () => {
      const last = await list(`limit=1&page=${COUNT}`);
      expect(last.collections.map((c) => c.predictedAddress)).toEqual([created[COUNT - 1].predictedAddress]);
      const second = await list('limit=1&page=2');
      expect(second.collections.map((c) => c.predictedAddress)).toEqual([created[1].predictedAddress]);
      const all = await list('limit=100');
      expect(all.collections).toHaveLength(COUNT);
      expect(all.limit).toBe(100);
    });

    it('pages a single filter range', async () => {
      const expected = expectedFor({ chainId: 1 });
      const page2 = await list('chainId=1&limit=5&page=2');
      expect(page2.total).toBe(expected.length);
      expect(page2.collections.map((c) => c.predictedAddress)).toEqual(expected.slice(5, 10));
    });
  });

  describe('rejects invalid query parameters with 400 in the group format', () => {
    const invalid: [string, RegExp][] = [
      ['creator=0x1234', /creator: must be 0x followed by 40 hex digits/],
      [`creator=${'0x'.padEnd(42, 'z')}`, /creator/],
      ['creator=', /creator/],
      ['gameOwner=alice', /gameOwner/],
      ['referrer=Partner', /referrer/],
      ['referrer=a-b', /referrer/],
      ['referrer=', /referrer/],
      ['symbol=', /symbol/],
      ['symbol=A%20B', /symbol/],
      [`symbol=${'S'.repeat(33)}`, /symbol/],
      ['gameId=', /gameId/],
      ['chainId=abc', /chainId: must be a positive integer/],
      ['chainId=0', /chainId/],
      ['chainId=-1', /chainId/],
      ['chainId=1.5', /chainId/],
      ['chainId=99999999999999999', /chainId/],
      ['page=0', /page: must be an integer of at least 1/],
      ['page=-1', /page/],
      ['page=abc', /page/],
      ['page=1.5', /page/],
      ['limit=0', /limit: must be an integer from 1 to 100/],
      ['limit=101', /limit: must be an integer from 1 to 100/],
      ['limit=ten', /limit/],
      ['limit=', /limit/],
      ['creater=0x0000000000000000000000000000000000000001', /Unexpected field: creater/],
      ['sort=asc', /Unexpected field: sort/],
      [`creator=${creators[0].address}&creator=${creators[1].address}`, /creator/],
    ];
    let before: Record<string, unknown>[];
    beforeAll(async () => {
      before = await tableSnapshot(table.name);
    });
    it.each(invalid)('%s', async (query, messagePart) => {
      expect(expectGroupError(await getCollections(query), 400)).toMatch(messagePart);
    });
    it('wrote nothing', async () => {
      expect(await tableSnapshot(table.name)).toEqual(before);
    });
  });
});
