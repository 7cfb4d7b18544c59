/**
 * The table layer against the embedded DynamoDB: chunking (100 keys a BatchGetItem, 25 items a
 * BatchWriteItem), the retry of what DynamoDB leaves undone (unprocessed keys and items, transaction
 * conflicts), conditional writes, paging, and the opt-in measurement of calls, items and capacity.
 * Leftovers and conflicts are injected by a middleware on the real client: the part of a batch that
 * it lets through is really written, the rest must be written by the layer's retry.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db } from '../../../shared/db/client';
import { measureTable, totalCalls } from '../../../shared/db/instrument';
import {
  batchGetItems,
  countItems,
  deleteItem,
  getItem,
  putItem,
  queryAll,
  queryPage,
  transactWrite,
  updateItem,
  writeItems,
} from '../../../shared/db/operations';
import { keyId, type TableItem } from '../../../shared/table/keys';
import { useTestTable } from '../../support/table';

useTestTable('table-layer');

const item = (pk: string, n: number): TableItem => ({ pk, sk: String(n).padStart(6, '0'), n });
const range = (pk: string) => ({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } });

type Fault = (
  commandName: string,
  input: any,
) => 'pass' | { respond: unknown } | { passPart: (input: any) => { input: any; leftover: unknown } };
let fault: Fault | undefined;
const sentSizes: Record<string, number[]> = {};
const record = (name: string, size: number) => {
  sentSizes[name] ??= [];
  sentSizes[name].push(size);
};

db.middlewareStack.add(
  (next, context) => async (args) => {
    const name = context.commandName ?? '';
    const input = args.input as any;
    if (name === 'BatchWriteItemCommand') record(name, Object.values(input.RequestItems as Record<string, unknown[]>)[0]!.length);
    if (name === 'BatchGetItemCommand')
      record(name, Object.values(input.RequestItems as Record<string, { Keys: unknown[] }>)[0]!.Keys.length);
    const decision = fault?.(name, input) ?? 'pass';
    if (decision === 'pass') return next(args);
    if ('respond' in decision) throw decision.respond;
    const { input: part, leftover } = decision.passPart(input);
    const result = await next({ ...args, input: part });
    (result.output as any)[name === 'BatchWriteItemCommand' ? 'UnprocessedItems' : 'UnprocessedKeys'] = leftover;
    return result;
  },
  { step: 'initialize', name: 'testFaults', priority: 'high' },
);

afterEach(() => {
  fault = undefined;
  for (const name of Object.keys(sentSizes)) delete sentSizes[name];
});

describe('writeItems and batchGetItems', () => {
  it('write 260 items in requests of at most 25 and read them back in requests of at most 100', async () => {
    const items = Array.from({ length: 260 }, (_, n) => item('chunks', n));
    await writeItems({ put: items });
    expect(sentSizes.BatchWriteItemCommand!.reduce((a, b) => a + b, 0)).toBe(260);
    expect(Math.max(...sentSizes.BatchWriteItemCommand!)).toBe(25);
    const found = await batchGetItems(items, { consistent: true });
    expect(found.size).toBe(260);
    expect(found.get(keyId(items[42]!))).toEqual(items[42]);
    expect(sentSizes.BatchGetItemCommand!.sort((a, b) => b - a)).toEqual([100, 100, 60]);
  });

  it('write the items DynamoDB left unprocessed, and only those', async () => {
    let rounds = 0;
    fault = (name) => {
      if (name !== 'BatchWriteItemCommand' || rounds >= 2) return 'pass';
      rounds += 1;
      return {
        passPart: (input) => {
          const [table, requests] = Object.entries(input.RequestItems as Record<string, unknown[]>)[0]!;
          return { input: { ...input, RequestItems: { [table]: requests.slice(0, 3) } }, leftover: { [table]: requests.slice(3) } };
        },
      };
    };
    const items = Array.from({ length: 10 }, (_, n) => item('unprocessed-writes', n));
    await writeItems({ put: items });
    expect(rounds).toBe(2);
    expect(sentSizes.BatchWriteItemCommand).toEqual([10, 7, 4]);
    const { items: stored } = await queryAll({ ...range('unprocessed-writes'), ConsistentRead: true });
    expect(stored).toEqual(items);
  });

  it('read the keys DynamoDB left unprocessed', async () => {
    const items = Array.from({ length: 5 }, (_, n) => item('unprocessed-reads', n));
    await writeItems({ put: items });
    let rounds = 0;
    fault = (name) => {
      if (name !== 'BatchGetItemCommand' || rounds >= 1) return 'pass';
      rounds += 1;
      return {
        passPart: (input) => {
          const [table, request] = Object.entries(input.RequestItems as Record<string, { Keys: unknown[] }>)[0]!;
          return {
            input: { ...input, RequestItems: { [table]: { ...request, Keys: request.Keys.slice(0, 2) } } },
            leftover: { [table]: { Keys: request.Keys.slice(2) } },
          };
        },
      };
    };
    const found = await batchGetItems([...items, { pk: 'unprocessed-reads', sk: 'missing' }], { consistent: true });
    expect([...found.values()].sort((a, b) => String(a.sk).localeCompare(String(b.sk)))).toEqual(items);
    expect(sentSizes.BatchGetItemCommand).toEqual([6, 4]);
  });

  it('delete items, each key once', async () => {
    const items = Array.from({ length: 3 }, (_, n) => item('deletes', n));
    await writeItems({ put: items });
    await writeItems({ delete: [items[0]!, items[0]!, items[2]!] });
    expect((await queryAll({ ...range('deletes'), ConsistentRead: true })).items).toEqual([items[1]]);
  });
});

describe('reads of a key range', () => {
  it('queryPage reads one page; queryAll follows the pages to a limit of items or of items read', async () => {
    const items = Array.from({ length: 30 }, (_, n) => item('pages', n));
    await writeItems({ put: items });
    const first = await queryPage({ ...range('pages'), Limit: 7, ConsistentRead: true });
    expect(first.items).toEqual(items.slice(0, 7));
    expect(first.lastKey).toEqual({ pk: 'pages', sk: items[6]!.sk });
    const next = await queryPage({ ...range('pages'), Limit: 7, ExclusiveStartKey: first.lastKey, ConsistentRead: true });
    expect(next.items).toEqual(items.slice(7, 14));

    expect(await queryAll({ ...range('pages'), ConsistentRead: true, Limit: 4 })).toEqual({ items, scanned: 30, complete: true });
    const limited = await queryAll({ ...range('pages'), ConsistentRead: true, Limit: 4 }, { limit: 10 });
    expect(limited.items).toEqual(items.slice(0, 10));
    expect(limited.complete).toBe(false);
    expect(limited.lastKey, 'where a read of the rest starts').toEqual({ pk: 'pages', sk: items[9]!.sk });

    const filtered = await queryAll(
      { ...range('pages'), ConsistentRead: true, FilterExpression: 'n >= :min', ExpressionAttributeValues: { ':pk': 'pages', ':min': 25 } },
      { maxRead: 20 },
    );
    expect(filtered).toEqual({ items: [], scanned: 20, complete: false, lastKey: { pk: 'pages', sk: items[19]!.sk } });
  });

  it('countItems counts the range, within a bound on items read', async () => {
    await writeItems({ put: Array.from({ length: 12 }, (_, n) => item('count', n)) });
    expect(await countItems({ ...range('count'), ConsistentRead: true })).toEqual({ count: 12, scanned: 12, complete: true });
    expect(await countItems({ ...range('count'), ConsistentRead: true }, { maxRead: 5 })).toEqual({
      count: 5,
      scanned: 5,
      complete: false,
    });
  });
});

describe('conditional writes', () => {
  it('putItem, updateItem and deleteItem report a failed condition instead of throwing', async () => {
    const key = { pk: 'conditional', sk: 'one' };
    expect(await putItem({ Item: { ...key, v: 1 }, ConditionExpression: 'attribute_not_exists(pk)' })).toEqual({
      applied: true,
      attributes: undefined,
    });
    expect(await putItem({ Item: { ...key, v: 2 }, ConditionExpression: 'attribute_not_exists(pk)' })).toEqual({ applied: false });
    const updated = await updateItem({
      Key: key,
      UpdateExpression: 'SET v = :v',
      ConditionExpression: 'v = :old',
      ExpressionAttributeValues: { ':v': 3, ':old': 1 },
      ReturnValues: 'ALL_NEW',
    });
    expect(updated).toEqual({ applied: true, attributes: { ...key, v: 3 } });
    expect(
      await updateItem({
        Key: key,
        UpdateExpression: 'SET v = :v',
        ConditionExpression: 'v = :old',
        ExpressionAttributeValues: { ':v': 4, ':old': 1 },
      }),
    ).toEqual({ applied: false });
    expect(await deleteItem({ Key: key, ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': 1 } })).toEqual({
      applied: false,
    });
    expect(await getItem(key, { consistent: true })).toEqual({ ...key, v: 3 });
    expect((await deleteItem({ Key: key })).applied).toBe(true);
    expect(await getItem(key, { consistent: true })).toBeUndefined();
  });
});

describe('transactWrite', () => {
  const conflict = () =>
    new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
    });

  it('commits all or nothing and names the failed condition by position', async () => {
    const a = { pk: 'tx', sk: 'a' };
    const b = { pk: 'tx', sk: 'b' };
    expect(await transactWrite([{ Put: { Item: { ...a, v: 1 } } }, { Put: { Item: { ...b, v: 1 } } }])).toEqual({ committed: true });
    const refused = await transactWrite([
      { Update: { Key: a, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 2 } } },
      { ConditionCheck: { Key: b, ConditionExpression: 'v = :two', ExpressionAttributeValues: { ':two': 2 } } },
    ]);
    expect(refused).toEqual({ committed: false, failedConditions: [1] });
    expect(await getItem(a, { consistent: true })).toEqual({ ...a, v: 1 });
  });

  it('retries a transaction cancelled by a conflict with another one, and applies it once', async () => {
    let conflicts = 0;
    fault = (name) => (name === 'TransactWriteItemsCommand' && conflicts++ < 2 ? { respond: conflict() } : 'pass');
    const key = { pk: 'tx', sk: 'counter' };
    const outcome = await transactWrite([
      { Update: { Key: key, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } },
    ]);
    expect(outcome).toEqual({ committed: true });
    expect(conflicts).toBe(3);
    expect(await getItem(key, { consistent: true })).toEqual({ ...key, n: 1 });
  });
});

describe('measureTable', () => {
  it('counts calls, items read and returned, and consumed capacity of the work it wraps, and nothing outside', async () => {
    const items = Array.from({ length: 8 }, (_, n) => item('measured', n));
    const written = await measureTable(() => writeItems({ put: items }));
    expect(written.usage.calls).toEqual({ BatchWriteItemCommand: 1 });
    expect(written.usage.writeUnits).toBe(8);

    const { usage } = await measureTable(async () => {
      await queryPage({
        ...range('measured'),
        FilterExpression: 'n < :three',
        ExpressionAttributeValues: { ':pk': 'measured', ':three': 3 },
      });
      await batchGetItems([items[0]!, { pk: 'measured', sk: 'none' }]);
      await getItem(items[1]!);
    });
    expect(usage.calls).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1, GetItemCommand: 1 });
    expect(totalCalls(usage)).toBe(3);
    expect(usage.itemsRead).toBe(8 + 1 + 1);
    expect(usage.itemsReturned).toBe(3 + 1 + 1);
    expect(usage.readUnits).toBeGreaterThan(0);
    expect(usage.writeUnits).toBe(0);
  });

  it('keeps concurrent and nested scopes apart', async () => {
    await writeItems({ put: [item('scopes', 1)] });
    const get = () => getItem({ pk: 'scopes', sk: '000001' });
    const outer = await measureTable(async () => {
      await get();
      const [a, b] = await Promise.all([measureTable(get), measureTable(async () => Promise.all([get(), get()]))]);
      return [a.usage, b.usage];
    });
    expect(outer.result.map((usage) => totalCalls(usage))).toEqual([1, 2]);
    expect(totalCalls(outer.usage)).toBe(4);
  });
});
