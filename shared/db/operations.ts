/**
 * The table layer: one function per DynamoDB verb the service uses, and the only code that sends a
 * command to the table. Every function fills in the table name, retries by the one policy of
 * shared/db/retry.ts and is measured by shared/db/instrument.ts when the caller opts in.
 *
 *  getItem           one item by key
 *  batchGetItems     many items by key: 100 keys a request, unprocessed keys retried; with the cold
 *                    tier on, an item of a history range the table lacks looked up in its cold part
 *                    (cold-query.ts coldItemsBeside: a transaction's from the first part's pointer
 *                    asked for with it, then the part's GET; any other's pointer by a Query first)
 *  queryPage         one Query request (a page of a key range, or a Select COUNT page); a union
 *                    range's page from its two member ranges (union-query.ts); a bucketed range's
 *                    page of entries from its buckets (bucket-query.ts); a history range's page
 *                    continued into its cold parts when the tier is on (cold-query.ts)
 *  queryAll          a key range read page after page, up to a limit of items or of items read
 *  countItems        the number of items of a key range (Select COUNT), up to a limit of items read
 *  scanPages         every item of one kind, page after page (operator migrations only: no route or
 *                    job Scans; their roles are not granted it)
 *  writeItems        puts and deletes, 25 a BatchWriteItem, unprocessed items retried
 *  transactWrite     all-or-nothing writes; conflicts with other transactions retried
 *  putItem / updateItem / deleteItem   one item, with an optional condition
 *
 * Every item read comes back with its packed fields (shared/table/pack.ts) spread into attributes, so
 * a reader sees the attributes a record has whether or not they were packed.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type GetCommandInput,
  type PutCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../table/definition';
import { readItem } from '../table/compact';
import { isBucketedRange, storedItem } from '../table/buckets';
import { projectionOf, queryBucketedRange } from './bucket-query';
import { coldItemsBeside, coldStore, type OnColdParts, queryWithColdParts, readsColdParts } from './cold-query';
import { firstPartPointerKey, isHistoryRange } from '../table/cold-parts';
import { keyId, type ItemKey, type KeyRange } from '../table/keys';
import { db, tableName } from './client';
import { sendWriteChunks, type WriteRequest } from './batch-write';
import { inParallel } from './in-parallel';
import { measuring, recordCall } from './instrument';
import { backoff, RETRY, RetriesExhaustedError } from './retry';
import { tableWriterCount, writeThroughWriters } from './write-workers';
import { type Item, type QueryInput, type QueryPage, queryUnionPage, unionMembersOf } from './union-query';

export type { Item, QueryPage };
export type { ColdPartsRead, OnColdParts } from './cold-query';
export { inParallel };
type WithoutTable<T> = Omit<T, 'TableName'>;

const GET_CHUNK = 100;
const WRITE_CHUNK = 25;

// ---------------------------------------------------------------------------------------------------
// Reads

export interface ReadOptions {
  /** Strongly consistent (base table only; GSIs are always eventually consistent). */
  consistent?: boolean;
  /**
   * The table's items alone, never their cold parts, even with the cold store on: the ingest's and the
   * compactor's reads (shared/ingest/table-io.ts), which read what they write, and whose functions may
   * write parts but not read them.
   */
  tableOnly?: boolean;
}

export async function getItem<T = Item>(
  key: ItemKey,
  options: ReadOptions & Pick<GetCommandInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> = {},
): Promise<T | undefined> {
  const { consistent, tableOnly, ...projection } = options;
  const project = (item: Item): T =>
    (projection.ProjectionExpression
      ? projectionOf(projection.ProjectionExpression, projection.ExpressionAttributeNames ?? {})(item)
      : item) as T;
  const cold = tableOnly ? undefined : coldStore();
  // A transaction's item with the cold store on: asked for with its first part's pointer, in one
  // BatchGetItem, so that one the table no longer holds is read from its part next (cold-query.ts).
  if (cold !== undefined && firstPartPointerKey(key.pk) !== undefined) {
    const item = (await batchGetItems([key], { consistent })).get(keyId(key));
    return item === undefined ? undefined : project(item);
  }
  const result = await db.send(
    new GetCommand({ TableName: tableName(), Key: { pk: key.pk, sk: key.sk }, ConsistentRead: consistent, ...projection }),
  );
  if (result.Item !== undefined) return readItem(result.Item) as T;
  // An item of a history range may be in a cold part (the table layer's cold reader: cold-query.ts).
  if (cold === undefined || !isHistoryRange(key.pk)) return undefined;
  const item = (await coldItemsBeside([key], new Map(), sendQuery, cold, consistent)).get(keyId(key));
  return item === undefined ? undefined : project(item);
}

