/**
 * Table access of the collections group: one function per access pattern of the key design
 * (shared/db/keys.ts, collectionKeys), nothing else touches the table for collections.
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { collectionKeys, type ItemKey, type KeyRange } from '../table/keys';
import { ConflictError, HttpError } from '../http/errors';
import { logger } from '../observability/logger';
import { listEntryOf, type ListEntry } from './plan';
import { collectionSchema, type Collection } from './schemas';

/**
 * Attempts of one creation when concurrent creations conflict on a counter (TransactionConflict), and
 * of one BatchGetItem that leaves keys unprocessed.
 */
export const MAX_ATTEMPTS = 8;
const BACKOFF_BASE_MS = 20;
const BACKOFF_CAP_MS = 500;

// ---------------------------------------------------------------------------------------------------
// C2 + C1 writes: create a collection with its list entries and counters, atomically

/**
 * Writes the collection, one entry in every list range it belongs to and +1 on each range's counter,
 * in ONE transaction conditioned on the collection not existing: a duplicate is a 409 and writes
 * nothing. A transaction cancelled only by TransactionConflict (another creation updating the same
 * counter) is retried with full-jitter backoff, at most MAX_ATTEMPTS times.
 */
export async function putNewCollection(collection: Collection): Promise<void> {
  const table = tableName();
  const { entry, ranges } = listEntryOf(collection);
  const sk = collectionKeys.listSortKey(Date.parse(collection.createdAt), collection.uuid);
  const transactItems = [
    {
      Put: {
        TableName: table,
        Item: { ...collectionKeys.collection(collection.predictedAddress), ...collection },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...ranges.map((range) => ({ Put: { TableName: table, Item: { pk: range.pk, sk, ...entry } } })),
    ...ranges.map((range) => ({
      Update: {
        TableName: table,
        Key: collectionKeys.counter(range),
        UpdateExpression: 'ADD #count :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    })),
  ];
  for (let attempt = 1; ; attempt += 1) {
    try {
      // A fresh token per attempt; the SDK's own retries of one attempt reuse it, so a retried
      // request whose first try succeeded is not mistaken for a duplicate.
      await db.send(new TransactWriteCommand({ TransactItems: transactItems, ClientRequestToken: randomUUID() }));
      return;
    } catch (error) {
      const failure = classifyTransactionFailure(error);
      if (failure === 'condition-failed') {
        throw new ConflictError(`A collection with predictedAddress ${collection.predictedAddress} already exists`);
      }
      if (failure !== 'conflict') throw error;
      if (attempt >= MAX_ATTEMPTS) {
        logger.warn('Collection creation kept conflicting', { attempts: attempt, predictedAddress: collection.predictedAddress });
        throw new HttpError(503, 'Too many collections are being created at once; retry shortly');
      }
      await sleep(backoffDelay(attempt));
    }
  }
}

/**
 * Why a transaction failed: a condition failed (never retried), it was cancelled only because of a
 * concurrent transaction on one of its items (retried), or something else (rethrown).
 */
export function classifyTransactionFailure(error: unknown): 'condition-failed' | 'conflict' | 'other' {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TransactionConflictException') return 'conflict';
  if (!(error instanceof TransactionCanceledException) && name !== 'TransactionCanceledException') return 'other';
  const codes = ((error as TransactionCanceledException).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
  if (codes.includes('ConditionalCheckFailed')) return 'condition-failed';
  const causes = codes.filter((code) => code !== 'None');
  return causes.length > 0 && causes.every((code) => code === 'TransactionConflict') ? 'conflict' : 'other';
}

/** Full jitter: a random delay in [0, min(cap, base * 2^(attempt-1))) milliseconds. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1)));
}

// ---------------------------------------------------------------------------------------------------
// C2: one collection by predicted address

export async function getCollectionByAddress(predictedAddress: string): Promise<Collection | undefined> {
  const result = await db.send(new GetCommand({ TableName: tableName(), Key: collectionKeys.collection(predictedAddress), ConsistentRead: true }));
  return result.Item ? toCollection(result.Item) : undefined;
}

/**
 * C1: the collections of one page, in the order of `addresses` (at most 100: one BatchGetItem, with
 * its unprocessed keys retried). Strongly consistent, so an entry's collection (written in the same
 * transaction) is always found.
 */
export async function getCollectionsByAddress(addresses: readonly string[]): Promise<Collection[]> {
  if (addresses.length === 0) return [];
  const items = await batchGet(addresses.map((address) => collectionKeys.collection(address)), true);
  const byPk = new Map(items.map((item) => [item.pk as string, item]));
  const collections: Collection[] = [];
  for (const address of addresses) {
    const item = byPk.get(collectionKeys.collection(address).pk);
    if (item) collections.push(toCollection(item));
    else logger.error('List entry without its collection', { predictedAddress: address });
  }
  return collections;
}

// ---------------------------------------------------------------------------------------------------
// C1 / C3: counters and list ranges

/** The counter of each range (0 for a range never written), with one BatchGetItem. */
export async function countRangeEntries(ranges: readonly KeyRange[]): Promise<number[]> {
  const keys = ranges.map((range) => collectionKeys.counter(range));
  const items = await batchGet(keys, false);
  const counts = new Map(items.map((item) => [item.pk as string, Number(item.count ?? 0)]));
  return keys.map((key) => counts.get(key.pk) ?? 0);
}

/**
 * C1: the predicted addresses of entries `offset + 1 .. offset + limit` of a range, newest first.
 * The first `offset` entries are read keys only (pk, sk) just to find where the page starts.
 */
export async function readRangePage(range: KeyRange, offset: number, limit: number): Promise<string[]> {
  let startKey: ItemKey | undefined;
  if (offset > 0) {
    const skipped = await queryRange(range, { maxItems: offset, attributes: [] });
    if (skipped.length < offset) return [];
    const last = skipped[skipped.length - 1];
    startKey = { pk: last.pk as string, sk: last.sk as string };
  }
  const page = await queryRange(range, { maxItems: limit, attributes: ['address'], startKey });
  return page.map((item) => item.address as string);
}

/**
 * C3: every entry of a range, newest first, with the filter values to check on it. The caller bounds
 * the work by the range's counter (COLLECTION_COMBINATION_SCAN_LIMIT).
 */
export async function readRangeEntries(range: KeyRange): Promise<ListEntry[]> {
  const items = await queryRange(range, { attributes: ['address', 'creator', 'gameOwner', 'symbol', 'chainId', 'referrer', 'gameId'] });
  return items as unknown as ListEntry[];
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Reads a range newest first, following LastEvaluatedKey, up to `maxItems` items (all when absent). */
async function queryRange(
  range: KeyRange,
  options: { maxItems?: number; attributes: readonly string[]; startKey?: ItemKey },
): Promise<Record<string, unknown>[]> {
  const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk' };
  options.attributes.forEach((attribute, index) => (names[`#a${index}`] = attribute));
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined = options.startKey ? { ...options.startKey } : undefined;
  do {
    const remaining = options.maxItems === undefined ? undefined : options.maxItems - items.length;
    const page = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':pk': range.pk },
        ProjectionExpression: Object.keys(names).join(', '),
        ScanIndexForward: false,
        Limit: remaining,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && (options.maxItems === undefined || items.length < options.maxItems));
  return items;
}

/** BatchGetItem of at most 100 keys, retrying unprocessed keys with backoff. */
async function batchGet(keys: readonly ItemKey[], consistentRead: boolean): Promise<Record<string, unknown>[]> {
  if (keys.length > 100) throw new Error(`BatchGetItem takes at most 100 keys, got ${keys.length}`);
  const table = tableName();
  const found: Record<string, unknown>[] = [];
  let pending: Record<string, unknown>[] = [...keys] as unknown as Record<string, unknown>[];
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > 1) {
      if (attempt > MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
      await sleep(backoffDelay(attempt - 1));
    }
    const result = await db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: consistentRead } } }));
    found.push(...(result.Responses?.[table] ?? []));
    pending = result.UnprocessedKeys?.[table]?.Keys ?? [];
  }
  return found;
}

/** The stored item as the Collection resource: its fields in the resource's order, keys left out. */
function toCollection(item: Record<string, unknown>): Collection {
  const fields = Object.keys(collectionSchema.entries).filter((field) => item[field] !== undefined);
  return Object.fromEntries(fields.map((field) => [field, item[field]])) as Collection;
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
