/**
 * The embedded DynamoDB for local runs and tests: dynalite, behind a thin front server that adds what
 * dynalite lacks and the service relies on:
 *  - TransactWriteItems: all-or-nothing over up to 100 items, with ConditionCheck, Put, Update and
 *    Delete, and `CancellationReasons` in DynamoDB's format when a condition fails;
 *  - a TransactWriteItems' ClientRequestToken: the same token with the same request within 10 minutes
 *    succeeds again without applying anything (a resend after a lost response), with another request it
 *    is DynamoDB's IdempotentParameterMismatchException;
 *  - TransactGetItems;
 *  - UpdateTimeToLive / DescribeTimeToLive (recorded; readers treat a past `ttl` as absent, as they
 *    must in AWS, where deletion is lazy).
 *
 * Isolation: every ordinary request holds a shared lock while dynalite serves it; a write transaction
 * holds the lock exclusively, applies its operations one by one through dynalite's own conditional
 * writes and, if any condition fails, restores the before-image of every item it touched. No other
 * request can observe or interleave with a transaction. Nothing here is used in AWS.
 */
import { createHash } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface LocalDynamoOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** LevelDB folder for a persistent store; in memory when absent. */
  path?: string;
}

export interface LocalDynamo {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

// DynamoDB's JSON wire format: attribute values of any shape.
type Json = Record<string, any>;

const TARGET_PREFIX = 'DynamoDB_20120810.';
const JSON_TYPE = 'application/x-amz-json-1.0';

export async function startLocalDynamo(options: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  const host = options.host ?? '127.0.0.1';
  patchDynaliteStores();
  const backend = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  backend.listen(0, '127.0.0.1');
  await once(backend, 'listening');

  const lock = new SharedExclusiveLock();
  const ttl = new Map<string, string>();
  const keySchemas = new Map<string, string[]>();
  const tokens = new TransactionTokens();
  // Requests reach dynalite's own request handler in this process, without a second HTTP hop.
  const backendHandler = backend.listeners('request')[0] as (request: http.IncomingMessage, response: http.ServerResponse) => void;
  const call = (operation: string, body: Json) => callBackend(backendHandler, operation, body);

  // Requests being served: close() lets them finish before it closes the store under them.
  const inFlight = new Set<Promise<void>>();
  const front = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const target = String(request.headers['x-amz-target'] ?? '');
      const operation = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
      const handle = async (): Promise<BackendResponse> => {
        switch (operation) {
          case 'TransactWriteItems':
            return lock.exclusive(() => tokens.once(JSON.parse(raw.toString() || '{}'), (input) => transactWrite(input, call, keySchemas)));
          case 'TransactGetItems':
            return lock.shared(() => transactGet(JSON.parse(raw.toString() || '{}'), call));
          case 'UpdateTimeToLive':
            return updateTimeToLive(JSON.parse(raw.toString() || '{}'), ttl, call);
          case 'DescribeTimeToLive':
            return describeTimeToLive(JSON.parse(raw.toString() || '{}'), ttl, call);
          default:
            return lock.shared(() => forward(backendHandler, request, raw));
        }
      };
      const handled = handle()
        .then((result) => {
          response.writeHead(result.status, result.headers ?? { 'content-type': JSON_TYPE });
          response.end(result.body);
        })
        .catch((error: Error) => {
          const body = JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: error.message });
          response.writeHead(500, { 'content-type': JSON_TYPE });
          response.end(body);
        });
      inFlight.add(handled);
      void handled.finally(() => inFlight.delete(handled));
    });
  });
  // Idle connections stay open long enough to be reused: Node's HTTP agent (the AWS SDK's) drops a socket
  // whose server announces a keep-alive of 1 s or less, since it keeps a 1 s margin, and then pays a new
  // connection per call. close() ends them all at once.
  front.keepAliveTimeout = 65_000;
  front.listen(options.port ?? 0, host);
  await once(front, 'listening');
  const port = (front.address() as AddressInfo).port;

  return {
    endpoint: `http://${host}:${port}`,
    port,
    close: async () => {
      front.closeAllConnections?.();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      // dynalite throws (uncaught) when the store closes under a request it is serving.
      await Promise.allSettled([...inFlight]);
      await new Promise<void>((resolve) => backend.close(() => resolve()));
    },
  };
}

