import { describe, expect, it } from 'vitest';
import { collectionKeys } from '../../../shared/table/keys';
import { chooseRange, entryMatches, filterTerms, listEntryOf, rangesToCount, type ListEntry } from '../../../shared/collections/plan';

const CREATOR = '0xAbCdEf0000000000000000000000000000000001';
const OWNER = '0x00000000000000000000000000000000000000Aa';

describe('combination planner', () => {
  it('no filter reads the unfiltered range and checks nothing', () => {
    const terms = filterTerms({});
    expect(rangesToCount(terms)).toEqual([collectionKeys.list()]);
    expect(chooseRange(terms, [42])).toEqual({ range: collectionKeys.list(), count: 42, checks: [] });
  });

  it('one filter reads its own range', () => {
    const terms = filterTerms({ symbol: 'ABC' });
    expect(chooseRange(terms, [7])).toEqual({ range: collectionKeys.list({ field: 'symbol', value: 'ABC' }), count: 7, checks: [] });
  });

  it('a combination reads the range with the smallest counter and checks the others', () => {
    const terms = filterTerms({ chainId: 8453, symbol: 'ABC', creator: CREATOR });
    // canonical order: creator, gameId, gameOwner, referrer, symbol, chainId
    expect(terms.map((term) => term.field)).toEqual(['creator', 'symbol', 'chainId']);
    const choice = chooseRange(terms, [50, 3, 9000]);
    expect(choice.range).toEqual(collectionKeys.list({ field: 'symbol', value: 'ABC' }));
    expect(choice.count).toBe(3);
    expect(choice.checks).toEqual([
      { field: 'creator', value: CREATOR },
      { field: 'chainId', value: 8453 },
    ]);
  });

  it('breaks ties by canonical order and reports an empty range', () => {
    const terms = filterTerms({ chainId: 1, gameId: 'g', referrer: 'r' });
    expect(chooseRange(terms, [4, 4, 4]).range).toEqual(collectionKeys.list({ field: 'gameId', value: 'g' }));
    expect(chooseRange(terms, [4, 0, 4])).toMatchObject({ count: 0, range: collectionKeys.list({ field: 'referrer', value: 'r' }) });
  });

  it('refuses counts that do not match the ranges', () => {
    expect(() => chooseRange(filterTerms({ symbol: 'A', chainId: 1 }), [1])).toThrow(/expected 2 counts/);
  });

  it('checks filters on entries: addresses in any case, other values exactly, missing values never match', () => {
    const entry: ListEntry = {
      address: '0x01',
      creator: CREATOR.toLowerCase(),
      gameOwner: OWNER.toLowerCase(),
      symbol: 'ABC',
      chainId: 1,
      referrer: 'ref',
    };
    expect(entryMatches(entry, [{ field: 'creator', value: CREATOR.toUpperCase().replace('0X', '0x') }])).toBe(true);
    expect(
      entryMatches(entry, [
        { field: 'gameOwner', value: OWNER },
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

  it('a collection belongs to the unfiltered range and one range per filter value it has', () => {
    const { entry, ranges } = listEntryOf({
      predictedAddress: '0xAB',
      creator: CREATOR,
      gameOwner: OWNER,
      symbol: 'S',
      chainId: 5,
      gameId: 'g1',
    });
    expect(entry).toEqual({
      address: '0xab',
      creator: CREATOR.toLowerCase(),
      gameOwner: OWNER.toLowerCase(),
      symbol: 'S',
      chainId: 5,
      gameId: 'g1',
    });
    expect(ranges.map((range) => range.pk)).toEqual([
      'COLLECTIONS#ALL',
      `COLLECTIONS#creator#${CREATOR.toLowerCase()}`,
      'COLLECTIONS#gameId#g1',
      `COLLECTIONS#gameOwner#${OWNER.toLowerCase()}`,
      'COLLECTIONS#symbol#S',
      'COLLECTIONS#chainId#5',
    ]);
  });
});
