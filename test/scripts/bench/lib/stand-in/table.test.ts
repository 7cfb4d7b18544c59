/**
 * The bench's stand-in table (scripts/bench/lib/stand-in/table.ts) answers as dynalite does: every
 * call goes through a comparing proxy that sends it to dynalite (the tests' embedded DynamoDB) and to
 * the stand-in, one call at a time, and records any answer that differs (consumed capacity and
 * messages aside; a batch read's items in any order, as DynamoDB gives them). Two sources of calls:
 *  - calls written for the expression and paging rules the service relies on (conditions, updates,
 *    returned values, key conditions forward and back with start keys, an index, filters, counts,
 *    projections, transactions cancelled with their reasons, a resent transaction token);
 *  - the real ingest of a small Base-profile chain (a batch, then blocks one at a time), whose every
 *    table call must be answered the same; then both tables hold the same items.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStandInTable, type StandInTable } from '../../../../../scripts/bench/lib/stand-in/table';

type Json = Record<string, any>;

const dynalite = process.env.DYNAMODB_ENDPOINT!;
let standIn: StandInTable;
let proxy: http.Server;
let proxyEndpoint: string;
const mismatches: { operation: string; request: Json; dynalite: Json; standIn: Json }[] = [];
let compared = 0;

/** An answer as compared: status, error type and reasons, or the body without capacity, batch reads sorted. */
function normalized(operation: string, status: number, text: string): Json {
  const body = JSON.parse(text || '{}') as Json;
  if (status !== 200) {
    return {
      status,
      type: String(body.__type ?? '')
        .split('#')
        .pop(),
      reasons: body.CancellationReasons?.map((reason: Json) => ({ Code: reason.Code, Item: reason.Item })),
      item: body.Item,
    };
  }
  delete body.ConsumedCapacity;
  // A scan's order is the table's hashing of partition keys: unspecified, so compared as a set.
  if (operation === 'Scan') body.Items?.sort((a: Json, b: Json) => keyOf(a).localeCompare(keyOf(b)));
  if (operation === 'BatchGetItem') {
    for (const items of Object.values(body.Responses ?? {}) as Json[][]) items.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  }
  return { status, body };
}
const keyOf = (item: Json): string => `${item.pk?.S}|${item.sk?.S}`;

async function send(endpoint: string, headers: http.IncomingHttpHeaders, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)) as [string, string][],
    ),
    body,
  });
  return { status: response.status, text: await response.text() };
}

let queue = Promise.resolve();

beforeAll(async () => {
  standIn = await startStandInTable({ latencyMs: { read: 0, write: 0, batch: 0, transaction: 0 } });
  proxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const operation = String(request.headers['x-amz-target']).split('.').pop()!;
      queue = queue.then(async () => {
        const first = await send(dynalite, request.headers, body);
        const second = await send(standIn.endpoint, request.headers, body);
        compared += 1;
        const a = normalized(operation, first.status, first.text);
        const b = normalized(operation, second.status, second.text);
        if (JSON.stringify(sortKeys(a)) !== JSON.stringify(sortKeys(b))) {
          mismatches.push({
            operation,
            request: JSON.parse(body),
            dynalite: { ...a, message: JSON.parse(first.text || '{}').message },
            standIn: b,
          });
        }
        response.writeHead(first.status, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(first.text);
      });
    });
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  proxyEndpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await standIn?.close();
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Json)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

