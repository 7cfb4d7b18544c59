/**
 * Table access of the collections group: one function per access pattern of the key design
 * (C1 - C3, see docs/access-patterns.md; keys in shared/table/keys.ts, collectionKeys), through the
 * table layer (shared/db/operations.ts). Nothing else touches the table for collections.
 */
import {
  batchGetItems,
  getItem,
  queryAll,
  rangeQuery,
  transactWrite,
  type Item,
  type QueryInput,
  type TransactItem,
} from '../db/operations';
import { RetriesExhaustedError } from '../db/retry';
import { BusyError, ConflictError } from '../errors';
import { logger } from '../observability/logger';
import { collectionKeys, keyId, type KeyRange } from '../table/keys';
import { listEntryOf, type ListEntry } from './plan';
import { collectionSchema, type Collection } from './schemas';

// ---------------------------------------------------------------------------------------------------
// C2 + C1 writes: create a collection with its list entries and counters, atomically

/**
 * Writes the collection, one entry in every list range it belongs to and +1 on each range's counter,
 * in ONE transaction conditioned on the collection not existing: a duplicate is a conflict and
 * writes nothing. A transaction cancelled by other creations updating the same counters is retried
 * by the table layer; when they keep conflicting, the table is busy (503, retry shortly).
 */
export async function putNewCollection(collection: Collection): Promise<void> {
  const { entry, ranges } = listEntryOf(collection);
  const sk = collectionKeys.listSortKey(Date.parse(collection.createdAt), collection.uuid, collection.predictedAddress);
  const items: TransactItem[] = [
    {
      Put: {
        Item: { ...collectionKeys.collection(collection.predictedAddress), ...collection },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...ranges.map((range) => ({ Put: { Item: { pk: range.pk, sk, ...entry } } })),
    ...ranges.map((range) => ({
      Update: {
        Key: collectionKeys.counter(range),
        UpdateExpression: 'ADD #count :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    })),
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
  if (!outcome.committed) throw new ConflictError(`A collection with predictedAddress ${collection.predictedAddress} already exists`);
}

// ---------------------------------------------------------------------------------------------------
// C2: one collection by predicted address

export async function getCollectionByAddress(predictedAddress: string): Promise<Collection | undefined> {
  const item = await getItem(collectionKeys.collection(predictedAddress), { consistent: true });
  return item ? toCollection(item) : undefined;
}

/**
 * C1: the collections of one page, in the order of `addresses` (one BatchGetItem for a page of at
 * most 100). Strongly consistent, so an entry's collection (written in the same transaction) is
 * always found.
 */
export async function getCollectionsByAddress(addresses: readonly string[]): Promise<Collection[]> {
  if (addresses.length === 0) return [];
  const keys = addresses.map((address) => collectionKeys.collection(address));
  const found = await batchGetItems(keys, { consistent: true });
  const collections: Collection[] = [];
  keys.forEach((key, index) => {
    const item = found.get(keyId(key));
    if (item) collections.push(toCollection(item));
    else logger.error('List entry without its collection', { predictedAddress: addresses[index] });
  });
  return collections;
}

// ---------------------------------------------------------------------------------------------------
// C1 / C3: counters and list ranges

/** The counter of each range (0 for a range never written), with one BatchGetItem. */
export async function countRangeEntries(ranges: readonly KeyRange[]): Promise<number[]> {
  const keys = ranges.map((range) => collectionKeys.counter(range));
  const found = await batchGetItems(keys);
  return keys.map((key) => Number(found.get(keyId(key))?.count ?? 0));
}

/**
 * C1: the predicted addresses of entries `offset + 1 .. offset + limit` of a range, newest first: one
 * Query of `offset + limit` small entries (keys and address), the first `offset` skipped. An entry is
 * about 150 bytes, so a page deep in the range still fits one Query response (1 MB) up to the page cap.
 */
export async function readRangePage(range: KeyRange, offset: number, limit: number): Promise<string[]> {
  const { items } = await queryAll(newestFirst(range, ['address']), { limit: offset + limit });
  return items.slice(offset).map((item) => item.address as string);
}

/**
 * C3: every entry of a range, newest first, with the filter values to check on it. The caller bounds
 * the work by the range's counter (COLLECTION_COMBINATION_SCAN_LIMIT).
 */
export async function readRangeEntries(range: KeyRange): Promise<ListEntry[]> {
  const { items } = await queryAll(newestFirst(range, ['address', 'creator', 'gameOwner', 'symbol', 'chainId', 'referrer', 'gameId']));
  return items as unknown as ListEntry[];
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/** The Query of a list range, newest first, projecting the keys and `attributes`. */
function newestFirst(range: KeyRange, attributes: readonly string[]): QueryInput {
  const query = rangeQuery(range);
  const names: Record<string, string> = { ...query.ExpressionAttributeNames, '#sk': 'sk' };
  for (const [index, attribute] of attributes.entries()) names[`#a${index}`] = attribute;
  return { ...query, ExpressionAttributeNames: names, ProjectionExpression: Object.keys(names).join(', '), ScanIndexForward: false };
}

/** The stored item as the Collection resource: its fields in the resource's order, keys left out. */
function toCollection(item: Item): Collection {
  const fields = Object.keys(collectionSchema.entries).filter((field) => item[field] !== undefined);
  return Object.fromEntries(fields.map((field) => [field, item[field]])) as Collection;
}
