/**
 * The bench's stand-in table (issue 34): a DynamoDB endpoint that records and acknowledges writes,
 * answers reads from what it recorded, and answers every call after AWS's latency, not sooner. It exists
 * to measure the ingest's own ceiling where dynalite, one thread doing the work of a whole DynamoDB
 * fleet on the benchmark's own cores, is the bottleneck (its CPU per transaction is about as large as
 * the ingest's). It never replaces dynalite in a correctness test; a test holds it to dynalite's answers
 * for every call a Base-profile ingest makes (test/scripts/bench/lib/stand-in/table.test.ts).
 *
 * What it serves: CreateTable, DescribeTable, DeleteTable, ListTables, UpdateTimeToLive,
 * DescribeTimeToLive, GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan, BatchGetItem,
 * BatchWriteItem, TransactWriteItems and TransactGetItems, with expressions (./expressions.ts), global
 * secondary indexes (projection ALL or KEYS_ONLY, sparse), pages (Limit, ExclusiveStartKey, 1 MB), conditions with
 * DynamoDB's errors (ConditionalCheckFailedException, TransactionCanceledException with its reasons)
 * and consumed capacity. Calls are applied one at a time on arrival (a transaction is atomic by
 * construction); the answer waits for the call's latency. Anything else is a ValidationException that
 * names what is missing, so a call the stand-in does not serve fails loudly.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AttributeValue,
  applyUpdate,
  compareStrings,
  type Condition,
  ExpressionError,
  type Item,
  matches,
  type Operand,
  parseCondition,
  parseProjection,
  parseUpdate,
  type Placeholders,
  project,
  resolvePath,
  updatedNames,
} from './expressions';

/** Round-trip latency of a call, ms, by its kind (AWS, in region: 5-10 ms a round trip). */
export interface StandInLatency {
  read: number;
  write: number;
  batch: number;
  transaction: number;
}

export const AWS_LATENCY_MS: StandInLatency = { read: 5, write: 7, batch: 9, transaction: 10 };

export interface StandInTableOptions {
  host?: string;
  port?: number;
  latencyMs?: StandInLatency;
}

export interface StandInTable {
  endpoint: string;
  port: number;
  /** Calls served, by operation. */
  calls(): Record<string, number>;
  close(): Promise<void>;
}

type Json = Record<string, any>;

class DynamoError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly extra: Json = {},
  ) {
    super(message);
  }
}

const validation = (message: string): DynamoError => new DynamoError('ValidationException', message);

// ---------------------------------------------------------------------------------------------------
// Storage

interface KeySchema {
  partition: string;
  sort?: string;
}

/** A partition of the table: its items in sort-key order. */
class Partition {
  readonly sortKeys: string[] = [];
  readonly items: Item[] = [];
}

/** An index entry: the item under its index key, ordered by index sort key, then table key. */
interface IndexEntry {
  sort: string;
  tablePartition: string;
  tableSort: string;
  item: Item;
}

function compareEntries(a: IndexEntry, b: IndexEntry): number {
  return compareStrings(a.sort, b.sort) || compareStrings(a.tablePartition, b.tablePartition) || compareStrings(a.tableSort, b.tableSort);
}

/** The first index of `length` elements for which `before(i)` is false (binary search). */
function lowerBound(length: number, before: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}

class Index {
  readonly partitions = new Map<string, IndexEntry[]>();
  /**
   * `keysOnly`: the index stores the table's and its own key attributes of an item, nothing else
   * (KEYS_ONLY); else the whole item (ALL).
   */
  constructor(
    readonly name: string,
    readonly keys: KeySchema,
    readonly keysOnly = false,
  ) {}

  entryOf(item: Item, table: KeySchema): IndexEntry | undefined {
    const partition = item[this.keys.partition]?.S;
    const sort = this.keys.sort ? item[this.keys.sort]?.S : '';
    if (partition === undefined || sort === undefined) return undefined;
    return {
      sort,
      tablePartition: keyString(item, table.partition),
      tableSort: table.sort ? keyString(item, table.sort) : '',
      item: this.keysOnly ? this.keysOf(item, table) : item,
    };
  }

