/**
 * Range heads (issue 34: calls per transaction): where each counted range OWNED BY AN ADDRESS stands
 * after the last block that added entries to it, kept in one item per address (`addressKeys.rangeHeads`,
 * X7's partition, sk `HEADS`), so that numbering a block (range-positions.ts) reads the ranges its
 * in-memory map lacks with ONE BatchGetItem for the batch's addresses instead of a Limit-1 Query per
 * range (12.5 Queries a transaction on the Base-like profile, 2 more per union range).
 *
 * A range is owned by an address when its key names it as the range's subject: the address's
 * transactions (X4 `...#A#<address>#TX#to|from|all`) and token transfers (X3 `...#A#<address>#TT#...`),
 * and the calls it sent to a contract with a selector (N3 `...#CALLS#<contract>#<selector>#FROM#<address>`).
 * Two families: TX (its transactions and calls: all of them are entries of its TX `all` union) and TT
 * (its token transfers: all of them are entries of its TT `all#ALL` union).
 *
 * The item holds (packed: MessagePack, then raw DEFLATE), per range, the range's last position, running totals and the last block that added
 * entries to it; `block`, the largest of those; and the families it is COMPLETE for: the families whose
 * every range with entries it lists. A family becomes complete when a block finds its union empty
 * before it (the address had no entries of the family), so a range of a complete family that the item
 * does not list is empty: position 0, no read at all (most ranges an address meets are new ones).
 *
 * Why the numbers stay right:
 *  - An item is trusted only for a block after its `block`. Every batch that adds entries to an
 *    address's ranges writes its item (with the batch's immutable items, before the cursor moves), so
 *    an item written before block n (`block` < n) says what the table holds below n. An item written by
 *    a batch a crash cut (`block` >= the block numbered again) is not trusted: its ranges are read from
 *    the table as before; it is kept and merged, so its `block` keeps it untrusted until the chain has
 *    passed it (its numbers are those the same blocks give again).
 *  - A repair (a block at or below the cursor written again) reads and writes no heads.
 *  - Every block's manifest names its owners (`HEADS|<address>`); a reorg rebuilds their items from the
 *    table as of the common ancestor (`rebuildRangeHeads`: each listed range's last entry at or below
 *    it; none left: the item is deleted), so the table equals a clean ingest of the new chain.
 *  - An item lists at most MAX_RANGES_PER_HEAD ranges: past that, the ones of the oldest last blocks
 *    are left out and their families are no longer complete (their ranges are read from the table).
 * Items are functions of the chain up to their `block` (not of where batches start and end), so a
 * restarted or batched ingest writes the same items as a clean one.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { deleteItem, inParallel, queryPage, writeItems } from '../db/operations';
import { addressKeys, blockKey, keyId, tokenTransferKeys, type TableItem } from '../table/keys';
import { fromMessagePack, toMessagePack } from '../table/pack';
import { decodeTotal, encodeTotal, runningTotalOf, SUMMED_FIELDS } from '../table/records';
import { getItems } from './table-io';

export type RangeFamily = 'TX' | 'TT';

/** Where one range stands after its last block (`block`): position and running totals (undefined: none kept). */
export interface RangeHead {
  position: number;
  block: number;
  totals: Map<string, bigint> | undefined;
}

/** An address's range heads. */
export interface OwnerHeads {
  /** The last block of any of its ranges (0: none). */
  block: number;
  /** By range pk. */
  ranges: Map<string, RangeHead>;
  /** Families whose every range with entries is listed. */
  complete: Set<RangeFamily>;
}

/** Most ranges one item lists (about 100 bytes each packed; an item stays a few KB). */
export const MAX_RANGES_PER_HEAD = 256;

const OWNED = /^C#(\d+)#A#(0x[0-9a-f]{40})#(TX|TT)#/;
const CALLS_FROM = /^C#(\d+)#CALLS#0x[0-9a-f]{40}#0x[0-9a-f]+#FROM#(0x[0-9a-f]{40})$/;

/** The address that owns range `pk` and the family of the range, or undefined (a range no address owns). */
export function ownerOfRange(pk: string): { owner: string; family: RangeFamily } | undefined {
  const owned = OWNED.exec(pk);
  if (owned) return { owner: owned[2]!, family: owned[3] as RangeFamily };
  const calls = CALLS_FROM.exec(pk);
  if (calls) return { owner: calls[2]!, family: 'TX' };
  return undefined;
}

