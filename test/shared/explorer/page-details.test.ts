/**
 * The page details' cache (shared/explorer/page-details.ts) is bounded by its items' sizes: an NFT
 * instance carries the document the metadata fetcher stored on it (`fetched`, up to 64 KiB), which
 * must count, or a container would keep far more than DETAILS_CACHE_BYTES.
 */
import { describe, expect, it } from 'vitest';
import { approximateSize } from '../../../shared/explorer/page-details';

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