  private keysOf(item: Item, table: KeySchema): Item {
    const entry: Item = {};
    for (const name of [table.partition, table.sort, this.keys.partition, this.keys.sort])
      if (name !== undefined && item[name] !== undefined) entry[name] = item[name]!;
    return entry;
  }

  add(item: Item, table: KeySchema): void {
    const entry = this.entryOf(item, table);
    if (!entry) return;
    const partitionKey = item[this.keys.partition]!.S as string;
    let entries = this.partitions.get(partitionKey);
    if (!entries) {
      entries = [];
      this.partitions.set(partitionKey, entries);
    }
    const list = entries;
    list.splice(
      lowerBound(list.length, (i) => compareEntries(list[i]!, entry) < 0),
      0,
      entry,
    );
  }

  remove(item: Item, table: KeySchema): void {
    const entry = this.entryOf(item, table);
    if (!entry) return;
    const partitionKey = item[this.keys.partition]!.S as string;
    const entries = this.partitions.get(partitionKey);
    if (!entries) return;
    const at = lowerBound(entries.length, (i) => compareEntries(entries[i]!, entry) < 0);
    if (at < entries.length && compareEntries(entries[at]!, entry) === 0) entries.splice(at, 1);
    if (entries.length === 0) this.partitions.delete(partitionKey);
  }
}

function keyString(item: Item, name: string): string {
  const value = item[name];
  if (value?.S === undefined)
    throw validation(`One or more parameter values were invalid: Missing the key ${name} in the item (the stand-in keys are strings)`);
  return value.S;
}

class Table {
  readonly partitions = new Map<string, Partition>();
  readonly indexes = new Map<string, Index>();
  ttl?: string;
  constructor(
    readonly name: string,
    readonly keys: KeySchema,
    readonly description: Json,
  ) {}

  keyOf(key: Item): { partition: string; sort: string } {
    const names = Object.keys(key);
    const expected = this.keys.sort ? 2 : 1;
    if (names.length !== expected || key[this.keys.partition] === undefined || (this.keys.sort && key[this.keys.sort] === undefined)) {
      throw validation('The provided key element does not match the schema');
    }
    return { partition: keyString(key, this.keys.partition), sort: this.keys.sort ? keyString(key, this.keys.sort) : '' };
  }

  get(key: Item): Item | undefined {
    const { partition, sort } = this.keyOf(key);
    const stored = this.partitions.get(partition);
    if (!stored) return undefined;
    const at = lowerBound(stored.sortKeys.length, (i) => compareStrings(stored.sortKeys[i]!, sort) < 0);
    return stored.sortKeys[at] === sort ? stored.items[at] : undefined;
  }

  /** Stores `item` in place of the item of its key, if any; returns the one it replaced. */
  put(item: Item): Item | undefined {
    const key: Item = { [this.keys.partition]: item[this.keys.partition]! };
    if (this.keys.sort) key[this.keys.sort] = item[this.keys.sort]!;
    const { partition, sort } = this.keyOf(key);
    let stored = this.partitions.get(partition);
    if (!stored) {
      stored = new Partition();
      this.partitions.set(partition, stored);
    }
    const keys = stored.sortKeys;
    const at = lowerBound(keys.length, (i) => compareStrings(keys[i]!, sort) < 0);
    let before: Item | undefined;
    if (stored.sortKeys[at] === sort) {
      before = stored.items[at];
      stored.items[at] = item;
    } else {
      stored.sortKeys.splice(at, 0, sort);
      stored.items.splice(at, 0, item);
    }
    for (const index of this.indexes.values()) {
      if (before) index.remove(before, this.keys);
      index.add(item, this.keys);
    }
    return before;
  }

  delete(key: Item): Item | undefined {
    const { partition, sort } = this.keyOf(key);
    const stored = this.partitions.get(partition);
    if (!stored) return undefined;
    const at = lowerBound(stored.sortKeys.length, (i) => compareStrings(stored.sortKeys[i]!, sort) < 0);
    if (stored.sortKeys[at] !== sort) return undefined;
    const before = stored.items[at]!;
    stored.sortKeys.splice(at, 1);
    stored.items.splice(at, 1);
    if (stored.items.length === 0) this.partitions.delete(partition);
    for (const index of this.indexes.values()) index.remove(before, this.keys);
    return before;
  }

