/**
 * The cold history's part format (docs/decisions/cold-history.md; N17 in docs/access-patterns.md): what
 * the compactor (shared/ingest/cold-history.ts) writes and the table layer's cold reader
 * (shared/db/cold-query.ts) reads, in one place.
 *
 *  - Which ranges go cold (`isHistoryRange`): the immutable history a block writes (its records, their
 *    index copies and seek chunks). State, bookkeeping and the blocks' own items (N1, N2 by hash) never do.
 *  - A part: a range's items in sort-key order, each opened (packed fields and a bucket's entries as
 *    plain MessagePack, as the table layer reads them before unpacking), as one MessagePack list,
 *    Brotli-compressed (quality 5).
 *  - A pointer (ColdPartRecord, pk `COLD#<range pk>`, sk the part's first sort key) says where the part's
 *    bytes are and the sort keys of its first and last entries (a bucket's last entry, not the bucket's key).
 */
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { entriesOf, isBucket, isBucketedRange, storedEntriesOf } from './buckets';
import type { TableItem } from './keys';
import { fromMessagePack, messagePackOf, PACKED_ATTRIBUTE, toMessagePack, unpackItem } from './pack';

/** Brotli quality 5: 2.90 KB a Base-profile transaction at 0.23 ms (measured, docs/decisions/ingest.md). */
const BROTLI_QUALITY = 5;

/** The prefix of a pointer's pk: `COLD#` never starts a range's own pk. */
export const COLD_POINTER_PREFIX = 'COLD#';

/**
 * History ranges not written in buckets: N3 by sender (`…#CALLS#<contract>#<selector>#FROM#<address>`),
 * N16 (`…#TT#<token>#ID#<id>`) and an address's withdrawals (`…#A#<address>#WD`).
 */
const UNBUCKETED_HISTORY = /^C#\d+#(?:CALLS#0x[0-9a-f]{40}#[^#]+#FROM#0x[0-9a-f]{40}|TT#0x[0-9a-f]{40}#ID#\d+|A#0x[0-9a-f]{40}#WD)$/;

/**
 * Whether range `pk` holds immutable block history, whose older entries may be in cold parts. The
 * seek chunks (N15, `SEEK#<range pk>`) stay in the table although a block writes them: insights turns a
 * page number into its first sort key with one GetItem of a chunk, and a chunk in a cold part would cost
 * that page two more round trips (its pointer, its part) before the range's own (0.24 KB a Base-profile
 * transaction kept a year: about $2.6 a day on W1 in Standard-IA, $6.7 in Standard with reserved capacity).
 */
export const isHistoryRange = (pk: string): boolean => isBucketedRange(pk) || UNBUCKETED_HISTORY.test(pk);

/** `item` opened: packed fields (if still packed) and a bucket's entries as plain MessagePack (the table's stored form otherwise). */
export function openedItem(item: TableItem): TableItem {
  const opened: TableItem = { ...item };
  const packed = opened[PACKED_ATTRIBUTE];
  if (packed instanceof Uint8Array) opened[PACKED_ATTRIBUTE] = messagePackOf(packed);
  if (isBucket(opened) && opened.e instanceof Uint8Array) opened.e = messagePackOf(opened.e);
  return opened;
}

/** One part's bytes: the items' MessagePack encodings (each `toMessagePack(openedItem(item))`) as one list, compressed. */
export function encodePart(encodedItems: readonly Uint8Array[]): { bytes: Uint8Array; openedBytes: number } {
  // A MessagePack list of the items: the list's header, then each item's bytes as encoded alone.
  const list = toMessagePack(encodedItems.map(() => 0));
  const header = list.subarray(0, list.length - encodedItems.length);
  const opened = Buffer.concat([header, ...encodedItems]);
  const bytes = brotliCompressSync(opened, {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: opened.length },
  });
  return { bytes, openedBytes: opened.length };
}

/** The items one part's bytes hold, in sort-key order, opened (as stored in the part). */
export function partItems(bytes: Uint8Array): TableItem[] {
  const items = fromMessagePack(brotliDecompressSync(bytes));
  if (!Array.isArray(items)) throw new Error('cold part: not a list of items');
  return items as TableItem[];
}

/** The entries one part's bytes hold, in sort-key order, as the table layer reads a range's: packed fields spread, buckets expanded. */
export function partEntries(bytes: Uint8Array): TableItem[] {
  return partStoredEntries(bytes).map((entry) => unpackItem(entry));
}

/**
 * The entries one part's bytes hold, in sort-key order, buckets expanded but each entry's packed fields
 * still packed (unpackItem spreads them): a reader unpacks only the entries its page keeps.
 */
export function partStoredEntries(bytes: Uint8Array): TableItem[] {
  return partItems(bytes).flatMap((item) => storedEntriesOf(item));
}

/** The sort key of the last entry of `item` (a bucket's last entry; any other item's own). */
export function lastEntrySk(item: TableItem): string {
  if (!isBucket(item)) return item.sk;
  return String(entriesOf(unpackItem(item)).at(-1)?.sk ?? item.sk);
}
