/**
 * Settings of the insights group, from the environment (validated with the platform's readEnv):
 *  - INSIGHTS_MAX_ITEMS_READ_PER_CHAIN (default 10000): items one chain may read for an aggregation or
 *    examine for a bounded check; beyond it the request is a 400 asking for a narrower block range;
 *  - INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN (default 10000): items the Select COUNT behind
 *    `total_items` examines per chain; beyond it `total_items` reports this many (a lower bound).
 * Read per call, so tests and operators can lower them without a redeploy of code.
 */
import * as v from 'valibot';
import { readEnv } from '../config';

const count = (fallback: number) =>
  v.optional(v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,6}$/, 'must be an integer from 1 to 9999999'), v.transform(Number)), String(fallback));

const schema = v.object({
  INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: count(10_000),
  INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN: count(10_000),
});

export interface InsightsConfig {
  maxItemsReadPerChain: number;
  maxCountedItemsPerChain: number;
}

export function insightsConfig(env: Record<string, string | undefined> = process.env): InsightsConfig {
  const raw = readEnv(schema, env);
  return { maxItemsReadPerChain: raw.INSIGHTS_MAX_ITEMS_READ_PER_CHAIN, maxCountedItemsPerChain: raw.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN };
}
