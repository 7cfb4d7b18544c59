/**
 * Range positions: every entry of a counted range (items.ts `isCountedEntry`: the blocks range and the
 * index copies insights lists in I1, I2 and I5; see docs/access-patterns.md) carries `pos`, its 1-based position in its range in
 * sort-key order. Those sort keys start with the 12-digit block key, so positions follow block order,
 * and the number of entries between two blocks is a difference of two positions: insights reads
 * `total_items` with two Limit-1 Queries per chain, whatever the size of the range
 * (shared/insights/range-reader.ts).
 *
 * `assign` numbers a block's entries, range by range in sort-key order, continuing from the range's
 * last position BEFORE the block. That position comes from an in-memory map (range -> last position,
 * updated by `assign` itself, so several blocks can be numbered before any of them is written), or on
 * a miss from the table: the range's last entry with sk < blockKey(block) (strongly consistent, Limit
 * 1, newest first; misses of one block read in parallel). An entry without `pos` (written before
 * positions existed) makes the range counted below the block instead (Select COUNT).
 *
 * Why the numbers stay right:
 *  - Writing a block again gives the same positions: the table lookup reads only entries below the
 *    block, so a block's own items, half written or complete, and any later block's never count.
 *  - The map is only trusted for the block right after the last one numbered, whose parent hash is
 *    that block's hash; anything else (a retry after a failure, a reorg, another writer having moved
 *    the chain on) empties it first. `forget()` empties it on request (after a rollback or an undo).
 *  - A reorg deletes the orphaned blocks' items (their manifests list them); the canonical blocks then
 *    continue from the common ancestor's positions, read from the table.
 *  - `fresh` (repair: a block at or below the cursor written again) reads every range from the table
 *    and leaves the map alone.
 *  - The map is an LRU of at most `capacity` ranges (default 100 000). It only drops ranges last
 *    numbered at or below the cursor (blocks whose items are all written), so a range numbered in a
 *    block still waiting to be written is never looked up in a table that lacks it.
 * Callers must pass the very objects immutableItems returned (the counted marks are per object).
 *
 * Union ranges (shared/table/union-ranges.ts: an address's `all` ranges, which hold no items) are
 * numbered with their members' entries: each entry of a `to` or `from` range also gets `upos` and the
 * union's running totals, the two entries of a self-transfer the same ones, and the union gets its
 * seek chunks. Their state before a block is read like any range's: the table layer serves a union's
 * Query from its members (shared/db/union-query.ts), with `upos` as `pos`.
 *
 * Beside `pos`, numbering gives:
 *  - seek chunks (N15, keys.ts rangeKeys.seekChunk): when an entry's position is a multiple of
 *    SEEK_CHUNK_ENTRIES (32), the block writes one small item holding the chunk's entries' sort keys, packed,
 *    so a page number becomes the exact sort key its page starts at (insights range-reader.ts). The
 *    sort keys of a range's unfinished chunk are kept in the map (`tail`), or read from the table
 *    below the block when the block completes a chunk of a range the map lacks (one more Query of at
 *    most 31 keys, only then). Returned per block, to be written and listed with the block's items.
 *  - running totals (records.ts SUMMED_FIELDS): an entry whose record has summable fields holds, per
 *    field, the exact total over its range up to itself (packed: records.ts encodeTotal), continued
 *    from the entry before it exactly as `pos` is (an entry written before packing holds a decimal
 *    string under the legacy name; runningTotalOf reads both). An entry before it without totals (written before they existed) leaves the
 *    range without totals, and insights falls back to its bounded read there.
 */
import { countItems, inParallel, queryPage } from '../db/operations';
import { unpackItem } from '../table/pack';
import { encodeTotal, legacyRunningTotalAttribute, runningTotalAttribute, SUMMED_FIELDS } from '../table/records';
import { packSeekKeys } from '../table/seek-chunk';
import { blockKey, rangeKeys, SEEK_CHUNK_ENTRIES, type TableItem } from '../table/keys';
import { membersOf, UNION_POSITION_ATTRIBUTE, unionOf, unionTotalAttribute } from '../table/union-ranges';
import { isCountedEntry, recordOfEntry } from './items';
import { readCursor } from './manifest';
import {
  emptyHeads,
  familyUnion,
  headsItem,
  ownerOfRange,
  RANGE_FAMILIES,
  readRangeHeads,
  runningTotalsOf,
  type OwnerHeads,
} from './range-heads';