  itemCount(): number {
    let count = 0;
    for (const partition of this.partitions.values()) count += partition.items.length;
    return count;
  }
}

// ---------------------------------------------------------------------------------------------------
// Sizes and capacity (DynamoDB's rules: names and values in bytes; a write unit a KB, a read unit 4 KB)

function valueSize(value: AttributeValue): number {
  for (const type in value) {
    const x = value[type];
    switch (type) {
      case 'S':
        return Buffer.byteLength(x);
      case 'N':
        return Math.ceil(String(x).replace(/^-/, '').replace('.', '').replace(/^0+/, '').length / 2) + 1;
      case 'B':
        return Math.floor((x.length * 3) / 4) - (x.endsWith('==') ? 2 : x.endsWith('=') ? 1 : 0);
      case 'BOOL':
      case 'NULL':
        return 1;
      case 'SS':
      case 'NS':
      case 'BS':
        return x.reduce((sum: number, element: string) => sum + valueSize({ [type[0]!]: element }), 0);
      case 'L':
        return 3 + x.reduce((sum: number, element: AttributeValue) => sum + 1 + valueSize(element), 0);
      case 'M':
        return (
          3 +
          Object.entries(x).reduce(
            (sum: number, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueSize(element as AttributeValue),
            0,
          )
        );
    }
  }
  return 0;
}

export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  let size = 0;
  for (const name in item) size += Buffer.byteLength(name) + valueSize(item[name]!);
  return size;
}

const writeUnits = (size: number): number => Math.max(1, Math.ceil(size / 1024));
const readUnits = (size: number, consistent: boolean): number => Math.max(1, Math.ceil(size / 4096)) * (consistent ? 1 : 0.5);

// ---------------------------------------------------------------------------------------------------
// Operations

const placeholdersOf = (input: Json): Placeholders => ({ names: input.ExpressionAttributeNames, values: input.ExpressionAttributeValues });

function conditionOf(input: Json): Condition | undefined {
  return input.ConditionExpression ? parseCondition(input.ConditionExpression) : undefined;
}

function projected(item: Item, input: Json): Item {
  return input.ProjectionExpression ? project(item, parseProjection(input.ProjectionExpression), placeholdersOf(input)) : item;
}

class StandIn {
  readonly tables = new Map<string, Table>();
  readonly tokens = new Map<string, { body: string; at: number }>();
  readonly counts: Record<string, number> = {};

  table(name: unknown): Table {
    const table = typeof name === 'string' ? this.tables.get(name) : undefined;
    if (!table) throw new DynamoError('ResourceNotFoundException', 'Requested resource not found');
    return table;
  }

  handle(operation: string, input: Json, raw: string): Json {
    this.counts[operation] = (this.counts[operation] ?? 0) + 1;
    switch (operation) {
      case 'CreateTable':
        return this.createTable(input);
      case 'DescribeTable':
        return { Table: this.describe(this.table(input.TableName)) };
      case 'DeleteTable': {
        const table = this.table(input.TableName);
        this.tables.delete(table.name);
        return { TableDescription: this.describe(table) };
      }
      case 'ListTables':
        return { TableNames: [...this.tables.keys()].sort() };
      case 'UpdateTimeToLive': {
        const table = this.table(input.TableName);
        table.ttl = input.TimeToLiveSpecification?.Enabled ? input.TimeToLiveSpecification.AttributeName : undefined;
        return { TimeToLiveSpecification: input.TimeToLiveSpecification };
      }
      case 'DescribeTimeToLive': {
        const table = this.table(input.TableName);
        return {
          TimeToLiveDescription: table.ttl ? { TimeToLiveStatus: 'ENABLED', AttributeName: table.ttl } : { TimeToLiveStatus: 'DISABLED' },
        };
      }
      case 'GetItem':
        return this.getItem(input);
      case 'PutItem':
        return this.putItem(input);
      case 'UpdateItem':
        return this.updateItem(input);
      case 'DeleteItem':
        return this.deleteItem(input);
      case 'Query':
        return this.query(input);
      case 'Scan':
        return this.scan(input);
      case 'BatchGetItem':
        return this.batchGet(input);
      case 'BatchWriteItem':
        return this.batchWrite(input);
      case 'TransactWriteItems':
        return this.transactWrite(input, raw);
      case 'TransactGetItems':
        return this.transactGet(input);
      default:
        throw validation(`the stand-in table does not serve ${operation || 'this request'}`);
    }
  }

