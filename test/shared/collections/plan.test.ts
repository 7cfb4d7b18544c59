import { describe, expect, it } from 'vitest';
import { collectionKeys } from '../../../shared/table/keys';
import { chooseRange, collectionRanges, entryMatches, filterTerms, planList, type FilterFields } from '../../../shared/collections/plan';

const CREATOR = '0xAbCdEf0000000000000000000000000000000001';
const OWNER = '0x00000000000000000000000000000000000000Aa';

describe('list planner', () => {
  it('no filter, one filter, or one filter with chainId: a range of its own', () => {
    expect(planList(filterTerms({}))).toEqual({ exact: collectionKeys.list() });
    expect(planList(filterTerms({ symbol: 'ABC' }))).toEqual({ exact: collectionKeys.list({ field: 'symbol', value: 'ABC' }) });
    expect(planList(filterTerms({ chainId: 8453 }))).toEqual({ exact: collectionKeys.list({ field: 'chainId', value: 8453 }) });
    expect(planList(filterTerms({ creator: CREATOR, chainId: 8453 }))).toEqual({
      exact: collectionKeys.listOnChain(8453, { field: 'creator', value: CREATOR }),
    });
    expect(collectionKeys.listOnChain(8453, { field: 'creator', value: CREATOR }).pk).toBe(
      `COLLECTIONS#chainId#8453#creator#${CREATOR.toLowerCase()}`,
    );
  });

  it('another combination reads the candidate with the smallest counter and checks the rest', () => {
    const terms = filterTerms({ chainId: 8453, symbol: 'ABC', creator: CREATOR });
    // canonical order: creator, gameId, gameOwner, referrer, symbol, chainId
    expect(terms.map((term) => term.field)).toEqual(['creator', 'symbol', 'chainId']);
    const plan = planList(terms);
    if (!('candidates' in plan)) throw new Error('expected candidates');
    expect(plan.candidates.map((candidate) => candidate.range)).toEqual([
      collectionKeys.list({ field: 'creator', value: CREATOR }),
      collectionKeys.list({ field: 'symbol', value: 'ABC' }),
      collectionKeys.list({ field: 'chainId', value: 8453 }),
      collectionKeys.listOnChain(8453, { field: 'creator', value: CREATOR }),
      collectionKeys.listOnChain(8453, { field: 'symbol', value: 'ABC' }),
    ]);
    const single = chooseRange(terms, plan.candidates, [50, 3, 9000, 40, 4]);
    expect(single).toEqual({
      range: collectionKeys.list({ field: 'symbol', value: 'ABC' }),
      count: 3,
      checks: [
        { field: 'creator', value: CREATOR },
        { field: 'chainId', value: 8453 },
      ],
    });
    const pair = chooseRange(terms, plan.candidates, [50, 9, 9000, 40, 2]);
    expect(pair.range).toEqual(collectionKeys.listOnChain(8453, { field: 'symbol', value: 'ABC' }));
    expect(pair.checks).toEqual([{ field: 'creator', value: CREATOR }]);
  });

  it('breaks ties by canonical order and reports an empty range', () => {
    const terms = filterTerms({ gameId: 'g', referrer: 'r' });
    const plan = planList(terms);
    if (!('candidates' in plan)) throw new Error('expected candidates');
    expect(chooseRange(terms, plan.candidates, [4, 4]).range).toEqual(collectionKeys.list({ field: 'gameId', value: 'g' }));
    expect(chooseRange(terms, plan.candidates, [4, 0])).toMatchObject({
      count: 0,
      range: collectionKeys.list({ field: 'referrer', value: 'r' }),
    });
  });

  it('refuses counts that do not match the candidates', () => {
    const terms = filterTerms({ symbol: 'A', gameId: 'g' });
    const plan = planList(terms);
    if (!('candidates' in plan)) throw new Error('expected candidates');
    expect(() => chooseRange(terms, plan.candidates, [1])).toThrow(/expected 2 counts/);
  });

  it('checks filters on collections: addresses in any case, other values exactly, missing values never match', () => {
    const entry: FilterFields = { creator: CREATOR, gameOwner: OWNER, symbol: 'ABC', chainId: 1, referrer: 'ref' };
    expect(entryMatches(entry, [{ field: 'creator', value: CREATOR.toUpperCase().replace('0X', '0x') }])).toBe(true);
    expect(
      entryMatches(entry, [
        { field: 'gameOwner', value: OWNER.toLowerCase() },
        { field: 'chainId', value: 1 },
      ]),
    ).toBe(true);
    expect(entryMatches(entry, [{ field: 'symbol', value: 'abc' }])).toBe(false);
    expect(entryMatches(entry, [{ field: 'chainId', value: 8453 }])).toBe(false);
    expect(entryMatches(entry, [{ field: 'gameId', value: 'g' }])).toBe(false);
    expect(
      entryMatches(entry, [
        { field: 'referrer', value: 'ref' },
        { field: 'symbol', value: 'ABC' },
      ]),
    ).toBe(true);
  });

  it('a collection belongs to the unfiltered range, one range per filter value it has and one per value on its chain', () => {
    const ranges = collectionRanges({ creator: CREATOR, gameOwner: OWNER, symbol: 'S', chainId: 5, gameId: 'g1' });
    expect(ranges.map((range) => range.pk)).toEqual([
      'COLLECTIONS#ALL',
      `COLLECTIONS#creator#${CREATOR.toLowerCase()}`,
      'COLLECTIONS#gameId#g1',
      `COLLECTIONS#gameOwner#${OWNER.toLowerCase()}`,
      'COLLECTIONS#symbol#S',
      'COLLECTIONS#chainId#5',
      `COLLECTIONS#chainId#5#creator#${CREATOR.toLowerCase()}`,
      'COLLECTIONS#chainId#5#gameId#g1',
      `COLLECTIONS#chainId#5#gameOwner#${OWNER.toLowerCase()}`,
      'COLLECTIONS#chainId#5#symbol#S',
    ]);
  });
});
