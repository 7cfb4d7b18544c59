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
 */
import { countItems, inParallel, queryPage } from '../db/operations';
import { blockKey, type TableItem } from '../table/keys';
import { isCountedEntry } from './items';
import { readCursor } from './manifest';

/** Ranges kept in memory by default. */
export const DEFAULT_POSITION_CAPACITY = 100_000;
/** Parallel table lookups of one block's misses. */
const LOOKUP_CONCURRENCY = 16;

interface LastPosition {
  /** The block whose entries the position includes (the last block that had entries in the range). */
  block: number;
  position: number;
}

export class RangePositions {
  /** Range pk -> its last position; insertion order is least recently numbered first. */
  private readonly last = new Map<string, LastPosition>();
  /** The last block numbered (not fresh) since the map was last emptied. */
  private previous: { number: number; hash: string | undefined } | undefined;
  /** One assign at a time: each continues from what the one before it numbered. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly chainId: number,
    private readonly capacity = DEFAULT_POSITION_CAPACITY,
  ) {}

  /** Sets `pos` on every entry of a counted range among `items` (the items of block `blockNumber`). */
  assign(blockNumber: number, items: readonly TableItem[], options: { fresh?: boolean } = {}): Promise<void> {
    const run = this.queue.then(() => this.number(blockNumber, items, options.fresh ?? false));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * `assign` for consecutive blocks (an ingest batch), in order, with every range the map lacks looked
   * up in ONE parallel round: a range first met at block k of the batch was numbered by no earlier
   * block of it, so its position before k is its position before the batch's blocks that precede k,
   * read from the table (sk < blockKey(k)).
   */
  assignBlocks(blocks: readonly { blockNumber: number; items: readonly TableItem[] }[], options: { fresh?: boolean } = {}): Promise<void> {
    const run = this.queue.then(async () => {
      const fresh = options.fresh ?? false;
      const hints = new Map<string, number>();
      if (!fresh && blocks.length > 1) {
        const first = blocks[0]!;
        if (!this.follows(first.blockNumber, first.items)) this.forget();
        await this.evict();
        const firstMissing = new Map<string, number>();
        for (const { blockNumber, items } of blocks) {
          for (const pk of this.countedRanges(blockNumber, items).keys()) {
            if (!this.last.has(pk) && !firstMissing.has(pk)) firstMissing.set(pk, blockNumber);
          }
        }
        await inParallel([...firstMissing], LOOKUP_CONCURRENCY, async ([pk, blockNumber]) => {
          hints.set(pk, await positionBefore(pk, blockNumber));
        });
      }
      for (const { blockNumber, items } of blocks) await this.number(blockNumber, items, fresh, hints);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Empties the map: the next blocks read their ranges' positions from the table. */
  forget(): void {
    this.last.clear();
    this.previous = undefined;
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

  /** Numbers one block; `hints`: positions before the block of ranges the map lacks, already read. */
  private async number(
    blockNumber: number,
    items: readonly TableItem[],
    fresh: boolean,
    hints: ReadonlyMap<string, number> = new Map(),
  ): Promise<void> {
    const ranges = this.countedRanges(blockNumber, items);
    const block = items.find((item) => item.kind === 'block' && item.number === blockNumber);
    if (!fresh) {
      if (!this.follows(blockNumber, items)) this.forget();
      await this.evict();
    }

    const before = new Map<string, number>();
    const missing: string[] = [];
    for (const pk of ranges.keys()) {
      const known = fresh ? undefined : (this.last.get(pk)?.position ?? hints.get(pk));
      if (known !== undefined) before.set(pk, known);
      else missing.push(pk);
    }
    await inParallel(missing, LOOKUP_CONCURRENCY, async (pk) => {
      before.set(pk, await positionBefore(pk, blockNumber));
    });

    for (const [pk, entries] of ranges) {
      let position = before.get(pk) as number;
      for (const entry of entries) {
        position += 1;
        entry.pos = position;
      }
      if (!fresh) {
        this.last.delete(pk);
        this.last.set(pk, { block: blockNumber, position });
      }
    }
    if (!fresh) this.previous = { number: blockNumber, hash: typeof block?.hash === 'string' ? block.hash : undefined };
  }

  /** The block's entries of counted ranges, by range, in sort-key order. */
  private countedRanges(blockNumber: number, items: readonly TableItem[]): Map<string, TableItem[]> {
    const prefix = blockKey(blockNumber);
    const chain = `C#${this.chainId}#`;
    const ranges = new Map<string, TableItem[]>();
    for (const item of items) {
      if (!isCountedEntry(item)) continue;
      if (!item.sk.startsWith(prefix) || !item.pk.startsWith(chain)) {
        throw new Error(`range positions: ${item.pk} / ${item.sk} is not an entry of block ${blockNumber} on chain ${this.chainId}`);
      }
      const entries = ranges.get(item.pk) ?? [];
      entries.push(item);
      ranges.set(item.pk, entries);
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

/** The last position of range `pk` below block `blockNumber`, from the table (0: no entry). */
async function positionBefore(pk: string, blockNumber: number): Promise<number> {
  const { items } = await queryPage({
    ...below(pk, blockNumber),
    ProjectionExpression: '#sk, #pos',
    ExpressionAttributeNames: { '#sk': 'sk', '#pos': 'pos' },
    ScanIndexForward: false,
    Limit: 1,
  });
  const item = items[0];
  if (!item) return 0;
  return typeof item.pos === 'number' ? item.pos : countBelow(pk, blockNumber);
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