/** The items stored at `keys` (missing ones absent), by `keyId`. Duplicate keys are asked for once. */
export async function batchGetItems<T = Item>(
  keys: readonly ItemKey[],
  options: ReadOptions & { concurrency?: number } = {},
): Promise<Map<string, T>> {
  const unique = [...new Map(keys.map((key) => [keyId(key), { pk: key.pk, sk: key.sk }])).values()];
  const cold = options.tableOnly ? undefined : coldStore();
  // With the cold store on, the first parts' pointers of the transactions asked for are asked for with
  // them (table/cold-parts.ts firstPartPointerKey; one a partition): keys that may not exist, so that a
  // transaction the table no longer holds is read from its part in the next round trip, not after a Query
  // for its pointer.
  const askedKeys = new Set(unique.map(keyId));
  const firstParts =
    cold === undefined
      ? new Map<string, ItemKey>()
      : new Map(unique.flatMap((key) => firstPartPointerKey(key.pk) ?? []).map((key) => [keyId(key), key]));
  // (A caller that asks for such a pointer itself, a bench replaying a page's calls, gets it too.)
  const pointerKeys = [...firstParts].filter(([id]) => !askedKeys.has(id)).map(([, key]) => key);
  const found = new Map<string, T>();
  const pointers = new Map<string, Item>();
  const table = tableName();
  await inParallel(chunks([...unique, ...pointerKeys], GET_CHUNK), options.concurrency ?? 8, async (chunk) => {
    let pending: ItemKey[] = chunk;
    for (let round = 0; pending.length > 0; round += 1) {
      if (round >= RETRY.maxRounds) throw new RetriesExhaustedError(`BatchGetItem: ${pending.length} keys unprocessed`);
      if (round > 0) await backoff(round);
      const result = await db.send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: options.consistent } } }),
      );
      for (const item of result.Responses?.[table] ?? []) {
        const id = keyId(item as ItemKey);
        if (firstParts.has(id)) pointers.set(id, item);
        if (askedKeys.has(id)) found.set(id, readItem(item) as T);
      }
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as ItemKey[];
    }
  });
  // Items of history ranges the table no longer holds may be in cold parts (cold-query.ts).
  const missing = cold === undefined ? [] : unique.filter((key) => !found.has(keyId(key)) && isHistoryRange(key.pk));
  if (missing.length > 0)
    for (const [id, item] of await coldItemsBeside(missing, pointers, sendQuery, cold!, options.consistent)) found.set(id, item as T);
  return found;
}

/**
 * The items of one `kind` in the whole table, a page at a time (`pageSize` items examined a request):
 * for an operator's one-off migration run with the operator's credentials (scripts/), never a request path.
 */
export async function* scanPages<T = Item>(kind: string, pageSize = 100): AsyncGenerator<T[]> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':kind': kind },
        ExclusiveStartKey: start,
        Limit: pageSize,
      }),
    );
    yield (page.Items ?? []).map((item) => readItem(item) as T);
    start = page.LastEvaluatedKey;
  } while (start);
}

export type { QueryInput };

/**
 * The Query of a key range of the table model: every item of its partition, on the table or the GSI
 * it names, optionally those whose sort key starts with its prefix. Callers add order, limits and
 * projections.
 */
export function rangeQuery(range: KeyRange): QueryInput {
  const index = TABLE.globalSecondaryIndexes.find((gsi) => gsi.indexName === range.index);
  const names = { '#pk': index?.partitionKey ?? TABLE.partitionKey, '#sk': index?.sortKey ?? TABLE.sortKey };
  return {
    IndexName: range.index,
    KeyConditionExpression: range.skPrefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: range.skPrefix === undefined ? { '#pk': names['#pk'] } : names,
    ExpressionAttributeValues: range.skPrefix === undefined ? { ':pk': range.pk } : { ':pk': range.pk, ':prefix': range.skPrefix },
  };
}

/**
 * One Query request; of a union range (shared/table/union-ranges.ts), one to each of its member ranges,
 * in parallel, served as one page of the union (union-query.ts).
 */
export async function queryPage<T = Item>(input: QueryInput, options: PageOptions = {}): Promise<QueryPage<T>> {
  const members = unionMembersOf(input);
  if (members !== undefined) return (await queryUnionPage(input, members, (member) => queryRangePage(member, options))) as QueryPage<T>;
  return (await queryRangePage(input, options)) as QueryPage<T>;
}

