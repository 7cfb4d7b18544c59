/**
 * Seek chunks (N15) as stored: their sort keys packed (records.ts SeekChunkRecord). Written by the
 * ingest (range-positions.ts), read by insights' seek (range-seek.ts).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { SeekChunkRecord } from './records';

/** A seek chunk's `packedKeys` for its sort keys, in order. */
export function packSeekKeys(keys: readonly string[]): Uint8Array {
  if (keys.some((key) => key.includes('\n'))) throw new Error('a seek chunk key holds a newline');
  return new Uint8Array(deflateRawSync(Buffer.from(keys.join('\n'), 'utf8'), { level: 9 }));
}

/** A seek chunk's sort keys, in order; undefined for a chunk of the old size (`keys`, no `packedKeys`) or none. */
export function seekChunkKeys(record: SeekChunkRecord | undefined): string[] | undefined {
  if (record?.packedKeys === undefined) return undefined;
  return inflateRawSync(record.packedKeys).toString('utf8').split('\n');
}
