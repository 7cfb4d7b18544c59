/**
 * Block buckets (issues 34 and 35): the entries one block writes to one range of a bucketed family,
 * stored up to MAX_BUCKET_ENTRIES to an item instead of one item each.
 *
 * On Base a few addresses take most of a block's entries of some ranges (a router's or a pool's
 * internal transactions: 10.8 X5 entries a transaction, but 1.3 distinct address ranges a transaction
 * in a block). An item costs at least one write unit and 100 bytes of storage overhead, and each is
 * marshalled, signed and sent by the ingest: a bucket of 8 entries costs about what one entry did.
 *
 * A bucket's key is its range's pk and the sort key of its FIRST entry; its entries (in sort-key
 * order, all of one block, so a bucket never spans blocks: of one sort-key group, bucketGroupsOf) are one MessagePack array in `e`, each
 * the entry's attributes but its pk and kind (the bucket's `pk`, and `of`). A bucket holds
 * consecutive entries of its range (an interval: buckets never interleave) of one expiry: entries
 * that expire (zero-value calls kept N days, `ttl`) end a bucket and start one of their own, with
 * the `ttl` on the bucket.
 *
 * The table layer (shared/db/bucket-query.ts) serves a Query of a bucketed range as the Query of its
 * entries would be served: readers are unchanged, and entries written before buckets (one item each)
 * read the same.
 */
import { TABLE } from './definition';
import { compareSortKeys, type TableItem } from './keys';
import { fromMessagePack, messagePackOf, storedOnce, storedPacking, toMessagePack, unpackItem } from './pack';

/** The item kind of a bucket. */
export const BUCKET_KIND = 'bucket';

/**
 * Entries a bucket holds at most. A page reads up to 51 items of a range, so a dense range's page
 * reads up to 51 buckets: 8 entries of about 170 bytes keep that under 70 KB (about 9 read units),
 * where unbucketed it read 51 items of about 270 bytes.
 */
export const MAX_BUCKET_ENTRIES = 8;

/**
 * The ranges stored in buckets: a transaction's partition (`…#TX#<hash>`: its logs, `LOG#<index>`, and
 * token transfers, `TT#<log>#<batch>`, which a block writes together: 3.1 and 2.0 items a
 * transaction on the Base profile; its own item `TX` stays one, as a log whose data its index copies
 * leave out, which readers get by its key: items.ts), X5 (`…#A#<address>#ITX#to|from`), and the counted ranges that belong
 * to a contract, a topic or a selector, where a block's entries crowd (issues 34 and 35: on the Base
 * profile 3 to 20 entries of a block a range): N4 (`…#LOGS#<contract>`, and `#T0#<topic0>`), N5
 * (`…#TOPIC0#<topic0>`), N8 (`…#TT#<token>`), N3 without the sender (`…#CALLS#<contract>#<selector>`)
 * and N6 (`…#SELECTOR#<selector>`), and an address's X3 and X4 member ranges (`…#A#<address>#TT#to|from#<set>`,
 * `…#TT#to|from#TOKEN#<token>:<rank>`, `…#TX#to|from`): most of them get one entry of a block, an item of
 * its own as before (a run of one is never a bucket), but a router's, a pool's or a busy wallet's get
 * many (on the Base profile 11.6 X3 and 2.0 X4 items a transaction become 7.2 and 1.2). Not bucketed:
 * N3 by sender and N16 (one NFT), where a block's entries rarely share a range.
 */
const BUCKETED_RANGE =
  /^C#\d+#(?:TX#0x[0-9a-f]{64}|A#0x[0-9a-f]{40}#(?:ITX#(?:to|from)|TX#(?:to|from)|TT#(?:to|from)#[^#]+(?:#0x[0-9a-f]{40}:\d+)?)|LOGS#0x[0-9a-f]{40}(?:#T0#[^#]+)?|TOPIC0#[^#]+|TT#0x[0-9a-f]{40}|CALLS#0x[0-9a-f]{40}#[^#]+|SELECTOR#[^#]+)$/;

/** Whether the entries of range `pk` are written in buckets (and may be read from them). */
export const isBucketedRange = (pk: string): boolean => BUCKETED_RANGE.test(pk);

/** The first 12 characters of a bucketed range's sort keys: the block's (keys.ts blockKey). */
export const BLOCK_KEY_LENGTH = 12;

const TRANSACTION_PARTITION = /^C#\d+#TX#0x[0-9a-f]{64}$/;

/**
 * Of bucketed range `pk`, the part of a sort key that every entry of a bucket shares, and where the
 * buckets that may hold entries past it start: the block key of a range's entries; in a
 * transaction's partition the record's prefix (`LOG#`, `TT#`; `TX` its own item), all of one block.
 */
export function bucketGroupsOf(pk: string): (sk: string) => string {
  if (!TRANSACTION_PARTITION.test(pk)) return (sk) => sk.slice(0, BLOCK_KEY_LENGTH);
  return (sk) => {
    const hash = sk.indexOf('#');
    return hash === -1 ? sk : sk.slice(0, hash + 1);
  };
}

export interface BucketItem {
  pk: string;
  sk: string;
  kind: typeof BUCKET_KIND;
  /** The kind of its entries. */
  of: string;
  /**
   * The entries, without pk and kind (each with its packed fields as plain MessagePack; deflated in buckets
   * written before 2026-12-01): MessagePack, deflated when long (pack.ts storedOnce) by the table layer as
   * it writes the bucket (storedItem).
   */
  e: Uint8Array;
  ttl?: number;
}

export const isBucket = (item: Record<string, unknown>): boolean => item.kind === BUCKET_KIND;

