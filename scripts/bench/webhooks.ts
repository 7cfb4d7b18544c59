/**
 * `npm run bench -- --only webhooks`: what matching a block against the webhooks costs (issue 37: "at
 * 10,000 webhooks over 55 chains, a Base-profile block is matched within its block time"). The blocks
 * are the bench's Base profile (dataset/base-profile.ts: DEX swaps, Zipf-concentrated tokens), derived by
 * the real ingest code; the webhooks' filters are spread over 55 chains (the Base profile's one of them),
 * a tenth without chain ids, in Insight's shapes: events by contract (half with a Transfer signature and
 * its ABI, some with a `to` param), events by topic0 only, and transactions by recipient and by selector,
 * their addresses drawn from the profile's tokens and pools (so they match) and from nowhere.
 *
 * It times, in this process, the real matcher (shared/insights/webhook-matching.ts) and what the
 * dispatch does with its matches (items serialised, split into deliveries): per block of 200 transactions
 * and for the profile's 3,000-transaction burst, at 100, 1,000 and 10,000 webhooks, so the report shows
 * whether the cost follows the block or the webhooks. No table or queue: those are per delivery, not per
 * webhook.
 */
import { parseAbiItem, toEventSelector, toFunctionSelector } from 'viem';
import { DEFAULT_RETRY_POLICY } from '../../shared/chain/retry';
import { deriveBlock, type DerivedBlock } from '../../shared/ingest/derive';
import { BlockSource } from '../../shared/ingest/fetch-block';
import type { Filters } from '../../shared/insights/webhook-filters';
import { deliveriesOf } from '../../shared/insights/webhook-dispatch';
import { type WebhookFilterEntry, WebhookIndex } from '../../shared/insights/webhook-matching';
import { itemsOf } from '../../shared/insights/webhook-payload';
import { BaseChain } from './dataset/base-profile';
import { prng } from './dataset/chain';
import { baseProfileSpec } from './dataset/spec';

export interface WebhooksResult {
  chains: number;
  blockTimeMs: number;
  profile: { transactionsPerBlock: number; burstTransactions: number; chainId: number };
  runs: {
    webhooks: number;
    onThisChain: number;
    indexBuildMs: number;
    /** A 200-transaction block: match + items + deliveries, ms. */
    blockMs: { p50: number; p99: number; records: number; matched: number; deliveries: number };
    burstMs: { total: number; records: number; matched: number; deliveries: number };
    microsecondsPerRecord: number;
  }[];
}

const CHAINS = 55;
const TRANSFER = 'event Transfer(address indexed from, address indexed to, uint256 value)';
const TRANSFER_ABI = parseAbiItem(TRANSFER);

