/**
 * Union ranges (issue 27): the explorer's and insights' `all` ranges of an address (X3 token transfers
 * `...#TT#all#<set>` and `...#TT#all#TOKEN#<t>`, X4 transactions `...#TX#all`, X5 internal transactions
 * `...#ITX#all`) hold no items of their own. Each is the union of the address's `to` and `from` ranges of the same shape, which the ingest
 * writes anyway: a transfer or transaction touching an address is an entry of its `to` or `from` range
 * (a self-transfer or self-send of both, with the same sort key).
 *
 * X5's entries are not counted (E5 pages by keyset only), so its union is merged, never numbered. For
 * the counted ones, what the `all` copies gave is kept on the member entries instead, so that a union is counted and
 * entered at any position as a stored range is (range-positions.ts, insights range-seek.ts):
 *  - `upos`: the entry's 1-based position in the union, in sort-key order (both entries of a
 *    self-transfer carry the same one: the union counts it once);
 *  - `u<total>` (`utv`, `utg`, `uta`): the union's running totals up to the entry (records.ts
 *    SUMMED_FIELDS, stored as the entry's own totals are: `u` before `runningTotalAttribute`);
 *  - the union's seek chunks (N15) under the union's pk, as any counted range's.
 *
 * The table layer (shared/db/operations.ts) serves a Query of a union pk as the merge of its members'
 * Queries by sort key, an entry shared by both once, with `upos` and the union totals read as `pos` and
 * the totals: readers of an `all` range are unchanged. Writing one costs nothing but those attributes,
 * where an `all` copy was a whole item per entry (one write unit and about 0.4 KB stored).
 */
import { legacyRunningTotalAttribute, runningTotalAttribute } from './records';

/** A member range (`to` or `from`) of an address's transactions or token transfers, and its union. */
const MEMBER = /^(C#\d+#A#0x[0-9a-f]{40}#(?:TX|TT|ITX))#(?:to|from)((?:#.*)?)$/;
const UNION = /^(C#\d+#A#0x[0-9a-f]{40}#(?:TX|TT|ITX))#all((?:#.*)?)$/;

/** The union range an entry of range `pk` belongs to as well, or undefined (not a member range). */
export function unionOf(pk: string): string | undefined {
  const match = MEMBER.exec(pk);
  return match ? `${match[1]}#all${match[2]}` : undefined;
}

/** The member ranges (`to`, `from`) of a union range, or undefined when `pk` is a range with items of its own. */
export function membersOf(pk: string): readonly [to: string, from: string] | undefined {
  const match = UNION.exec(pk);
  return match ? [`${match[1]}#to${match[2]}`, `${match[1]}#from${match[2]}`] : undefined;
}

/** The attribute holding a member entry's position in its union. */
export const UNION_POSITION_ATTRIBUTE = 'upos';

/** The attribute holding a member entry's running total of `field` over its union. */
export const unionTotalAttribute = (field: string): string => `u${runningTotalAttribute(field)}`;

/** The attribute that held it (a decimal string) before totals were packed. */
export const legacyUnionTotalAttribute = (field: string): string => `u${legacyRunningTotalAttribute(field)}`;
