/**
 * A Query of a history range (table/cold-parts.ts isHistoryRange) served from the table and the range's
 * cold parts together (docs/decisions/cold-history.md, step 4): the page a reader gets is the page the
 * range would give were all of it still in the table. Routes query ranges as before; operations.ts sends
 * a history range's Query here when the process has a cold store (COLD_BUCKET).
 *
 * Round trip 1, in parallel: the range's own Query (bucket-query.ts for a bucketed range, as before) and
 * the Query of its pointers (N17, keys.ts coldKeys.parts) from where the page starts:
 *  - newest first: the pointers at or below the start, newest first, Limit 5;
 *  - oldest first: the pointer at or below the start (Limit 1: the part that may hold it) and those
 *    above it, oldest first, Limit 5.
 * Round trip 2, in parallel: at most four parts, one ranged GET each, when the page reaches them (newest
 * first, a page the table's items fill before the newest part's last entry reads no part). A reader that
 * joins items to its entries (`onColdParts`) is told, as the parts are asked for, what the table's entries
 * are and what the parts' pointers say their entries join (table/joins.ts), so that it reads those items in
 * this same round trip: a page reaching cold history waits on two round trips, as an all-hot page does.
 *
 * A range's cold parts hold every entry of the range up to the newest part's last sort key (the compactor
 * takes whole blocks), and its hot items at or below that key may be gone or going (the TTL): so the
 * table's items at or below the last sort key of the newest part the pointers Query returned are left
 * out, and the parts serve them. The two sources are merged as a union's members are (union-query.ts):
 * in the request's order, each entry once, cut where either source stops knowing what comes next (the
 * table's LastEvaluatedKey; the last part read when more parts follow), so a page may hold fewer entries
 * than its Limit, with a LastEvaluatedKey from which the next page continues.
 *
 * `scanned` counts the parts' entries read with the table's; Select COUNT counts the merged entries; a
 * ProjectionExpression is applied to the parts' entries as bucket-query.ts applies it to a bucket's; a
 * FilterExpression is refused, as on a bucketed range (filter the entries read).
 */
import { type ColdPartReader, coldPartReader } from '../aws/cold-part-reader';
import { platformConfig } from '../config';
import { type ColdPointer, coldPointerOf, firstPartPointerKey, isHistoryRange, partStoredEntries } from '../table/cold-parts';
import { type Joins, mergeJoins } from '../table/joins';
import { unpackItem } from '../table/pack';
import { coldKeys, compareSortKeys, type ItemKey, keyId } from '../table/keys';
import { projectionOf, sortKeyCondition } from './bucket-query';
import { inParallel } from './in-parallel';
import { type Item, namesUsed, type QueryInput, type QueryPage } from './union-query';

type Send = (input: QueryInput) => Promise<QueryPage<Item>>;

/**
 * What a history range's read is about to serve, told once the table has answered (`onColdParts`): as
 * its cold parts are asked for, or, reading none, as it returns. A page of several ranges (a union's
 * members, several ranges merged) hears of each.
 */
export interface ColdPartsRead {
  /** The table's entries the page may serve (unpacked), in the page's order. */
  hot: Item[];
  /** Whether the read waits for cold parts. */
  readsParts: boolean;
  /** What the entries of the parts being read join, from their pointers; undefined when a pointer does not say or none is read. */
  joins: Joins | undefined;
}

/** Called once per Query of a history range with the cold tier on (a COUNT aside), before it waits for any part. */
export type OnColdParts = (read: ColdPartsRead) => void;

/** Pointers read past the parts a page may read, to know whether more follow. */
const POINTERS_READ = 5;
/** Parts a page reads at most (one ranged GET each, in parallel). */
const PARTS_READ = 4;
const SORT_KEY_NAME = '#coldSortKey';
/** A key lookup's pointer Queries in flight at once (a BatchGetItem's missing keys: one Query each). */
const COLD_LOOKUPS_AT_ONCE = 16;

let store: ColdPartReader | undefined;
let configured = false;

/**
 * The process's cold store: COLD_BUCKET (and COLD_STORE_ENDPOINT, an S3-compatible server for local
 * runs), read once; undefined when the tier is off, and a range's Query is then the table's alone.
 */
export function coldStore(): ColdPartReader | undefined {
  if (!configured) {
    configured = true;
    const { coldBucket, coldStoreEndpoint, region } = platformConfig();
    store = coldBucket ? coldPartReader({ bucket: coldBucket, region, endpoint: coldStoreEndpoint }) : undefined;
  }
  return store;
}