/** The union range holding every entry of a family of `owner`. */
export function familyUnion(chainId: number, owner: string, family: RangeFamily): string {
  return family === 'TX'
    ? addressKeys.transactions(chainId, owner, 'all').pk
    : tokenTransferKeys.byAddress(chainId, owner, 'all', 'ALL').pk;
}

/** The manifest's name of an owner's range heads (a block that adds entries to its ranges touches them). */
export const headsEntity = (owner: string): string => `HEADS|${owner}`;
/** Whether a manifest's touched entry names range heads (state.ts parseEntity knows the others). */
export const isHeadsEntity = (name: string): boolean => name.startsWith('HEADS|');

/** The owners of the counted entries among `items` (a block's), as manifest entries. */
export function headsEntitiesOf(items: readonly TableItem[], isCounted: (item: TableItem) => boolean): string[] {
  const owners = new Set<string>();
  for (const item of items) {
    if (!isCounted(item)) continue;
    const owned = ownerOfRange(item.pk);
    if (owned) owners.add(owned.owner);
  }
  return [...owners].sort().map(headsEntity);
}

/** No heads stored; `complete`: the families known to have no entries (all of them, on a chain whose every batch wrote heads). */
export const emptyHeads = (complete: readonly RangeFamily[] = []): OwnerHeads => ({
  block: 0,
  ranges: new Map(),
  complete: new Set(complete),
});

export const RANGE_FAMILIES: readonly RangeFamily[] = ['TX', 'TT'];

/** A range name as stored in its owner's item: the key less what the owner and chain give back. */
function rangeName(chainId: number, owner: string, pk: string): string {
  const prefix = `C#${chainId}#A#${owner}#`;
  if (pk.startsWith(prefix)) return pk.slice(prefix.length);
  const suffix = `#FROM#${owner}`;
  const chain = `C#${chainId}#`;
  if (pk.startsWith(chain) && pk.endsWith(suffix)) return `@${pk.slice(chain.length, pk.length - suffix.length)}`;
  throw new Error(`range heads: ${pk} is not a range of ${owner}`);
}

function rangeKey(chainId: number, owner: string, name: string): string {
  return name.startsWith('@') ? `C#${chainId}#${name.slice(1)}#FROM#${owner}` : `C#${chainId}#A#${owner}#${name}`;
}

type PackedRange = [name: string, position: number, block: number, totals: [string, Uint8Array][] | null];

/** The item of `owner`'s heads (MAX_RANGES_PER_HEAD at most: the newest kept, the rest's families incomplete). */
export function headsItem(chainId: number, owner: string, heads: OwnerHeads): TableItem {
  const entries = [...heads.ranges].sort(([a, x], [b, y]) => y.block - x.block || (a < b ? -1 : a > b ? 1 : 0));
  const kept = entries.slice(0, MAX_RANGES_PER_HEAD);
  const complete = new Set(heads.complete);
  for (const [pk] of entries.slice(MAX_RANGES_PER_HEAD)) {
    const owned = ownerOfRange(pk);
    if (owned) complete.delete(owned.family);
  }
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const packed: PackedRange[] = kept.map(([pk, head]) => [
    rangeName(chainId, owner, pk),
    head.position,
    head.block,
    head.totals === undefined
      ? null
      : [...head.totals].sort(([a], [b]) => (a < b ? -1 : 1)).map(([field, total]) => [field, encodeTotal(total)]),
  ]);
  return {
    ...addressKeys.rangeHeads(chainId, owner),
    kind: 'rangeHeads',
    block: heads.block,
    complete: [...complete].sort().join(','),
    // Raw DEFLATE of the MessagePack list: range names repeat the tokens and contracts (1.2 KB to 0.5 KB
    // a head on the Base-like profile, 3.1 to 2.1 write units a transaction).
    packed: deflateRawSync(toMessagePack(packed)),
  };
}

