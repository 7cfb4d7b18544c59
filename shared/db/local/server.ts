/**
 * The embedded DynamoDB for local runs and tests: dynalite, behind a thin front server that adds what
 * dynalite lacks and the service relies on:
 *  - TransactWriteItems: all-or-nothing over up to 100 items, with ConditionCheck, Put, Update and
 *    Delete, and `CancellationReasons` in DynamoDB's format when a condition fails;
 *  - TransactGetItems;
 *  - UpdateTimeToLive / DescribeTimeToLive (recorded; readers treat a past `ttl` as absent, as they
 *    must in AWS, where deletion is lazy).
 *
 * Isolation: every ordinary request holds a shared lock while dynalite serves it; a write transaction
 * holds the lock exclusively, applies its operations one by one through dynalite's own conditional
 * writes and, if any condition fails, restores the before-image of every item it touched. No other
 * request can observe or interleave with a transaction. Nothing here is used in AWS.
 */
import { once } from 'node:events';
import http from 'node:http';
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

type Json = Record<string, any>;

const TARGET_PREFIX = 'DynamoDB_20120810.';
const JSON_TYPE = 'application/x-amz-json-1.0';

export async function startLocalDynamo(options: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  const host = options.host ?? '127.0.0.1';
  const backend = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  backend.listen(0, '127.0.0.1');
  await once(backend, 'listening');
  const backendPort = (backend.address() as AddressInfo).port;

  const lock = new SharedExclusiveLock();
  const ttl = new Map<string, string>();
  const keySchemas = new Map<string, string[]>();
  const call = (operation: string, body: Json) => callBackend(backendPort, operation, body);

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
            return lock.exclusive(() => transactWrite(JSON.parse(raw.toString() || '{}'), call, keySchemas));
          case 'TransactGetItems':
            return lock.shared(() => transactGet(JSON.parse(raw.toString() || '{}'), call));
          case 'UpdateTimeToLive':
            return updateTimeToLive(JSON.parse(raw.toString() || '{}'), ttl, call);
          case 'DescribeTimeToLive':
            return describeTimeToLive(JSON.parse(raw.toString() || '{}'), ttl, call);
          default:
            return lock.shared(() => forward(backendPort, request, raw));
        }
      };
      handle()
        .then((result) => {
          response.writeHead(result.status, result.headers ?? { 'content-type': JSON_TYPE });
          response.end(result.body);
        })
        .catch((error: Error) => {
          const body = JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: error.message });
          response.writeHead(500, { 'content-type': JSON_TYPE });
          response.end(body);
        });
    });
  });
  front.keepAliveTimeout = 1000;
  front.listen(options.port ?? 0, host);
  await once(front, 'listening');
  const port = (front.address() as AddressInfo).port;

  return {
    endpoint: `http://${host}:${port}`,
    port,
    close: async () => {
      front.closeAllConnections?.();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await new Promise<void>((resolve) => backend.close(() => resolve()));
    },
  };
}

interface BackendResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

async function callBackend(port: number, operation: string, body: Json): Promise<{ status: number; json: Json }> {
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'content-type': JSON_TYPE,
      'x-amz-target': TARGET_PREFIX + operation,
      // dynalite checks that a request is signed, not the signature itself.
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      'x-amz-date': '20200101T000000Z',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Json) : {} };
}

function forward(port: number, request: http.IncomingMessage, raw: Buffer): Promise<BackendResponse> {
  return new Promise((resolve, reject) => {
    const upstream = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.url, headers: { ...request.headers, host: `127.0.0.1:${port}` } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined && name !== 'connection' && name !== 'transfer-encoding') headers[name] = String(value);
          }
          resolve({ status: response.statusCode ?? 500, body: Buffer.concat(chunks).toString(), headers });
        });
        response.on('error', reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(raw);
  });
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

async function transactWrite(input: Json, call: Call, keySchemas: Map<string, string[]>): Promise<BackendResponse> {
  const items = input.TransactItems as Json[] | undefined;
  if (!Array.isArray(items) || items.length === 0 || items.length > 100) {
    return clientError('ValidationException', '1 validation error detected: Value at \'transactItems\' failed to satisfy constraint: Member must have length between 1 and 100');
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

  for (const operation of planned) {
    const current = await call('GetItem', { TableName: operation.tableName, Key: operation.key, ConsistentRead: true });
    if (current.status !== 200) return { status: current.status, body: JSON.stringify(current.json) };
    operation.before = current.json.Item;
  }

  const applied: PlannedOperation[] = [];
  for (let index = 0; index < planned.length; index += 1) {
    const operation = planned[index];
    const { ReturnValuesOnConditionCheckFailure: returnOld, ...params } = operation.params;
    const request =
      operation.kind === 'Put'
        ? call('PutItem', params)
        : operation.kind === 'Update'
          ? call('UpdateItem', params)
          : operation.kind === 'Delete'
            ? call('DeleteItem', params)
            : call('UpdateItem', { TableName: params.TableName, Key: params.Key, ConditionExpression: params.ConditionExpression, ExpressionAttributeNames: params.ExpressionAttributeNames, ExpressionAttributeValues: params.ExpressionAttributeValues });
    const result = await request;
    if (result.status === 200) {
      applied.push(operation);
      continue;
    }
    await restore(applied, call);
    if (String(result.json.__type ?? '').endsWith('ConditionalCheckFailedException')) {
      const reasons = planned.map((other, position) =>
        position === index
          ? {
              Code: 'ConditionalCheckFailed',
              Message: 'The conditional request failed',
              ...(returnOld === 'ALL_OLD' && other.before ? { Item: other.before } : {}),
            }
          : { Code: 'None' },
      );
      const codes = reasons.map((reason) => reason.Code).join(', ');
      return clientError('TransactionCanceledException', `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`, {
        CancellationReasons: reasons,
      });
    }
    return { status: result.status, body: JSON.stringify(result.json) };
  }

  // A condition check must leave no trace: put back what it may have created.
  await restore(applied.filter((operation) => operation.kind === 'ConditionCheck'), call);

  const response: Json = {};
  if (input.ReturnConsumedCapacity && input.ReturnConsumedCapacity !== 'NONE') {
    const units = planned.reduce((sum, operation) => sum + 2 * Math.max(1, Math.ceil(JSON.stringify(operation.params.Item ?? operation.key).length / 1024)), 0);
    const tables = [...new Set(planned.map((operation) => operation.tableName))];
    response.ConsumedCapacity = tables.map((tableName) => ({
      TableName: tableName,
      CapacityUnits: tables.length === 1 ? units : undefined,
    }));
  }
  return ok(response);
}

async function restore(operations: PlannedOperation[], call: Call): Promise<void> {
  for (const operation of [...operations].reverse()) {
    if (operation.before) await call('PutItem', { TableName: operation.tableName, Item: operation.before });
    else await call('DeleteItem', { TableName: operation.tableName, Key: operation.key });
  }
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
