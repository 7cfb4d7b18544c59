/**
 * The list planner (pure): which key range serves a set of filters and which filters are left to
 * check on the collections read from it (access patterns C1 and C3, see docs/access-patterns.md).
 *
 * Ranges (each numbered, holding full copies, shared/table/keys.ts collectionKeys): the unfiltered
 * one, one per filter value, and one per (filter value, chainId) pair. So no filter, one filter, or
 * one filter with `chainId` is served by a range of its own; any other combination reads the
 * smallest range that covers part of it and checks the rest.
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

/** What the filters are checked on: a collection's filter fields (addresses in any case). */
export type FilterFields = Required<Pick<CollectionFilters, 'creator' | 'gameOwner' | 'symbol' | 'chainId'>> &
  Pick<CollectionFilters, 'referrer' | 'gameId'>;

export function filterTerms(filters: CollectionFilters): FilterTerm[] {
  return FILTER_ORDER.flatMap((field) => (filters[field] === undefined ? [] : [{ field, value: filters[field] as string | number }]));
}

/** A range that can serve a request and the filters it answers by itself. */
export interface Candidate {
  range: KeyRange;
  covers: FilterTerm[];
}

/** The range of a term alone, or of a term on the chain of `chain`. */
function rangeOf(term: FilterTerm, chain?: FilterTerm): KeyRange {
  if (chain === undefined || term.field === 'chainId') return collectionKeys.list(term);
  return collectionKeys.listOnChain(Number(chain.value), { field: term.field, value: String(term.value) });
}

/**
 * How a request is served: `exact`, a range holding exactly the matching collections (no filter,
 * one filter, one filter and chainId), or `candidates` whose counters decide which one to read (the
 * others' filters checked on it): every filter's range and, with chainId, each other filter's range on that chain.
 */
export type ListPlan = { exact: KeyRange } | { candidates: Candidate[] };

export function planList(terms: readonly FilterTerm[]): ListPlan {
  if (terms.length === 0) return { exact: collectionKeys.list() };
  if (terms.length === 1) return { exact: rangeOf(terms[0]!) };
  const chain = terms.find((term) => term.field === 'chainId');
  const others = terms.filter((term) => term.field !== 'chainId');
  if (chain && others.length === 1) return { exact: rangeOf(others[0]!, chain) };
  const candidates: Candidate[] = terms.map((term) => ({ range: rangeOf(term), covers: [term] }));
  if (chain) candidates.push(...others.map((term) => ({ range: rangeOf(term, chain), covers: [term, chain] })));
  return { candidates };
}

export interface RangeChoice {
  range: KeyRange;
  /** Collections in the range (its counter). */
  count: number;
  /** Filters to check on each collection read; empty when the range alone answers the request. */
  checks: FilterTerm[];
}

/**
 * Picks the candidate with the smallest counter (the first among equals: single ranges in canonical
 * order, then the chain pairs). `counts[i]` is the counter of `candidates[i].range`.
 */
export function chooseRange(terms: readonly FilterTerm[], candidates: readonly Candidate[], counts: readonly number[]): RangeChoice {
  if (counts.length !== candidates.length) throw new Error(`expected ${candidates.length} counts, got ${counts.length}`);
  let best: { candidate: Candidate; count: number } | undefined;
  for (const [index, candidate] of candidates.entries()) {
    const count = counts[index]!;
    if (best === undefined || count < best.count) best = { candidate, count };
  }
  if (best === undefined) throw new Error('a plan has at least one candidate');
  const { candidate, count } = best;
  return { range: candidate.range, count, checks: terms.filter((term) => !candidate.covers.includes(term)) };
}

export function entryMatches(entry: FilterFields, checks: readonly FilterTerm[]): boolean {
  return checks.every((term) => {
    const actual = entry[term.field];
    if (actual === undefined) return false;
    return term.field === 'creator' || term.field === 'gameOwner'
      ? String(actual).toLowerCase() === String(term.value).toLowerCase()
      : actual === term.value;
  });
}

/**
 * Every list range a collection belongs to: the unfiltered one first, then one per filter value it
 * has (canonical order), then one per filter value other than chainId on its chain.
 */
export function collectionRanges(collection: FilterFields): KeyRange[] {
  const terms = filterTerms(collection);
  const chain = terms.find((term) => term.field === 'chainId')!;
  return [
    collectionKeys.list(),
    ...terms.map((term) => rangeOf(term)),
    ...terms.filter((term) => term.field !== 'chainId').map((term) => rangeOf(term, chain)),
  ];
}