/** An owner's heads as stored (an item written by headsItem). */
export function readHeadsItem(chainId: number, owner: string, item: Record<string, unknown>): OwnerHeads {
  const ranges = new Map<string, RangeHead>();
  const packed = fromMessagePack(inflateRawSync(item.packed as Uint8Array)) as PackedRange[];
  for (const [name, position, block, totals] of packed) {
    ranges.set(rangeKey(chainId, owner, name), {
      position,
      block,
      totals: totals === null ? undefined : new Map(totals.map(([field, bytes]) => [field, decodeTotal(bytes) ?? 0n])),
    });
  }
  const complete = new Set(
    String(item.complete ?? '')
      .split(',')
      .filter((family): family is RangeFamily => family === 'TX' || family === 'TT'),
  );
  return { block: Number(item.block ?? 0), ranges, complete };
}

/** The stored heads of `owners` (strongly consistent; null: no item), one BatchGetItem round. */
export async function readRangeHeads(chainId: number, owners: readonly string[]): Promise<Map<string, OwnerHeads | null>> {
  const keys = owners.map((owner) => addressKeys.rangeHeads(chainId, owner));
  const found = await getItems<Record<string, unknown>>(keys);
  const result = new Map<string, OwnerHeads | null>();
  owners.forEach((owner, index) => {
    const item = found.get(keyId(keys[index]!));
    result.set(owner, item ? readHeadsItem(chainId, owner, item) : null);
  });
  return result;
}

/** Parallel reads of a reorg's rebuild. */
const REBUILD_CONCURRENCY = 16;

/**
 * After a reorg deleted the orphaned blocks' entries: each owner's item again as a clean ingest of the
 * chain up to `ancestor` has it: every range it lists read at its last entry at or below the ancestor
 * (ranges left empty dropped; a family with none left not complete); no range left: the item deleted.
 */
export async function rebuildRangeHeads(chainId: number, owners: readonly string[], ancestor: number): Promise<void> {
  if (owners.length === 0) return;
  const stored = await readRangeHeads(chainId, owners);
  await inParallel([...stored], REBUILD_CONCURRENCY, async ([owner, heads]) => {
    if (!heads) return;
    const rebuilt = emptyHeads();
    const unnumbered = new Set<RangeFamily>();
    await inParallel([...heads.ranges.keys()], REBUILD_CONCURRENCY, async (pk) => {
      const last = await lastEntryThrough(pk, ancestor);
      if (last === 'unnumbered') unnumbered.add(ownerOfRange(pk)!.family);
      else if (last) rebuilt.ranges.set(pk, last);
    });
    if (rebuilt.ranges.size === 0) {
      const { pk, sk } = addressKeys.rangeHeads(chainId, owner);
      await deleteItem({ Key: { pk, sk } });
      return;
    }
    for (const head of rebuilt.ranges.values()) rebuilt.block = Math.max(rebuilt.block, head.block);
    // Complete as before (entries were only taken away), unless a range's last entry has no position
    // (written before positions existed: not kept).
    for (const family of heads.complete) if (!unnumbered.has(family)) rebuilt.complete.add(family);
    await writeItems({ put: [headsItem(chainId, owner, rebuilt)] });
  });
}

/** Range `pk`'s last entry at or below block `through`, as a head; undefined when it has none; 'unnumbered' when it has no position. */
async function lastEntryThrough(pk: string, through: number): Promise<RangeHead | 'unnumbered' | undefined> {
  const { items } = await queryPage({
    KeyConditionExpression: 'pk = :pk AND sk < :before',
    ExpressionAttributeValues: { ':pk': pk, ':before': blockKey(through + 1) },
    ConsistentRead: true,
    ScanIndexForward: false,
    Limit: 1,
  });
  const item = items[0];
  if (!item) return undefined;
  if (typeof item.pos !== 'number') return 'unnumbered';
  return { position: item.pos, block: Number(String(item.sk).slice(0, 12)), totals: runningTotalsOf(item) };
}

/** An entry's running totals by summed field; undefined when one is missing (written before totals existed). */
export function runningTotalsOf(item: Record<string, unknown>): Map<string, bigint> | undefined {
  const totals = new Map<string, bigint>();
  for (const field of SUMMED_FIELDS[String(item.kind)] ?? []) {
    const total = runningTotalOf(item, field);
    if (total === undefined) return undefined;
    totals.set(field, total);
  }
  return totals;
}
