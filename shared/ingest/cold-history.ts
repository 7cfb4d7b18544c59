/**
 * The cold history's compactor (docs/decisions/cold-history.md, step 3): moves a span of blocks'
 * immutable history into compressed parts in the cold store, with a pointer item per part (N17) in the
 * table. It reads what the ingest wrote, through the blocks' write manifests (G2: every immutable item
 * key of a block), so the ingest itself does no more work for the tier; the manifests must outlive the
 * blocks' window (the operator's manifest retention at least the tier's window plus its margin).
 *
 * What it does with blocks `from`..`to` (all written: at or below the cursor):
 *  1. reads their manifests (all of them complete, else it stops: nothing is written) and the items they
 *     list (BatchGetItem; an item gone since, such as a zero-value call past its retention, is left out);
 *  2. leaves in the table what is not a history range (table/cold-parts.ts isHistoryRange: the blocks' own
 *     items, N1 and N2 by hash, a few per block, and the block-by-time index), and groups the rest by pk (an address's or a topic's range, a transaction's partition, a
 *     range's seek chunks), in sort-key order;
 *  3. cuts each range into parts of at most `partEntries` items and about `partBytes` bytes, each item
 *     opened: as the table layer reads it (packed fields spread), a bucket's entries as plain MessagePack
 *     (compressed together, items take about a third of what they take deflated one by one); and
 *     compresses the part's MessagePack list (Brotli, quality 5);
 *  4. concatenates the parts into shard objects of about `shardBytes`, named by the span and a digest of
 *     their bytes, and PUTs them;
 *  5. then writes the pointers (after the objects: a pointer never names an object not yet written).
 *
 * A span too large for one run's memory is compacted in groups of its ranges (`rangeGroup`: the ranges
 * whose pk digest falls in the group), one run a group. `compactColdHistory` is the job: every block old
 * enough, span after span from the cold cursor, the cursor moved after each whole span.
 *
 * A run is idempotent: the same table gives the same objects (same names) and the same pointers, so a
 * run cut anywhere is completed by running it again. The part format is table/cold-parts.ts; the table
 * layer's reader continues a range's Query into its parts (shared/db/cold-query.ts). What it does not do
 * here: expire the hot copies (the ingest stamps their `ttl`: cold-settings.ts).
 */
import { createHash } from 'node:crypto';
import type { ColdStore } from '../aws/cold-store';
import { lastBlockAtOrBefore } from '../db/blocks-by-time';
import { updateItem, writeItems } from '../db/operations';
import { coldPointerItem, encodePart, isHistoryRange, lastEntrySk, openedItem, partPointerKey, shardObjectKey } from '../table/cold-parts';
import { storedEntriesOf } from '../table/buckets';
import { joinCount, type Joins, joinsOfAll, mergeJoins, rangeCarriesJoins } from '../table/joins';
import { blockKeys, chainKeys, coldKeys, compareSortKeys, type ItemKey, keyId, type TableItem } from '../table/keys';
import { TABLE } from '../table/definition';
import { toMessagePack, unpackItem } from '../table/pack';
import type { ColdCursorRecord, CursorRecord } from '../table/records';
import { readManifest } from './manifest';
import { getItem, getItems } from './table-io';

export const COLD_PART_ENTRIES = 4_000;
export const COLD_PART_BYTES = 1024 * 1024;
export const COLD_SHARD_BYTES = 64 * 1024 * 1024;
/** Manifests read at once. */
const MANIFEST_CONCURRENCY = 32;

export interface CompactOptions {
  chainId: number;
  fromBlock: number;
  toBlock: number;
  store: ColdStore;
  partEntries?: number;
  partBytes?: number;
  /** The most items a part's entries join for its pointer to name them (COLD_PART_JOINS). */
  partJoins?: number;
  shardBytes?: number;
  /**
   * The group of the span's ranges this run compacts, `index` of `count`, by a digest of the range's pk
   * (`rangeGroupOf`): a span too large for one run's memory is compacted by `count` runs, one a group,
   * which together write the pointers one run would (the parts' objects differ). All of them by default.
   */
  rangeGroup?: { index: number; count: number };
  /** The item keys the span's manifests list, when the caller read them already (the job, once for all groups). */
  listed?: readonly ItemKey[];
  /**
   * The time now (ms since the epoch; default the clock's). Items whose `ttl` has passed are absent, as
   * to every reader: with the tier on they are those whose own retention ends within the window
   * (cold-settings.ts), gone before their block is old enough, so every run leaves out the same.
   */
  now?: number;
}