  private createTable(input: Json): Json {
    if (this.tables.has(input.TableName)) throw new DynamoError('ResourceInUseException', `Table already exists: ${input.TableName}`);
    const schema = (keys: Json[]): KeySchema => ({
      partition: keys.find((key) => key.KeyType === 'HASH')!.AttributeName,
      sort: keys.find((key) => key.KeyType === 'RANGE')?.AttributeName,
    });
    const description = {
      TableName: input.TableName,
      TableStatus: 'ACTIVE',
      KeySchema: input.KeySchema,
      AttributeDefinitions: input.AttributeDefinitions,
      BillingModeSummary: { BillingMode: input.BillingMode ?? 'PROVISIONED' },
      GlobalSecondaryIndexes: (input.GlobalSecondaryIndexes ?? []).map((index: Json) => ({ ...index, IndexStatus: 'ACTIVE' })),
      CreationDateTime: Date.now() / 1000,
    };
    const table = new Table(input.TableName, schema(input.KeySchema), description);
    for (const index of input.GlobalSecondaryIndexes ?? []) {
      const projection = index.Projection?.ProjectionType;
      if (projection !== 'ALL' && projection !== 'KEYS_ONLY')
        throw validation('the stand-in table projects ALL or KEYS_ONLY into its indexes');
      table.indexes.set(index.IndexName, new Index(index.IndexName, schema(index.KeySchema), projection === 'KEYS_ONLY'));
    }
    this.tables.set(table.name, table);
    return { TableDescription: this.describe(table) };
  }

  private describe(table: Table): Json {
    return { ...table.description, ItemCount: table.itemCount() };
  }

  private capacity(input: Json, table: Table, units: number): Json {
    return input.ReturnConsumedCapacity && input.ReturnConsumedCapacity !== 'NONE'
      ? { ConsumedCapacity: { TableName: table.name, CapacityUnits: units } }
      : {};
  }

  private failCondition(condition: Condition | undefined, item: Item | undefined, input: Json): void {
    if (condition && !matches(condition, item ?? {}, placeholdersOf(input))) {
      const extra = input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && item ? { Item: item } : {};
      throw new DynamoError('ConditionalCheckFailedException', 'The conditional request failed', extra);
    }
  }

  private getItem(input: Json): Json {
    const table = this.table(input.TableName);
    const item = table.get(input.Key);
    return {
      ...(item ? { Item: projected(item, input) } : {}),
      ...this.capacity(input, table, readUnits(itemSize(item), !!input.ConsistentRead)),
    };
  }

  private putItem(input: Json): Json {
    const table = this.table(input.TableName);
    const before = table.get(this.keyOfItem(table, input.Item));
    this.failCondition(conditionOf(input), before, input);
    table.put(input.Item);
    return {
      ...(input.ReturnValues === 'ALL_OLD' && before ? { Attributes: before } : {}),
      ...this.capacity(input, table, writeUnits(Math.max(itemSize(before), itemSize(input.Item)))),
    };
  }

  private keyOfItem(table: Table, item: Item): Item {
    const key: Item = {};
    for (const name of [table.keys.partition, table.keys.sort]) {
      if (!name) continue;
      if (item?.[name] === undefined) throw validation(`One or more parameter values were invalid: Missing the key ${name} in the item`);
      key[name] = item[name]!;
    }
    return key;
  }