/**
 * The bucket items of one block's entries of bucketed ranges (entries of other ranges are refused):
 * by range, in sort-key order, runs of one expiry, MAX_BUCKET_ENTRIES to a bucket at most; a run of
 * one entry is that entry, an item of its own (read the same: bucket-query.ts).
 */
export function bucketsOf(entries: readonly TableItem[]): TableItem[] {
  const ranges = new Map<string, TableItem[]>();
  for (const entry of entries) {
    if (!isBucketedRange(entry.pk)) throw new Error(`bucketsOf: ${entry.pk} is not a bucketed range`);
    const members = ranges.get(entry.pk);
    if (members) members.push(entry);
    else ranges.set(entry.pk, [entry]);
  }
  const buckets: TableItem[] = [];
  for (const [pk, members] of ranges) {
    members.sort((a, b) => compareSortKeys(a.sk, b.sk));
    const groupOf = bucketGroupsOf(pk);
    // Runs of consecutive entries of one expiry and group (a transaction's logs, then its transfers): a
    // bucket holds an interval of its range, so buckets never interleave and reading them in key order
    // reads the entries in key order.
    let run: TableItem[] = [];
    const close = (): void => {
      // A run of one entry stays an item of its own: a bucket of one only adds its wrapping's bytes.
      if (run.length === 1) buckets.push(run[0]!);
      else if (run.length > 1) buckets.push(bucketOf(run, groupOf));
      run = [];
    };
    for (const entry of members) {
      const [head] = run;
      if (
        run.length === MAX_BUCKET_ENTRIES ||
        (head && (head[TABLE.ttlAttribute] !== entry[TABLE.ttlAttribute] || groupOf(head.sk) !== groupOf(entry.sk)))
      )
        close();
      run.push(entry);
    }
    close();
  }
  return buckets;
}

/**
 * The items of one range's entries where some must stay items of their own (`ownItem`: a log readers
 * get by its key): the others in buckets (bucketsOf) of the runs between those, so that no bucket
 * spans an item of its own (buckets and items never interleave).
 */
export function bucketsAround(entries: readonly TableItem[], ownItem: (entry: TableItem) => boolean): TableItem[] {
  const items: TableItem[] = [];
  let run: TableItem[] = [];
  const close = (): void => {
    items.push(...bucketsOf(run));
    run = [];
  };
  for (const entry of [...entries].sort((a, b) => compareSortKeys(a.sk, b.sk))) {
    if (!ownItem(entry)) {
      run.push(entry);
      continue;
    }
    close();
    items.push(entry);
  }
  close();
  return items;
}

function bucketOf(run: readonly TableItem[], groupOf: (sk: string) => string): TableItem {
  const [first] = run;
  if (!first) throw new Error('bucketsOf: an empty bucket');
  const group = groupOf(first.sk);
  if (run.some((entry) => groupOf(entry.sk) !== group)) throw new Error('bucketsOf: entries of several blocks');
  const ttl = first[TABLE.ttlAttribute];
  const bucket: BucketItem = {
    pk: first.pk,
    sk: first.sk,
    kind: BUCKET_KIND,
    of: String(first.kind),
    // Entries hold their packed fields as plain MessagePack: the bucket is deflated as a whole when it is
    // sent (storedItem), which takes 6 % fewer bytes than deflating long packed fields first and the bucket
    // again, for less CPU (Base profile, 2026-12-01). Buckets written before hold them deflated: read alike.
    e: toMessagePack(run.map(({ pk: _pk, kind: _kind, [TABLE.ttlAttribute]: _ttl, ...rest }) => rest)),
    ...(ttl === undefined ? {} : { [TABLE.ttlAttribute]: ttl as number }),
  };
  return bucket as unknown as TableItem;
}

/**
 * `item` as the table stores it: its packed fields (pack.ts storedPacking) and, a bucket, its entries
 * deflated when long (pack.ts storedOnce); the item itself when that changes nothing. Items are built
 * with both as plain MessagePack, which reads the same; the table layer's writes call this where they
 * send the item (shared/db/batch-write.ts), so that deflating is done on the table writers' threads when
 * the ingest has them, not on its main thread.
 */
export function storedItem<T extends Record<string, unknown>>(item: T): T {
  const packed = storedPacking(item);
  if (!isBucket(item) || !(item.e instanceof Uint8Array)) return packed;
  const entries = storedOnce(item.e);
  return entries === item.e ? packed : { ...packed, e: entries };
}

/**
 * The entries an item read from the table stands for, in sort-key order, each as it was stored as an
 * item of its own (packed fields spread: pack.ts): a bucket's, or the item itself.
 */
export function entriesOf<T extends Record<string, unknown>>(item: T): T[] {
  return isBucket(item) ? storedEntriesOf(item).map((entry) => unpackItem(entry)) : [item];
}

/**
 * The entries of a bucket, each as an item of its own (packed fields packed: plain MessagePack, or deflated in
 * buckets written before 2026-12-01; unpackItem reads both); any other item itself.
 */
export function storedEntriesOf<T extends Record<string, unknown>>(item: T): T[] {
  if (!isBucket(item)) return [item];
  const packed = item.e;
  if (!(packed instanceof Uint8Array)) throw new Error(`bucket ${String(item.pk)} ${String(item.sk)} has no entries`);
  const ttl = item[TABLE.ttlAttribute];
  return (fromMessagePack(messagePackOf(packed)) as Record<string, unknown>[]).map((entry) => {
    // The decoded entry is this call's own object: its key and kind are set on it, not copied.
    entry.pk = item.pk;
    entry.kind = item.of;
    if (ttl !== undefined) entry[TABLE.ttlAttribute] = ttl;
    return entry as T;
  });
}
