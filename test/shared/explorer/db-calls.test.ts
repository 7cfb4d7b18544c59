/** The DynamoDB call counter, on the embedded DynamoDB through the real document client. */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../../shared/db/client';
import { countDatabaseCalls, totalCalls } from '../../../shared/explorer/db-calls';
import { useTestTable } from '../../support/table';

useTestTable('explorer-db-calls');

const query = () => db.send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'X' } }));
const get = () => db.send(new GetCommand({ TableName: tableName(), Key: { pk: 'X', sk: 'Y' } }));

describe('countDatabaseCalls', () => {
  it('counts each call by command, once per call', async () => {
    const { calls } = await countDatabaseCalls(async () => {
      await query();
      await query();
      await get();
    });
    expect(calls).toEqual({ QueryCommand: 2, GetItemCommand: 1 });
    expect(totalCalls(calls)).toBe(3);
  });

  it('counts nested scopes in their parents, and concurrent scopes apart', async () => {
    const outer = await countDatabaseCalls(async () => {
      await db.send(new PutCommand({ TableName: tableName(), Item: { pk: 'X', sk: 'Y' } }));
      const [a, b] = await Promise.all([countDatabaseCalls(query), countDatabaseCalls(async () => Promise.all([get(), get()]))]);
      expect(a.calls).toEqual({ QueryCommand: 1 });
      expect(b.calls).toEqual({ GetItemCommand: 2 });
    });
    expect(outer.calls).toEqual({ PutItemCommand: 1, QueryCommand: 1, GetItemCommand: 2 });
  });

  it('counts nothing outside a scope', async () => {
    await query();
    const { calls } = await countDatabaseCalls(async () => undefined);
    expect(calls).toEqual({});
  });
});
