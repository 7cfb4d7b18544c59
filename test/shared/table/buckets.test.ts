/**
 * Block buckets (shared/table/buckets.ts): a block's entries of a range in one item, read back as the
 * entries they stand for; a full bucket's entries stored deflated (storedItem, which the table layer
 * applies as it writes: pack.ts storedOnce), and a bucket written before that (plain MessagePack) read the same;
 * entries' long packed fields kept plain inside the bucket, which is deflated once (fewer bytes than deflating
 * them first), and a bucket written with them deflated read the same.
 */
import { describe, expect, it } from 'vitest';
import { bucketsOf, entriesOf, storedEntriesOf, storedItem } from '../../../shared/table/buckets';
import type { TableItem } from '../../../shared/table/keys';
import { messagePackOf, packItem, storedPacking, toMessagePack, unpackItem } from '../../../shared/table/pack';

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

  /** ABI-encoded calldata as a router's: 32-byte words of padded addresses (a few tokens and pools) and amounts. */
  const calldata = (n: number): string => {
    let seed = n + 1;
    const next = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const words = Array.from({ length: 40 }, (_, w) =>
      w % 3 === 0
        ? `${'00'.repeat(12)}${address(0x4200 + (next() % 6)).slice(2)}`
        : `${'00'.repeat(24)}${next().toString(16).padStart(8, '0')}${next().toString(16).padStart(8, '0')}`,
    );
    return `0x3593564c${words.join('')}`;
  };

  it('keeps long packed fields plain inside the bucket, deflated once with it, and reads buckets whose entries hold them deflated', () => {
    // Calls of one router in one block, each with kilobytes of calldata: packed fields of 512 bytes or more.
    const calls: TableItem[] = Array.from(
      { length: 8 },
      (_, n) =>
        packItem(
          {
            pk: `C#8453#CALLS#${POOL}#0x3593564c`,
            sk: `000000000042#${String(n + 1).padStart(6, '0')}`,
            kind: 'call',
            transactionHash: `0x${(n + 1).toString(16).padStart(64, '0')}`,
            from: address(0x200 + n),
            input: calldata(n),
          },
          new Set(['pk', 'sk', 'kind']),
        ) as TableItem,
    );
    expect((calls[0]!.d as Uint8Array).length).toBeGreaterThan(512);
    const [built, ...more] = bucketsOf(calls);
    expect(more).toEqual([]);
    // Inside the bucket, each entry's packed fields are plain MessagePack (not the deflate marker 0).
    for (const entry of storedEntriesOf(built!)) expect((entry.d as Uint8Array)[0]).not.toBe(0);
    const bucket = storedItem(built!);
    expect(entriesOf(bucket).map((entry) => unpackItem(entry))).toEqual(calls.map((call) => unpackItem(call)));
    // The layout before: each long packed field deflated, then the bucket. The bucket now takes fewer bytes.
    const before = storedItem({
      ...built!,
      e: toMessagePack(calls.map(({ pk: _pk, kind: _kind, ...rest }) => storedPacking(rest))),
    } as TableItem);
    for (const entry of storedEntriesOf(before)) expect((entry.d as Uint8Array)[0]).toBe(0);
    expect((bucket.e as Uint8Array).length).toBeLessThan((before.e as Uint8Array).length);
    // Read alike: the same entries, the same fields.
    expect(entriesOf(before)).toEqual(entriesOf(bucket));
    expect(messagePackOf(bucket.e as Uint8Array).length).toBeGreaterThan(messagePackOf(before.e as Uint8Array).length);
  });
});