interface LevelIterator {
  close(): Promise<void>;
  return?: () => Promise<void>;
}

type LevelDatabase = Record<'keys' | 'values', (options?: object) => LevelIterator>;
type Callback = (error: Error | null, value?: unknown) => void;

/** dynalite's sub-database of table descriptions (callback style, JSON values). */
interface TableDescriptions {
  get(key: string, callback: Callback): void;
  put(key: string, value: unknown, callback: Callback): void;
  del(key: string, callback: Callback): void;
  batch(operations: unknown[], callback: Callback): void;
}

/**
 * Two changes to every store dynalite creates from now on (each server, and dynalite's own recreate):
 *
 * Iterators closed. dynalite 4 reads LevelDB (or memory-level) through abstract-level 3 iterators
 * wrapped in streams, and releases them with `iterator.return()`, which those iterators do not have:
 * every Query, Scan and ListTables left its iterator open and attached to the database, never
 * collected. Under load that is memory that never comes back (native LevelDB iterators outside the V8
 * heap; snapshots in the heap for the in-memory store). The iterators get a `return()` that closes them
 * (dynalite calls it when a stream ends or is cut short by a Limit).
 *
 * Table descriptions kept. dynalite reads the table's description from the store before every item
 * operation, once per item of a batch: on a LevelDB store that read was a seventh of the table
 * process's time while the benchmark dataset was built. The descriptions are kept in memory,
 * written through: every put, del or batch on them drops what is kept (and a read that started before
 * a write does not keep its answer), so a table's status or indexes are never served stale.
 */
function patchDynaliteStores(): void {
  const stores = createRequire(import.meta.url)('dynalite/db') as {
    create: (options: object) => { db: LevelDatabase; tableDb: TableDescriptions };
    patched?: true;
  };
  if (stores.patched) return;
  const create = stores.create;
  stores.create = (options) => {
    const store = create(options);
    for (const method of ['keys', 'values'] as const) {
      const open = store.db[method].bind(store.db);
      store.db[method] = (iteratorOptions) => {
        const iterator = open(iteratorOptions);
        iterator.return ??= () => iterator.close();
        return iterator;
      };
    }
    keepTableDescriptions(store.tableDb);
    return store;
  };
  stores.patched = true;
}

function keepTableDescriptions(tables: TableDescriptions): void {
  const kept = new Map<string, string>();
  let version = 0;
  const { get, put, del, batch } = tables;
  tables.get = (key, callback) => {
    const json = kept.get(key);
    if (json !== undefined) {
      setImmediate(() => callback(null, JSON.parse(json)));
      return;
    }
    const readAt = version;
    get.call(tables, key, (error, value) => {
      if (!error && value !== undefined && readAt === version) kept.set(key, JSON.stringify(value));
      callback(error, value);
    });
  };
  // Dropped when a write starts and again when it has landed: a read that ran meanwhile may have seen either.
  const forget = (): void => {
    version += 1;
    kept.clear();
  };
  const landed =
    (callback?: Callback): Callback =>
    (error, result) => {
      forget();
      callback?.(error, result);
    };
  tables.put = (key, value, callback) => {
    forget();
    put.call(tables, key, value, landed(callback));
  };
  tables.del = (key, callback) => {
    forget();
    del.call(tables, key, landed(callback));
  };
  tables.batch = (operations, callback) => {
    forget();
    batch.call(tables, operations, landed(callback));
  };
}

interface BackendResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

type BackendHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/**
 * One exchange with dynalite's request handler, in process: a minimal request (headers, method,
 * url, one 'data' and an 'end' event) and a response that collects status, headers and body.
 */