export interface PageOptions {
  /**
   * Of a bucketed range (shared/table/buckets.ts), the items (buckets) to read at most, where the
   * input's Limit still counts the entries returned: a page of L entries of a dense range is in about
   * L / 8 buckets, and reading L of them reads up to 8 times its bytes. Fewer entries than the Limit
   * may come back (a LastEvaluatedKey says more follow). Ignored on other ranges.
   */
  bucketLimit?: number;
  /**
   * Of a history range read with the cold tier on, called once the table has answered (as its cold parts
   * are asked for, or as it returns reading none), with the table's entries and what the parts' entries
   * join (cold-query.ts): a reader that joins items to the page reads them then, beside the parts. Of a
   * union, once per member.
   */
  onColdParts?: OnColdParts;
}

/**
 * One range's Query: of a bucketed range (shared/table/buckets.ts), its entries (bucket-query.ts); of a
 * history range, with a cold store configured, continued into its cold parts (cold-query.ts).
 */
function queryRangePage(input: QueryInput, options: PageOptions = {}): Promise<QueryPage<Item>> {
  const cold = readsColdParts(input) ? coldStore() : undefined;
  if (cold !== undefined) return queryWithColdParts(input, (hot) => queryTablePage(hot, options), sendQuery, cold, options.onColdParts);
  return queryTablePage(input, options);
}

/** One range's Query of the table's items: of a bucketed range (shared/table/buckets.ts), its entries (bucket-query.ts). */
function queryTablePage(input: QueryInput, options: PageOptions = {}): Promise<QueryPage<Item>> {
  const pk = input.ExpressionAttributeValues?.[':pk'];
  if (input.IndexName === undefined && typeof pk === 'string' && isBucketedRange(pk))
    return queryBucketedRange(input, sendQuery, options.bucketLimit);
  return sendQuery(input);
}

async function sendQuery(input: QueryInput): Promise<QueryPage<Item>> {
  const result = await db.send(new QueryCommand({ TableName: tableName(), ...input }));
  return {
    items: (result.Items ?? []).map(readItem),
    count: result.Count ?? 0,
    scanned: result.ScannedCount ?? 0,
    lastKey: result.LastEvaluatedKey,
  };
}

export interface QueryAllOptions {
  /** Stop once this many items are returned. */
  limit?: number;
  /** Stop once this many items are read (a bound on the cost of filtered reads). */
  maxRead?: number;
}

export interface QueryAllResult<T> {
  items: T[];
  /** Items read. */
  scanned: number;
  /** True when the range was read to its end. */
  complete: boolean;
  /** Where a read of the rest starts (DynamoDB's LastEvaluatedKey of the last page), when not complete. */
  lastKey?: Item;
}

/** A key range read page after page (its `Limit` is set from the options, never above them). */
export async function queryAll<T = Item>(input: QueryInput, options: QueryAllOptions = {}): Promise<QueryAllResult<T>> {
  const items: T[] = [];
  let scanned = 0;
  let start = input.ExclusiveStartKey;
  do {
    const limit = Math.min(
      options.limit === undefined ? Infinity : options.limit - items.length,
      options.maxRead === undefined ? Infinity : options.maxRead - scanned,
    );
    const page = await queryPage<T>({ ...input, Limit: Number.isFinite(limit) ? limit : input.Limit, ExclusiveStartKey: start });
    items.push(...page.items);
    scanned += page.scanned;
    start = page.lastKey;
  } while (
    start &&
    (options.limit === undefined || items.length < options.limit) &&
    (options.maxRead === undefined || scanned < options.maxRead)
  );
  return { items, scanned, complete: start === undefined, lastKey: start };
}

/** The number of items of a key range (Select COUNT, page after page), reading at most `maxRead` items. */
export async function countItems(
  input: QueryInput,
  options: Pick<QueryAllOptions, 'maxRead'> = {},
): Promise<{ count: number; scanned: number; complete: boolean }> {
  let count = 0;
  let scanned = 0;
  let start = input.ExclusiveStartKey;
  do {
    const limit = options.maxRead === undefined ? input.Limit : options.maxRead - scanned;
    const page = await queryPage({ ...input, Select: 'COUNT', Limit: limit, ExclusiveStartKey: start });
    count += page.count;
    scanned += page.scanned;
    start = page.lastKey;
  } while (start && (options.maxRead === undefined || scanned < options.maxRead));
  return { count, scanned, complete: start === undefined };
}

// ---------------------------------------------------------------------------------------------------
// Writes

/**
 * Puts and deletes every item, 25 per BatchWriteItem, `concurrency` requests at a time; returns once all
 * are done. A write of two chunks or more goes through the table writers when they run (write-workers.ts).
 */
