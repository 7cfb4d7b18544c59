/**
 * The cold tier's pointer items (N17, shared/table/cold-parts.ts): what a reader gets back from one, and
 * what one costs to keep. A pointer is one item per range and span of cold history, about six a
 * Base-profile transaction kept as long as the history, so its stored bytes are a W1 line of their own.
 */
import { describe, expect, it } from 'vitest';
import { itemSize, STORED_OVERHEAD_BYTES } from '../../../scripts/bench/lib/write-families';
import { type ColdShard, coldPointerItem, coldPointerOf, pointerOfLegacy, shardObjectKey } from '../../../shared/table/cold-parts';
import { coldKeys } from '../../../shared/table/keys';

const holder = `0x${'ab'.repeat(20)}`;
const token = `0x${'cd'.repeat(20)}`;
/** The longest of the busy ranges: an address's transfers of one token, one side (X3 by token). */
const rangePk = `C#8453#A#${holder}#TT#to#TOKEN#${token}`;
const firstSk = '000031415926#000042#000003';
const shard: ColdShard = {
  chainId: 8453,
  fromBlock: 31_415_000,
  toBlock: 31_416_799,
  group: { index: 11, count: 16 },
  digest: Uint8Array.from({ length: 16 }, (_, index) => index * 17),
};
const part = { offset: 48_213_557, length: 1_873, count: 7, lastSk: '000031416790#000177#000001' };

describe('a cold part pointer', () => {
  it('gives the reader back where its part is and what it holds', () => {
    const item = coldPointerItem(coldKeys.part(rangePk, firstSk), shard, part);
    expect(coldPointerOf(item)).toEqual({
      sk: firstSk,
      lastSk: part.lastSk,
      object: 'cold/8453/000031415000-000031416799/g11of16/00112233445566778899aabbccddeeff',
      offset: part.offset,
      length: part.length,
      count: part.count,
      fromBlock: shard.fromBlock,
      toBlock: shard.toBlock,
    });
    // One group: the object's name has no group.
    expect(shardObjectKey({ ...shard, group: { index: 0, count: 1 } })).toBe(
      'cold/8453/000031415000-000031416799/00112233445566778899aabbccddeeff',
    );
  });

  it('is named by its range alone, under its chain, and never by a range pk of its own', () => {
    const pk = coldKeys.parts(rangePk).pk;
    expect(pk).toMatch(/^COLD#8453#[A-Za-z0-9_-]{22}$/);
    expect(coldKeys.part(rangePk, firstSk)).toEqual({ pk, sk: firstSk });
    expect(coldKeys.parts(rangePk.replace('#to#', '#from#')).pk).not.toBe(pk);
    expect(coldKeys.parts(rangePk.replace('C#8453#', 'C#10#')).pk).toMatch(/^COLD#10#/);
  });

  it('costs 40 % fewer bytes than the same fields took under the range pk as attributes of their own', () => {
    const item = coldPointerItem(coldKeys.part(rangePk, firstSk), shard, part);
    const stored = itemSize(item) + STORED_OVERHEAD_BYTES;
    // The shape written before (issue 35's bench: 385 B a pointer on the Base profile).
    const before =
      itemSize({
        pk: `COLD#${rangePk}`,
        sk: firstSk,
        kind: 'cold-part',
        chainId: shard.chainId,
        object: shardObjectKey(shard),
        offset: part.offset,
        length: part.length,
        count: part.count,
        lastSk: part.lastSk,
        fromBlock: shard.fromBlock,
        toBlock: shard.toBlock,
      }) + STORED_OVERHEAD_BYTES;
    expect(before).toBeGreaterThan(380);
    expect(stored).toBeLessThanOrEqual(235);
    expect(stored / before).toBeLessThan(0.62);
  });

  it('refuses an item that is not a pointer, naming it', () => {
    expect(() => coldPointerOf({ pk: `COLD#${rangePk}`, sk: firstSk, kind: 'cold-part', object: 'x' })).toThrow(/cold pointer COLD#C#8453/);
    expect(() => coldPointerOf({ pk: 'COLD#8453#x', sk: firstSk, p: new Uint8Array([1, 2]) })).toThrow(/not a pointer/);
  });

  it('is rewritten from the shape written before (npm run migrate:cold-pointers) as the compactor writes it now', () => {
    const legacy = {
      pk: `COLD#${rangePk}`,
      sk: firstSk,
      kind: 'cold-part',
      chainId: 8453,
      object: shardObjectKey(shard),
      ...part,
      fromBlock: shard.fromBlock,
      toBlock: shard.toBlock,
    };
    expect(pointerOfLegacy(legacy)).toEqual(coldPointerItem(coldKeys.part(rangePk, firstSk), shard, part));
    const oneGroup = { ...shard, group: { index: 0, count: 1 } };
    expect(pointerOfLegacy({ ...legacy, object: shardObjectKey(oneGroup) })).toEqual(
      coldPointerItem(coldKeys.part(rangePk, firstSk), oneGroup, part),
    );
    // Not one: another kind, a pointer already moved, an object the compactor never names, a field missing.
    expect(pointerOfLegacy({ ...legacy, kind: 'cold-cursor' })).toBeUndefined();
    expect(pointerOfLegacy(coldPointerItem(coldKeys.part(rangePk, firstSk), shard, part))).toBeUndefined();
    expect(pointerOfLegacy({ ...legacy, object: 'cold/8453/elsewhere' })).toBeUndefined();
    expect(pointerOfLegacy({ ...legacy, fromBlock: 31_415_001 })).toBeUndefined();
    expect(pointerOfLegacy({ ...legacy, count: undefined })).toBeUndefined();
  });
});
