/**
 * The container's copy of joined details (shared/db/kept-items.ts), against the embedded DynamoDB: an
 * item the caller keeps is served without a read until it expires; items not found and items the caller
 * does not keep are read every time; a copy is per table; `keepMs` 0 reads everything. Its bound counts an
 * NFT instance's fetched document, or a container would keep far more than KEPT_ITEMS_BYTES.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { measureTable } from '../../../shared/db/instrument';
import { approximateSize, getItemsKept } from '../../../shared/db/kept-items';
import { putItem, type Item } from '../../../shared/db/operations';
import { keyId, type ItemKey } from '../../../shared/table/keys';
import { inTable, useTestTable } from '../../support/table';

useTestTable('kept-items');

const keep = (item: Item) => item.kind === 'detail';
const key = (name: string): ItemKey => ({ pk: `KEPT#${name}`, sk: 'ITEM' });

/** The items found and the keys the table was asked for (BatchGetItem's items read). */
async function read(keys: ItemKey[], keepMs: number) {
  const { result, usage } = await measureTable(() => getItemsKept(keys, { keepMs, keep }));
  return { found: result, calls: usage.calls, itemsRead: usage.itemsRead };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('getItemsKept', () => {
  it('serves a kept item without asking for it until it expires, then reads the stored one', async () => {
    await putItem({ Item: { ...key('token'), kind: 'detail', holders: 1 } });
    const first = await read([key('token')], 30_000);
    expect(first.calls).toEqual({ BatchGetItemCommand: 1 });
    expect(first.found.get(keyId(key('token')))).toMatchObject({ holders: 1 });

    await putItem({ Item: { ...key('token'), kind: 'detail', holders: 2 } });
    const kept = await read([key('token')], 30_000);
    expect(kept.calls, 'no call at all').toEqual({});
    expect(kept.found.get(keyId(key('token'))), 'the copy, up to 30 s behind the table').toMatchObject({ holders: 1 });

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    const later = await read([key('token')], 30_000);
    expect(later.calls).toEqual({ BatchGetItemCommand: 1 });
    expect(later.found.get(keyId(key('token')))).toMatchObject({ holders: 2 });
  });

  it('reads what it does not keep every time: items the caller refuses and keys not found', async () => {
    await putItem({ Item: { ...key('row'), kind: 'row', value: 1 } });
    await putItem({ Item: { ...key('instance'), kind: 'detail', value: 1 } });
    const keys = [key('row'), key('instance'), key('absent')];
    const first = await read(keys, 30_000);
    expect([...first.found.keys()].sort()).toEqual([keyId(key('instance')), keyId(key('row'))].sort());
    expect(first.itemsRead).toBe(2);

    await putItem({ Item: { ...key('row'), kind: 'row', value: 2 } });
    await putItem({ Item: { ...key('absent'), kind: 'detail', value: 1 } });
    const second = await read(keys, 30_000);
    expect(second.calls).toEqual({ BatchGetItemCommand: 1 });
    expect(second.itemsRead, 'the row and the item that now exists; the kept instance not asked for').toBe(2);
    expect(second.found.get(keyId(key('row')))).toMatchObject({ value: 2 });
    expect(second.found.get(keyId(key('absent')))).toMatchObject({ value: 1 });
    expect(second.found.get(keyId(key('instance')))).toMatchObject({ value: 1 });
  });

  it('keeps nothing with keepMs 0, and keeps a copy per table', async () => {
    await putItem({ Item: { ...key('fresh'), kind: 'detail', value: 1 } });
    await read([key('fresh')], 0);
    await putItem({ Item: { ...key('fresh'), kind: 'detail', value: 2 } });
    const unkept = await read([key('fresh')], 30_000);
    expect(unkept.calls, 'a read with keepMs 0 kept nothing').toEqual({ BatchGetItemCommand: 1 });
    expect(unkept.found.get(keyId(key('fresh')))).toMatchObject({ value: 2 });
    expect((await read([key('fresh')], 0)).calls, 'keepMs 0 reads a kept item too').toEqual({ BatchGetItemCommand: 1 });

    // The same key in another table is another item.
    const other = await inTable('kept-items-other', async () => {
      await putItem({ Item: { ...key('fresh'), kind: 'detail', value: 'other' } });
      return read([key('fresh')], 30_000);
    });
    expect(other.calls).toEqual({ BatchGetItemCommand: 1 });
    expect(other.found.get(keyId(key('fresh')))).toMatchObject({ value: 'other' });
  });
});

describe('approximateSize', () => {
  it('counts nested maps and lists, so an instance with a fetched document weighs what it holds', () => {
    const document = JSON.stringify({ name: 'x'.repeat(64 * 1024) });
    const instance = {
      kind: 'nftInstance',
      tokenId: '7',
      tokenUri: 'ipfs://bafy/7.json',
      fetched: { tokenUri: 'ipfs://bafy/7.json', status: 'fetched', metadataJson: document, attempts: 1 },
    };
    expect(approximateSize(instance)).toBeGreaterThan(document.length);
    expect(approximateSize({ kind: 'address', tags: ['a'.repeat(1000)] })).toBeGreaterThan(1000);
    expect(approximateSize({ kind: 'address', holders: 3 })).toBeLessThan(200);
  });
});