const client = (): DynamoDBClient =>
  new DynamoDBClient({
    endpoint: proxyEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: number | string): AttributeValue => ({ N: String(value) });

/** Every mismatch so far, shown in full when there is one. */
function expectNoMismatch(): void {
  expect(mismatches.slice(0, 3)).toEqual([]);
}

describe('the stand-in answers as dynalite', () => {
  test('conditions, updates, returned values, key conditions, an index, pages, filters, counts, projections, transactions', async () => {
    const { ensureTable, localClient } = await import('../../../../../scripts/lib/local-table/ensure-table');
    const name = `stand-in-rules-${Date.now()}`;
    for (const endpoint of [dynalite, standIn.endpoint]) await ensureTable(localClient(endpoint), name);
    const db = client();
    const calls: Promise<unknown>[] = [];
    const run = async (command: any): Promise<void> => {
      await db.send(command).catch(() => undefined); // errors are compared by the proxy
    };
    // Items: one partition of 30 sort keys, some with an index key, values of every scalar type.
    for (let i = 0; i < 30; i += 1) {
      const item: Record<string, AttributeValue> = {
        pk: S('P#1'),
        sk: S(`K#${String(i).padStart(3, '0')}`),
        n: N(i * 7 - 50),
        s: S(i % 3 === 0 ? 'apple' : 'banana'),
        b: { B: Buffer.from([i, 255 - i]) },
        tags: { SS: [`t${i % 4}`, 'all'] },
        nested: { M: { deep: N(i), list: { L: [S('x'), N(i)] } } },
      };
      if (i % 2 === 0) Object.assign(item, { gsi1pk: S('G#even'), gsi1sk: S(`V#${String(100 - i).padStart(3, '0')}`) });
      // gsi3 projects only keys (shared/table/definition.ts): its entries hold pk, sk, gsi3pk and gsi3sk.
      if (i % 3 === 0) Object.assign(item, { gsi3pk: S('G#three'), gsi3sk: S(`W#${String((i * 7) % 30).padStart(2, '0')}`) });
      calls.push(run(new PutItemCommand({ TableName: name, Item: item })));
    }
    await Promise.all(calls);
    const requests: any[] = [
      new PutItemCommand({ TableName: name, Item: { pk: S('P#1'), sk: S('K#000') }, ConditionExpression: 'attribute_not_exists(pk)' }),
      new PutItemCommand({
        TableName: name,
        Item: { pk: S('P#2'), sk: S('A') },
        ConditionExpression: 'attribute_not_exists(pk) OR #n > :z',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':z': N(0) },
        ReturnValues: 'ALL_OLD',
      }),
      new PutItemCommand({ TableName: name, Item: { pk: S('P#2'), sk: S('A'), n: N(3) }, ReturnValues: 'ALL_OLD' }),
      new UpdateItemCommand({
        TableName: name,
        Key: { pk: S('P#2'), sk: S('A') },
        UpdateExpression: 'SET #c = if_not_exists(#c, :zero) + :one, label = :label ADD tags :tags, n :minus REMOVE gone1',
        ExpressionAttributeNames: { '#c': 'count' },
        ExpressionAttributeValues: { ':zero': N(0), ':one': N('1.5'), ':label': S('x'), ':tags': { SS: ['a', 'b'] }, ':minus': N(-10) },
        ReturnValues: 'ALL_NEW',
      }),
      new UpdateItemCommand({
        TableName: name,
        Key: { pk: S('P#2'), sk: S('A') },
        UpdateExpression: 'SET #c = #c - :one DELETE tags :a',
        ConditionExpression: '#c BETWEEN :low AND :high AND NOT attribute_exists(nope) AND size(label) = :size',
        ExpressionAttributeNames: { '#c': 'count' },
        ExpressionAttributeValues: { ':one': N(1), ':a': { SS: ['a'] }, ':low': N(1), ':high': N(2), ':size': N(1) },
        ReturnValues: 'UPDATED_OLD',
      }),
      new UpdateItemCommand({
        TableName: name,
        Key: { pk: S('P#2'), sk: S('A') },
        UpdateExpression: 'SET label = :label',
        ConditionExpression: 'label IN (:p, :q) AND contains(tags, :b) AND begins_with(label, :x) AND n <> :n',
        ExpressionAttributeValues: { ':label': S('y'), ':p': S('x'), ':q': S('z'), ':b': S('b'), ':x': S('x'), ':n': N(0) },
        ReturnValues: 'UPDATED_NEW',
      }),
      new UpdateItemCommand({
        TableName: name,
        Key: { pk: S('P#2'), sk: S('A') },
        UpdateExpression: 'SET label = :label',
        ConditionExpression: 'label = :wrong',
        ExpressionAttributeValues: { ':label': S('z'), ':wrong': S('nope') },
      }),
      new UpdateItemCommand({
        TableName: name,
        Key: { pk: S('P#3'), sk: S('new') },
        UpdateExpression: 'ADD hits :one',
        ExpressionAttributeValues: { ':one': N(1) },
        ReturnValues: 'ALL_NEW',
      }),
      new GetItemCommand({ TableName: name, Key: { pk: S('P#2'), sk: S('A') } }),
      new GetItemCommand({
        TableName: name,
        Key: { pk: S('P#1'), sk: S('K#004') },
        ProjectionExpression: '#n, nested.deep, tags',
        ExpressionAttributeNames: { '#n': 'n' },
      }),
      new GetItemCommand({ TableName: name, Key: { pk: S('P#9'), sk: S('none') } }),
      new DeleteItemCommand({
        TableName: name,
        Key: { pk: S('P#3'), sk: S('new') },
        ConditionExpression: 'hits = :two',
        ExpressionAttributeValues: { ':two': N(2) },
      }),
      new DeleteItemCommand({ TableName: name, Key: { pk: S('P#3'), sk: S('new') }, ReturnValues: 'ALL_OLD' }),
    ];
    const query = (input: Record<string, unknown>) =>
      new QueryCommand({
        TableName: name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': S('P#1') },
        ...input,
      } as any);
    const keyed = (condition: string, values: Record<string, AttributeValue>, input: Record<string, unknown> = {}) =>
      query({ KeyConditionExpression: `pk = :pk AND ${condition}`, ExpressionAttributeValues: { ':pk': S('P#1'), ...values }, ...input });
    for (const forward of [true, false]) {
      requests.push(
        query({ ScanIndexForward: forward }),
        query({ ScanIndexForward: forward, Limit: 7 }),
        query({ ScanIndexForward: forward, Limit: 5, ExclusiveStartKey: { pk: S('P#1'), sk: S('K#010') } }),
        query({ ScanIndexForward: forward, Limit: 30 }),
        keyed('sk < :v', { ':v': S('K#012') }, { ScanIndexForward: forward, Limit: 1 }),
        keyed('sk <= :v', { ':v': S('K#012') }, { ScanIndexForward: forward, Limit: 2 }),
        keyed('sk > :v', { ':v': S('K#027') }, { ScanIndexForward: forward }),
        keyed('sk >= :v', { ':v': S('K#027') }, { ScanIndexForward: forward }),
        keyed('sk = :v', { ':v': S('K#013') }, { ScanIndexForward: forward }),
        keyed('sk BETWEEN :a AND :b', { ':a': S('K#005'), ':b': S('K#009') }, { ScanIndexForward: forward, Limit: 3 }),
        keyed('begins_with(sk, :p)', { ':p': S('K#01') }, { ScanIndexForward: forward }),
        keyed(
          'begins_with(sk, :p)',
          { ':p': S('K#01') },
          { ScanIndexForward: forward, Limit: 4, ExclusiveStartKey: { pk: S('P#1'), sk: S('K#013') } },
        ),
        query({
          ScanIndexForward: forward,
          FilterExpression: 's = :s AND n >= :low',
          ExpressionAttributeValues: { ':pk': S('P#1'), ':s': S('apple'), ':low': N(-20) },
        }),
        query({ ScanIndexForward: forward, Select: 'COUNT', Limit: 9 }),
        query({ ScanIndexForward: forward, ProjectionExpression: 'sk, b, nested.#l', ExpressionAttributeNames: { '#l': 'list' } }),
        new QueryCommand({
          TableName: name,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :g AND gsi1sk > :v',
          ExpressionAttributeValues: { ':g': S('G#even'), ':v': S('V#075') },
          ScanIndexForward: forward,
          Limit: 4,
        }),
        new QueryCommand({
          TableName: name,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :g',
          ExpressionAttributeValues: { ':g': S('G#even') },
          ScanIndexForward: forward,
          Limit: 3,
          ExclusiveStartKey: { pk: S('P#1'), sk: S('K#010'), gsi1pk: S('G#even'), gsi1sk: S('V#090') },
        }),
        new QueryCommand({
          TableName: name,
          IndexName: 'gsi3',
          KeyConditionExpression: 'gsi3pk = :g AND gsi3sk >= :w',
          ExpressionAttributeValues: { ':g': S('G#three'), ':w': S('W#10') },
          ScanIndexForward: forward,
          Limit: 3,
        }),
        new QueryCommand({
          TableName: name,
          IndexName: 'gsi3',
          KeyConditionExpression: 'gsi3pk = :g',
          ExpressionAttributeValues: { ':g': S('G#three') },
          ScanIndexForward: forward,
        }),
      );
    }
    const addOne = {
      Update: {
        TableName: name,
        Key: { pk: S('P#4'), sk: S('1') },
        UpdateExpression: 'ADD v :one',
        ExpressionAttributeValues: { ':one': N(1) },
      },
    };
    // A transaction's check that P#4/2 holds `value` (the second transaction's fails: it holds 2).
    const valueIs = (value: number) => ({
      ConditionCheck: {
        TableName: name,
        Key: { pk: S('P#4'), sk: S('2') },
        ConditionExpression: 'v = :value',
        ExpressionAttributeValues: { ':value': N(value) },
      },
    });
    // The same transaction twice under one token: the second is a resend, applied once.
    const tokenTransaction = () =>
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: name, Item: { pk: S('P#5'), sk: S('a') }, ConditionExpression: 'attribute_not_exists(pk)' } },
          addOne,
          valueIs(2),
          { Delete: { TableName: name, Key: { pk: S('P#1'), sk: S('K#001') } } },
        ],
        ClientRequestToken: 'token-1',
      });
    requests.push(
      new BatchWriteItemCommand({
        RequestItems: {
          [name]: [
            { PutRequest: { Item: { pk: S('P#4'), sk: S('1'), v: N(1) } } },
            { PutRequest: { Item: { pk: S('P#4'), sk: S('2'), v: N(2), gsi1pk: S('G#even'), gsi1sk: S('V#001') } } },
            { DeleteRequest: { Key: { pk: S('P#1'), sk: S('K#002') } } },
          ],
        },
      }),
      new BatchGetItemCommand({
        RequestItems: {
          [name]: {
            Keys: [
              { pk: S('P#4'), sk: S('2') },
              { pk: S('P#1'), sk: S('K#002') },
              { pk: S('P#1'), sk: S('K#003') },
            ],
            ProjectionExpression: 'pk, sk, v',
          },
        },
      }),
      new QueryCommand({
        TableName: name,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :g',
        ExpressionAttributeValues: { ':g': S('G#even') },
      }),
      tokenTransaction(),
      tokenTransaction(),
      new TransactWriteItemsCommand({
        TransactItems: [addOne, valueIs(3)],
      }),
      new GetItemCommand({ TableName: name, Key: { pk: S('P#4'), sk: S('1') }, ConsistentRead: true }),
      new ScanCommand({ TableName: name }),
    );
    for (const request of requests) await run(request);
    db.destroy();
    expect(compared).toBeGreaterThan(requests.length);
    expectNoMismatch();
    // The answers carried what the rules say, not only the same on both sides: a few of them, from the stand-in.
    const direct = new DynamoDBClient({
      endpoint: standIn.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const counted = await direct.send(new GetItemCommand({ TableName: name, Key: { pk: S('P#2'), sk: S('A') } }));
    expect(counted.Item).toMatchObject({ count: N('0.5'), label: S('y'), n: N(-7), tags: { SS: ['b'] } });
    const back = await direct.send(
      new QueryCommand({
        TableName: name,
        KeyConditionExpression: 'pk = :pk AND sk < :v',
        ExpressionAttributeValues: { ':pk': S('P#1'), ':v': S('K#012') },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    expect(back.Items?.map((item) => item.sk?.S)).toEqual(['K#011']);
    expect(back.LastEvaluatedKey).toEqual({ pk: S('P#1'), sk: S('K#011') });
    direct.destroy();
  });

  test('every call of a Base-profile ingest, and the table it leaves', async () => {
    process.env.DYNAMODB_ENDPOINT = proxyEndpoint;
    const name = `stand-in-ingest-${Date.now()}`;
    process.env.TABLE_NAME = name;
    const { ensureTable, localClient } = await import('../../../../../scripts/lib/local-table/ensure-table');
    const { useTable } = await import('../../../../../shared/db/client');
    const { ChainIngest, registerChain } = await import('../../../../../shared/ingest/ingest');
    const { smallBaseChain } = await import('../../../../support/base-chain');
    const { scanItems } = await import('../../../../../scripts/lib/local-table/scan');
    for (const endpoint of [dynalite, standIn.endpoint]) await ensureTable(localClient(endpoint), name);
    useTable(name);
    try {
      const before = compared;
      mismatches.length = 0;
      const { spec, chain } = smallBaseChain(10, 30);
      await registerChain(spec.chainId, 1);
      const options = { chainId: spec.chainId, client: chain.client(), log: { info: () => undefined, warn: () => undefined } };
      await new ChainIngest(options).ingestRange({ from: 1, to: 5 });
      const follower = new ChainIngest({ ...options, maxBatchBlocks: 1 });
      for (let n = 6; n <= chain.head; n += 1) await follower.ingestRange({ from: n, to: n });
      expect(compared - before).toBeGreaterThan(200);
      expectNoMismatch();
      const [fromDynalite, fromStandIn] = await Promise.all(
        [dynalite, standIn.endpoint].map((endpoint) => scanItems(localClient(endpoint), name)),
      );
      const sorted = (items: Record<string, unknown>[]) => items.map((item) => JSON.stringify(sortKeys(item))).sort();
      expect(fromDynalite.length).toBeGreaterThan(1000);
      expect(sorted(fromStandIn)).toEqual(sorted(fromDynalite));
    } finally {
      process.env.DYNAMODB_ENDPOINT = dynalite;
    }
  });
});
