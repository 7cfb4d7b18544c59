/** Seek chunks as stored (shared/table/seek-chunk.ts): sort keys packed, read back in order. */
import { describe, expect, it } from 'vitest';
import { SEEK_CHUNK_ENTRIES, tokenTransferKeys } from '../../../shared/table/keys';
import { packSeekKeys, seekChunkKeys } from '../../../shared/table/seek-chunk';

describe('seek chunk keys', () => {
  it('read back exactly, in order, and take a fraction of their text', () => {
    const keys = Array.from({ length: SEEK_CHUNK_ENTRIES }, (_, index) =>
      tokenTransferKeys.sortKey(19_000_000 + index * 3, index % 7, index % 2),
    );
    const packedKeys = packSeekKeys(keys);
    expect(seekChunkKeys({ kind: 'seekChunk', packedKeys })).toEqual(keys);
    expect(packedKeys.length).toBeLessThan(keys.join('').length / 3);
  });

  it('are none for a chunk of the old size (a list of 16) or no chunk', () => {
    expect(seekChunkKeys({ kind: 'seekChunk', keys: ['a', 'b'] })).toBeUndefined();
    expect(seekChunkKeys(undefined)).toBeUndefined();
  });

  it('refuse a key holding the separator', () => {
    expect(() => packSeekKeys(['a\nb'])).toThrow(/newline/);
  });
});