export interface CompactResult {
  blocks: number;
  /** Items moved into parts (the blocks' own items and items gone since aside). */
  items: number;
  parts: number;
  objects: string[];
  /** Compressed bytes written to the cold store. */
  bytes: number;
  /** The opened items' MessagePack bytes before compression. */
  openedBytes: number;
}

export class ManifestMissingError extends Error {
  constructor(
    readonly chainId: number,
    readonly blockNumber: number,
  ) {
    super(
      `chain ${chainId}: block ${blockNumber} has no complete write manifest, so its history cannot be compacted (its manifest expired: keep manifests longer than the cold window)`,
    );
    this.name = 'ManifestMissingError';
  }
}

async function manifestsOf(chainId: number, fromBlock: number, toBlock: number): Promise<ItemKey[]> {
  const keys: ItemKey[] = [];
  for (let start = fromBlock; start <= toBlock; start += MANIFEST_CONCURRENCY) {
    const numbers = Array.from({ length: Math.min(MANIFEST_CONCURRENCY, toBlock - start + 1) }, (_, index) => start + index);
    const manifests = await Promise.all(numbers.map((number) => readManifest(chainId, number)));
    manifests.forEach((manifest, index) => {
      if (!manifest?.complete) throw new ManifestMissingError(chainId, numbers[index]!);
      keys.push(...manifest.items);
    });
  }
  return keys;
}

interface Part {
  rangePk: string;
  items: TableItem[];
  bytes: Uint8Array;
  openedBytes: number;
  /** The range's first part in the run (a transaction partition's is keyed below its entries: cold-parts.ts partPointerKey). */
  first: boolean;
  /** What its entries join, on a range that carries them (joins.ts), when COLD_PART_JOINS or fewer. */
  joins?: Joins;
}

/**
 * The most items a part's entries may join for its pointer to name them (table/joins.ts): a page that
 * reaches the part reads them in the part's round trip, so they bound what that page reads (a BatchGetItem
 * of up to 100 keys, with the table's entries' joins). A range's part is closed before an item that would
 * take it past this; an item past it alone (one block's bucket naming more) makes a part whose pointer
 * names none, and a page reaching it reads its joins after it (a third round trip).
 */
export const COLD_PART_JOINS = 48;

/** The joins of an item's entries (a bucket's each), as readers get them. */
const joinsOfItem = (item: TableItem): Joins => joinsOfAll(storedEntriesOf(item).map((entry) => unpackItem(entry)));

/** A range's items (sorted) cut into parts and compressed; on a range that carries joins, also cut to keep them few. */
function partsOf(rangePk: string, items: readonly TableItem[], partEntries: number, partBytes: number, partJoins: number): Part[] {
  const parts: Part[] = [];
  const carries = rangeCarriesJoins(rangePk);
  let members: TableItem[] = [];
  let encoded: Uint8Array[] = [];
  let size = 0;
  let joins: Joins = { addresses: [], instances: [], transactions: [] };
  const close = (): void => {
    if (members.length === 0) return;
    const { bytes, openedBytes } = encodePart(encoded);
    const named = carries && joinCount(joins) <= partJoins ? { joins } : {};
    parts.push({ rangePk, items: members, bytes, openedBytes, first: parts.length === 0, ...named });
    members = [];
    encoded = [];
    size = 0;
    joins = { addresses: [], instances: [], transactions: [] };
  };
  for (const item of items) {
    // A part keeps no `ttl`: the tier's expiry is the table's, and a cold entry is kept for good.
    const { [TABLE.ttlAttribute]: _expiry, ...kept } = item;
    const bytes = toMessagePack(openedItem(kept as TableItem));
    const itemJoins = carries ? joinsOfItem(item) : undefined;
    let joined = itemJoins === undefined ? joins : mergeJoins([joins, itemJoins]);
    if (members.length >= partEntries || (members.length > 0 && (size + bytes.length > partBytes || joinCount(joined) > partJoins))) {
      close();
      joined = itemJoins ?? joins;
    }
    members.push(item);
    encoded.push(bytes);
    size += bytes.length;
    joins = joined;
  }
  close();
  return parts;
}

