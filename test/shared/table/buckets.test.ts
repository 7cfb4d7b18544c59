/**
 * Block buckets (shared/table/buckets.ts): a block's entries of a range in one item, read back as the
 * entries they stand for; a full bucket's entries stored deflated (storedItem, which the table layer
 * applies as it writes: pack.ts storedOnce), and a bucket written before that (plain MessagePack) read the same.
 */
import { describe, expect, it } from 'vitest';
import { bucketsOf, entriesOf, storedEntriesOf, storedItem } from '../../../shared/table/buckets';
import type { TableItem } from '../../../shared/table/keys';
import { toMessagePack } from '../../../shared/table/pack';

const address = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const POOL = address(0x5a);
const PK = `C#8453#A#${POOL}#ITX#from`;

/** Eight internal calls of one swap from the pool: one block, one bucket. */
const entries: TableItem[] = Array.from({ length: 8 }, (_, n) => ({
  pk: PK,
  sk: `000000000042#000007#${String(n + 1).padStart(6, '0')}`,
  kind: 'internalTransaction',
  transactionHash: `0x${'c4'.repeat(32)}`,
  to: address(0x100 + (n % 2)),
  value: '0',
  gasLimit: String(90_000 - n * 1_000),
  gasUsed: String(20_000 + n),
  callType: 'call',
  traceAddress: [0, n],
}));

describe('block buckets', () => {
  it("stores a block's entries of a range in one item, deflated, and reads each entry back as it was", () => {
    const [built, ...more] = bucketsOf(entries);
    expect(more).toEqual([]);
    const bucket = storedItem(built!);
    const stored = bucket.e as Uint8Array;
    expect(stored[0]).toBe(0);
    const plain = toMessagePack(entries.map(({ pk: _pk, kind: _kind, ...rest }) => rest));
    expect(stored.length).toBeLessThan(0.5 * plain.length);
    expect(entriesOf(bucket)).toEqual(entries);
    // As built (before the table layer stores it), it reads the same; storing it twice changes nothing.
    expect(entriesOf(built!)).toEqual(entries);
    expect(storedItem(bucket)).toBe(bucket);
  });

  it('reads a bucket written before its entries were deflated as it was', () => {
    const [bucket] = bucketsOf(entries);
    const before = { ...bucket!, e: toMessagePack(entries.map(({ pk: _pk, kind: _kind, ...rest }) => rest)) };
    expect(storedEntriesOf(before)).toEqual(entries);
  });
});
