import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { useTestTable, tableSnapshot } from '../../../support/table';

const table = useTestTable('localdb');
const { db } = await import('../../../../shared/db/client');

describe('embedded DynamoDB transactions', () => {
  it('applies every operation of a transaction whose conditions hold', async () => {
    await db.send(new PutCommand({ TableName: table.name, Item: { pk: 'S#1', sk: 'S', status: 'open' } }));
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table.name,
              Key: { pk: 'S#1', sk: 'S' },
              UpdateExpression: 'SET orderId = :o',
              ConditionExpression: '#s = :open AND attribute_not_exists(orderId)',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':o': 'A', ':open': 'open' },
            },
          },
          { Put: { TableName: table.name, Item: { pk: 'O#A', sk: 'O' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { ConditionCheck: { TableName: table.name, Key: { pk: 'P#1', sk: 'P' }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    const session = await db.send(new GetCommand({ TableName: table.name, Key: { pk: 'S#1', sk: 'S' } }));
    expect(session.Item?.orderId).toBe('A');
    const order = await db.send(new GetCommand({ TableName: table.name, Key: { pk: 'O#A', sk: 'O' } }));
    expect(order.Item).toBeDefined();
    // The condition check left no item behind.
    const probe = await db.send(new GetCommand({ TableName: table.name, Key: { pk: 'P#1', sk: 'P' } }));
    expect(probe.Item).toBeUndefined();
  });

  it('applies nothing when one condition fails, and says which one', async () => {
    const before = await tableSnapshot(table.name);
    const attempt = db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table.name, Item: { pk: 'O#B', sk: 'O' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Update: {
              TableName: table.name,
              Key: { pk: 'S#1', sk: 'S' },
              UpdateExpression: 'SET orderId = :o',
              ConditionExpression: 'attribute_not_exists(orderId)',
              ExpressionAttributeValues: { ':o': 'B' },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
    expect(reasons.map((reason) => reason.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(reasons[1].Item?.orderId).toEqual({ S: 'A' });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('lets exactly one of many concurrent transactions on one item win', async () => {
    await db.send(new PutCommand({ TableName: table.name, Item: { pk: 'S#2', sk: 'S', status: 'open' } }));
    const attempts = Array.from({ length: 30 }, (_, i) =>
      db
        .send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: table.name,
                  Key: { pk: 'S#2', sk: 'S' },
                  UpdateExpression: 'SET orderId = :o',
                  ConditionExpression: 'attribute_not_exists(orderId)',
                  ExpressionAttributeValues: { ':o': `R${i}` },
                },
              },
              { Put: { TableName: table.name, Item: { pk: `O#R${i}`, sk: 'O' } } },
            ],
          }),
        )
        .then(
          () => true,
          () => false,
        ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const orders = (await tableSnapshot(table.name)).filter((item) => String(item.pk).startsWith('O#R'));
    expect(orders).toHaveLength(1);
  });

  it('rejects two operations on one item', async () => {
    const attempt = db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table.name, Item: { pk: 'D#1', sk: 'D' } } },
          { Delete: { TableName: table.name, Key: { pk: 'D#1', sk: 'D' } } },
        ],
      }),
    );
    await expect(attempt).rejects.toThrow(/multiple operations on one item/);
  });

  it('serves ordinary conditional writes through dynalite', async () => {
    await db.send(
      new UpdateCommand({
        TableName: table.name,
        Key: { pk: 'C#1', sk: 'C' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const counter = await db.send(new GetCommand({ TableName: table.name, Key: { pk: 'C#1', sk: 'C' } }));
    expect(counter.Item?.n).toBe(1);
  });
});

describe('embedded DynamoDB connections', () => {
  it('keeps the service client on one connection across sequential calls', async () => {
    // Node's HTTP agent drops a socket whose server announces a keep-alive of 1 s or less (it keeps a
    // 1 s margin), so the embedded table once cost a new TCP connection per call.
    const { startLocalDynamo } = await import('../../../../scripts/lib/local-table/server');
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
    const { ensureTable, localClient } = await import('../../../../scripts/lib/local-table/ensure-table');
    const server = await startLocalDynamo();
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'us-east-1', endpoint: server.endpoint, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
    );
    const connections: unknown[] = [];
    try {
      await ensureTable(localClient(server.endpoint), 'keep-alive');
      const net = await import('node:net');
      const connect = net.Socket.prototype.connect;
      net.Socket.prototype.connect = function (this: unknown, ...args: unknown[]) {
        connections.push(args[0]);
        return (connect as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof connect;
      try {
        for (let call = 0; call < 10; call += 1) await client.send(new GetCommand({ TableName: 'keep-alive', Key: { pk: 'K', sk: 'K' } }));
      } finally {
        net.Socket.prototype.connect = connect;
      }
    } finally {
      client.destroy();
      await server.close();
    }
    expect(connections.length).toBeLessThanOrEqual(1);
  });
});
