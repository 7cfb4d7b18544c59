/**
 * Limits of the explorer group that code outside a request (the benchmark) reads too: constants only,
 * so that importing them loads no client (config.ts loads the chain status reader and its table client).
 */

/**
 * `sort=value|fee` on an address's transactions (EXPLORER_SORTED_HISTORY_BOUND, 1 to 5000; config.ts) reads its whole X4 range of the direction and sorts it:
 * served for at most this many transactions (about 0.85 MB of copies: one or two 1 MB Queries, about
 * 110 read units a page at most); past it, a 422 on `sort` (docs/decisions/explorer.md).
 */
export const DEFAULT_SORTED_HISTORY_BOUND = 1000;