/** Ranges kept in memory by default. */
export const DEFAULT_POSITION_CAPACITY = 100_000;
/** Addresses whose range heads (range-heads.ts) are kept in memory. */
const HEADS_CAPACITY = 50_000;
/**
 * Parallel table lookups of one block's misses: a followed Base block meets about 120 ranges its map
 * and heads lack (contracts' log, call and transfer ranges of the Zipf tail); at 64 they waited on two
 * round trips in sequence.
 */
const LOOKUP_CONCURRENCY = 128;

/** Running totals by summed field; undefined: the range has none (an older entry lacks them). */
type Totals = Map<string, bigint> | undefined;

/** Where a range stands before (or after) a block: its last position, unfinished chunk and totals. */
export interface RangeState {
  position: number;
  /**
   * The last sort keys of the range's unfinished seek chunk, as far as numbered since the range was read
   * from the table; the chunk's first `position % SEEK_CHUNK_ENTRIES - tail.length` keys are the table's last entries
   * below block `tableBelow` (read only when a block completes the chunk).
   */
  tail: string[];
  tableBelow: number;
  totals: Totals;
}

interface LastPosition extends RangeState {
  /** The block whose entries the position includes (the last block that had entries in the range). */
  block: number;
}

export class RangePositions {
  /** Range pk -> where it stands; insertion order is least recently numbered first. */
  private readonly last = new Map<string, LastPosition>();
  /** The last block numbered (not fresh) since the map was last emptied. */
  private previous: { number: number; hash: string | undefined } | undefined;
  /** One assign at a time: each continues from what the one before it numbered. */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Owner address -> its range heads (range-heads.ts) as the table holds them plus what the blocks
   * numbered since have added (written with their items); insertion order is least recently read first.
   */
  private readonly heads = new Map<string, OwnerHeads>();
  /** Owners whose heads the blocks numbered since the last `takeHeads` changed. */
  private readonly changedHeads = new Set<string>();
  /**
   * Whether every batch of the chain wrote range heads (the cursor says so, or there is none yet), so an
   * address without a heads item has no counted entries; known once the cursor exists.
   */
  private headsCover: boolean | undefined;

  constructor(
    readonly chainId: number,
    private readonly capacity = DEFAULT_POSITION_CAPACITY,
  ) {}

