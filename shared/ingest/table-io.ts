/**
 * The ingest's DynamoDB access: batch writes in chunks of 25 with UnprocessedItems retried (with
 * exponential backoff) until every item is written, batch reads with UnprocessedKeys retried, and
 * whole-range queries. All reads are strongly consistent: the ingest reads what it just wrote.
 */
import type { TableItem } from '../table/keys';
import { BatchGetCommand, BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import type { ItemKey, KeyRange } from '../table/keys';
import { countRange as countWholeRange, queryRange as queryWholeRange } from '../db/query';

const WRITE_CHUNK = 25;
const GET_CHUNK = 100;
/** Parallel BatchWriteItem requests of one call (a batch of blocks writes thousands of items). */
const WRITE_CONCURRENCY = 16;
/** Parallel BatchGetItem requests of one call. */
const GET_CONCURRENCY = 4;
const MAX_UNPROCESSED_ROUNDS = 10;

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

export const keyId = (key: ItemKey): string => `${key.pk}\n${key.sk}`;

/** Writes every item (Put), 25 per BatchWriteItem; returns once all are stored. */
export async function putItems(items: readonly TableItem[]): Promise<void> {
  await writeRequests(items.map((item) => ({ PutRequest: { Item: item } })));
}

/** Deletes every key, 25 per BatchWriteItem. Deleting a missing item is not an error. */
export async function deleteItems(keys: readonly ItemKey[]): Promise<void> {
  const unique = new Map(keys.map((key) => [keyId(key), { pk: key.pk, sk: key.sk }]));
  await writeRequests([...unique.values()].map((key) => ({ DeleteRequest: { Key: key } })));
}

async function writeRequests(requests: WriteRequest[]): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += WRITE_CHUNK) chunks.push(requests.slice(start, start + WRITE_CHUNK));
  await forEachLimited(chunks, WRITE_CONCURRENCY, writeChunk);
}

async function writeChunk(chunk: WriteRequest[]): Promise<void> {
  const table = tableName();
  let pending = chunk;
  for (let round = 0; pending.length > 0; round += 1) {
    if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`BatchWriteItem: ${pending.length} items still unprocessed after ${round} rounds`);
    if (round > 0) await sleep(Math.min(2_000, 50 * 2 ** round));
    const result = await db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
    pending = (result.UnprocessedItems?.[table] ?? []) as WriteRequest[];
  }
}

/** The items at `keys` that exist, by keyId. */
export async function getItems<T = TableItem>(keys: readonly ItemKey[]): Promise<Map<string, T>> {
  const unique = [...new Map(keys.map((key) => [keyId(key), { pk: key.pk, sk: key.sk }])).values()];
  const found = new Map<string, T>();
  const table = tableName();
  const chunks: ItemKey[][] = [];
  for (let start = 0; start < unique.length; start += GET_CHUNK) chunks.push(unique.slice(start, start + GET_CHUNK));
  await forEachLimited(chunks, GET_CONCURRENCY, async (chunk) => {
    let pending: ItemKey[] = chunk;
    for (let round = 0; pending.length > 0; round += 1) {
      if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`BatchGetItem: ${pending.length} keys still unprocessed after ${round} rounds`);
      if (round > 0) await sleep(Math.min(2_000, 50 * 2 ** round));
      const result = await db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
      for (const item of result.Responses?.[table] ?? []) found.set(keyId(item as ItemKey), item as T);
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as ItemKey[];
    }
  });
  return found;
}

export async function getItem<T = TableItem>(key: ItemKey): Promise<T | undefined> {
  return (await getItems<T>([key])).get(keyId(key));
}

/** Every item of a key range, read strongly consistent (the ingest reads what it has just written). */
export function queryRange<T = TableItem>(range: KeyRange, options: { limit?: number; newestFirst?: boolean } = {}): Promise<T[]> {
  return queryWholeRange<T>(range, { ...options, consistentRead: true });
}

/** The number of items in a key range, strongly consistent. */
export function countRange(range: KeyRange): Promise<number> {
  return countWholeRange(range, { consistentRead: true });
}

export async function forEachLimited<T>(values: readonly T[], limit: number, work: (value: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, values.length) }, async () => {
    while (next < values.length) {
      const value = values[next];
      next += 1;
      await work(value);
    }
  });
  await Promise.all(workers);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
