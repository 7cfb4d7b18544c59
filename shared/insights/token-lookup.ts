/**
 * I6s (see docs/access-patterns.md): GET /insights/v1/tokens/lookup, Insight's "look up a fungible token
 * by symbol", answered from the indexed tokens (docs/decisions/insights.md, "Token lookup"):
 *  1. the symbols' names (N11, case-insensitive) on every requested chain: the items across chains, and
 *     the per-chain items of chains registered before those existed, in one BatchGetItem (names.ts);
 *  2. the tokens' address items (X7: standard, name, symbol, decimals, `holders`), one BatchGetItem;
 *  then ERC-20 tokens whose item still carries the symbol, most holders first.
 * Two round trips in sequence (after the chain registry, cached). No token list, no Scan: a symbol
 * that no indexed ERC-20 carries gives an empty list. Per symbol at most LOOKUP_MAX_TOKENS_READ address
 * items are read (taken in turn from each chain, in request order, each chain's by address); the `limit`
 * most held of those are answered.
 */
import * as v from 'valibot';
import { batchGetItems } from '../db/operations';
import { addressKeys, keyId, type ItemKey } from '../table/keys';
import type { AddressRecord } from '../table/records';
import { selectChains } from './chains';
import { namedAddresses } from './names';
import { chainEntries, integerQuery, transferQuery } from './schemas';
import { counterOf } from './state-lists';

/** `symbol` values per request (Insight's: "up to a maximum of 10"). */
export const MAX_LOOKUP_SYMBOLS = 10;
/** Address items (X7) read per symbol, over all requested chains: the bound of a symbol many tokens share. */
export const LOOKUP_MAX_TOKENS_READ = 100;
/** `limit`: tokens answered per symbol (the most held of those read). */
export const LOOKUP_DEFAULT_LIMIT = 20;

/** A symbol as the ingest registers names: 1 to 64 characters, no whitespace, control characters or slashes. */
const SYMBOL = /^[^\s\p{Cc}/]{1,64}$/u;

export const tokenLookupQuery = transferQuery({
  ...chainEntries,
  symbol: v.pipe(
    v.array(v.string(), 'is required (symbol=<symbol>, repeated for several)'),
    // Repeated or comma-separated, as every repeatable insights parameter (a symbol cannot hold a comma).
    v.transform((values) => values.flatMap((value) => value.split(',')).map((value) => value.trim())),
    v.minLength(1, 'is required (symbol=<symbol>, repeated for several)'),
    v.maxLength(MAX_LOOKUP_SYMBOLS, `at most ${MAX_LOOKUP_SYMBOLS} symbols per request`),
    v.check(
      (values) => values.every((value) => SYMBOL.test(value)),
      'each symbol must be 1 to 64 characters without whitespace or slashes',
    ),
  ),
  limit: v.optional(integerQuery(1, LOOKUP_MAX_TOKENS_READ), String(LOOKUP_DEFAULT_LIMIT)),
});
export type TokenLookupQuery = v.InferOutput<typeof tokenLookupQuery>;

/** Insight's token lookup row; `holders` (holders with a positive balance the ingest has seen) is this service's addition. */
export const tokenLookupRow = v.strictObject({
  chain_id: v.number(),
  token_address: v.pipe(v.string(), v.regex(/^0x[0-9a-f]{40}$/)),
  name: v.optional(v.string()),
  symbol: v.optional(v.string()),
  decimals: v.optional(v.number()),
  holders: v.number(),
});
export type TokenLookupRow = v.InferOutput<typeof tokenLookupRow>;
export const tokenLookupResponse = v.strictObject({ data: v.array(tokenLookupRow) });
export type TokenLookupResponse = v.InferOutput<typeof tokenLookupResponse>;

/** One candidate token of a symbol: where it is and the request order it sorts by on a tie. */
interface Candidate {
  symbolIndex: number;
  chainIndex: number;
  chainId: number;
  address: string;
  key: ItemKey;
}

/** The tokens carrying the symbols, per symbol the `limit` most held, all of them most held first. */
export async function lookupTokens({ query, host }: { query: TokenLookupQuery; host: string | undefined }): Promise<TokenLookupResponse> {
  const chainIds = await selectChains(query, host);
  const symbols = [...new Set(query.symbol.map((symbol) => symbol.toLowerCase()))];
  const addressesOf = await namedAddresses(symbols, chainIds, { oneRoundTrip: true });
  const candidates = symbols.flatMap((symbol, symbolIndex) => readCandidates(symbol, symbolIndex, chainIds, addressesOf));
  const items =
    candidates.length > 0
      ? await batchGetItems<AddressRecord>(
          candidates.map((candidate) => candidate.key),
          // Every chunk of 100 keys at once: one round trip.
          { concurrency: Math.ceil(candidates.length / 100) },
        )
      : new Map<string, AddressRecord>();
  const rows = candidates.flatMap((candidate) => {
    const item = items.get(keyId(candidate.key));
    // ERC-20 only (Insight: fungible tokens), and only while the item still carries the symbol (a name
    // item the ingest is about to move).
    if (item?.tokenType !== 'ERC-20' || item.tokenSymbol?.trim().toLowerCase() !== symbols[candidate.symbolIndex]) return [];
    return [{ candidate, row: lookupRow(candidate, item) }];
  });
  const order = (a: (typeof rows)[number], b: (typeof rows)[number]) =>
    b.row.holders - a.row.holders ||
    a.candidate.symbolIndex - b.candidate.symbolIndex ||
    a.candidate.chainIndex - b.candidate.chainIndex ||
    (a.candidate.address < b.candidate.address ? -1 : a.candidate.address > b.candidate.address ? 1 : 0);
  const kept = symbols.flatMap((_, symbolIndex) =>
    rows
      .filter((entry) => entry.candidate.symbolIndex === symbolIndex)
      .sort(order)
      .slice(0, query.limit),
  );
  return { data: kept.sort(order).map((entry) => entry.row) };
}

/**
 * The address items of a symbol to read: at most LOOKUP_MAX_TOKENS_READ, taken one per chain in turn
 * (request order; each chain's addresses ascending), so that a chain with many tokens of one symbol
 * does not crowd out the others.
 */
function readCandidates(
  symbol: string,
  symbolIndex: number,
  chainIds: readonly number[],
  addressesOf: (name: string, chainId: number) => string[],
): Candidate[] {
  const perChain = chainIds.map((chainId) => [...new Set(addressesOf(symbol, chainId).map((address) => address.toLowerCase()))].sort());
  const chosen: Candidate[] = [];
  for (let position = 0; chosen.length < LOOKUP_MAX_TOKENS_READ; position += 1) {
    if (perChain.every((addresses) => position >= addresses.length)) break;
    for (const [chainIndex, addresses] of perChain.entries()) {
      const address = addresses[position];
      if (address === undefined || chosen.length >= LOOKUP_MAX_TOKENS_READ) continue;
      const chainId = chainIds[chainIndex]!;
      chosen.push({ symbolIndex, chainIndex, chainId, address, key: addressKeys.address(chainId, address) });
    }
  }
  return chosen;
}

function lookupRow(candidate: Candidate, item: AddressRecord): TokenLookupRow {
  return {
    chain_id: candidate.chainId,
    token_address: candidate.address,
    ...(item.tokenName !== null && item.tokenName !== undefined ? { name: item.tokenName } : {}),
    ...(item.tokenSymbol !== null && item.tokenSymbol !== undefined ? { symbol: item.tokenSymbol } : {}),
    ...(typeof item.tokenDecimals === 'number' ? { decimals: item.tokenDecimals } : {}),
    holders: counterOf(item.holders),
  };
}
