/**
 * The ingest's reads, through the table layer (shared/db/operations.ts): always strongly consistent,
 * because the ingest reads what it has just written; hence base-table ranges only (a GSI cannot be
 * read consistently). Items by key are the table's alone (`tableOnly`): never looked up in cold parts,
 * which the compactor's functions may write but not read. Its writes use the layer directly (writeItems, updateItem, transactWrite).
 */
import { batchGetItems, countItems, getItem as getOne, queryAll, rangeQuery, type QueryInput } from '../db/operations';
import type { ItemKey, KeyRange, TableItem } from '../table/keys';

/**
 * Parallel BatchGetItem requests of one read: a Base block's prefetch (balances, addresses, tokens) is
 * about 1,000 keys, 10 requests; at 4 at a time it waited on 3 round trips in sequence instead of one.
 * 64, as the range-position lookups (the client's pool holds 256 sockets: shared/db/retry.ts).
 */
const GET_CONCURRENCY = 64;

export function getItem<T = TableItem>(key: ItemKey): Promise<T | undefined> {
  return getOne<T>(key, { consistent: true, tableOnly: true });
}

/** The items at `keys` that exist, by keyId. */
export function getItems<T = TableItem>(keys: readonly ItemKey[]): Promise<Map<string, T>> {
  return batchGetItems<T>(keys, { consistent: true, tableOnly: true, concurrency: GET_CONCURRENCY });
}

/** Every item of a key range (all pages), optionally at most `limit`, in the order asked for. */
export async function queryRange<T = TableItem>(range: KeyRange, options: { limit?: number; newestFirst?: boolean } = {}): Promise<T[]> {
  return (await queryAll<T>({ ...rangeCondition(range), ScanIndexForward: !options.newestFirst }, { limit: options.limit })).items;
}

/** The number of items of a key range (Select COUNT, every page). */
export async function countRange(range: KeyRange): Promise<number> {
  return (await countItems(rangeCondition(range))).count;
}

function rangeCondition(range: KeyRange): QueryInput {
  if (range.index) throw new Error(`the ingest reads the base table only (strongly consistent), not ${range.index}`);
  return { ...rangeQuery(range), ConsistentRead: true };
}