function exchange(
  handler: BackendHandler,
  method: string,
  url: string,
  headers: http.IncomingHttpHeaders,
  body: Buffer,
): Promise<BackendResponse> {
  return new Promise((resolve, reject) => {
    const request = Object.assign(new EventEmitter(), { method, url, headers });
    const responseHeaders: Record<string, string> = {};
    const response = {
      statusCode: 200,
      contentType: undefined as string | undefined,
      setHeader(name: string, value: unknown) {
        responseHeaders[name.toLowerCase()] = String(value);
      },
      end(data?: string | Buffer) {
        resolve({ status: response.statusCode, body: data === undefined ? '' : data.toString(), headers: responseHeaders });
      },
    };
    try {
      handler(request as unknown as http.IncomingMessage, response as unknown as http.ServerResponse);
      if (body.length > 0) request.emit('data', body);
      request.emit('end');
    } catch (error) {
      reject(error as Error);
    }
  });
}

const BACKEND_HEADERS = {
  'content-type': JSON_TYPE,
  // dynalite checks that a request is signed, not the signature itself.
  authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  'x-amz-date': '20200101T000000Z',
};

async function callBackend(handler: BackendHandler, operation: string, body: Json): Promise<{ status: number; json: Json }> {
  const result = await exchange(
    handler,
    'POST',
    '/',
    { ...BACKEND_HEADERS, 'x-amz-target': TARGET_PREFIX + operation },
    Buffer.from(JSON.stringify(body)),
  );
  return { status: result.status, json: result.body ? (JSON.parse(result.body) as Json) : {} };
}

function forward(handler: BackendHandler, request: http.IncomingMessage, raw: Buffer): Promise<BackendResponse> {
  return exchange(handler, request.method ?? 'POST', request.url ?? '/', request.headers, raw);
}

const ok = (body: Json): BackendResponse => ({ status: 200, body: JSON.stringify(body) });
const clientError = (type: string, message: string, extra: Json = {}): BackendResponse => ({
  status: 400,
  body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message, ...extra }),
});

type Call = (operation: string, body: Json) => Promise<{ status: number; json: Json }>;

async function keyAttributes(tableName: string, call: Call, cache: Map<string, string[]>): Promise<string[]> {
  const cached = cache.get(tableName);
  if (cached) return cached;
  const described = await call('DescribeTable', { TableName: tableName });
  if (described.status !== 200) throw Object.assign(new Error('table'), { response: described });
  const names = (described.json.Table.KeySchema as { AttributeName: string }[]).map((key) => key.AttributeName);
  cache.set(tableName, names);
  return names;
}

interface PlannedOperation {
  kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  params: Json;
  tableName: string;
  key: Json;
  before?: Json;
}

/**
 * DynamoDB's idempotency of TransactWriteItems: a request carrying a ClientRequestToken already seen
 * in the last 10 minutes succeeds without being applied again when it is the same request, and fails
 * with IdempotentParameterMismatchException when it is another one. Only committed requests count.
 *
 * Tokens are kept in the order they were committed (one transaction at a time holds the exclusive
 * lock), so expiry drops from the oldest end and stops at the first live one: constant work per call
 * however many transactions the last 10 minutes held (a scan of them all was an eighth of the table
 * process's time while the benchmark dataset was built). A digest of each request is kept, not the
 * request.
 */
export class TransactionTokens {
  private readonly seen = new Map<string, { digest: string; at: number }>();
  static readonly LIFETIME_MS = 10 * 60_000;

  constructor(private readonly clock: () => number = Date.now) {}

  /** Tokens still remembered (for tests). */
  get size(): number {
    return this.seen.size;
  }

