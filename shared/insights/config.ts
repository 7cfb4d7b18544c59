/**
 * Settings of the insights group, from the environment (validated with the platform's readEnv):
 *  - INSIGHTS_MAX_ITEMS_READ_PER_CHAIN (default 10000): items one chain may read for an aggregation or
 *    examine for a bounded check; beyond it the request is a 400 asking for a narrower block range;
 *  - INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN (default 10000): the fallback count's cap. `total_items` is
 *    read from range positions (exact, two Limit-1 Queries per chain); a count with checks examines
 *    the range under INSIGHTS_MAX_ITEMS_READ_PER_CHAIN (exact, or the 400); only a count on a
 *    transaction's own partition or on entries ingested before positions existed is a Select COUNT
 *    that examines at most this many items per chain (a lower bound beyond);
 *  - INSIGHTS_DETAILS_CACHE_SECONDS (default 30, 0 to 3600): how long a container keeps the token,
 *    contract and NFT instance details its pages joined (shared/db/kept-items.ts); 0: read every time.
 * Each handler module parses them once, at cold start, and passes them to the domain functions.
 */
import * as v from 'valibot';
import { detailsCacheSetting, readEnv } from '../config';
import { type ChainStatusSettings, loadChainStatusSettings } from '../chain-status/status';
import { loadGateways, loadMetadataQueueUrl } from '../nft-metadata/config';
import type { Gateways } from '../nft-metadata/uri';
import { DEFAULT_MAX_ITEMS_READ_PER_CHAIN } from './limits';

/** A whole-number setting from 1 to 9999999, `fallback` when unset. */
export const countSetting = (fallback: number) =>
  v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,6}$/, 'must be an integer from 1 to 9999999'), v.transform(Number)),
    String(fallback),
  );

const schema = v.object({
  INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: countSetting(DEFAULT_MAX_ITEMS_READ_PER_CHAIN),
  INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN: countSetting(10_000),
  INSIGHTS_DETAILS_CACHE_SECONDS: detailsCacheSetting(),
});

export interface InsightsConfig {
  maxItemsReadPerChain: number;
  maxCountedItemsPerChain: number;
  /**
   * How long (ms) a container reuses the details its pages joined (X7 address items: token and contract
   * details; NFT instances with their metadata) before reading them again; 0 reads them on every page.
   */
  detailsCacheMs: number;
  /** How chains' ingest statuses are judged and kept (CHAIN_STATUS_*: shared/chain-status/status.ts). */
  chainStatus: ChainStatusSettings;
  /** What `resolve_metadata_links=true` resolves ipfs:// and ar:// links through (NFT_METADATA_*_GATEWAY). */
  gateways: Gateways;
  /** Where the refresh routes queue NFT metadata fetches (NFT_METADATA_QUEUE_URL; unset: the local in-process fetcher). */
  metadataQueueUrl: string | undefined;
}

export function loadInsightsConfig(env: Record<string, string | undefined> = process.env): InsightsConfig {
  const raw = readEnv(schema, env);
  return {
    maxItemsReadPerChain: raw.INSIGHTS_MAX_ITEMS_READ_PER_CHAIN,
    maxCountedItemsPerChain: raw.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN,
    detailsCacheMs: raw.INSIGHTS_DETAILS_CACHE_SECONDS * 1000,
    chainStatus: loadChainStatusSettings(env),
    gateways: loadGateways(env),
    metadataQueueUrl: loadMetadataQueueUrl(env),
  };
}
