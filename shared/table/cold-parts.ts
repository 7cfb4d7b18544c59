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
 *  - A pointer (ColdPartRecord: keys.ts coldKeys.part, pk `COLD#<chain>#<the range pk's digest>`, sk the
 *    part's first sort key) says where the part's bytes are and the sort key of its last entry (a bucket's
 *    last entry, not the bucket's key), all in one MessagePack attribute (`coldPointerItem`, `coldPointerOf`).
 */
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { entriesOf, isBucket, isBucketedRange, storedEntriesOf } from './buckets';
import { decodeJoins, encodeJoins, type Joins, rangeOwner } from './joins';
import { blockKey, COLD_POINTER_PREFIX, coldKeys, type TableItem } from './keys';
import { fromMessagePack, messagePackOf, PACKED_ATTRIBUTE, toMessagePack, unpackItem } from './pack';

/**
 * A transaction's partition (`C#<c>#TX#<hash>`: its canonical record, logs and token transfers, all of
 * one block, so compacted by one run): the pointer of its first part is keyed FIRST_PART_SK, below every
 * sort key the partition holds, not by its first entry's. A reader that knows only the hash can then ask
 * for that pointer by key, beside the item itself (firstPartPointerKey): a lookup by
 * hash of a transaction the table no longer holds waits on two round trips (the BatchGetItem, then the
 * part), not three (the item, the pointer's Query, the part). The pointer still covers its part's
 * entries: readers take its key as a bound below them, never as an entry's. A partition too large for one
 * part (more than COLD_PART_ENTRIES items, or the byte bound) keys its later parts as any range's; the
 * record itself (`TX`, its last sort key) is then in the last, found by the pointers' Query (three round
 * trips, as before).
 */
export const FIRST_PART_SK = '#';
const TRANSACTION_PARTITION = /^C#\d+#TX#0x[0-9a-f]{64}$/;

/** Whether `pk` is a transaction's partition (its first part's pointer keyed FIRST_PART_SK). */
export const isTransactionPartition = (pk: string): boolean => TRANSACTION_PARTITION.test(pk);

/**
 * The key of the pointer a lookup of an item of range `rangePk` can ask for by key: that of a transaction
 * partition's first part (FIRST_PART_SK); undefined for any other range, whose pointers only a Query finds.
 */
export function firstPartPointerKey(rangePk: string): { pk: string; sk: string } | undefined {
  return isTransactionPartition(rangePk) ? coldKeys.part(rangePk, FIRST_PART_SK) : undefined;
}

/** The pointer key of a part of range `rangePk` whose first entry is `firstSk` (`first`: the range's first part of the run). */
export function partPointerKey(rangePk: string, firstSk: string, first: boolean): { pk: string; sk: string } {
  return (first ? firstPartPointerKey(rangePk) : undefined) ?? coldKeys.part(rangePk, firstSk);
}

/** Brotli quality 5: 2.90 KB a Base-profile transaction at 0.23 ms (measured, docs/decisions/ingest.md). */
const BROTLI_QUALITY = 5;

/** A pointer as readers use it (its item: `coldPointerItem`). */
export interface ColdPointer {
  /** The part's first sort key (the pointer's own), or a bound below it (FIRST_PART_SK: a transaction's partition). */
  sk: string;
  /** The part's last entry's sort key. */
  lastSk: string;
  /** The cold store's object holding the part (`shardObjectKey`), and where in it. */
  object: string;
  offset: number;
  length: number;
  /** The part's entries. */
  count: number;
  /** The blocks whose history the part's compaction read. */
  fromBlock: number;
  toBlock: number;
  /**
   * What the part's entries join (joins.ts), on the pointers of a range that carries them (rangeCarriesJoins)
   * when they are few enough (COLD_PART_JOINS); undefined otherwise, and on pointers written before.
   */
  joins?: Joins;
}

/** One shard of a compaction: the span's range group and the digest of its bytes (16 bytes). */
export interface ColdShard {
  chainId: number;
  fromBlock: number;
  toBlock: number;
  group: { index: number; count: number };
  digest: Uint8Array;
}

/** A shard's object key: `cold/<chain>/<from>-<to>[/g<i>of<n>]/<digest, hex>` (the span and group it holds). */
export function shardObjectKey(shard: ColdShard): string {
  const group = shard.group.count === 1 ? '' : `/g${shard.group.index}of${shard.group.count}`;
  return `cold/${shard.chainId}/${blockKey(shard.fromBlock)}-${blockKey(shard.toBlock)}${group}/${Buffer.from(shard.digest).toString('hex')}`;
}

/** The attribute holding a pointer's fields. */
const POINTER_FIELDS = 'p';

/**
 * The pointer item of a part of `key` (coldKeys.part) in `shard`: its fields in one MessagePack list
 * (the shard's digest as bytes, its group, the part's offset, length, count, last sort key, the span, and
 * the part's joins where it carries them, joins.ts encodeJoins, about 22 B an address): 255 B stored on
 * average on the Base profile's build with DynamoDB's 100 B of overhead (210 without the joins; bench of
 * 2026-12-02), against 385 for the same fields as attributes of their own under the range's own pk
 * (test/shared/table/cold-parts.test.ts).
 * The object's key is rebuilt from them and the chain its pk names.
 */
export function coldPointerItem(
  key: { pk: string; sk: string },
  shard: ColdShard,
  part: { offset: number; length: number; count: number; lastSk: string; joins?: Joins },
  rangePk?: string,
): TableItem {
  return {
    pk: key.pk,
    sk: key.sk,
    [POINTER_FIELDS]: toMessagePack([
      shard.digest,
      shard.group.index,
      shard.group.count,
      part.offset,
      part.length,
      part.count,
      part.lastSk,
      shard.fromBlock,
      shard.toBlock,
      ...(part.joins === undefined ? [] : [encodeJoins(part.joins, rangePk === undefined ? undefined : rangeOwner(rangePk))]),
    ]),
  };
}

/** A pointer item's fields (`coldPointerItem`); its joins only given the pk of its range (which its own pk digests). */
export function coldPointerOf(item: Record<string, unknown>, rangePk?: string): ColdPointer {
  const fields = item[POINTER_FIELDS];
  const chainId = /^COLD#(\d+)#/.exec(String(item.pk))?.[1];
  let list: unknown;
  try {
    list = fields instanceof Uint8Array ? fromMessagePack(fields) : undefined;
  } catch {
    list = undefined;
  }
  if (chainId === undefined || !Array.isArray(list) || (list.length !== 9 && list.length !== 10) || !(list[0] instanceof Uint8Array)) {
    throw new Error(`cold pointer ${String(item.pk)} ${String(item.sk)}: not a pointer`);
  }
  const owner = rangePk === undefined ? undefined : rangeOwner(rangePk);
  const joins = list[9] instanceof Uint8Array && rangePk !== undefined ? decodeJoins(list[9], owner) : undefined;
  const [digest, index, count, offset, length, entries, lastSk, fromBlock, toBlock] = list as [
    Uint8Array,
    number,
    number,
    number,
    number,
    number,
    string,
    number,
    number,
  ];
  return {
    sk: String(item.sk),
    lastSk,
    object: shardObjectKey({ chainId: Number(chainId), fromBlock, toBlock, group: { index, count }, digest }),
    offset,
    length,
    count: entries,
    fromBlock,
    toBlock,
    ...(joins === undefined ? {} : { joins }),
  };
}

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

/**
 * A pointer as written before its fields were packed (kind `cold-part`, pk `COLD#<range pk>`, each field an
 * attribute of its own): the item that replaces it under its range's pointer pk (keys.ts coldKeys.part), or
 * undefined when it is not such a pointer or its object is not named as the compactor names shards.
 */
export function pointerOfLegacy(legacy: Record<string, unknown>): TableItem | undefined {
  const { pk, sk, kind, object, offset, length, count, lastSk, fromBlock, toBlock } = legacy;
  if (kind !== 'cold-part' || typeof pk !== 'string' || !pk.startsWith(`${COLD_POINTER_PREFIX}C#`) || typeof sk !== 'string')
    return undefined;
  const named = typeof object === 'string' ? /^cold\/(\d+)\/\d{12}-\d{12}(?:\/g(\d+)of(\d+))?\/([0-9a-f]{32})$/.exec(object) : null;
  const numbers = [offset, length, count, fromBlock, toBlock];
  if (named === null || typeof lastSk !== 'string' || !numbers.every((value) => typeof value === 'number')) return undefined;
  const shard: ColdShard = {
    chainId: Number(named[1]),
    fromBlock: fromBlock as number,
    toBlock: toBlock as number,
    group: named[2] === undefined ? { index: 0, count: 1 } : { index: Number(named[2]), count: Number(named[3]) },
    digest: Buffer.from(named[4]!, 'hex'),
  };
  if (shardObjectKey(shard) !== object) return undefined;
  const rangePk = pk.slice(COLD_POINTER_PREFIX.length);
  return coldPointerItem(coldKeys.part(rangePk, sk), shard, {
    offset: offset as number,
    length: length as number,
    count: count as number,
    lastSk,
  });
}