/** The group (0 to `count` - 1) of range `pk` when a span's ranges are split `count` ways: its pk's digest, modulo. */
export function rangeGroupOf(pk: string, count: number): number {
  return createHash('sha1').update(pk).digest().readUInt32BE(0) % count;
}

/**
 * Compacts blocks `fromBlock`..`toBlock` of `chainId` into the cold store (see the module's comment).
 * Writes nothing when a manifest is missing or incomplete.
 */
export async function compactBlocks(options: CompactOptions): Promise<CompactResult> {
  const { chainId, fromBlock, toBlock, store } = options;
  if (!(Number.isInteger(fromBlock) && Number.isInteger(toBlock) && fromBlock >= 0 && toBlock >= fromBlock)) {
    throw new Error(`compactBlocks: bad block span ${fromBlock}..${toBlock}`);
  }
  const partEntries = options.partEntries ?? COLD_PART_ENTRIES;
  const partBytes = options.partBytes ?? COLD_PART_BYTES;
  const shardBytes = options.shardBytes ?? COLD_SHARD_BYTES;

  const group = options.rangeGroup ?? { index: 0, count: 1 };
  if (
    !(Number.isInteger(group.count) && group.count >= 1 && Number.isInteger(group.index) && group.index >= 0 && group.index < group.count)
  ) {
    throw new Error(`compactBlocks: bad range group ${group.index} of ${group.count}`);
  }

  const listed = options.listed ?? (await manifestsOf(chainId, fromBlock, toBlock));
  const wanted = new Map<string, ItemKey>();
  const inGroup = new Map<string, boolean>();
  for (const key of listed) {
    if (!isHistoryRange(key.pk)) continue;
    let member = inGroup.get(key.pk);
    if (member === undefined) {
      member = group.count === 1 || rangeGroupOf(key.pk, group.count) === group.index;
      inGroup.set(key.pk, member);
    }
    if (member) wanted.set(keyId(key), key);
  }
  const found = await getItems<TableItem>([...wanted.values()]);
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  for (const [id, item] of found) {
    const ttl = item[TABLE.ttlAttribute];
    if (typeof ttl === 'number' && ttl <= nowSeconds) found.delete(id);
  }

  const ranges = new Map<string, TableItem[]>();
  for (const item of found.values()) {
    const members = ranges.get(item.pk);
    if (members) members.push(item);
    else ranges.set(item.pk, [item]);
  }
  const parts: Part[] = [];
  for (const rangePk of [...ranges.keys()].sort(compareSortKeys)) {
    const members = ranges.get(rangePk)!.sort((a, b) => compareSortKeys(a.sk, b.sk));
    parts.push(...partsOf(rangePk, members, partEntries, partBytes, options.partJoins ?? COLD_PART_JOINS));
  }

  // Shards: parts in order, cut at about shardBytes; each named by the span and its bytes' digest.
  const pointers: TableItem[] = [];
  const objects: { key: string; body: Uint8Array }[] = [];
  let shard: Part[] = [];
  let shardSize = 0;
  const closeShard = (): void => {
    if (shard.length === 0) return;
    const body = Buffer.concat(shard.map((part) => part.bytes));
    const named = { chainId, fromBlock, toBlock, group, digest: createHash('sha256').update(body).digest().subarray(0, 16) };
    const key = shardObjectKey(named);
    let offset = 0;
    for (const part of shard) {
      pointers.push(
        coldPointerItem(
          partPointerKey(part.rangePk, part.items[0]!.sk, part.first),
          named,
          {
            offset,
            length: part.bytes.length,
            count: part.items.length,
            lastSk: lastEntrySk(part.items[part.items.length - 1]!),
            ...(part.joins === undefined ? {} : { joins: part.joins }),
          },
          part.rangePk,
        ),
      );
      offset += part.bytes.length;
    }
    objects.push({ key, body });
    shard = [];
    shardSize = 0;
  };
  for (const part of parts) {
    if (shard.length > 0 && shardSize + part.bytes.length > shardBytes) closeShard();
    shard.push(part);
    shardSize += part.bytes.length;
  }
  closeShard();

  for (const object of objects) await store.put(object.key, object.body);
  await writeItems({ put: pointers });
  return {
    blocks: toBlock - fromBlock + 1,
    items: found.size,
    parts: parts.length,
    objects: objects.map((object) => object.key),
    bytes: objects.reduce((sum, object) => sum + object.body.length, 0),
    openedBytes: parts.reduce((sum, part) => sum + part.openedBytes, 0),
  };
}

