/**
 * A container's copy of the items many pages join and that rarely change (address items, X7: token
 * details and contract flags; NFT instances, G3, with the metadata fetched for them): a BatchGetItem
 * bills each item at least half a read unit however small, so a page of 50 rows joined to their tokens
 * or instances would pay about 25 units, every time, for items it read a moment ago.
 *
 * `getItemsKept` reads like `batchGetItems`, except that an item the caller's `keep` accepts is kept
 * for `keepMs` (wall-clock: a clock set forward expires it) and served from the copy meanwhile, without
 * its key being asked for. Items not found are never kept (an item that appears later is read as soon as
 * it exists), nor are those `keep` refuses (read every time). What is kept is bounded by its estimated
 * size (KEPT_ITEMS_BYTES) and evicted least recently used; keys are per table, so a container that reads
 * two tables never mixes them. `keepMs` 0 reads every key and keeps nothing.
 */
import { LRUCache } from 'lru-cache';
import { keyId, type ItemKey } from '../table/keys';
import { tableName } from './client';
import { batchGetItems, type Item } from './operations';

/**
 * Kept items' estimated size at most (their string values' lengths, a little per attribute): the heap
 * they take is a few times that, well inside the smallest function memory (128 MB).
 */
export const KEPT_ITEMS_BYTES = 8 * 1024 * 1024;

/**
 * An item's size for the copy's bound: its string values' lengths plus a little per attribute, nested
 * maps and lists included (an instance's `fetched` state holds a document of up to 64 KiB).
 */
export function approximateSize(value: unknown): number {
  if (typeof value === 'string') return 16 + value.length;
  if (value === null || typeof value !== 'object') return 16;
  let size = 64;
  for (const inner of Array.isArray(value) ? value : Object.values(value)) size += approximateSize(inner);
  return size;
}

// Wall-clock ages (Date), as the settings are read: a clock set forward expires what is kept. The clock is
// read on every lookup (ttlResolution 0), not once a millisecond.
const kept = new LRUCache<string, Item>({
  maxSize: KEPT_ITEMS_BYTES,
  sizeCalculation: approximateSize,
  perf: { now: () => Date.now() },
  ttlResolution: 0,
});

export interface KeptReadOptions {
  /** How long (ms) an item read is kept and served from the copy; 0: every key is read, nothing kept. */
  keepMs: number;
  /** Whether an item read may be kept (the others are read every time). */
  keep: (item: Item) => boolean;
}

/** The items found, by key id (`keyId`), as `batchGetItems` returns them; kept ones without a read. */
export async function getItemsKept<T = Item>(keys: readonly ItemKey[], options: KeptReadOptions): Promise<Map<string, T>> {
  const { keepMs, keep } = options;
  if (keepMs <= 0) return batchGetItems<T>([...keys]);
  const table = tableName();
  const found = new Map<string, T>();
  const asked: ItemKey[] = [];
  for (const key of keys) {
    const id = keyId(key);
    const item = kept.get(`${table}\n${id}`);
    if (item) found.set(id, item as T);
    else asked.push(key);
  }
  if (asked.length === 0) return found;
  for (const [id, item] of await batchGetItems(asked)) {
    found.set(id, item as T);
    if (keep(item)) kept.set(`${table}\n${id}`, item, { ttl: keepMs });
  }
  return found;
}
