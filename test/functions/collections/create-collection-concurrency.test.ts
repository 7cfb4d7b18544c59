/**
 * 100 creations at once through the real handler: every one stored once, every list range numbered
 * 1..n without a gap or a shared position and its counter exactly right, and a racing duplicate stored once.
 */
import { describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { accountFor, expectGroupError, getCollections, postCollection, signedBody, type CollectionBody } from './fixtures';

const table = useTestTable('collections-concurrency');

const creators = [accountFor('c0'), accountFor('c1'), accountFor('c2'), accountFor('c3')];
const owners = [accountFor('o0'), accountFor('o1'), accountFor('o2')];

function bodyFields(i: number) {
  return {
    name: `Concurrent ${i}`,
    symbol: ['AAA', 'BBB', 'CCC', 'DDD', 'EEE'][i % 5],
    gameOwner: owners[i % 3].address,
    chainId: [1, 8453][i % 2],
    ...(i % 4 === 0 ? {} : { referrer: ['r1', 'r2', 'r3'][i % 3] }),
    ...(i % 3 === 0 ? {} : { gameId: `game-${i % 7}` }),
  };
}

type Filter = 'creator' | 'gameOwner' | 'symbol' | 'chainId' | 'referrer' | 'gameId';
const FILTERS: Filter[] = ['creator', 'gameOwner', 'symbol', 'chainId', 'referrer', 'gameId'];
const valueFor = (body: CollectionBody, field: Filter): string | undefined => {
  const value = body[field];
  return value === undefined ? undefined : field === 'creator' || field === 'gameOwner' ? String(value).toLowerCase() : String(value);
};

describe('concurrent creation', () => {
  it('loses and duplicates nothing when 100 collections are created at once', async () => {
    const bodies = await Promise.all(Array.from({ length: 100 }, (_, i) => signedBody(creators[i % 4], bodyFields(i))));
    const responses = await Promise.all(bodies.map((body) => postCollection(body)));
    expect(responses.map((response) => response.status)).toEqual(Array(100).fill(201));
    const created = responses.map((response) => response.body.data);
    const addresses = created.map((collection) => collection.predictedAddress);
    expect(new Set(addresses).size).toBe(100);
    expect(new Set(created.map((collection) => collection.uuid)).size).toBe(100);

    // The unfiltered list: total 100 and exactly the 100 created, once each.
    const all = await getCollections('limit=100');
    expect(all.body.total).toBe(100);
    expect(all.body.collections.map((c: any) => c.predictedAddress).sort()).toEqual([...addresses].sort());

    // Every range of every filter value: the right total and exactly the right collections.
    for (const field of FILTERS) {
      const values = new Set(bodies.map((body) => valueFor(body, field)).filter((value): value is string => value !== undefined));
      for (const value of values) {
        const expected = created
          .filter((_, i) => valueFor(bodies[i], field) === value)
          .map((c) => c.predictedAddress)
          .sort();
        const listed = await getCollections(`${field}=${value}&limit=100`);
        expect(listed.status).toBe(200);
        expect(listed.body.total, `${field}=${value}`).toBe(expected.length);
        expect(listed.body.collections.map((c: any) => c.predictedAddress).sort(), `${field}=${value}`).toEqual(expected);
      }
    }

    // Every filter value on each chain (its own range): the right total and collections.
    for (const field of FILTERS.filter((name) => name !== 'chainId')) {
      const pairs = new Set(
        bodies.flatMap((body) => (valueFor(body, field) === undefined ? [] : [`${valueFor(body, field)}|${body.chainId}`])),
      );
      for (const pair of pairs) {
        const [value, chainId] = pair.split('|');
        const expected = created
          .filter((_, i) => valueFor(bodies[i], field) === value && String(bodies[i].chainId) === chainId)
          .map((c) => c.predictedAddress)
          .sort();
        const listed = await getCollections(`${field}=${value}&chainId=${chainId}&limit=100`);
        expect(listed.body.total, pair).toBe(expected.length);
        expect(listed.body.collections.map((c: any) => c.predictedAddress).sort(), pair).toEqual(expected);
      }
    }

    // The table itself: one collection item per creation; one copy per range it belongs to (the
    // unfiltered one, each filter value, each filter value but chainId on its chain), at positions
    // 1..n of each range; counters equal to n.
    const items = await tableSnapshot(table.name);
    const collectionItems = items.filter((item) => String(item.pk).startsWith('COLLECTION#'));
    expect(collectionItems).toHaveLength(100);
    const entries = items.filter((item) => String(item.pk).startsWith('COLLECTIONS#'));
    const expectedEntries = bodies.reduce((sum, body) => {
      const filters = FILTERS.filter((field) => valueFor(body, field) !== undefined).length;
      return sum + 1 + filters + (filters - 1);
    }, 0);
    expect(entries).toHaveLength(expectedEntries);
    const perRange = new Map<string, number[]>();
    for (const entry of entries)
      perRange.set(String(entry.pk), [...(perRange.get(String(entry.pk)) ?? []), Number(String(entry.sk).slice(2))]);
    for (const [pk, positions] of perRange)
      expect(
        positions.sort((a, b) => a - b),
        pk,
      ).toEqual(Array.from({ length: positions.length }, (_, i) => i + 1));
    const counters = items.filter((item) => String(item.pk).startsWith('COLLECTIONS-COUNT#'));
    expect(counters).toHaveLength(perRange.size);
    for (const counter of counters) {
      expect(counter.count, String(counter.pk)).toBe(perRange.get(String(counter.pk).slice('COLLECTIONS-COUNT#'.length))?.length);
    }
  });

  it('stores a collection once when the same signed body races itself', async () => {
    const body = await signedBody(creators[0], { name: 'Raced', symbol: 'RACE' });
    const responses = await Promise.all(Array.from({ length: 10 }, () => postCollection(body)));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 201)) expect(expectGroupError(response, 409)).toMatch(/already exists/);
    const listed = await getCollections('symbol=RACE');
    expect(listed.body.total).toBe(1);
    expect(listed.body.collections).toHaveLength(1);
  });
});
