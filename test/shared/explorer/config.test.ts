/** EXPLORER_CHAIN_ID: the one chain the explorer serves. */
import { describe, expect, it } from 'vitest';
import { loadExplorerConfig } from '../../../shared/explorer/config';

describe('loadExplorerConfig', () => {
  it('serves chain 31337 (the demo chain) unless EXPLORER_CHAIN_ID says otherwise', () => {
    expect(loadExplorerConfig({}).chainId).toBe(31337);
    expect(loadExplorerConfig({ EXPLORER_CHAIN_ID: '8453' }).chainId).toBe(8453);
  });

  it('keeps the token details a page joined for 30 s unless EXPLORER_DETAILS_CACHE_SECONDS says otherwise (0: never)', () => {
    expect(loadExplorerConfig({}).detailsCacheMs).toBe(30_000);
    expect(loadExplorerConfig({ EXPLORER_DETAILS_CACHE_SECONDS: '0' }).detailsCacheMs).toBe(0);
    expect(loadExplorerConfig({ EXPLORER_DETAILS_CACHE_SECONDS: '3600' }).detailsCacheMs).toBe(3_600_000);
    for (const value of ['-1', '3601', '1.5', 'soon', '']) {
      expect(() => loadExplorerConfig({ EXPLORER_DETAILS_CACHE_SECONDS: value }), value).toThrow(/EXPLORER_DETAILS_CACHE_SECONDS/);
    }
  });

  it('fails loudly on a value that is not a positive integer', () => {
    for (const value of ['0', '-1', 'base', '1.5', '']) {
      expect(() => loadExplorerConfig({ EXPLORER_CHAIN_ID: value }), value).toThrow(/EXPLORER_CHAIN_ID/);
    }
  });
});
