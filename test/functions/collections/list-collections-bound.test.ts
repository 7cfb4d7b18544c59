/**
 * The bound on a combination of filters: it reads at most COLLECTION_COMBINATION_SCAN_LIMIT entries
 * (here 3); a combination whose smallest range is larger is refused with a 400 saying how to narrow it.
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
    const message = expectGroupError(await getCollections('chainId=1&symbol=WIDE'), 400);
    expect(message).toMatch(/would have to check 5 collections, more than 3/);
    expect(expectGroupError(await getCollections(`chainId=1&creator=${busy.address}`), 400)).toMatch(/check 4 collections/);
  });

  it('serves a combination whose smallest range is within the limit, and single filters of any size', async () => {
    const narrow = await getCollections(`chainId=1&symbol=WIDE&creator=${quiet.address}`);
    expect(narrow.status).toBe(200);
    expect(narrow.body.total).toBe(1);
    expect(narrow.body.collections[0].creator).toBe(quiet.address);
    const single = await getCollections('symbol=WIDE');
    expect(single.body.total).toBe(5);
  });

  it('serves a page of one range with one Query (sent with the counter read) and one BatchGetItem of the collections', async () => {
    const { result, usage } = await measureTable(() => getCollections('symbol=WIDE&limit=2&page=2'));
    expect(result.body.collections.map((collection: { name: string }) => collection.name)).toEqual(['Wide 2', 'Wide 1']);
    expect(result.body.total).toBe(5);
    expect(usage.calls).toEqual({ BatchGetItemCommand: 2, QueryCommand: 1 });
    // The page's 2 entries and the 2 skipped ones, the counter, the 2 collections.
    expect(usage.itemsRead).toBe(7);
  });
});
