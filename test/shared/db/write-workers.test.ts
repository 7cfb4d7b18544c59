/**
 * The table writers (shared/db/write-workers.ts), worker threads of the test process writing to the
 * embedded DynamoDB: a write of many chunks handed to them is whole when `writeItems` resolves (puts
 * and deletes), measured as the caller's own calls, and a failure reaches the caller with its name;
 * a write of one chunk, and every write once they are stopped, stays on the calling thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTable } from '../../../shared/db/client';
import { measureTable } from '../../../shared/db/instrument';
import { batchGetItems, writeItems } from '../../../shared/db/operations';
import { observeWriterWrites, startTableWriters, stopTableWriters, tableWriterCount } from '../../../shared/db/write-workers';
import type { ItemKey } from '../../../shared/table/keys';
import { useTestTable } from '../../support/table';

useTestTable('write-workers');

const handed: number[] = [];
observeWriterWrites((_table, chunks) => handed.push(chunks.length));

const keys = (prefix: string, count: number): ItemKey[] =>
  Array.from({ length: count }, (_, index) => ({ pk: `WRITERS#${prefix}`, sk: String(index).padStart(4, '0') }));
const itemsOf = (prefix: string, count: number) =>
  keys(prefix, count).map((key, index) => ({ ...key, kind: 'test', value: index, bytes: new Uint8Array([index % 256, 1, 2]) }));

beforeAll(async () => {
  startTableWriters(2);
});

afterAll(async () => {
  await stopTableWriters();
});

describe('table writers', () => {
  it('write every put and delete of a write of many chunks before writeItems resolves', async () => {
    expect(tableWriterCount()).toBe(2);
    handed.length = 0;
    await writeItems({ put: itemsOf('many', 130) });
    expect(handed, 'one write of 6 chunks handed to the writers').toEqual([6]);
    const found = await batchGetItems(keys('many', 130));
    expect(found.size).toBe(130);
    const sample = found.get('WRITERS#many|0129') ?? [...found.values()].find((item) => item.sk === '0129');
    expect(sample).toMatchObject({ kind: 'test', value: 129 });
    expect(Buffer.from(sample!.bytes as Uint8Array)).toEqual(Buffer.from([129, 1, 2]));

    await writeItems({ delete: keys('many', 130) });
    expect((await batchGetItems(keys('many', 130))).size).toBe(0);
  });

  it("count their calls and write units as the caller's own inside measureTable", async () => {
    const { usage } = await measureTable(() => writeItems({ put: itemsOf('measured', 60) }));
    expect(usage.calls).toEqual({ BatchWriteCommand: 3 });
    expect(usage.writeUnits, 'one unit an item of under 1 KB').toBe(60);
  });

  it('reject with the failure by its name, and keep writing afterwards', async () => {
    const previous = useTable('no-such-table');
    try {
      await expect(writeItems({ put: itemsOf('lost', 60) })).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    } finally {
      useTable(previous);
    }
    await writeItems({ put: itemsOf('after', 60) });
    expect((await batchGetItems(keys('after', 60))).size).toBe(60);
  });

  it('leave a write of one chunk on the calling thread, and every write once stopped', async () => {
    handed.length = 0;
    await writeItems({ put: itemsOf('one', 25) });
    expect(handed).toEqual([]);
    await stopTableWriters();
    expect(tableWriterCount()).toBe(0);
    await writeItems({ put: itemsOf('inline', 60) });
    expect(handed).toEqual([]);
    expect((await batchGetItems(keys('inline', 60))).size).toBe(60);
    startTableWriters(2);
  });
});
