/**
 * The list planner (pure): which key range serves a set of filters and which filters are left to
 * check on the entries read from it (access patterns C1 and C3, see docs/access-patterns.md).
 */
import { collectionKeys, type CollectionFilter, type KeyRange } from '../table/keys';

export interface CollectionFilters {
  creator?: string;
  gameOwner?: string;
  symbol?: string;
  referrer?: string;
  chainId?: number;
  gameId?: string;
}

export interface FilterTerm {
  field: CollectionFilter;
  value: string | number;
}

/**
 * Filters in canonical order. The order is also the tie-break between ranges of equal size: fields
 * that are narrow by nature (one creator, one game) come before the broad ones (symbol, chain).
 */
export const FILTER_ORDER: readonly CollectionFilter[] = ['creator', 'gameId', 'gameOwner', 'referrer', 'symbol', 'chainId'];

/** What a list entry carries to let the filters be checked on it (addresses lowercase). */
export interface ListEntry {
  address: string;
  creator: string;
  gameOwner: string;
  symbol: string;
  chainId: number;
  referrer?: string;
  gameId?: string;
}

export function filterTerms(filters: CollectionFilters): FilterTerm[] {
  return FILTER_ORDER.flatMap((field) => (filters[field] === undefined ? [] : [{ field, value: filters[field] as string | number }]));
}

/** The ranges whose counters a request reads: the unfiltered range, or one per filter. */
export function rangesToCount(terms: readonly FilterTerm[]): KeyRange[] {
  return terms.length === 0 ? [collectionKeys.list()] : terms.map((term) => collectionKeys.list(term));
}

export interface RangeChoice {
  range: KeyRange;
  /** Entries in the range (its counter). */
  count: number;
  /** Filters to check on each entry read; empty when the range alone answers the request. */
  checks: FilterTerm[];
}

/**
 * Picks the smallest range (the first in canonical order among equals). `counts[i]` is the counter of
 * `rangesToCount(terms)[i]`.
 */
export function chooseRange(terms: readonly FilterTerm[], counts: readonly number[]): RangeChoice {
  const ranges = rangesToCount(terms);
  if (counts.length !== ranges.length) throw new Error(`expected ${ranges.length} counts, got ${counts.length}`);
  let best: { index: number; range: KeyRange; count: number } | undefined;
  for (const [index, range] of ranges.entries()) {
    // Same length, checked above.
    const count = counts[index]!;
    if (best === undefined || count < best.count) best = { index, range, count };
  }
  if (best === undefined) throw new Error('rangesToCount always returns at least one range');
  const { index: chosen, range, count } = best;
  return { range, count, checks: terms.filter((_, index) => index !== chosen) };
}

export function entryMatches(entry: ListEntry, checks: readonly FilterTerm[]): boolean {
  return checks.every((term) => {
    const actual = entry[term.field];
    if (actual === undefined) return false;
    return term.field === 'creator' || term.field === 'gameOwner'
      ? String(actual).toLowerCase() === String(term.value).toLowerCase()
      : actual === term.value;
  });
}

/** The list entry of a collection and every range it belongs to (the unfiltered one first). */
export function listEntryOf(collection: {
  predictedAddress: string;
  creator: string;
  gameOwner: string;
  symbol: string;
  chainId: number;
  referrer?: string;
  gameId?: string;
}): { entry: ListEntry; ranges: KeyRange[] } {
  const entry: ListEntry = {
    address: collection.predictedAddress.toLowerCase(),
    creator: collection.creator.toLowerCase(),
    gameOwner: collection.gameOwner.toLowerCase(),
    symbol: collection.symbol,
    chainId: collection.chainId,
    ...(collection.referrer === undefined ? {} : { referrer: collection.referrer }),
    ...(collection.gameId === undefined ? {} : { gameId: collection.gameId }),
  };
  const ranges = [collectionKeys.list(), ...filterTerms(entry).map((term) => collectionKeys.list(term))];
  return { entry, ranges };
}