/** The chain's cold cursor: the last block compacted (undefined: none yet). */
export async function readColdCursor(chainId: number): Promise<number | undefined> {
  return (await getItem<ColdCursorRecord>(coldKeys.cursor(chainId)))?.compactedTo;
}

/** Moves the cold cursor from `from` (undefined: none yet) to `to`; false when another run moved it first. */
export async function moveColdCursor(chainId: number, from: number | undefined, to: number): Promise<boolean> {
  const outcome = await updateItem({
    Key: coldKeys.cursor(chainId),
    UpdateExpression: 'SET kind = :kind, chainId = :chainId, compactedTo = :to',
    ConditionExpression: from === undefined ? 'attribute_not_exists(pk)' : 'compactedTo = :from',
    ExpressionAttributeValues: { ':kind': 'cold-cursor', ':chainId': chainId, ':to': to, ...(from === undefined ? {} : { ':from': from }) },
  });
  return outcome.applied;
}

/**
 * One group of a span's ranges to compact (`compactColdGroup`): what the job hands a worker when it runs a
 * span's groups at once (functions/ingest/compact-cold-history-group.ts), as JSON. `now` is the job's, one
 * for every group of the span, so that all of them leave out the same expired items.
 */
export interface ColdGroupTask {
  chainId: number;
  fromBlock: number;
  toBlock: number;
  /** The group, `index` of `count` (`rangeGroupOf`). */
  index: number;
  count: number;
  now: number;
  partEntries?: number;
  partBytes?: number;
}

/** Compacts one group of a span (a worker's part of the job): reads the span's manifests itself. */
export function compactColdGroup(task: ColdGroupTask, store: ColdStore, listed?: readonly ItemKey[]): Promise<CompactResult> {
  return compactBlocks({
    chainId: task.chainId,
    fromBlock: task.fromBlock,
    toBlock: task.toBlock,
    store,
    partEntries: task.partEntries,
    partBytes: task.partBytes,
    rangeGroup: { index: task.index, count: task.count },
    ...(listed ? { listed } : {}),
    now: task.now,
  });
}

/** Runs a span's groups and answers their results, in the tasks' order; it fails when any group fails. */
export type ColdGroupRunner = (tasks: readonly ColdGroupTask[]) => Promise<CompactResult[]>;

/** The groups in this process, one after the other, the span's manifests read once for all (the CLI, tests, a small chain's job). */
export function groupsInProcess(store: ColdStore): ColdGroupRunner {
  return async (tasks) => {
    const [first] = tasks;
    if (first === undefined) return [];
    const listed = await manifestsOf(first.chainId, first.fromBlock, first.toBlock);
    const results: CompactResult[] = [];
    for (const task of tasks) results.push(await compactColdGroup(task, store, listed));
    return results;
  };
}

/**
 * The groups all at once, each by `run` (the deployed job: an invocation of the group worker each). Every
 * group is waited for, whatever the others do; then a failed one fails the span (its cursor does not move:
 * the next run compacts the span again, into the same objects and pointers).
 */
export function groupsAtOnce(run: (task: ColdGroupTask) => Promise<CompactResult>): ColdGroupRunner {
  return async (tasks) => {
    const settled = await Promise.allSettled(tasks.map((task) => run(task)));
    const failed = settled.flatMap((outcome, index) =>
      outcome.status === 'rejected'
        ? [`group ${tasks[index]!.index}: ${outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason)}`]
        : [],
    );
    if (failed.length > 0) {
      const { chainId, fromBlock, toBlock } = tasks[0]!;
      throw new Error(
        `chain ${chainId}: blocks ${fromBlock}-${toBlock}: ${failed.length} of ${tasks.length} groups failed (${failed.join('; ')})`,
      );
    }
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<CompactResult>).value);
  };
}

