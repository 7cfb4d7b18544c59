/**
 * Settings of the insights group, from the environment (validated with the platform's readEnv):
 *  - INSIGHTS_MAX_ITEMS_READ_PER_CHAIN (default 10000): items one chain may read for an aggregation or
 *    examine for a bounded check; beyond it the request is a 400 asking for a narrower block range;
 *  - INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN (default 10000): the fallback count's cap. `total_items` is
 *    read from range positions (exact, two Limit-1 Queries per chain); a count with checks examines
 *    the range under INSIGHTS_MAX_ITEMS_READ_PER_CHAIN (exact, or the 400); only a count on a
 *    transaction's own partition or on entries ingested before positions existed is a Select COUNT
 *    that examines at most this many items per chain (a lower bound beyond).
 * Each handler module parses them once, at cold start, and passes them to the domain functions.
 */
import * as v from 'valibot';
import { readEnv } from '../config';
import { type ChainStatusSettings, loadChainStatusSettings } from '../chain-status/status';
import { loadGateways, loadMetadataQueueUrl } from '../nft-metadata/config';
import type { Gateways } from '../nft-metadata/uri';
import { DEFAULT_MAX_ITEMS_READ_PER_CHAIN } from './limits';
import type { WebhookSettings } from './webhooks';

const count = (fallback: number) =>
  v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,6}$/, 'must be an integer from 1 to 9999999'), v.transform(Number)),
    String(fallback),
  );

const schema = v.object({
  INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: count(DEFAULT_MAX_ITEMS_READ_PER_CHAIN),
  INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN: count(10_000),
});

export interface InsightsConfig {
  maxItemsReadPerChain: number;
  maxCountedItemsPerChain: number;
  /** How chains' ingest statuses are judged and kept (CHAIN_STATUS_*: shared/chain-status/status.ts). */
  chainStatus: ChainStatusSettings;
  /** What `resolve_metadata_links=true` resolves ipfs:// and ar:// links through (NFT_METADATA_*_GATEWAY). */
  gateways: Gateways;
  /** Where the refresh routes queue NFT metadata fetches (NFT_METADATA_QUEUE_URL; unset: the local in-process fetcher). */
  metadataQueueUrl: string | undefined;
}

const webhookSchema = v.object({
  WEBHOOKS_PER_PROJECT: count(100),
  WEBHOOK_API_REQUESTS_PER_MINUTE: count(120),
  /** Local runs and tests only (`npm start` sets it): receivers on loopback, over plain http://. */
  WEBHOOK_ALLOW_LOOPBACK: v.optional(v.picklist(['0', '1'], 'must be 0 or 1'), '0'),
});

/**
 * Settings of the webhook routes: WEBHOOKS_PER_PROJECT (default 100) webhooks a project may have,
 * WEBHOOK_API_REQUESTS_PER_MINUTE (default 120) requests a secret key may send a minute (429 beyond),
 * WEBHOOK_ALLOW_LOOPBACK=1 (local runs only, with DYNAMODB_ENDPOINT set) receivers on 127.0.0.1 over http://.
 */
export function loadWebhookSettings(env: Record<string, string | undefined> = process.env): WebhookSettings {
  const raw = readEnv(webhookSchema, env);
  // Honoured against a local table only: in AWS (no DYNAMODB_ENDPOINT) receivers are public https:// hosts, whatever the variable says.
  const local = raw.WEBHOOK_ALLOW_LOOPBACK === '1' && Boolean(env.DYNAMODB_ENDPOINT);
  return {
    limits: { requestsPerMinute: raw.WEBHOOK_API_REQUESTS_PER_MINUTE },
    maxWebhooksPerProject: raw.WEBHOOKS_PER_PROJECT,
    egress: { allowLoopback: local, allowHttp: local },
  };
}

export function loadInsightsConfig(env: Record<string, string | undefined> = process.env): InsightsConfig {
  const raw = readEnv(schema, env);
  return {
    maxItemsReadPerChain: raw.INSIGHTS_MAX_ITEMS_READ_PER_CHAIN,
    maxCountedItemsPerChain: raw.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN,
    chainStatus: loadChainStatusSettings(env),
    gateways: loadGateways(env),
    metadataQueueUrl: loadMetadataQueueUrl(env),
  };
}