  async once(input: Json, apply: (input: Json) => Promise<BackendResponse>): Promise<BackendResponse> {
    const token = input.ClientRequestToken as string | undefined;
    if (token === undefined) return apply(input);
    const now = this.clock();
    for (const [key, entry] of this.seen) {
      if (now - entry.at <= TransactionTokens.LIFETIME_MS) break;
      this.seen.delete(key);
    }
    const { ClientRequestToken: _token, ...rest } = input;
    const digest = createHash('sha256').update(JSON.stringify(rest)).digest('base64');
    const previous = this.seen.get(token);
    if (previous) {
      if (previous.digest !== digest) {
        return clientError(
          'IdempotentParameterMismatchException',
          'The request uses the same client token as a previous, but non-identical request',
        );
      }
      return { status: 200, body: '{}' };
    }
    const result = await apply(input);
    if (result.status === 200) this.seen.set(token, { digest, at: now });
    return result;
  }
}

async function transactWrite(input: Json, call: Call, keySchemas: Map<string, string[]>): Promise<BackendResponse> {
  const items = input.TransactItems as Json[] | undefined;
  if (!Array.isArray(items) || items.length === 0 || items.length > 100) {
    return clientError(
      'ValidationException',
      "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length between 1 and 100",
    );
  }
  const planned: PlannedOperation[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const kind = (['Put', 'Update', 'Delete', 'ConditionCheck'] as const).find((name) => item[name]);
    if (!kind) return clientError('ValidationException', 'TransactItems can only contain one of Check, Put, Update or Delete');
    const params = item[kind] as Json;
    const tableName = params.TableName as string;
    let names: string[];
    try {
      names = await keyAttributes(tableName, call, keySchemas);
    } catch {
      return clientError('ResourceNotFoundException', 'Requested resource not found');
    }
    const source = kind === 'Put' ? params.Item : params.Key;
    if (!source) return clientError('ValidationException', `${kind} needs ${kind === 'Put' ? 'Item' : 'Key'}`);
    const key = Object.fromEntries(names.map((name) => [name, source[name]]));
    const identity = `${tableName}|${JSON.stringify(key)}`;
    if (seen.has(identity)) {
      return clientError('ValidationException', 'Transaction request cannot include multiple operations on one item');
    }
    seen.add(identity);
    planned.push({ kind, params, tableName, key });
  }

  // Before-images of every item, in one consistent BatchGetItem per table (keys the batch leaves
  // unprocessed are read one by one).
  const imageError = await readBeforeImages(planned, call);
  if (imageError) return imageError;

  // Conditional operations (and Updates) one call each, in parallel: they touch distinct items and
  // nothing else runs while the exclusive lock is held, so the outcome is that of any serial order.
  // Unconditional Puts and Deletes cannot fail on a condition: they go in BatchWriteItem calls after.
  const plain = (operation: PlannedOperation) =>
    (operation.kind === 'Put' || operation.kind === 'Delete') && operation.params.ConditionExpression === undefined;
  const results = await Promise.all(
    planned.map(async (operation) => {
      if (plain(operation)) return undefined;
      const { ReturnValuesOnConditionCheckFailure: _returnOld, ...params } = operation.params;
      return operation.kind === 'Put'
        ? call('PutItem', params)
        : operation.kind === 'Update'
          ? call('UpdateItem', params)
          : operation.kind === 'Delete'
            ? call('DeleteItem', params)
            : call('UpdateItem', {
                TableName: params.TableName,
                Key: params.Key,
                ConditionExpression: params.ConditionExpression,
                ExpressionAttributeNames: params.ExpressionAttributeNames,
                ExpressionAttributeValues: params.ExpressionAttributeValues,
              });
    }),
  );
  const failed = results.flatMap((result, index) => (result && result.status !== 200 ? [{ index, result }] : []));
  if (failed.length > 0) {
    // Restoring an item that was not written puts back what is already there: harmless.
    await restore(planned, call);
    const other = failed.find(({ result }) => !String(result.json.__type ?? '').endsWith('ConditionalCheckFailedException'));
    if (other) return { status: other.result.status, body: JSON.stringify(other.result.json) };
    const failing = new Set(failed.map(({ index }) => index));
    const reasons = planned.map((operation, position) =>
      failing.has(position)
        ? {
            Code: 'ConditionalCheckFailed',
            Message: 'The conditional request failed',
            ...(operation.params.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && operation.before ? { Item: operation.before } : {}),
          }
        : { Code: 'None' },
    );
    const codes = reasons.map((reason) => reason.Code).join(', ');
    return clientError(
      'TransactionCanceledException',
      `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
      {
        CancellationReasons: reasons,
      },
    );
  }
  const writeError = await batchWrite(
    planned.filter(plain).map((operation) => ({
      tableName: operation.tableName,
      request:
        operation.kind === 'Put' ? { PutRequest: { Item: operation.params.Item } } : { DeleteRequest: { Key: operation.params.Key } },
    })),
    call,
  );
  if (writeError) {
    await restore(planned, call);
    return writeError;
  }

  // A condition check must leave no trace: put back what it may have created.
  await restore(
    planned.filter((operation) => operation.kind === 'ConditionCheck'),
    call,
  );

  const response: Json = {};
  if (input.ReturnConsumedCapacity && input.ReturnConsumedCapacity !== 'NONE') {
    const units = planned.reduce(
      (sum, operation) => sum + 2 * Math.max(1, Math.ceil(JSON.stringify(operation.params.Item ?? operation.key).length / 1024)),
      0,
    );
    const tables = [...new Set(planned.map((operation) => operation.tableName))];
    response.ConsumedCapacity = tables.map((tableName) => ({
      TableName: tableName,
      CapacityUnits: tables.length === 1 ? units : undefined,
    }));
  }
  return ok(response);
}

/** Reads the current item of every planned operation into `before`; returns an error response on failure. */
async function readBeforeImages(planned: PlannedOperation[], call: Call): Promise<BackendResponse | undefined> {
  const identity = (tableName: string, key: Json) => `${tableName}|${JSON.stringify(key)}`;
  const byIdentity = new Map(planned.map((operation) => [identity(operation.tableName, operation.key), operation]));
  const tables = [...new Set(planned.map((operation) => operation.tableName))];
  const unread = new Set(planned);
  for (const table of tables) {
    const operations = planned.filter((operation) => operation.tableName === table);
    const result = await call('BatchGetItem', {
      RequestItems: { [table]: { Keys: operations.map((operation) => operation.key), ConsistentRead: true } },
    });
    if (result.status !== 200) return { status: result.status, body: JSON.stringify(result.json) };
    const names = Object.keys(operations[0].key);
    const unprocessed = new Set(
      ((result.json.UnprocessedKeys?.[table]?.Keys ?? []) as Json[]).map((key) =>
        identity(table, Object.fromEntries(names.map((name) => [name, key[name]]))),
      ),
    );
    for (const item of (result.json.Responses?.[table] ?? []) as Json[]) {
      const operation = byIdentity.get(identity(table, Object.fromEntries(names.map((name) => [name, item[name]]))));
      if (operation) operation.before = item;
    }
    for (const operation of operations) if (!unprocessed.has(identity(table, operation.key))) unread.delete(operation);
  }
  for (const operation of unread) {
    const current = await call('GetItem', { TableName: operation.tableName, Key: operation.key, ConsistentRead: true });
    if (current.status !== 200) return { status: current.status, body: JSON.stringify(current.json) };
    operation.before = current.json.Item;
  }
  return undefined;
}

/** Unconditional puts and deletes, 25 per BatchWriteItem; unprocessed ones are retried one by one. */
async function batchWrite(requests: { tableName: string; request: Json }[], call: Call): Promise<BackendResponse | undefined> {
  for (let start = 0; start < requests.length; start += 25) {
    const chunk = requests.slice(start, start + 25);
    const requestItems: Record<string, Json[]> = {};
    for (const { tableName, request } of chunk) {
      requestItems[tableName] ??= [];
      requestItems[tableName].push(request);
    }
    const result = await call('BatchWriteItem', { RequestItems: requestItems });
    if (result.status !== 200) return { status: result.status, body: JSON.stringify(result.json) };
    for (const [tableName, left] of Object.entries((result.json.UnprocessedItems ?? {}) as Record<string, Json[]>)) {
      for (const request of left) {
        const single = request.PutRequest
          ? await call('PutItem', { TableName: tableName, Item: request.PutRequest.Item })
          : await call('DeleteItem', { TableName: tableName, Key: request.DeleteRequest.Key });
        if (single.status !== 200) return { status: single.status, body: JSON.stringify(single.json) };
      }
    }
  }
  return undefined;
}

/** Puts back the before-image of every operation's item (deletes it when there was none). */
async function restore(operations: PlannedOperation[], call: Call): Promise<void> {
  await batchWrite(
    operations.map((operation) => ({
      tableName: operation.tableName,
      request: operation.before ? { PutRequest: { Item: operation.before } } : { DeleteRequest: { Key: operation.key } },
    })),
    call,
  );
}

async function transactGet(input: Json, call: Call): Promise<BackendResponse> {
  const items = input.TransactItems as Json[] | undefined;
  if (!Array.isArray(items) || items.length === 0 || items.length > 100) {
    return clientError('ValidationException', 'TransactItems must have between 1 and 100 members');
  }
  const responses: Json[] = [];
  for (const item of items) {
    const get = item.Get as Json;
    const result = await call('GetItem', { ...get, ConsistentRead: true });
    if (result.status !== 200) return { status: result.status, body: JSON.stringify(result.json) };
    responses.push(result.json.Item ? { Item: result.json.Item } : {});
  }
  return ok({ Responses: responses });
}

async function updateTimeToLive(input: Json, ttl: Map<string, string>, call: Call): Promise<BackendResponse> {
  const described = await call('DescribeTable', { TableName: input.TableName });
  if (described.status !== 200) return { status: described.status, body: JSON.stringify(described.json) };
  const specification = input.TimeToLiveSpecification as { Enabled: boolean; AttributeName: string };
  if (specification.Enabled) ttl.set(input.TableName, specification.AttributeName);
  else ttl.delete(input.TableName);
  return ok({ TimeToLiveSpecification: specification });
}

async function describeTimeToLive(input: Json, ttl: Map<string, string>, call: Call): Promise<BackendResponse> {
  const described = await call('DescribeTable', { TableName: input.TableName });
  if (described.status !== 200) return { status: described.status, body: JSON.stringify(described.json) };
  const attribute = ttl.get(input.TableName);
  return ok({
    TimeToLiveDescription: attribute ? { TimeToLiveStatus: 'ENABLED', AttributeName: attribute } : { TimeToLiveStatus: 'DISABLED' },
  });
}

/** Many shared holders or one exclusive holder; waiting exclusive requests block new shared ones. */
class SharedExclusiveLock {
  private sharedHolders = 0;
  private exclusiveHeld = false;
  private queue: { exclusive: boolean; start: () => void }[] = [];

  shared<T>(work: () => Promise<T>): Promise<T> {
    return this.acquire(false, work);
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.acquire(true, work);
  }

  private acquire<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        if (exclusive) this.exclusiveHeld = true;
        else this.sharedHolders += 1;
        work()
          .then(resolve, reject)
          .finally(() => {
            if (exclusive) this.exclusiveHeld = false;
            else this.sharedHolders -= 1;
            this.drain();
          });
      };
      this.queue.push({ exclusive, start });
      this.drain();
    });
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const next = this.queue[0];
      if (this.exclusiveHeld) return;
      if (next.exclusive) {
        if (this.sharedHolders > 0) return;
        this.queue.shift();
        next.start();
        return;
      }
      this.queue.shift();
      next.start();
    }
  }
}
