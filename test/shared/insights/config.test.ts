/** The insights group's settings (shared/insights/config.ts): defaults and loud failures at cold start. */
import { describe, expect, it } from 'vitest';
import { loadInsightsConfig } from '../../../shared/insights/config';
import { DEFAULT_MAX_ITEMS_READ_PER_CHAIN } from '../../../shared/insights/limits';

describe('loadInsightsConfig', () => {
  it('reads at most the default items per chain unless INSIGHTS_MAX_ITEMS_READ_PER_CHAIN says otherwise', () => {
    expect(loadInsightsConfig({}).maxItemsReadPerChain).toBe(DEFAULT_MAX_ITEMS_READ_PER_CHAIN);
    expect(loadInsightsConfig({ INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '500' }).maxItemsReadPerChain).toBe(500);
    expect(() => loadInsightsConfig({ INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '0' })).toThrow(/INSIGHTS_MAX_ITEMS_READ_PER_CHAIN/);
  });

  it('keeps the details a page joined for 30 s unless INSIGHTS_DETAILS_CACHE_SECONDS says otherwise (0: never)', () => {
    expect(loadInsightsConfig({}).detailsCacheMs).toBe(30_000);
    expect(loadInsightsConfig({ INSIGHTS_DETAILS_CACHE_SECONDS: '0' }).detailsCacheMs).toBe(0);
    expect(loadInsightsConfig({ INSIGHTS_DETAILS_CACHE_SECONDS: '3600' }).detailsCacheMs).toBe(3_600_000);
    for (const value of ['-1', '3601', '1.5', 'soon', '']) {
      expect(() => loadInsightsConfig({ INSIGHTS_DETAILS_CACHE_SECONDS: value }), value).toThrow(/INSIGHTS_DETAILS_CACHE_SECONDS/);
    }
  });
});
