/**
 * The bound on a combination of filters without a range of its own: it reads at most
 * COLLECTION_COMBINATION_SCAN_LIMIT collections (here 3); a combination whose smallest candidate range
 * is larger is refused with a 400 saying how to narrow it. A filter alone, or with chainId, has its
 * own range and is served at any size, reading only its page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureTable } from '../../../shared/db/instrument';
import { useTestTable } from '../../support/table';
import { accountFor, expectGroupError, getCollections, postCollection, signedBody } from './fixtures';

process.env.COLLECTION_COMBINATION_SCAN_LIMIT = '3';
afterAll(() => {
  delete process.env.COLLECTION_COMBINATION_SCAN_LIMIT;
});
useTestTable('collections-bound');

const busy = accountFor('bound-busy');
const quiet = accountFor('bound-quiet');

beforeAll(async () => {
  // Five collections on chain 1 with symbol WIDE: four by `busy`, one by `quiet`.
  for (let i = 0; i < 5; i += 1) {
    const creator = i < 4 ? busy : quiet;
    expect((await postCollection(await signedBody(creator, { name: `Wide ${i}`, symbol: 'WIDE', chainId: 1 }))).status).toBe(201);
  }
});

describe('combination bound', () => {
  it('refuses a combination whose most selective range is over the limit', async () => {
    const message = expectGroupError(await getCollections(`symbol=WIDE&creator=${busy.address}`), 400);
    expect(message).toMatch(/would have to check 4 collections, more than 3/);
    expect(expectGroupError(await getCollections(`chainId=1&symbol=WIDE&creator=${busy.address}`), 400)).toMatch(/check 4 collections/);
  });

  it('serves a combination whose smallest range is within the limit, and a filter alone or with chainId at any size', async () => {
    const narrow = await getCollections(`chainId=1&symbol=WIDE&creator=${quiet.address}`);
    expect(narrow.status).toBe(200);
    expect(narrow.body.total).toBe(1);
    expect(narrow.body.collections[0].creator).toBe(quiet.address);
    expect((await getCollections('symbol=WIDE')).body.total).toBe(5);
    expect((await getCollections('symbol=WIDE&chainId=1')).body.total).toBe(5);
    expect((await getCollections(`creator=${busy.address}&chainId=1`)).body.total).toBe(4);
  });

  it('serves page 1 of a range with its counter and one Query at once, any other page with the counter then one Query of the page', async () => {
    const first = await measureTable(() => getCollections('symbol=WIDE&limit=2'));
    expect(first.result.body.collections.map((collection: { name: string }) => collection.name)).toEqual(['Wide 4', 'Wide 3']);
    expect(first.usage.calls).toEqual({ GetItemCommand: 1, QueryCommand: 1 });
    expect(first.usage.itemsRead).toBe(3);
    for (const [page, names] of [
      [2, ['Wide 2', 'Wide 1']],
      [3, ['Wide 0']],
    ] as const) {
      const { result, usage } = await measureTable(() => getCollections(`symbol=WIDE&chainId=1&limit=2&page=${page}`));
      expect(result.body.collections.map((collection: { name: string }) => collection.name)).toEqual(names);
      expect(result.body.total).toBe(5);
      expect(usage.calls).toEqual({ GetItemCommand: 1, QueryCommand: 1 });
      // The counter and the page's own collections: nothing skipped.
      expect(usage.itemsRead).toBe(1 + names.length);
    }
    const past = await measureTable(() => getCollections('symbol=WIDE&limit=2&page=4'));
    expect(past.result.body).toMatchObject({ total: 5, collections: [] });
    expect(past.usage.calls).toEqual({ GetItemCommand: 1 });
  });
});
