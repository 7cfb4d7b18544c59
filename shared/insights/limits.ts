/**
 * The documented limits of the insights group. The first five are the spec's; the others bound the
 * DynamoDB work of one request (see docs/decisions/insights.md for why each value).
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */

/** `chain_id` values per request (spec). */
export const MAX_CHAINS = 55;
/** `limit`: rows per chain (spec). */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
/**
 * `page` is 0-indexed. The spec's cap (20, or 500 with aggregate or group_by) is lifted: any page of a
 * range costs what its first page does (range-seek.ts). The bound only keeps `page * limit` an exact
 * integer.
 */
export const MAX_PAGE = 1_000_000_000;

// The bounds of one request's reads (items read for an aggregation or a bounded check, items counted
// for total_items) are settings: see config.ts.

/** INSIGHTS_MAX_ITEMS_READ_PER_CHAIN's default (config.ts). */
export const DEFAULT_MAX_ITEMS_READ_PER_CHAIN = 10_000;

/** Resolve (I4): latest transactions / events returned per chain. */
export const RESOLVE_LIST_LIMIT = 20;

/** aggregate / group_by: expressions per request and characters per expression. */
export const MAX_EXPRESSIONS = 10;
export const MAX_EXPRESSION_LENGTH = 200;

/** The chain registry (which chains this table indexes) is cached in memory this long. */
export const CHAIN_REGISTRY_TTL_MS = 60_000;
/** A requested chain missing from the cached registry re-reads it, at most this often. */
export const CHAIN_REGISTRY_MISS_REFRESH_MS = 5_000;

/** Insight's receivers answer within 3 s: a webhook delivery's and a test ping's timeout. */
export const WEBHOOK_TIMEOUT_MS = 3_000;
