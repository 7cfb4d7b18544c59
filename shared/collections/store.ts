/**
 * Table access of the collections group: one function per access pattern of the key design
 * (C1 - C3, see docs/access-patterns.md; keys in shared/table/keys.ts, collectionKeys), through the
 * table layer (shared/db/operations.ts). Nothing else touches the table for collections.
 */
import { batchGetItems, getItem, queryAll, transactWrite, type Item, type TransactItem } from '../db/operations';
import { RetriesExhaustedError } from '../db/retry';
import { BusyError, ConflictError } from '../errors';
import { logger } from '../observability/logger';
import { collectionKeys, keyId, type KeyRange } from '../table/keys';
import { collectionRanges } from './plan';
import { collectionSchema, type Collection } from './schemas';
import { counterUpdate, localQueue } from '../db/numbered-range';

// ---------------------------------------------------------------------------------------------------
// C2 + C1 writes: create a collection with its numbered list copies, atomically

/**
 * Attempts of a creation that keeps losing its list positions to concurrent creations, before a 503,
 * and the pause before each new attempt: short and random (up to 250 ms), since a lost position means
 * another creation just committed, and the next attempt reads fresh counters.
 */
const CREATION_ATTEMPTS = 25;
const positionRetryPause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 10 * 2 ** attempt)));

/**
 * Writes the collection and a copy of it at the next position of every list range it belongs to,
 * moving each range's counter on, in ONE transaction conditioned on the collection not existing (a
 * duplicate is a conflict and writes nothing) and on each counter still holding what was read
 * (strongly consistent, just before): a creation that lost a position to a concurrent one reads the
 * counters again and retries, with a new `createdAt`. A transaction cancelled by other transactions
 * on the same items is retried by the table layer. When either keeps failing, the table is busy
 * (503, retry shortly). Returns the collection as stored.
 */
export async function putNewCollection(collection: Collection): Promise<Collection> {
  return numberingQueue(() => numberAndPut(collection));
}

async function numberAndPut(collection: Collection): Promise<Collection> {
  const ranges = collectionRanges(collection);
  for (let attempt = 1; ; attempt += 1) {
    const counts = await countRangeEntries(ranges, { consistent: true });
    const stored = attempt === 1 ? collection : { ...collection, createdAt: new Date().toISOString() };
    const items: TransactItem[] = [
      {
        Put: {
          Item: { ...collectionKeys.collection(stored.predictedAddress), ...stored },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...ranges.map((range, index) => ({ Put: { Item: { ...collectionKeys.listEntry(range, counts[index]! + 1), ...stored } } })),
      ...ranges.map((range, index) => counterUpdate(collectionKeys.counter(range), counts[index]!)),
    ];
    let outcome;
    try {
      // A request the SDK resends after DynamoDB applied it is not applied twice.
      outcome = await transactWrite(items, { idempotent: true });
    } catch (error) {
      if (!(error instanceof RetriesExhaustedError)) throw error;
      logger.warn('Collection creation kept conflicting', { predictedAddress: collection.predictedAddress });
      throw new BusyError('Too many collections are being created at once; retry shortly');
    }
    if (outcome.committed) return stored;
    if (outcome.failedConditions.includes(0))
      throw new ConflictError(`A collection with predictedAddress ${collection.predictedAddress} already exists`);
    if (attempt >= CREATION_ATTEMPTS) {
      logger.warn('Collection creation kept losing its list positions', { predictedAddress: collection.predictedAddress });
      throw new BusyError('Too many collections are being created at once; retry shortly');
    }
    await positionRetryPause(attempt);
  }
}

// ---------------------------------------------------------------------------------------------------
// C2: one collection by predicted address

/** Strongly consistent: a collection is readable right after its 201. */
export async function getCollectionByAddress(predictedAddress: string): Promise<Collection | undefined> {
  const item = await getItem(collectionKeys.collection(predictedAddress), { consistent: true });
  return item ? toCollection(item) : undefined;
}

// ---------------------------------------------------------------------------------------------------
// C1 / C3: counters and list ranges (eventually consistent: a list may miss a creation of the last second)

/** The counter of each range (0 for a range never written): one GetItem, or one BatchGetItem for several. */
export async function countRangeEntries(ranges: readonly KeyRange[], options: { consistent?: boolean } = {}): Promise<number[]> {
  const keys = ranges.map((range) => collectionKeys.counter(range));
  if (keys.length === 1) {
    const counter = await getItem<{ count?: number }>(keys[0]!, { consistent: options.consistent });
    return [Number(counter?.count ?? 0)];
  }
  const found = await batchGetItems(keys, { consistent: options.consistent });
  return keys.map((key) => Number(found.get(keyId(key))?.count ?? 0));
}

/** C1, page 1: the newest `limit` collections of a range (one Query, sent with the counter read). */
export async function readNewest(range: KeyRange, limit: number): Promise<Collection[]> {
  const { items } = await queryAll(
    {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': range.pk, ':prefix': range.skPrefix },
      ScanIndexForward: false,
    },
    { limit },
  );
  return items.map(toCollection);
}

/**
 * C1, any page: collections `offset + 1 .. offset + limit` of a range counted `count`, newest first:
 * positions [count - offset - limit + 1, count - offset], one Query of exactly those copies.
 */
export async function readPositions(range: KeyRange, count: number, offset: number, limit: number): Promise<Collection[]> {
  const high = count - offset;
  if (high < 1) return [];
  const low = Math.max(1, high - limit + 1);
  const { items } = await queryAll({
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: {
      ':pk': range.pk,
      ':low': collectionKeys.listEntry(range, low).sk,
      ':high': collectionKeys.listEntry(range, high).sk,
    },
    ScanIndexForward: false,
  });
  return items.map(toCollection);
}

/**
 * C3: every collection of a range, newest first (full copies: the filters are checked on them and
 * the page is cut from them). The caller bounds the work by the range's counter
 * (COLLECTION_COMBINATION_SCAN_LIMIT).
 */
export async function readRange(range: KeyRange): Promise<Collection[]> {
  const { items } = await queryAll({
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: { ':pk': range.pk, ':prefix': range.skPrefix },
    ScanIndexForward: false,
  });
  return items.map(toCollection);
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/** The stored item as the Collection resource: its fields in the resource's order, keys left out. */
function toCollection(item: Item): Collection {
  const fields = Object.keys(collectionSchema.entries).filter((field) => item[field] !== undefined);
  return Object.fromEntries(fields.map((field) => [field, item[field]])) as Collection;
}

/** Creations of this process that number their list copies at once (shared/db/numbered-range.ts). */
const numberingQueue = localQueue(4);