/** Sets the process's cold store (tests and local tools; undefined turns the tier off; the parts read lately are forgotten) and returns the previous one. */
export function useColdStore(next: ColdPartReader | undefined): ColdPartReader | undefined {
  const previous = coldStore();
  store = next;
  configured = true;
  recentParts.clear();
  return previous;
}

/** Whether a Query may continue into cold parts: a history range of the base table, with a cold store. */
export function readsColdParts(input: QueryInput): boolean {
  if (input.IndexName !== undefined || coldStore() === undefined) return false;
  const pk = input.ExpressionAttributeValues?.[':pk'];
  return typeof pk === 'string' && isHistoryRange(pk);
}

/** The page of `input` from the range's items (`hot`, in the table) and its cold parts; `send` sends one Query. */
export async function queryWithColdParts(
  input: QueryInput,
  hot: Send,
  send: Send,
  cold: ColdPartReader,
  onColdParts?: OnColdParts,
): Promise<QueryPage<Item>> {
  if (input.FilterExpression !== undefined) {
    throw new Error('a FilterExpression cannot see the entries of a cold part: filter the entries read');
  }
  const pk = String(input.ExpressionAttributeValues?.[':pk']);
  const descending = input.ScanIndexForward === false;
  const order = (a: string, b: string): number => (descending ? -1 : 1) * compareSortKeys(a, b);
  const { check, bounds } = sortKeyCondition(input, (sk) => sk);
  const startSk = typeof input.ExclusiveStartKey?.sk === 'string' ? input.ExclusiveStartKey.sk : undefined;
  // Where the page begins, in its order: the start key or the near bound, whichever is further in.
  const near = descending ? bounds.upper : bounds.lower;
  const from = startSk === undefined ? near : near === undefined || order(startSk, near) > 0 ? startSk : near;
  const after = (sk: string): boolean => startSk === undefined || order(sk, startSk) > 0;

  const counting = input.Select === 'COUNT';
  const pointersPk = coldKeys.parts(pk).pk;
  const pointerQuery = (condition: 'before' | 'after' | 'all', forward: boolean, limit: number): QueryInput => ({
    KeyConditionExpression: `#pk = :pk${condition === 'all' ? '' : condition === 'before' ? ' AND #sk <= :from' : ' AND #sk > :from'}`,
    ExpressionAttributeNames: condition === 'all' ? { '#pk': 'pk' } : { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: condition === 'all' ? { ':pk': pointersPk } : { ':pk': pointersPk, ':from': from },
    ScanIndexForward: forward,
    Limit: limit,
    ...(input.ConsistentRead === undefined ? {} : { ConsistentRead: input.ConsistentRead }),
  });
  // Newest first: the parts at or below the start. Oldest first: the one that may hold the start, and those after it.
  const queries =
    from === undefined
      ? [pointerQuery('all', !descending, POINTERS_READ)]
      : descending
        ? [pointerQuery('before', false, POINTERS_READ)]
        : [pointerQuery('before', false, 1), pointerQuery('after', true, POINTERS_READ)];
  const [page, ...pointerPages] = await Promise.all([hot(withSortKey(input, counting)), ...queries.map(send)]);
  const pointersOf = (pointers: QueryPage<Item> | undefined): ColdPointer[] =>
    (pointers?.items ?? []).map((item) => coldPointerOf(item, pk));
  const returned = pointerPages.flatMap(pointersOf);
  if (returned.length === 0) {
    if (!counting) onColdParts?.({ hot: page.items, readsParts: false, joins: undefined });
    return counting ? { ...page, items: [] } : page;
  }

  // The parts in the page's order, and whether the pointers read list every part that follows them.
  let parts = returned;
  if (queries.length === 2) {
    const [holding] = pointersOf(pointerPages[0]);
    const later = pointersOf(pointerPages[1]);
    parts = holding !== undefined && compareSortKeys(holding.lastSk, from!) >= 0 ? [holding, ...later] : later;
  }
  let known = pointerPages.at(-1)!.lastKey === undefined;
  // Parts wholly past the far bound hold nothing of the page, nor do those after them.
  const far = descending ? bounds.lower : bounds.upper;
  const past = far === undefined ? -1 : parts.findIndex((pointer) => order(descending ? pointer.lastSk : pointer.sk, far) > 0);
  if (past !== -1) {
    parts = parts.slice(0, past);
    known = true;
  }
  // The table's entries past the last entry of the newest part read (at or below it they may be gone: the parts serve them).
  const coldEnd = returned.map((pointer) => pointer.lastSk).reduce((a, b) => (compareSortKeys(a, b) >= 0 ? a : b));
  const hotEntries = page.items.filter((item) => compareSortKeys(String(item.sk), coldEnd) > 0);
  // Newest first, a page the table's entries fill (all newer than every part) reads no part.
  const limit = input.Limit;
  const reading = descending && limit !== undefined && hotEntries.length >= limit ? [] : parts.slice(0, PARTS_READ);
  const reads = reading.map((pointer) => entriesOfPart(cold, pointer));
  if (onColdParts !== undefined && !counting) {
    const named = reading.length > 0 && reading.every((pointer) => pointer.joins !== undefined);
    const joins = named ? mergeJoins(reading.map((pointer) => pointer.joins!)) : undefined;
    onColdParts({ hot: hotEntries, readsParts: reading.length > 0, joins });
  }
  const read = await Promise.all(reads);
  const coldEntries = read.flat().filter((entry) => check(String(entry.sk)) && after(String(entry.sk)));

  // Where each source stops knowing what comes next, in the page's order (inclusive): the table at its
  // LastEvaluatedKey; the parts at the end of the last one read when more follow, or, none read, at the newest part's end.
  const stops: string[] = [];
  if (page.lastKey !== undefined) stops.push(String(page.lastKey.sk));
  const lastRead = reading.at(-1);
  if (lastRead === undefined) {
    if (parts.length > 0) stops.push(coldEnd);
  } else if (reading.length < parts.length || !known) stops.push(descending ? lastRead.sk : lastRead.lastSk);
  const stop = stops.length === 0 ? undefined : stops.reduce((a, b) => (order(a, b) <= 0 ? a : b));

  const fromParts = new Set<Item>(coldEntries);
  const merged = [...coldEntries, ...hotEntries]
    .filter((entry) => stop === undefined || order(String(entry.sk), stop) <= 0)
    .sort((a, b) => order(String(a.sk), String(b.sk)));
  let entries = merged.filter((entry, index) => index === 0 || merged[index - 1]!.sk !== entry.sk);
  let more = stop !== undefined;
  if (limit !== undefined && entries.length > limit) {
    entries = entries.slice(0, limit);
    more = true;
  }
  const lastSk = entries.length > 0 ? String(entries.at(-1)!.sk) : stop;
  const project =
    input.ProjectionExpression === undefined || counting
      ? undefined
      : projectionOf(input.ProjectionExpression, input.ExpressionAttributeNames ?? {});
  // A part's entries are unpacked (pack.ts) only once in the page.
  const opened = (entry: Item): Item => (fromParts.has(entry) ? (project ?? ((same: Item) => same))(unpackItem(entry)) : entry);
  return {
    items: counting ? [] : entries.map(opened),
    count: entries.length,
    scanned: page.scanned + read.reduce((sum, entries) => sum + entries.length, 0),
    lastKey: more && lastSk !== undefined ? { pk, sk: lastSk } : undefined,
  };
}

/**
 * Items of history ranges at `keys` found in cold parts (those the table lacks: gone by the TTL), by
 * keyId: for each key, in parallel (COLD_LOOKUPS_AT_ONCE), its range's pointer at or below its sort key (Limit 1), then the
 * parts those name, in parallel (one GET a part). A key in no part is absent. An item of a range in
 * buckets is found as the entry of that sort key (a GetItem of such a range asks for an item of its own).
 */
export async function coldItems(
  keys: readonly ItemKey[],
  send: Send,
  cold: ColdPartReader,
  consistent?: boolean,
): Promise<Map<string, Item>> {
  const pointers: (ColdPointer | undefined)[] = new Array(keys.length);
  await inParallel(
    keys.map((key, index) => ({ key, index })),
    COLD_LOOKUPS_AT_ONCE,
    async ({ key, index }) => {
      const page = await send({
        KeyConditionExpression: '#pk = :pk AND #sk <= :sk',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': coldKeys.parts(key.pk).pk, ':sk': key.sk },
        ScanIndexForward: false,
        Limit: 1,
        ...(consistent === undefined ? {} : { ConsistentRead: consistent }),
      });
      const pointer = page.items[0] === undefined ? undefined : coldPointerOf(page.items[0]);
      pointers[index] = pointer !== undefined && compareSortKeys(pointer.lastSk, key.sk) >= 0 ? pointer : undefined;
    },
  );
  const parts = new Map<string, ColdPointer>();
  for (const pointer of pointers) if (pointer !== undefined) parts.set(partId(pointer), pointer);
  const entries = new Map<string, Item[]>();
  await Promise.all([...parts].map(async ([id, pointer]) => entries.set(id, await entriesOfPart(cold, pointer))));
  const found = new Map<string, Item>();
  keys.forEach((key, index) => {
    const pointer = pointers[index];
    const entry = pointer === undefined ? undefined : entries.get(partId(pointer))?.find((candidate) => candidate.sk === key.sk);
    if (entry !== undefined) found.set(keyId(key), unpackItem(entry));
  });
  return found;
}

/**
 * coldItems for keys whose first parts' pointers were read beside them (table/cold-parts.ts
 * firstPartPointerKey: a transaction partition's, which holds all of it but a very large one's last part; `pointers`:
 * the pointer items found, by keyId): a key its pointer covers is served from that part (one GET, the
 * lookup's second round trip), any other as coldItems serves it (its pointer's Query, then its part).
 */
export async function coldItemsBeside(
  keys: readonly ItemKey[],
  pointers: ReadonlyMap<string, Item>,
  send: Send,
  cold: ColdPartReader,
  consistent?: boolean,
): Promise<Map<string, Item>> {
  const direct: { key: ItemKey; pointer: ColdPointer }[] = [];
  const rest: ItemKey[] = [];
  for (const key of keys) {
    const pointerKey = firstPartPointerKey(key.pk);
    const item = pointerKey === undefined ? undefined : pointers.get(keyId(pointerKey));
    const pointer = item === undefined ? undefined : coldPointerOf(item);
    if (pointer !== undefined && compareSortKeys(pointer.lastSk, key.sk) >= 0) direct.push({ key, pointer });
    else rest.push(key);
  }
  const found = new Map<string, Item>();
  const [others] = await Promise.all([
    rest.length === 0 ? new Map<string, Item>() : coldItems(rest, send, cold, consistent),
    Promise.all(
      direct.map(async ({ key, pointer }) => {
        const entry = (await entriesOfPart(cold, pointer)).find((candidate) => candidate.sk === key.sk);
        if (entry !== undefined) found.set(keyId(key), unpackItem(entry));
      }),
    ),
  ]);
  for (const [id, item] of others) found.set(id, item);
  return found;
}

const partId = (pointer: ColdPointer): string => `${pointer.object}@${pointer.offset}+${pointer.length}`;

/**
 * Parts read lately or being read, by object and offset: a part never changes, the next page of a range
 * mostly reads the same parts, and two reads of one page (a lookup's keys) may ask for one part at once.
 */
const recentParts = new Map<string, Promise<Item[]>>();
const RECENT_PARTS = 8;

/** A part's entries (packed fields still packed), from the cold store or from the parts read lately (one GET for readers at once). */
function entriesOfPart(cold: ColdPartReader, pointer: ColdPointer): Promise<Item[]> {
  const id = partId(pointer);
  const kept = recentParts.get(id);
  if (kept !== undefined) {
    // Most recently used last.
    recentParts.delete(id);
    recentParts.set(id, kept);
    return kept;
  }
  const entries = cold.read(pointer.object, pointer.offset, pointer.length).then((bytes) => partStoredEntries(bytes));
  recentParts.set(id, entries);
  // A failed read is not kept: the next reader asks again.
  entries.catch(() => {
    if (recentParts.get(id) === entries) recentParts.delete(id);
  });
  if (recentParts.size > RECENT_PARTS) recentParts.delete(recentParts.keys().next().value!);
  return entries;
}

/**
 * The table's Query with the sort key in its projection (the merge's order): a count reads the sort keys
 * (counted with the parts' entries); a projection without the sort key gets it added.
 */
function withSortKey(input: QueryInput, counting: boolean): QueryInput {
  if (counting) {
    const { Select: _select, ProjectionExpression: _projection, ...rest } = input;
    return { ...rest, ProjectionExpression: SORT_KEY_NAME, ExpressionAttributeNames: { ...namesUsed(rest), [SORT_KEY_NAME]: 'sk' } };
  }
  if (input.ProjectionExpression === undefined) return input;
  const names = input.ExpressionAttributeNames ?? {};
  const projected = input.ProjectionExpression.split(',').map((path) => names[path.trim()] ?? path.trim());
  if (projected.includes('sk')) return input;
  return {
    ...input,
    ProjectionExpression: `${input.ProjectionExpression}, ${SORT_KEY_NAME}`,
    ExpressionAttributeNames: { ...names, [SORT_KEY_NAME]: 'sk' },
  };
}