  /**
   * Sets `pos` (and running totals) on every entry of a counted range among `items` (the items of block
   * `blockNumber`); returns the seek chunks the block completes, to be written with its items.
   */
  assign(blockNumber: number, items: readonly TableItem[], options: { fresh?: boolean } = {}): Promise<TableItem[]> {
    const run = this.queue.then(() => this.number(blockNumber, items, options.fresh ?? false));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * `assign` for consecutive blocks (an ingest batch), in order, with every range the map lacks looked
   * up in ONE parallel round: a range first met at block k of the batch was numbered by no earlier
   * block of it, so its position before k is its position before the batch's blocks that precede k,
   * read from the table (sk < blockKey(k)). Returns each block's seek chunks, in the blocks' order.
   */
  assignBlocks(
    blocks: readonly { blockNumber: number; items: readonly TableItem[] }[],
    options: { fresh?: boolean } = {},
  ): Promise<TableItem[][]> {
    const run = this.queue.then(async () => {
      const fresh = options.fresh ?? false;
      const hints = new Map<string, RangeState>();
      if (!fresh && blocks.length > 1) {
        const first = blocks[0]!;
        if (!this.follows(first.blockNumber, first.items)) {
          this.forget();
          // (The empty map is trusted for the batch's first block: number() does not empty it again.)
          this.previous = { number: first.blockNumber - 1, hash: undefined };
        }
        await this.evict();
        const firstMissing = new Map<string, number>();
        const owners = new Set<string>();
        for (const { blockNumber, items } of blocks) {
          for (const pk of this.countedRanges(blockNumber, items).keys()) {
            const owned = ownerOfRange(pk);
            if (owned) owners.add(owned.owner);
            if (!this.last.has(pk) && !firstMissing.has(pk)) firstMissing.set(pk, blockNumber);
          }
        }
        await this.loadHeads(owners);
        const toRead: [string, number][] = [];
        for (const [pk, blockNumber] of firstMissing) {
          const known = this.fromHeads(pk, blockNumber);
          if (known) hints.set(pk, known);
          else toRead.push([pk, blockNumber]);
        }
        await inParallel(toRead, LOOKUP_CONCURRENCY, async ([pk, blockNumber]) => {
          hints.set(pk, await stateBefore(pk, blockNumber));
        });
      }
      const chunks: TableItem[][] = [];
      for (const { blockNumber, items } of blocks) chunks.push(await this.number(blockNumber, items, fresh, hints));
      return chunks;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Numbers one slice of a block (ingest.ts: a block of more than SLICE_TRANSACTIONS transactions is
   * numbered and written slice by slice, in transaction order), as `assignBlocks` numbers the whole
   * block: `within` (one map per block, empty at its first slice) carries its ranges' positions,
   * seek-chunk tails and running totals from slice to slice, also in a `fresh` numbering (which keeps
   * nothing past the block). Returns the seek chunks the slice completes.
   */
  assignSlice(
    blockNumber: number,
    items: readonly TableItem[],
    options: { first: boolean; within: Map<string, RangeState>; fresh?: boolean },
  ): Promise<TableItem[]> {
    const run = this.queue.then(() =>
      this.number(blockNumber, items, options.fresh ?? false, new Map(), { first: options.first, within: options.within }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Starts reading the range heads of `owners` (those not in memory) before the blocks that need them
   * are numbered: the batch's chain reads and item building then hide the read, and the numbering
   * finds them in memory. A superset of the owners only reads a few more heads; a failed read is read
   * again by the numbering.
   */
  preloadHeads(owners: Iterable<string>): void {
    const list = [...owners];
    const run = this.queue.then(() => this.loadHeads(list));
    this.queue = run.catch(() => undefined);
  }

  /** Empties the map: the next blocks read their ranges' positions from the table (or its range heads). */
  forget(): void {
    this.last.clear();
    this.previous = undefined;
    this.heads.clear();
    this.changedHeads.clear();
  }

  /**
   * The range heads (range-heads.ts) the blocks numbered since the last call changed, as items to write
   * with those blocks' items (before the cursor moves); none after a `fresh` numbering.
   */
  takeHeads(): TableItem[] {
    const items: TableItem[] = [];
    for (const owner of [...this.changedHeads].sort()) items.push(headsItem(this.chainId, owner, this.heads.get(owner) ?? emptyHeads()));
    this.changedHeads.clear();
    return items;
  }

  /** Reads the range heads of the owners not in memory (one BatchGetItem round), dropping the oldest kept past capacity. */
  private async loadHeads(owners: Iterable<string>): Promise<void> {
    const missing = [...owners].filter((owner) => !this.heads.has(owner));
    if (missing.length > 0) {
      const [stored, cover] = await Promise.all([readRangeHeads(this.chainId, missing), this.coveredByHeads()]);
      // No item: no entries at all where every batch wrote heads; else unknown (ranges read from the table).
      for (const owner of missing) this.heads.set(owner, stored.get(owner) ?? emptyHeads(cover ? RANGE_FAMILIES : []));
    }
    if (this.heads.size > HEADS_CAPACITY) {
      for (const owner of this.heads.keys()) {
        if (this.heads.size <= HEADS_CAPACITY * 0.9) break;
        if (!this.changedHeads.has(owner)) this.heads.delete(owner);
      }
    }
  }

  /** Whether every batch of the chain wrote range heads (CursorRecord.rangeHeads; no cursor: nothing written yet). */
  private async coveredByHeads(): Promise<boolean> {
    if (this.headsCover !== undefined) return this.headsCover;
    const cursor = await readCursor(this.chainId);
    // (No cursor: nothing written yet, and this ingest writes heads with every batch.)
    this.headsCover = cursor === undefined || cursor.rangeHeads === true;
    return this.headsCover;
  }

  /**
   * Range `pk`'s state before block `blockNumber` from its owner's heads, when they say it: they were
   * written before the block (their `block` is below it), and list the range or are complete for its family.
   */
  private fromHeads(pk: string, blockNumber: number): RangeState | undefined {
    const owned = ownerOfRange(pk);
    if (!owned) return undefined;
    const heads = this.heads.get(owned.owner);
    if (!heads || heads.block >= blockNumber) return undefined;
    const head = heads.ranges.get(pk);
    if (head) return { position: head.position, tail: [], tableBelow: blockNumber, totals: head.totals && new Map(head.totals) };
    if (heads.complete.has(owned.family)) return { position: 0, tail: [], tableBelow: blockNumber, totals: new Map() };
    return undefined;
  }

  /** Ranges currently in the map. */
  get size(): number {
    return this.last.size;
  }

  /** Whether the block comes right after the last one numbered (by number and parent hash). */
  private follows(blockNumber: number, items: readonly TableItem[]): boolean {
    const previous = this.previous;
    const block = items.find((item) => item.kind === 'block' && item.number === blockNumber);
    return (
      previous !== undefined &&
      blockNumber === previous.number + 1 &&
      (previous.hash === undefined || block === undefined || block.parentHash === previous.hash)
    );
  }

  /**
   * Numbers one block; `hints`: states before the block of ranges the map lacks, already read (a hint
   * is used once: the block that first meets the range). Returns the seek chunks the block completes.
   */
  private async number(
    blockNumber: number,
    items: readonly TableItem[],
    fresh: boolean,
    hints: Map<string, RangeState> = new Map(),
    slice?: { first: boolean; within: Map<string, RangeState> },
  ): Promise<TableItem[]> {
    const ranges = this.countedRanges(blockNumber, items);
    const block = items.find((item) => item.kind === 'block' && item.number === blockNumber);
    /** Positions a block adds to a range: its entries, a union's shared sort keys once. */
    const added = (entries: readonly TableItem[]): number =>
      entries.filter((entry, index) => index === 0 || entries[index - 1]!.sk !== entry.sk).length;
    // (A later slice of a block continues its first: the map is kept as it is.)
    if (!fresh && (slice === undefined || slice.first)) {
      if (!this.follows(blockNumber, items)) this.forget();
      await this.evict();
    }

    const before = new Map<string, RangeState>();
    const missing: string[] = [];
    if (!fresh) {
      const owners = new Set<string>();
      for (const pk of ranges.keys()) {
        const owned = ownerOfRange(pk);
        if (owned && !this.heads.has(owned.owner)) owners.add(owned.owner);
      }
      await this.loadHeads(owners);
    }
    for (const pk of ranges.keys()) {
      const known = slice?.within.get(pk) ?? (fresh ? undefined : (this.last.get(pk) ?? hints.get(pk) ?? this.fromHeads(pk, blockNumber)));
      if (known !== undefined) before.set(pk, known);
      else missing.push(pk);
    }
    await inParallel(missing, LOOKUP_CONCURRENCY, async (pk) => {
      before.set(pk, await stateBefore(pk, blockNumber));
    });
    // The unfinished chunk's first sort keys, where this block completes a chunk and they are not known.
    const unknownKeys = (state: RangeState): number => (state.position % SEEK_CHUNK_ENTRIES) - state.tail.length;
    const tails = [...ranges].filter(([pk, entries]) => {
      const state = before.get(pk) as RangeState;
      return unknownKeys(state) > 0 && completesChunk(state.position, added(entries));
    });
    await inParallel(tails, LOOKUP_CONCURRENCY, async ([pk]) => {
      const state = before.get(pk) as RangeState;
      const first = await tailBefore(pk, state.tableBelow, unknownKeys(state));
      before.set(pk, { ...state, tail: [...first, ...state.tail] });
    });

    const chunks: TableItem[] = [];
    for (const [pk, entries] of ranges) {
      const state = before.get(pk) as RangeState;
      let position = state.position;
      let tail = [...state.tail];
      const totals = state.totals === undefined ? undefined : new Map(state.totals);
      const fields = SUMMED_FIELDS[String(entries[0]?.kind)] ?? [];
      // A union's entries are its members' (union-ranges.ts): numbered in attributes of their own.
      const union = membersOf(pk) !== undefined;
      const positionAttribute = union ? UNION_POSITION_ATTRIBUTE : 'pos';
      const totalAttribute = union ? unionTotalAttribute : runningTotalAttribute;
      let previous: TableItem | undefined;
      for (const entry of entries) {
        if (union && previous?.sk === entry.sk) {
          // The other member's entry of a self-transfer or self-send: the union counts it once.
          entry[positionAttribute] = previous[positionAttribute];
          for (const field of fields) if (totalAttribute(field) in previous) entry[totalAttribute(field)] = previous[totalAttribute(field)];
          continue;
        }
        previous = entry;
        position += 1;
        entry[positionAttribute] = position;
        if (totals !== undefined) {
          // The summed fields may be among the entry's packed fields (shared/table/pack.ts): read from
          // the record it was made from when kept, else unpacked.
          const record = fields.length > 0 ? (recordOfEntry(entry) ?? unpackItem(entry)) : entry;
          for (const field of fields) {
            const total = (totals.get(field) ?? 0n) + summand(record[field]);
            totals.set(field, total);
            entry[totalAttribute(field)] = encodeTotal(total);
          }
        }
        tail.push(entry.sk);
        if (position % SEEK_CHUNK_ENTRIES === 0) {
          if (tail.length !== SEEK_CHUNK_ENTRIES) {
            throw new Error(`range positions: ${pk} completes a seek chunk at ${position} without its ${SEEK_CHUNK_ENTRIES} sort keys`);
          }
          chunks.push({ ...rangeKeys.seekChunk(pk, position / SEEK_CHUNK_ENTRIES - 1), kind: 'seekChunk', packedKeys: packSeekKeys(tail) });
          tail = [];
        }
      }
      slice?.within.set(pk, { position, tail, tableBelow: state.tableBelow, totals });
      if (!fresh) {
        this.last.delete(pk);
        this.last.set(pk, { block: blockNumber, position, tail, tableBelow: state.tableBelow, totals });
        const owned = ownerOfRange(pk);
        if (owned) {
          const heads = this.heads.get(owned.owner) ?? emptyHeads();
          this.heads.set(owned.owner, heads);
          heads.ranges.set(pk, { position, block: blockNumber, totals: totals && new Map(totals) });
          heads.block = Math.max(heads.block, blockNumber);
          // The family's union was empty before the block: every range of the family is met from here on.
          if (state.position === 0 && pk === familyUnion(this.chainId, owned.owner, owned.family)) heads.complete.add(owned.family);
          this.changedHeads.add(owned.owner);
        }
      }
    }
    if (!fresh) this.previous = { number: blockNumber, hash: typeof block?.hash === 'string' ? block.hash : undefined };
    return chunks;
  }

  /** The block's entries of counted ranges, by range (unions included), in sort-key order. */
  private countedRanges(blockNumber: number, items: readonly TableItem[]): Map<string, TableItem[]> {
    const prefix = blockKey(blockNumber);
    const chain = `C#${this.chainId}#`;
    const ranges = new Map<string, TableItem[]>();
    for (const item of items) {
      if (!isCountedEntry(item)) continue;
      if (!item.sk.startsWith(prefix) || !item.pk.startsWith(chain)) {
        throw new Error(`range positions: ${item.pk} / ${item.sk} is not an entry of block ${blockNumber} on chain ${this.chainId}`);
      }
      // An entry of a `to` or `from` range is an entry of its union too (union-ranges.ts).
      for (const pk of [item.pk, unionOf(item.pk)]) {
        if (pk === undefined) continue;
        const entries = ranges.get(pk) ?? [];
        entries.push(item);
        ranges.set(pk, entries);
      }
    }
    for (const entries of ranges.values()) entries.sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0));
    return ranges;
  }

  /**
   * Above capacity: drops the least recently numbered ranges down to 90 % of it, but only those last
   * numbered at or below the cursor (all their items written); one GetItem of the cursor per round.
   */
  private async evict(): Promise<void> {
    if (this.last.size <= this.capacity) return;
    const written = (await readCursor(this.chainId))?.blockNumber ?? -1;
    const target = Math.floor(this.capacity * 0.9);
    for (const [pk, entry] of this.last) {
      if (this.last.size <= target || entry.block > written) break;
      this.last.delete(pk);
    }
  }
}

/** Whether `added` entries after position `position` reach a multiple of the seek chunk size. */
const completesChunk = (position: number, added: number): boolean =>
  Math.floor((position + added) / SEEK_CHUNK_ENTRIES) > Math.floor(position / SEEK_CHUNK_ENTRIES);

/** A summed field's value as a bigint (decimal string or number; absent: 0). */
function summand(value: unknown): bigint {
  if (typeof value === 'string' && /^[0-9]+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (value === undefined || value === null) return 0n;
  throw new Error(`range positions: cannot sum ${JSON.stringify(value)}`);
}

/** What stateBefore reads of an entry: its sort key, position, kind and every running total. */
const STATE_NAMES: Record<string, string> = Object.fromEntries([
  ['#sk', 'sk'],
  ['#pos', 'pos'],
  ['#kind', 'kind'],
  ...[...new Set(Object.values(SUMMED_FIELDS).flat())].flatMap((field, index) => [
    [`#t${index}`, runningTotalAttribute(field)],
    [`#lt${index}`, legacyRunningTotalAttribute(field)],
  ]),
]);
const STATE_PROJECTION = Object.keys(STATE_NAMES).join(', ');

/**
 * Where range `pk` stands below block `blockNumber`, from the table: its last entry there (position and
 * running totals; position 0 and zero totals when there is none). The unfinished chunk's sort keys
 * are left in the table (tailBefore reads them when a block completes the chunk).
 */
async function stateBefore(pk: string, blockNumber: number): Promise<RangeState> {
  const { items } = await queryPage({
    ...below(pk, blockNumber),
    ProjectionExpression: STATE_PROJECTION,
    ExpressionAttributeNames: STATE_NAMES,
    ScanIndexForward: false,
    Limit: 1,
  });
  const item = items[0];
  if (!item) return { position: 0, tail: [], tableBelow: blockNumber, totals: new Map() };
  // An entry written before positions existed: counted below the block; its range has no totals.
  if (typeof item.pos !== 'number') {
    const position = await countBelow(pk, blockNumber);
    return { position, tail: [], tableBelow: blockNumber, totals: undefined };
  }
  return { position: item.pos, tail: [], tableBelow: blockNumber, totals: runningTotalsOf(item) };
}

/** The sort keys of the last `count` entries of range `pk` below block `blockNumber`, in order. */
async function tailBefore(pk: string, blockNumber: number, count: number): Promise<string[]> {
  if (count === 0) return [];
  const { items } = await queryPage({
    ...below(pk, blockNumber),
    ProjectionExpression: '#sk',
    ExpressionAttributeNames: { '#sk': 'sk' },
    ScanIndexForward: false,
    Limit: count,
  });
  if (items.length !== count)
    throw new Error(`range positions: ${pk} has ${items.length} entries below block ${blockNumber}, not ${count}`);
  return items.map((item) => String(item.sk)).reverse();
}

/**
 * Entries of a range written before positions existed: counted below the block (Select COUNT, every
 * page). Entries at or after the block (a repaired block's successors, a half-written batch) must not
 * count.
 */
async function countBelow(pk: string, blockNumber: number): Promise<number> {
  return (await countItems(below(pk, blockNumber))).count;
}

/** The entries of range `pk` below block `blockNumber`, strongly consistent. */
function below(pk: string, blockNumber: number) {
  return {
    KeyConditionExpression: 'pk = :pk AND sk < :before',
    ExpressionAttributeValues: { ':pk': pk, ':before': blockKey(blockNumber) },
    ConsistentRead: true,
  };
}
