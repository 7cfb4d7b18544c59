/**
 * The embedded table keeps table descriptions in memory (dynalite read them from the store before
 * every item operation). A table that is deleted and created again with another key, or whose settings
 * change, must be served as it now is, never as it was.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  PutItemCommand,
  QueryCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, expect, it } from 'vitest';
import { localClient } from '../../../../scripts/lib/local-table/ensure-table';
import { startLocalDynamo } from '../../../../scripts/lib/local-table/server';

const server = await startLocalDynamo();
const client = localClient(server.endpoint);
afterAll(async () => {
  client.destroy();
  await server.close();
});

const createTable = (keys: string[]) =>
  client.send(
    new CreateTableCommand({
      TableName: 'described',
      ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: keys.map((name, index) => ({ AttributeName: name, KeyType: index === 0 ? 'HASH' : 'RANGE' })),
    }),
  );

it('serves a table created again with another key as it now is', async () => {
  await createTable(['pk']);
  await client.send(new PutItemCommand({ TableName: 'described', Item: { pk: { S: 'a' } } }));
  await client.send(new DeleteTableCommand({ TableName: 'described' }));
  await expect(client.send(new PutItemCommand({ TableName: 'described', Item: { pk: { S: 'a' } } }))).rejects.toThrow(/not found/i);

  await createTable(['pk', 'sk']);
  // An item without the new sort key is refused, one with it is stored: the new key schema applies.
  await expect(client.send(new PutItemCommand({ TableName: 'described', Item: { pk: { S: 'a' } } }))).rejects.toThrow(/key/i);
  await client.send(new PutItemCommand({ TableName: 'described', Item: { pk: { S: 'a' }, sk: { S: '1' } } }));
  const described = await client.send(new DescribeTableCommand({ TableName: 'described' }));
  expect(described.Table?.KeySchema?.map((key) => key.AttributeName)).toEqual(['pk', 'sk']);
});

it('serves a table whose settings changed after the change was answered', async () => {
  await client.send(
    new UpdateTableCommand({ TableName: 'described', ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 9 } }),
  );
  // dynalite answers UPDATING and writes the table ACTIVE with its new throughput a moment later.
  let table = (await client.send(new DescribeTableCommand({ TableName: 'described' }))).Table;
  for (let attempt = 0; attempt < 50 && table?.TableStatus !== 'ACTIVE'; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    table = (await client.send(new DescribeTableCommand({ TableName: 'described' }))).Table;
  }
  expect(table?.TableStatus).toBe('ACTIVE');
  expect(table?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 7, WriteCapacityUnits: 9 });
  await client.send(new PutItemCommand({ TableName: 'described', Item: { pk: { S: 'b' }, sk: { S: '1' } } }));
  const items = await client.send(
    new QueryCommand({ TableName: 'described', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'b' } } }),
  );
  expect(items.Count).toBe(1);
});