export async function writeItems(
  writes: { put?: readonly (ItemKey & Item)[]; delete?: readonly ItemKey[] },
  options: { concurrency?: number } = {},
): Promise<void> {
  const requests: WriteRequest[] = [
    ...(writes.put ?? []).map((item) => ({ PutRequest: { Item: item } })),
    ...[...new Map((writes.delete ?? []).map((key) => [keyId(key), { pk: key.pk, sk: key.sk }])).values()].map((key) => ({
      DeleteRequest: { Key: key },
    })),
  ];
  const table = tableName();
  const concurrency = options.concurrency ?? 16;
  const batches = chunks(requests, WRITE_CHUNK);
  if (batches.length < 2 || tableWriterCount() === 0) return sendWriteChunks(table, batches, concurrency);
  const measured = measuring();
  const calls = await writeThroughWriters(table, batches, concurrency, measured);
  for (const call of calls) recordCall(call.command, call.output);
}

type SdkTransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/** One operation of a transaction (Put, Update, Delete or ConditionCheck), without its TableName. */
export type TransactItem = { [Verb in keyof SdkTransactItem]?: WithoutTable<NonNullable<SdkTransactItem[Verb]>> };

/** Committed, or refused because the conditions at these positions of the transaction failed. */
export type TransactOutcome = { committed: true } | { committed: false; failedConditions: number[] };

/**
 * TransactWriteItems over `items` (each without its TableName). A cancellation caused only by another
 * transaction on the same items is retried; failed conditions are reported by position; conflicts
 * that outlast the retries throw RetriesExhaustedError. With `idempotent`, every attempt carries a
 * ClientRequestToken of its own, so a request the SDK resends after DynamoDB applied it is not
 * applied twice (a new attempt after a cancellation gets a new token: it is a new request).
 */
export async function transactWrite(items: readonly TransactItem[], options: { idempotent?: boolean } = {}): Promise<TransactOutcome> {
  const table = tableName();
  const withTable = items.map(
    (item) =>
      Object.fromEntries(
        Object.entries(item).map(([verb, operation]) => [
          verb,
          // (A put's item as the table stores it: table/buckets.ts storedItem.)
          verb === 'Put'
            ? { ...operation, Item: storedItem((operation as { Item: Item }).Item), TableName: table }
            : { ...operation, TableName: table },
        ]),
      ) as SdkTransactItem,
  );
  for (let round = 0; ; round += 1) {
    try {
      await db.send(
        new TransactWriteCommand({ TransactItems: withTable, ClientRequestToken: options.idempotent ? randomUUID() : undefined }),
      );
      return { committed: true };
    } catch (error) {
      if (!isCancellation(error)) throw error;
      const codes = ((error as TransactionCanceledException).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
      const failedConditions = codes.flatMap((code, index) => (code === 'ConditionalCheckFailed' ? [index] : []));
      if (failedConditions.length > 0) return { committed: false, failedConditions };
      if (!codes.includes('TransactionConflict')) throw error;
      if (round + 1 >= RETRY.maxRounds) throw new RetriesExhaustedError('TransactWriteItems: cancelled by conflicting transactions');
      await backoff(round + 1);
    }
  }
}

/** What a conditional single-item write did: applied (with the attributes asked for), or refused by its condition. */
export type WriteOutcome<T = Item> = { applied: true; attributes?: T } | { applied: false };

export async function putItem(input: WithoutTable<PutCommandInput>): Promise<WriteOutcome> {
  return conditional(async () => ({
    applied: true,
    attributes: (await db.send(new PutCommand({ TableName: tableName(), ...input, Item: storedItem(input.Item ?? {}) }))).Attributes,
  }));
}

/** `abortSignal`: abandons the call, its retries included (a caller with a deadline of its own: the ingest's lease renewal). */
export async function updateItem<T = Item>(
  input: WithoutTable<UpdateCommandInput>,
  options: { abortSignal?: AbortSignal } = {},
): Promise<WriteOutcome<T>> {
  return conditional(async () => ({
    applied: true,
    attributes: (await db.send(new UpdateCommand({ TableName: tableName(), ...input }), { abortSignal: options.abortSignal })).Attributes as
      | T
      | undefined,
  }));
}

export async function deleteItem(input: WithoutTable<DeleteCommandInput>): Promise<WriteOutcome> {
  return conditional(async () => ({
    applied: true,
    attributes: (await db.send(new DeleteCommand({ TableName: tableName(), ...input }))).Attributes,
  }));
}

async function conditional<T>(write: () => Promise<WriteOutcome<T>>): Promise<WriteOutcome<T>> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as { name?: string }).name === 'ConditionalCheckFailedException')
      return { applied: false };
    throw error;
  }
}

function isCancellation(error: unknown): boolean {
  return error instanceof TransactionCanceledException || (error as { name?: string }).name === 'TransactionCanceledException';
}

// ---------------------------------------------------------------------------------------------------

function chunks<T>(values: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < values.length; start += size) result.push(values.slice(start, start + size));
  return result;
}
