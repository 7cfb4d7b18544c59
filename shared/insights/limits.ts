/**
 * The documented limits of the insights group. The first five are the spec's; the others bound the
 * DynamoDB work of one request (see docs/decisions/insights.md for why each value).
 */

/** `chain_id` values per request (spec). */
export const MAX_CHAINS = 55;
/** `limit`: rows per chain (spec). */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
/** `page` is 0-indexed; at most 20, or 500 with aggregate / group_by (spec). */
export const MAX_PAGE = 20;
export const MAX_AGGREGATION_PAGE = 500;

/**
 * Items one chain may read for an aggregation, or examine for a bounded check (a filter that has no
 * range of its own, checked on the items of the already-narrowed range). Beyond it the request is a
 * 400 asking for a narrower block range: it never runs long or times out.
 */
export const MAX_ITEMS_READ_PER_CHAIN = 10_000;

/**
 * `total_items` is a Select COUNT on the list's own key range (and its checks): it transfers no items
 * but still reads them, so it stops after this many items per chain and then reports this number
 * (a lower bound; every page a client can request lies within it).
 */
export const MAX_COUNTED_ITEMS_PER_CHAIN = 10_000;

/** Resolve (I4): latest transactions / events returned per chain. */
export const RESOLVE_LIST_LIMIT = 20;

/** aggregate / group_by: expressions per request and characters per expression. */
export const MAX_EXPRESSIONS = 10;
export const MAX_EXPRESSION_LENGTH = 200;

/** The chain registry (which chains this table indexes) is cached in memory this long. */
export const CHAIN_REGISTRY_TTL_MS = 60_000;
/** A requested chain missing from the cached registry re-reads it, at most this often. */
export const CHAIN_REGISTRY_MISS_REFRESH_MS = 5_000;
