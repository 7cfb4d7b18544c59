/**
 * The backfill's worker (shared/jobs.ts `backfillWorker`), invoked by the Step Functions state machine
 * of lib/backfill.ts, one function for every chain:
 *  - `{ action: 'plan', request: { chainId, to, from?, segmentBlocks?, confirmations?, maxShards? } }`
 *    (the execution's input) records the plan on the chain and answers its shards, the map's items;
 *  - `{ action: 'stage', chainId, from, to }` stages the segments of one shard (shared/ingest/backfill.ts),
 *    throwing ShardNotFinishedError near its deadline (the map runs it again; staged segments are skipped).
 * The chain's scheduled ingest numbers the staged segments in block order.
 */
import { getParameter } from '@aws-lambda-powertools/parameters/ssm';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { createChainClient, type ChainClient } from '../../shared/chain/client';
import {
  BackfillPlanError,
  MAX_SEGMENT_BLOCKS,
  MAX_SHARDS,
  planBackfill,
  readPlan,
  shardsOf,
  stageShard,
} from '../../shared/ingest/backfill';
import { loadBackfillConfig } from '../../shared/ingest/backfill-config';
import { readCursor } from '../../shared/ingest/manifest';
import { logger } from '../../shared/observability/logger';

const config = loadBackfillConfig();
const block = v.pipe(v.number(), v.integer(), v.minValue(0));
const event = v.variant('action', [
  v.object({
    action: v.literal('plan'),
    // The execution's input, as given to start-execution.
    request: v.object({
      chainId: block,
      to: block,
      from: v.optional(block),
      segmentBlocks: v.optional(v.pipe(block, v.minValue(1), v.maxValue(MAX_SEGMENT_BLOCKS))),
      confirmations: v.optional(block),
      /** Most map items (default MAX_SHARDS); fewer means longer shards. */
      maxShards: v.optional(v.pipe(block, v.minValue(1), v.maxValue(MAX_SHARDS))),
    }),
  }),
  v.object({ action: v.literal('stage'), chainId: block, from: block, to: block }),
]);

async function chainClient(chainId: number): Promise<ChainClient> {
  const parameter = config.rpcUrlParameters.get(chainId);
  if (!parameter) throw new BackfillPlanError(`chain ${chainId} is not one this stack ingests`);
  const rpcUrl = await getParameter(parameter, { decrypt: true, maxAge: 300 });
  if (!rpcUrl) throw new Error(`SSM parameter ${parameter} is empty`);
  return createChainClient(rpcUrl, { timeoutMs: config.rpcTimeoutMs, batchSize: config.rpcBatchSize });
}

export const handler = async (input: unknown, context?: Context) => {
  const request = v.parse(event, input);
  if (request.action === 'plan') {
    const client = await chainClient(request.request.chainId);
    const head = Number(await client.getBlockNumber());
    const { maxShards, ...options } = request.request;
    const { plan } = await planBackfill({ ...options, head });
    const shards = shardsOf(plan, maxShards);
    logger.info('Backfill planned', { ...plan, shards: shards.length });
    return { chainId: plan.chainId, from: plan.from, to: plan.to, shards };
  }
  const client = await chainClient(request.chainId);
  const plan = await readPlan(request.chainId);
  if (!plan || plan.ended) {
    // A shard run again after the ingest numbered the whole plan (and ended it) has nothing to do; a plan
    // that a reorg ended (see shared/ingest/backfill.ts) takes no more segments.
    const cursor = await readCursor(request.chainId);
    if (cursor && cursor.blockNumber >= request.to) return { staged: 0, skipped: 0 };
    throw new BackfillPlanError(`chain ${request.chainId} has no open backfill`);
  }
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() - config.safetyMarginMs : undefined;
  const counts = await stageShard(
    {
      chainId: request.chainId,
      client,
      traceMethod: config.traceMethod,
      zeroValueCallsRetentionDays: config.zeroValueCallsRetentionDays,
      coldHistory: config.coldHistory,
    },
    plan,
    request,
    deadline,
  );
  logger.info('Backfill shard staged', { chainId: request.chainId, from: request.from, to: request.to, ...counts });
  return counts;
};