export interface ColdJobOptions {
  chainId: number;
  store: ColdStore;
  /** How a span's groups run (default `groupsInProcess(store)`: one after the other, here). */
  runGroups?: ColdGroupRunner;
  /** A block goes cold once it is this many seconds old (COLD_AFTER_DAYS). */
  afterSeconds: number;
  /** Most blocks a span compacts (its parts gather a range's entries of the span). */
  spanBlocks: number;
  /** Groups of ranges a span is compacted in, one run after the other (each run holds only its group's items). */
  rangeGroups?: number;
  /** No span starts after this time (ms since the epoch: a Lambda's deadline less a span's time). */
  deadline?: number;
  /** The time now, in ms since the epoch. */
  now?: () => number;
  partEntries?: number;
  partBytes?: number;
}

export interface ColdJobResult {
  /** The cold cursor before and after the run (undefined: nothing compacted yet). */
  from: number | undefined;
  to: number | undefined;
  /** The last block old enough to go cold, at most the ingest cursor's; undefined when none is. */
  due: number | undefined;
  /** The chain's first block (the ingest cursor's), where compaction starts; undefined before any ingest. */
  firstBlock?: number;
  spans: CompactResult[];
}

/**
 * The cold history's job for one chain: compacts every block old enough (`afterSeconds`) and written
 * (at or below the ingest cursor), in spans of `spanBlocks` from the cold cursor, each span in
 * `rangeGroups` runs, moving the cursor after each span (on condition that it still stands where the run
 * found it: two runs of the job never both move it). A run cut anywhere leaves the cursor where the last
 * whole span put it, and the next run compacts the cut span again into the same pointers.
 */
export async function compactColdHistory(options: ColdJobOptions): Promise<ColdJobResult> {
  const { chainId, store, spanBlocks } = options;
  const groups = options.rangeGroups ?? 1;
  const now = options.now ?? Date.now;
  const runGroups = options.runGroups ?? groupsInProcess(store);
  if (!(Number.isInteger(spanBlocks) && spanBlocks >= 1)) throw new Error(`compactColdHistory: bad span of ${spanBlocks} blocks`);
  const [cursor, start] = await Promise.all([getItem<CursorRecord>(chainKeys.cursor(chainId)), readColdCursor(chainId)]);
  const result: ColdJobResult = { from: start, to: start, due: undefined, spans: [] };
  if (cursor === undefined) return result;
  result.firstBlock = cursor.firstBlock;
  const newestOldEnough = await lastBlockAtOrBefore(chainId, Math.floor(now() / 1000) - options.afterSeconds);
  if (newestOldEnough === null) return result;
  result.due = Math.min(newestOldEnough, cursor.blockNumber);
  let at = start;
  while ((at ?? cursor.firstBlock - 1) < result.due && (options.deadline === undefined || now() < options.deadline)) {
    const fromBlock = (at ?? cursor.firstBlock - 1) + 1;
    const toBlock = Math.min(fromBlock + spanBlocks - 1, result.due);
    const spanNow = now();
    const tasks = Array.from({ length: groups }, (_, index) => ({
      chainId,
      fromBlock,
      toBlock,
      index,
      count: groups,
      now: spanNow,
      ...(options.partEntries === undefined ? {} : { partEntries: options.partEntries }),
      ...(options.partBytes === undefined ? {} : { partBytes: options.partBytes }),
    }));
    result.spans.push(...(await runGroups(tasks)));
    if (!(await moveColdCursor(chainId, at, toBlock)))
      throw new Error(`chain ${chainId}: the cold cursor moved under this run (another run of the job?)`);
    at = toBlock;
    result.to = at;
  }
  return result;
}

/**
 * How far the job is behind, in seconds: how long the oldest block still to compact has been past the
 * window (`afterSeconds`), 0 when nothing due is left. Its items expire COLD_MARGIN_DAYS after the
 * window, so this must stay well under the margin (the ColdHistoryBehind alarm: a day).
 */
export async function coldHistoryBehindSeconds(
  chainId: number,
  run: Pick<ColdJobResult, 'to' | 'due' | 'firstBlock'>,
  afterSeconds: number,
  nowMs: number,
): Promise<number> {
  if (run.due === undefined || run.firstBlock === undefined || (run.to ?? run.firstBlock - 1) >= run.due) return 0;
  const next = (run.to ?? run.firstBlock - 1) + 1;
  const block = await getItem<{ timestamp: number }>(blockKeys.block(chainId, next));
  if (block === undefined) return 0;
  return Math.max(0, Math.floor(nowMs / 1000) - afterSeconds - block.timestamp);
}