/** The filters of the `index`-th bench webhook, on `chainId`, its addresses drawn from `addresses` (70 %) or nowhere. */
export function filtersFor(index: number, chainId: number, addresses: readonly string[], pick: () => number): Filters {
  const draw = () => (pick() < 0.7 ? addresses[Math.floor(pick() * addresses.length)]! : `0x${index.toString(16).padStart(40, 'f')}`);
  const chainIds = index % 10 === 0 ? [] : [chainId];
  const kind = index % 5;
  const transfer = { hash: toEventSelector(TRANSFER), abi: TRANSFER_ABI };
  if (kind <= 1) return { events: { chainIds, addresses: [draw(), draw()], signatures: kind === 0 ? [transfer] : [] } };
  if (kind === 2) {
    // Transfers to one address, of any token: a topic0 filter with a param.
    return { events: { chainIds, addresses: [], signatures: [{ ...transfer, params: { to: draw() } }] } };
  }
  if (kind === 3) return { transactions: { chainIds, fromAddresses: [], toAddresses: [draw()], signatures: [] } };
  return {
    transactions: {
      chainIds,
      fromAddresses: [],
      toAddresses: [],
      signatures: [{ hash: toFunctionSelector('function transfer(address,uint256)') }],
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export async function runWebhooks(options: { log: (line: string) => void; blocks?: number }): Promise<WebhooksResult> {
  const blockCount = options.blocks ?? 30;
  const spec = baseProfileSpec({ blocks: blockCount + 1, transactionsPerBlock: 200, burst: { block: blockCount + 1, transactions: 3000 } });
  const chain = new BaseChain(spec);
  const source = new BlockSource(chain.client(), DEFAULT_RETRY_POLICY, { warn: () => undefined });
  const blocks: DerivedBlock[] = [];
  for (let number = 1; number <= blockCount + 1; number++) blocks.push(deriveBlock(spec.chainId, await source.fetch(BigInt(number))));
  const burst = blocks.reduce((largest, block) => (block.transactions.length > largest.transactions.length ? block : largest));
  const regular = blocks.filter((block) => block !== burst);
  // The addresses a filter is drawn from: the profile's busiest contracts and its senders.
  const seen = new Map<string, number>();
  for (const block of regular) for (const log of block.logs) seen.set(log.address, (seen.get(log.address) ?? 0) + 1);
  const addresses = [...seen]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 500)
    .map(([address]) => address);
  const senders = [...new Set(regular.flatMap((block) => block.transactions.map((tx) => tx.from)))].slice(0, 500);
  const pool = [...addresses, ...senders];

  const runs: WebhooksResult['runs'] = [];
  for (const webhooks of [100, 1_000, 10_000]) {
    const pick = prng(webhooks);
    const entries: WebhookFilterEntry[] = Array.from({ length: webhooks }, (_, index) => {
      const chainId = index % CHAINS === 0 ? spec.chainId : 1_000 + (index % CHAINS);
      return {
        webhookId: `hook-${index}`,
        project: `project-${index % 97}`,
        filters: filtersFor(index, chainId, pool, pick),
        disabled: false,
      };
    });
    const onThisChain = entries.filter((entry) =>
      [entry.filters.events?.chainIds, entry.filters.transactions?.chainIds].some(
        (ids) => ids && (ids.length === 0 || ids.includes(spec.chainId)),
      ),
    ).length;
    const built = performance.now();
    const index = new WebhookIndex(entries, spec.chainId);
    const indexBuildMs = performance.now() - built;
    const dispatch = (block: DerivedBlock) => {
      const started = performance.now();
      const matches = index.match(block);
      let matched = 0;
      let deliveries = 0;
      for (const [webhookId, found] of matches) {
        matched += found.length;
        deliveries += deliveriesOf('project', webhookId, itemsOf(found, 'new')).length;
      }
      return { ms: performance.now() - started, records: block.transactions.length + block.logs.length, matched, deliveries };
    };
    dispatch(regular[0]!); // warm
    const timings = regular.map(dispatch);
    const burstRun = dispatch(burst);
    const records = timings.reduce((sum, timing) => sum + timing.records, 0);
    const total = timings.reduce((sum, timing) => sum + timing.ms, 0);
    const run = {
      webhooks,
      onThisChain,
      indexBuildMs: round(indexBuildMs),
      blockMs: {
        p50: round(
          percentile(
            timings.map((timing) => timing.ms),
            50,
          ),
        ),
        p99: round(
          percentile(
            timings.map((timing) => timing.ms),
            99,
          ),
        ),
        records: Math.round(records / timings.length),
        matched: Math.round(timings.reduce((sum, timing) => sum + timing.matched, 0) / timings.length),
        deliveries: Math.round(timings.reduce((sum, timing) => sum + timing.deliveries, 0) / timings.length),
      },
      burstMs: { total: round(burstRun.ms), records: burstRun.records, matched: burstRun.matched, deliveries: burstRun.deliveries },
      microsecondsPerRecord: round((total * 1000) / records),
    };
    runs.push(run);
    options.log(
      `webhooks ${webhooks} (${onThisChain} on this chain): index ${run.indexBuildMs} ms; a ${run.blockMs.records}-record block p50 ${run.blockMs.p50} ms, p99 ${run.blockMs.p99} ms (${run.blockMs.matched} matched, ${run.blockMs.deliveries} deliveries); burst ${burst.transactions.length} tx: ${run.burstMs.total} ms; ${run.microsecondsPerRecord} us a record`,
    );
  }
  return {
    chains: CHAINS,
    blockTimeMs: 2_000,
    profile: { transactionsPerBlock: 200, burstTransactions: burst.transactions.length, chainId: spec.chainId },
    runs,
  };
}
