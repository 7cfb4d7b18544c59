/** EXPLORER_CHAIN_ID: the one chain the explorer serves. */
import { describe, expect, it } from 'vitest';
import { loadExplorerConfig } from '../../../shared/explorer/config';

describe('loadExplorerConfig', () => {
  it('serves chain 31337 (the demo chain) unless EXPLORER_CHAIN_ID says otherwise', () => {
    expect(loadExplorerConfig({})).toEqual({ chainId: 31337 });
    expect(loadExplorerConfig({ EXPLORER_CHAIN_ID: '8453' })).toEqual({ chainId: 8453 });
  });

  it('fails loudly on a value that is not a positive integer', () => {
    for (const value of ['0', '-1', 'base', '1.5', '']) {
      expect(() => loadExplorerConfig({ EXPLORER_CHAIN_ID: value }), value).toThrow(/EXPLORER_CHAIN_ID/);
    }
  });
});