  private updated(table: Table, input: Json): { before?: Item; after: Item } {
    const before = table.get(input.Key);
    this.failCondition(conditionOf(input), before, input);
    const start = before ?? { ...input.Key };
    const after = input.UpdateExpression
      ? applyUpdate(parseUpdate(input.UpdateExpression), start, placeholdersOf(input))
      : structuredClone(start);
    for (const name of Object.keys(input.Key)) {
      if (after[name]?.S !== input.Key[name]?.S)
        throw validation('Cannot update attribute ' + name + '. This attribute is part of the key');
    }
    return { before, after };
  }

  private updateItem(input: Json): Json {
    const table = this.table(input.TableName);
    const { before, after } = this.updated(table, input);
    table.put(after);
    const names = input.UpdateExpression ? updatedNames(parseUpdate(input.UpdateExpression), placeholdersOf(input)) : [];
    const pick = (item: Item | undefined): Item =>
      Object.fromEntries(names.filter((name) => item?.[name] !== undefined).map((name) => [name, item![name]!]));
    let attributes: Item | undefined;
    switch (input.ReturnValues) {
      case 'ALL_NEW':
        attributes = after;
        break;
      case 'ALL_OLD':
        attributes = before;
        break;
      case 'UPDATED_NEW':
        attributes = pick(after);
        break;
      case 'UPDATED_OLD':
        attributes = pick(before);
        break;
    }
    return {
      ...(attributes && Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
      ...this.capacity(input, table, writeUnits(Math.max(itemSize(before), itemSize(after)))),
    };
  }

  private deleteItem(input: Json): Json {
    const table = this.table(input.TableName);
    const before = table.get(input.Key);
    this.failCondition(conditionOf(input), before, input);
    table.delete(input.Key);
    return {
      ...(input.ReturnValues === 'ALL_OLD' && before ? { Attributes: before } : {}),
      ...this.capacity(input, table, writeUnits(itemSize(before))),
    };
  }

  private query(input: Json): Json {
    const table = this.table(input.TableName);
    const index = input.IndexName ? table.indexes.get(input.IndexName) : undefined;
    if (input.IndexName && !index) throw validation(`The table does not have the specified index: ${input.IndexName}`);
    const keys = index?.keys ?? table.keys;
    const placeholders = placeholdersOf(input);
    const { partition, sortCondition } = keyConditionOf(parseCondition(input.KeyConditionExpression ?? ''), keys, placeholders);
    const forward = input.ScanIndexForward !== false;
    const start = input.ExclusiveStartKey as Item | undefined;
    // The run of the partition's items that meets the sort-key condition, by binary search, then the start key.
    let sortAt: (i: number) => string;
    let itemAt: (i: number) => Item;
    let length: number;
    let startAfter: ((i: number) => boolean) | undefined;
    let startBefore: ((i: number) => boolean) | undefined;
    if (index) {
      const entries = index.partitions.get(partition) ?? [];
      sortAt = (i) => entries[i]!.sort;
      itemAt = (i) => entries[i]!.item;
      length = entries.length;
      if (start) {
        const startEntry = index.entryOf(start, table.keys);
        if (!startEntry) throw validation('The provided starting key is invalid');
        startAfter = (i) => compareEntries(entries[i]!, startEntry) <= 0;
        startBefore = (i) => compareEntries(entries[i]!, startEntry) < 0;
      }
    } else {
      const stored = table.partitions.get(partition);
      const sortKeys = stored?.sortKeys ?? [];
      sortAt = (i) => sortKeys[i]!;
      itemAt = (i) => stored!.items[i]!;
      length = sortKeys.length;
      if (start) {
        const sort = table.keys.sort ? keyString(start, table.keys.sort) : '';
        startAfter = (i) => compareStrings(sortKeys[i]!, sort) <= 0;
        startBefore = (i) => compareStrings(sortKeys[i]!, sort) < 0;
      }
    }
    let [first, last] = sortRange(sortCondition, placeholders, length, sortAt);
    if (startAfter && startBefore) {
      if (forward) first = Math.max(first, lowerBound(length, startAfter));
      else last = Math.min(last, lowerBound(length, startBefore) - 1);
    }
    function* run(): Generator<Item> {
      if (forward) for (let i = first; i <= last; i += 1) yield itemAt(i);
      else for (let i = last; i >= first; i -= 1) yield itemAt(i);
    }
    return this.page(input, table, run(), [
      table.keys.partition,
      table.keys.sort,
      ...(index ? [index.keys.partition, index.keys.sort] : []),
    ]);
  }

  /** A page of `items` (in order, from the start key on): Limit, 1 MB, filter, projection, count. */
  private page(input: Json, table: Table, items: Iterable<Item>, keyNames: (string | undefined)[]): Json {
    const limit = input.Limit ?? Number.POSITIVE_INFINITY;
    let size = 0;
    const scanned: Item[] = [];
    for (const item of items) {
      if (scanned.length >= limit || size >= 1024 * 1024) break;
      size += itemSize(item);
      scanned.push(item);
    }
    const result: Json = { ScannedCount: scanned.length };
    if (scanned.length > 0 && (scanned.length >= limit || size >= 1024 * 1024)) {
      const last = scanned[scanned.length - 1]!;
      result.LastEvaluatedKey = Object.fromEntries(
        [...new Set(keyNames.filter((name): name is string => name !== undefined))].map((name) => [name, last[name]!]),
      );
    }
    const filter = input.FilterExpression ? parseCondition(input.FilterExpression) : undefined;
    const placeholders = placeholdersOf(input);
    const kept = filter ? scanned.filter((item) => matches(filter, item, placeholders)) : scanned;
    result.Count = kept.length;
    if (input.Select !== 'COUNT') result.Items = kept.map((item) => projected(item, input));
    return { ...result, ...this.capacity(input, table, Math.max(1, Math.ceil(size / 4096)) * (input.ConsistentRead ? 1 : 0.5)) };
  }

  private scan(input: Json): Json {
    const table = this.table(input.TableName);
    if (input.IndexName) throw validation('the stand-in table scans no index');
    const segments = input.TotalSegments ?? 1;
    const segment = input.Segment ?? 0;
    const partitions = [...table.partitions.keys()]
      .filter((key) => segments === 1 || hashOf(key) % segments === segment)
      .sort(compareStrings);
    const start = input.ExclusiveStartKey as Item | undefined;
    const startKey = start ? table.keyOf(start) : undefined;
    const first = startKey ? lowerBound(partitions.length, (i) => compareStrings(partitions[i]!, startKey.partition) < 0) : 0;
    const items: Item[] = [];
    const limit = input.Limit ?? Number.POSITIVE_INFINITY;
    for (let i = first; i < partitions.length && items.length < limit + 1; i += 1) {
      const stored = table.partitions.get(partitions[i]!)!;
      let at = 0;
      if (i === first && startKey && partitions[i] === startKey.partition) {
        at = lowerBound(stored.sortKeys.length, (j) => compareStrings(stored.sortKeys[j]!, startKey.sort) <= 0);
      }
      for (; at < stored.items.length; at += 1) items.push(stored.items[at]!);
    }
    return this.page(input, table, items, [table.keys.partition, table.keys.sort]);
  }

  private batchGet(input: Json): Json {
    const responses: Json = {};
    const capacity: Json[] = [];
    let keys = 0;
    for (const [name, request] of Object.entries(input.RequestItems ?? {}) as [string, Json][]) {
      const table = this.table(name);
      keys += request.Keys.length;
      let units = 0;
      responses[name] = [];
      for (const key of request.Keys) {
        const item = table.get(key);
        units += readUnits(itemSize(item), !!request.ConsistentRead);
        if (item) responses[name].push(projected(item, request));
      }
      capacity.push({ TableName: name, CapacityUnits: units });
    }
    if (keys > 100) throw validation('Too many items requested for the BatchGetItem call');
    return {
      Responses: responses,
      UnprocessedKeys: {},
      ...(input.ReturnConsumedCapacity && input.ReturnConsumedCapacity !== 'NONE' ? { ConsumedCapacity: capacity } : {}),
    };
  }

  private batchWrite(input: Json): Json {
    const capacity: Json[] = [];
    const requests = Object.entries(input.RequestItems ?? {}) as [string, Json[]][];
    if (requests.reduce((sum, [, list]) => sum + list.length, 0) > 25)
      throw validation('Too many items requested for the BatchWriteItem call');
    for (const [name, list] of requests) {
      const table = this.table(name);
      let units = 0;
      for (const request of list) {
        if (request.PutRequest) {
          const before = table.put(request.PutRequest.Item);
          units += writeUnits(Math.max(itemSize(before), itemSize(request.PutRequest.Item)));
        } else if (request.DeleteRequest) units += writeUnits(itemSize(table.delete(request.DeleteRequest.Key)));
        else throw validation('a BatchWriteItem request is neither a put nor a delete');
      }
      capacity.push({ TableName: name, CapacityUnits: units });
    }
    return {
      UnprocessedItems: {},
      ...(input.ReturnConsumedCapacity && input.ReturnConsumedCapacity !== 'NONE' ? { ConsumedCapacity: capacity } : {}),
    };
  }

  private transactWrite(input: Json, raw: string): Json {
    const now = Date.now();
    for (const [token, seen] of this.tokens) if (now - seen.at > 600_000) this.tokens.delete(token);
    const token = input.ClientRequestToken as string | undefined;
    if (token) {
      const seen = this.tokens.get(token);
      if (seen && seen.body !== raw)
        throw new DynamoError(
          'IdempotentParameterMismatchException',
          'The request uses the same client token as a previous, but non-identical request.',
        );
      if (seen) return {};
    }
    const operations = (input.TransactItems ?? []) as Json[];
    if (operations.length > 100) throw validation('Member must have length less than or equal to 100');
    // Check every condition against the table as it stands, then apply them all.
    const reasons: Json[] = [];
    const planned: (() => void)[] = [];
    const touched = new Set<string>();
    for (const operation of operations) {
      const [kind, request] = Object.entries(operation)[0] as [string, Json];
      const table = this.table(request.TableName);
      const key = kind === 'Put' ? this.keyOfItem(table, request.Item) : request.Key;
      const id = `${table.name}\u0000${JSON.stringify(table.keyOf(key))}`;
      if (touched.has(id)) throw validation('Transaction request cannot include multiple operations on one item');
      touched.add(id);
      const before = table.get(key);
      const condition = conditionOf(request);
      if (condition && !matches(condition, before ?? {}, placeholdersOf(request))) {
        reasons.push({
          Code: 'ConditionalCheckFailed',
          Message: 'The conditional request failed',
          ...(request.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && before ? { Item: before } : {}),
        });
        continue;
      }
      reasons.push({ Code: 'None' });
      if (kind === 'Put') planned.push(() => table.put(request.Item));
      else if (kind === 'Delete') planned.push(() => table.delete(request.Key));
      else if (kind === 'Update') {
        const { after } = this.updated(table, { ...request, ConditionExpression: undefined });
        planned.push(() => table.put(after));
      } else if (kind !== 'ConditionCheck') throw validation(`unknown transaction operation ${kind}`);
    }
    if (reasons.some((reason) => reason.Code !== 'None')) {
      throw new DynamoError(
        'TransactionCanceledException',
        `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`,
        { CancellationReasons: reasons },
      );
    }
    for (const apply of planned) apply();
    if (token) this.tokens.set(token, { body: raw, at: now });
    return {};
  }

  private transactGet(input: Json): Json {
    return {
      Responses: ((input.TransactItems ?? []) as Json[]).map(({ Get: request }) => {
        const item = this.table(request.TableName).get(request.Key);
        return item ? { Item: projected(item, request) } : {};
      }),
    };
  }
}

function hashOf(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return hash;
}

/** The first and last index (inclusive) of the sorted keys `sortAt(0..length-1)` that meet `condition`. */
function sortRange(
  condition: Condition | undefined,
  placeholders: Placeholders,
  length: number,
  sortAt: (i: number) => string,
): [number, number] {
  if (!condition) return [0, length - 1];
  const stringOf = (operand: Operand | undefined): string => {
    const value = operand?.kind === 'value' ? placeholders.values?.[operand.ref]?.S : undefined;
    if (value === undefined) throw validation('the stand-in table takes string values in key conditions');
    return value;
  };
  const below = (v: string) => lowerBound(length, (i) => compareStrings(sortAt(i), v) < 0);
  const upTo = (v: string) => lowerBound(length, (i) => compareStrings(sortAt(i), v) <= 0);
  if (condition.kind === 'between') return [below(stringOf(condition.low)), upTo(stringOf(condition.high)) - 1];
  if (condition.kind === 'function') {
    const prefix = stringOf(condition.args[1]);
    return [below(prefix), lowerBound(length, (i) => compareStrings(sortAt(i), prefix) < 0 || sortAt(i).startsWith(prefix)) - 1];
  }
  if (condition.kind !== 'compare') throw validation('Query key condition not supported');
  const v = stringOf(condition.b);
  switch (condition.op) {
    case '=':
      return [below(v), upTo(v) - 1];
    case '<':
      return [0, below(v) - 1];
    case '<=':
      return [0, upTo(v) - 1];
    case '>':
      return [upTo(v), length - 1];
    case '>=':
      return [below(v), length - 1];
    default:
      throw validation('Query key condition not supported');
  }
}

/** A key condition's partition value and the condition on the sort key, if any. */
function keyConditionOf(
  condition: Condition,
  keys: KeySchema,
  placeholders: Placeholders,
): { partition: string; sortCondition?: Condition } {
  const parts: Condition[] = [];
  const flatten = (part: Condition): void => {
    if (part.kind === 'and') {
      flatten(part.a);
      flatten(part.b);
    } else parts.push(part);
  };
  flatten(condition);
  const names = (part: Condition): string | undefined => {
    const operand = part.kind === 'compare' || part.kind === 'between' ? part.a : part.kind === 'function' ? part.args[0] : undefined;
    return operand?.kind === 'path' ? String(resolvePath(operand.path, placeholders)[0]) : undefined;
  };
  let partition: string | undefined;
  let sortCondition: Condition | undefined;
  for (const part of parts) {
    const name = names(part);
    if (name === keys.partition && part.kind === 'compare' && part.op === '=' && part.b.kind === 'value') {
      partition = placeholders.values?.[part.b.ref]?.S;
    } else if (name === keys.sort && keys.sort && !sortCondition && (part.kind !== 'function' || part.name === 'begins_with'))
      sortCondition = part;
    else throw validation('Query key condition not supported');
  }
  if (partition === undefined) throw validation('Query condition missed key schema element');
  return { partition, sortCondition };
}

const TARGET_PREFIX = 'DynamoDB_20120810.';

function latencyOf(operation: string, latency: StandInLatency): number {
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') return latency.batch;
  if (operation.startsWith('Transact')) return latency.transaction;
  if (['GetItem', 'Query', 'Scan', 'DescribeTable', 'DescribeTimeToLive', 'ListTables'].includes(operation)) return latency.read;
  return latency.write;
}

export async function startStandInTable(options: StandInTableOptions = {}): Promise<StandInTable> {
  const latency = options.latencyMs ?? AWS_LATENCY_MS;
  const state = new StandIn();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    const arrived = performance.now();
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const target = String(request.headers['x-amz-target'] ?? '');
      const operation = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
      let status = 200;
      let body: Json;
      try {
        body = state.handle(operation, JSON.parse(raw || '{}'), raw);
      } catch (error) {
        status = 400;
        if (error instanceof DynamoError)
          body = { __type: `com.amazonaws.dynamodb.v20120810#${error.type}`, message: error.message, ...error.extra };
        else if (error instanceof ExpressionError)
          body = { __type: 'com.amazon.coral.validate#ValidationException', message: `Invalid expression: ${error.message}` };
        else {
          status = 500;
          body = { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(error) };
        }
      }
      const text = JSON.stringify(body);
      const wait = Math.max(0, arrived + latencyOf(operation, latency) - performance.now());
      setTimeout(() => {
        response.writeHead(status, {
          'content-type': 'application/x-amz-json-1.0',
          'content-length': Buffer.byteLength(text),
          'x-amzn-requestid': 'stand-in',
        });
        response.end(text);
      }, wait);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    calls: () => ({ ...state.counts }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
