/**
 * Items are built with their packed fields and bucket entries as plain MessagePack (table/pack.ts
 * packFields, table/buckets.ts bucketsOf); the table layer stores them deflated where it sends them
 * (shared/db/batch-write.ts, and putItem and transactWrite): on the calling thread, and on the table
 * writers' threads when it hands them the write. Checked on the raw items in the embedded DynamoDB,
 * read without the table layer's unpacking, and read back through it as they were built.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../../shared/db/client';
import { getItem, putItem, queryAll, transactWrite, writeItems } from '../../../shared/db/operations';
import { startTableWriters, stopTableWriters, tableWriterCount } from '../../../shared/db/write-workers';
import { bucketsOf, entriesOf } from '../../../shared/table/buckets';
import type { TableItem } from '../../../shared/table/keys';
import { PACKED_ATTRIBUTE, packFields, unpackFields } from '../../../shared/table/pack';
import { useTestTable } from '../../support/table';

useTestTable('batch-write');

afterAll(async () => {
  await stopTableWriters();
});

const word = (n: number): string => n.toString(16).padStart(64, '0');
/** A log's packed fields: 1 KB of data whose words repeat, as a swap's do. */
const fields = (n: number) => ({ data: `0x${word(n)}${word(0).repeat(30)}${word(n)}`, topics: [`0x${word(7)}`, `0x${word(n)}`] });

const packedItem = (prefix: string, n: number): TableItem =>
  ({ pk: `STORED#${prefix}`, sk: String(n).padStart(4, '0'), kind: 'log', [PACKED_ATTRIBUTE]: packFields(fields(n)) }) as TableItem;

/** Eight entries of one block of a bucketed range (a topic's): one bucket. */
const bucketOf = (topic: number): TableItem => {
  const pk = `C#8453#TOPIC0#0x${word(topic)}`;
  const entries = Array.from(
    { length: 8 },
    (_, n) =>
      ({ pk, sk: `000000000042#${String(n).padStart(6, '0')}`, kind: 'log', logIndex: n, address: `0x${'5a'.repeat(20)}` }) as TableItem,
  );
  const [bucket, ...more] = bucketsOf(entries);
  expect(more).toEqual([]);
  return bucket!;
};

/** The item as DynamoDB holds it (no unpacking by the table layer). */
async function raw(key: { pk: string; sk: string }): Promise<Record<string, unknown>> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: { pk: key.pk, sk: key.sk } }));
  expect(Item, `${key.pk} ${key.sk} written`).toBeDefined();
  return Item!;
}

function expectDeflated(bytes: unknown, built: Uint8Array): void {
  expect(bytes).toBeInstanceOf(Uint8Array);
  const stored = bytes as Uint8Array;
  expect(stored[0], 'deflated, behind the marker byte').toBe(0);
  expect(stored.length).toBeLessThan(built.length / 2);
}

describe('items as the table stores them', () => {
  it('are built as MessagePack and stored deflated by a write on the calling thread', async () => {
    expect(tableWriterCount()).toBe(0);
    const item = packedItem('inline', 1);
    const bucket = bucketOf(1);
    expect((item[PACKED_ATTRIBUTE] as Uint8Array)[0], 'built as MessagePack').not.toBe(0);
    expect((bucket.e as Uint8Array)[0]).not.toBe(0);
    await writeItems({ put: [item, bucket] });
    expectDeflated((await raw(item))[PACKED_ATTRIBUTE], item[PACKED_ATTRIBUTE] as Uint8Array);
    expect(unpackFields((await raw(item))[PACKED_ATTRIBUTE] as Uint8Array)).toEqual(fields(1));
    expectDeflated((await raw(bucket)).e, bucket.e as Uint8Array);
    // Read back through the table layer as built.
    expect(await getItem({ pk: item.pk, sk: item.sk })).toEqual({ pk: item.pk, sk: item.sk, kind: 'log', ...fields(1) });
    const { items } = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': bucket.pk } });
    expect(items.flatMap((stored) => entriesOf(stored as TableItem))).toEqual(entriesOf(bucket));
  });

  it('are stored deflated by the table writers, as by the calling thread', async () => {
    startTableWriters(2);
    expect(tableWriterCount()).toBe(2);
    const items = Array.from({ length: 60 }, (_, n) => packedItem('writers', n));
    const buckets = Array.from({ length: 10 }, (_, n) => bucketOf(100 + n));
    await writeItems({ put: [...items, ...buckets] });
    for (const item of [items[0]!, items[59]!]) {
      const stored = await raw(item);
      expectDeflated(stored[PACKED_ATTRIBUTE], item[PACKED_ATTRIBUTE] as Uint8Array);
      expect(unpackFields(stored[PACKED_ATTRIBUTE] as Uint8Array)).toEqual(fields(Number(item.sk)));
    }
    expectDeflated((await raw(buckets[9]!)).e, buckets[9]!.e as Uint8Array);
    // The same bytes the calling thread stores.
    await stopTableWriters();
    const same = { ...items[59]!, pk: 'STORED#same' };
    await writeItems({ put: [same] });
    expect(Buffer.from((await raw(same))[PACKED_ATTRIBUTE] as Uint8Array)).toEqual(
      Buffer.from((await raw(items[59]!))[PACKED_ATTRIBUTE] as Uint8Array),
    );
  });

  it('are stored deflated by putItem and transactWrite too', async () => {
    const put = packedItem('put', 2);
    const transacted = packedItem('transact', 3);
    await putItem({ Item: put });
    await transactWrite([{ Put: { Item: transacted } }]);
    expectDeflated((await raw(put))[PACKED_ATTRIBUTE], put[PACKED_ATTRIBUTE] as Uint8Array);
    expectDeflated((await raw(transacted))[PACKED_ATTRIBUTE], transacted[PACKED_ATTRIBUTE] as Uint8Array);
  });
});
