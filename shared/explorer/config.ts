/**
 * Settings of the explorer group. Like a Blockscout instance, the explorer serves ONE chain: the
 * chain whose ingested items its endpoints read (`EXPLORER_CHAIN_ID`, default 31337, the demo chain).
 */
import * as v from 'valibot';
import { detailsCacheSetting, readEnv } from '../config';
import { type ChainStatusSettings, loadChainStatusSettings } from '../chain-status/status';
import { loadGateways } from '../nft-metadata/config';
import type { Gateways } from '../nft-metadata/uri';

/** Items in one explorer page (Blockscout's page size). */
export const PAGE_SIZE = 50;

export const DEFAULT_EXPLORER_CHAIN_ID = 31337;

import { DEFAULT_SORTED_HISTORY_BOUND } from './limits';

export { DEFAULT_SORTED_HISTORY_BOUND };

/**
 * The address counters that read entries (X4: `transactions_count`, `gas_usage_count`) read at most
 * this many (about 0.85 MB); past it the count is a lower bound (shared/explorer/address-page.ts).
 */
export const COUNTER_BOUND = 1000;

const explorerSchema = v.object({
  EXPLORER_CHAIN_ID: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer'),
      v.transform(Number),
      v.safeInteger('must be a positive integer'),
    ),
    String(DEFAULT_EXPLORER_CHAIN_ID),
  ),
  EXPLORER_DETAILS_CACHE_SECONDS: detailsCacheSetting(),
  EXPLORER_SORTED_HISTORY_BOUND: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[1-9][0-9]{0,3}$/, 'must be a whole number from 1 to 5000'),
      v.transform(Number),
      v.maxValue(5000, 'must be a whole number from 1 to 5000'),
    ),
    String(DEFAULT_SORTED_HISTORY_BOUND),
  ),
});

export interface ExplorerConfig {
  /** The chain every explorer endpoint reads. */
  chainId: number;
  /**
   * How long (ms) a container reuses the details its pages joined (X7 address items: token details,
   * contract flags; NFT instances) before reading them again; 0 reads them on every page.
   */
  detailsCacheMs: number;
  /** The most transactions `sort=value|fee` reads and sorts (EXPLORER_SORTED_HISTORY_BOUND); past it, a 422. */
  sortedHistoryBound: number;
  /** How the chain's ingest status is judged and kept (CHAIN_STATUS_*: shared/chain-status/status.ts). */
  chainStatus: ChainStatusSettings;
  /** Where NFT media URLs with ipfs:// and ar:// are shown through (NFT_METADATA_IPFS_GATEWAY, NFT_METADATA_ARWEAVE_GATEWAY). */
  gateways: Gateways;
}

/** The explorer's settings from the environment; throws a readable error on an invalid value. */
export function loadExplorerConfig(env: Record<string, string | undefined> = process.env): ExplorerConfig {
  const raw = readEnv(explorerSchema, env);
  return {
    chainId: raw.EXPLORER_CHAIN_ID,
    detailsCacheMs: raw.EXPLORER_DETAILS_CACHE_SECONDS * 1000,
    sortedHistoryBound: raw.EXPLORER_SORTED_HISTORY_BOUND,
    chainStatus: loadChainStatusSettings(env),
    gateways: loadGateways(env),
  };
}
