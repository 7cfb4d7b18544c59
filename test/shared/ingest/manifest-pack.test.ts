/**
 * Manifest chunks store their entries packed (shared/ingest/manifest.ts): they unpack to what was
 * packed, chunks written before packing read as before, and a block's keys shrink to a few hundred
 * bytes.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { packEntries, unpackEntries } from '../../../shared/ingest/manifest';
import { addressKeys, tokenTransferKeys, transactionKeys } from '../../../shared/table/keys';
import type { ManifestRecord } from '../../../shared/table/records';

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

describe('manifest chunks', () => {
  const chunk = (fields: Partial<ManifestRecord>): ManifestRecord => ({
    kind: 'manifest',
    chainId: 1,
    blockNumber: 7,
    blockHash: hex(32),
    chunk: 0,
    chunkCount: 1,
    ...fields,
  });

  it('unpack to their entries, and read chunks written as lists', () => {
    const token = hex(20);
    const items = Array.from({ length: 3 }, (_, position) => {
      const hash = hex(32);
      const [from, to] = [hex(20), hex(20)];
      const sk = tokenTransferKeys.sortKey(7, position, 0);
      return [
        transactionKeys.transaction(1, hash),
        { pk: addressKeys.transactions(1, from, 'all').pk, sk: transactionKeys.sortKey(7, position) },
        ...(['from', 'to', 'all'] as const).flatMap((direction) => [
          { pk: tokenTransferKeys.byAddress(1, from, direction, 'ALL').pk, sk },
          { pk: tokenTransferKeys.byAddressAndToken(1, to, direction, token, 'ERC-20').pk, sk },
        ]),
      ];
    }).flat();
    const touched = [`BAL|${hex(20)}|${token}|ERC-20|-`, `ADDR|${token}`];
    const packed = packEntries(items, touched);
    expect(unpackEntries(chunk({ packed }))).toEqual({ items, touched });
    // ~30 keys of ~80 characters: a few hundred bytes, one write unit.
    expect(packed.length).toBeLessThan(JSON.stringify(items).length / 3);
    expect(unpackEntries(chunk({ items, touched }))).toEqual({ items, touched });
  });
});
