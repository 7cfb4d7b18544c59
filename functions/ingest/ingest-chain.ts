/**
 * Scheduled (jobs row IngestChain): ONE function for every chain, invoked every minute by one schedule
 * per chain with the event `{ "chainId": <number>, "rpcUrlParameter": "<ssm name>", "blockTimeMs"?: <number>,
 * "firstBlock"?: <number>, "traceMethod"?: "<string>" }` (validated: shared/ingest/config.ts
 * `parseIngestEvent`; the environment's INGEST_BLOCK_TIME_MS, INGEST_FIRST_BLOCK and INGEST_TRACE_METHOD
 * are the defaults of the optional fields). A bad event fails the invocation with an error naming every
 * bad field.
 *
 * An invocation follows the chain's head until its deadline nears (shared/ingest/follow.ts): it takes
 * the chain's lease (shared/ingest/lease.ts), looks for a new block at the chain's block time and
 * ingests each as it appears, renews the lease, and INGEST_SAFETY_MARGIN_MS before its timeout finishes
 * the block in flight and releases the lease to the invocation its schedule started meanwhile, which
 * waits for it. An invocation that finds the lease held exits at once unless the holder's handover is
 * due within its own life and INGEST_HANDOVER_WAIT_MS, so exactly one invocation writes a chain at a
 * time (the cursor's conditional update stays the safety net) and at most two of a chain run at once.
 *
 * Its one listener publishes every ingested and orphaned block, batch by batch as each is written (one
 * block per batch when following), to the SQS FIFO queue DEPOSIT_EVENTS_QUEUE_URL
 * (shared/ingest/queue-listener.ts), which order deposit detection consumes
 * (functions/orders/detect-deposits.ts): this bundle carries no orders code. A second listener sends
 * the NFT instances a batch wrote whose token URI is on the web and not yet fetched to the queue
 * NFT_METADATA_QUEUE_URL (shared/nft-metadata/listener.ts; FetchNftMetadata fetches them). The RPC URL is read from
 * the event's SSM parameter (decrypted, cached 5 minutes). A warm container keeps the client and the
 * ingest (its caches) of the chain it served last only: serving another chain drops them (one
 * function serves every chain; a container that kept each chain's would grow without limit). A new
 * client is checked once against the node (eth_chainId must be the event's chainId: else the
 * invocation fails, naming both, before anything is written). The lease holder is
 * `<awsRequestId>:<random>` (a duplicate delivery of one event shares its request id). A round that fails is tried again after a pause (IngestFailed counts
 * it); the third failure in a row is thrown after releasing the lease (the cursor stays on the last
 * complete block) so the next scheduled invocation picks up from there. Metrics per chain, about
 * every minute while following and at the end: BlocksIngested, BlocksPerSecond, Reorgs, IngestFailed,
 * IngestStopped (a reorg deeper than INGEST_MAX_REORG_DEPTH, or a block to undo whose manifest expired:
 * the IngestStopped alarm), LagBlocks /
 * LagSeconds behind the head the loop last read (shared/ingest/lag.ts: no extra call to the node; the
 * IngestLag alarm), IngestFailed also for a chain whose every run fails (the IngestFailed alarm), and IngestHandovers
 * (1 for an invocation that took the chain over from a holder that handed it over). With
 * INGEST_TABLE_WRITERS above 0 (the stack's rule: one less than the function's vCPUs), that many worker
 * threads started at cold start send the item writes (shared/db/write-workers.ts).
 */
import { randomUUID } from 'node:crypto';
import { getParameter } from '@aws-lambda-powertools/parameters/ssm';
import type { Context } from 'aws-lambda';
import { createChainClient, type ChainClient } from '../../shared/chain/client';
import { startTableWriters } from '../../shared/db/write-workers';
import { type ChainSettings, loadIngestConfig, parseIngestEvent } from '../../shared/ingest/config';
import { type FollowOutcome, type FollowProgress, followWithLease } from '../../shared/ingest/follow';
import { ChainIngest } from '../../shared/ingest/ingest';
import { lagBehind } from '../../shared/ingest/lag';
import { powertoolsLog } from '../../shared/ingest/log';
import type { IngestListener } from '../../shared/ingest/listeners';
import { queueListener } from '../../shared/ingest/queue-listener';
import { ReorgTooDeepError } from '../../shared/ingest/reorg';
import { sqsSend } from '../../shared/ingest/sqs-send';
import { loadMetadataQueueUrl } from '../../shared/nft-metadata/config';
import { nftMetadataListener } from '../../shared/nft-metadata/listener';
import { sqsMetadataQueue } from '../../shared/nft-metadata/queue';
import { logger } from '../../shared/observability/logger';
import { createMetrics, MetricUnit } from '../../shared/observability/metrics';

const config = loadIngestConfig();
// The item writes' SDK work on threads of their own where the function has more than one vCPU.
startTableWriters(config.tableWriters);
const metrics = createMetrics('ingest');
const nftMetadataQueueUrl = loadMetadataQueueUrl();
const listeners: IngestListener[] = [
  queueListener(config.listenerQueueUrl, sqsSend()),
  // Every block's transactions and logs, for webhook matching (MatchWebhooks; the stack sets the queue).
  ...(config.activityQueueUrl ? [queueListener(config.activityQueueUrl, sqsSend(), { content: 'activity' })] : []),
  // The NFT instances whose metadata is on the web and not yet fetched, to the fetcher's queue (the stack sets it).
  ...(nftMetadataQueueUrl ? [nftMetadataListener(sqsMetadataQueue(nftMetadataQueueUrl))] : []),
];

/**
 * The chain served last, across warm invocations: its client and ingest (its caches), rebuilt when the
 * chain, the URL or the trace method changes. One only: the function serves every chain, and a chain's
 * ingest holds caches of up to 100,000 ranges.
 */
let served:
  | { chainId: number; rpcUrl: string; traceMethod: ChainSettings['traceMethod']; client: ChainClient; ingest: ChainIngest }
  | undefined;

/** The chains whose client and ingest this container keeps (tests). */
export const keptChains = (): number[] => (served ? [served.chainId] : []);

/** Thrown when the node behind the event's RPC URL is another chain's. */
export class WrongChainError extends Error {
  override name = 'WrongChainError';
}

export type IngestChainResult = Pick<
  FollowOutcome,
  'role' | 'reason' | 'advanced' | 'reorgs' | 'failedRounds' | 'cursor' | 'waitedMs' | 'tookOver' | 'ended' | 'heldFrom' | 'heldUntil'
> & {
  chainId: number;
};

/** The client and ingest of the event's chain: the container's, or new ones (checked against the node) in their place. */
async function chainFor(chain: ChainSettings): Promise<{ client: ChainClient; ingest: ChainIngest }> {
  const rpcUrl = await getParameter(chain.rpcUrlParameter, { decrypt: true, maxAge: 300 });
  if (!rpcUrl) throw new Error(`SSM parameter ${chain.rpcUrlParameter} is empty`);
  let current = served;
  if (current?.chainId !== chain.chainId || current.rpcUrl !== rpcUrl || current.traceMethod !== chain.traceMethod) {
    served = undefined; // (the chain served before: its caches go)
    const client = createChainClient(rpcUrl, { timeoutMs: config.rpcTimeoutMs, batchSize: config.rpcBatchSize });
    // Once per client: the node must be the event's chain, or every item would be written under the wrong chain id.
    const nodeChainId = await client.getChainId();
    if (nodeChainId !== chain.chainId)
      throw new WrongChainError(
        `The node of ${chain.rpcUrlParameter} is chain ${nodeChainId} (eth_chainId), not the event's chainId ${chain.chainId}: nothing ingested`,
      );
    current = {
      chainId: chain.chainId,
      rpcUrl,
      traceMethod: chain.traceMethod,
      client,
      ingest: new ChainIngest({
        chainId: chain.chainId,
        client,
        listeners,
        traceMethod: chain.traceMethod,
        maxReorgDepth: config.maxReorgDepth,
        manifestRetentionDays: config.manifestRetentionDays,
        coinBalances: config.coinBalances,
        zeroValueCallsRetentionDays: config.zeroValueCallsRetentionDays,
        coldHistory: config.coldHistory,
      }),
    };
    served = current;
  }
  return current;
}

export const handler = async (event: unknown, context: Context): Promise<IngestChainResult> => {
  const chain = parseIngestEvent(event, config);
  if (!context || typeof context.getRemainingTimeInMillis !== 'function')
    throw new Error('the ingest handler needs the Lambda context (its deadline: getRemainingTimeInMillis)');
  const deadline = Date.now() + context.getRemainingTimeInMillis();
  let progressSince = Date.now();
  const publish = (delta: FollowProgress, failure?: unknown) => {
    metrics.addDimension('chainId', String(chain.chainId));
    metrics.addMetric('BlocksIngested', MetricUnit.Count, delta.advanced);
    metrics.addMetric('BlocksPerSecond', MetricUnit.CountPerSecond, delta.advanced / Math.max(0.001, (Date.now() - progressSince) / 1000));
    progressSince = Date.now();
    if (failure === undefined) {
      // Behind the head the loop last read: the IngestLag alarm's metric (no call to the node here).
      const lag = lagBehind(delta.head, delta.cursor);
      if (lag?.blocks !== undefined) metrics.addMetric('LagBlocks', MetricUnit.Count, lag.blocks);
      if (lag?.seconds !== undefined) metrics.addMetric('LagSeconds', MetricUnit.Seconds, lag.seconds);
    }
    metrics.addMetric('Reorgs', MetricUnit.Count, delta.reorgs);
    // Rounds that failed and were tried again, or 1 for an invocation that ended failing.
    metrics.addMetric('IngestFailed', MetricUnit.Count, failure === undefined ? delta.failedRounds : 1);
    // A reorg deeper than INGEST_MAX_REORG_DEPTH, or a block to undo whose manifest expired
    // (INGEST_MANIFEST_RETENTION_DAYS, a ManifestExpiredError): nothing is written until an operator acts (the IngestStopped alarm).
    metrics.addMetric('IngestStopped', MetricUnit.Count, failure instanceof ReorgTooDeepError ? 1 : 0);
    metrics.publishStoredMetrics();
  };

  // Unique per invocation: a duplicate delivery of the event may carry the same request id.
  const invocation = `${context.awsRequestId || 'invocation'}:${randomUUID()}`;

  let outcome: FollowOutcome;
  try {
    const { client, ingest } = await chainFor(chain);
    outcome = await followWithLease(ingest, client, {
      chainId: chain.chainId,
      invocation,
      deadline,
      safetyMarginMs: config.safetyMarginMs,
      leaseTtlMs: config.leaseTtlMs,
      handoverWaitMs: config.handoverWaitMs,
      ...(chain.blockTimeMs === undefined ? {} : { blockTimeMs: chain.blockTimeMs }),
      firstBlock: chain.firstBlock,
      maxBlocks: config.maxBlocks,
      log: powertoolsLog,
      onProgress: (delta) => publish(delta),
    });
  } catch (error) {
    try {
      publish({ advanced: 0, reorgs: 0, failedRounds: 0, cursor: undefined }, error);
    } catch {
      // (the failure is what is thrown)
    }
    throw error;
  }
  if (outcome.tookOver) {
    metrics.addDimension('chainId', String(chain.chainId));
    metrics.addMetric('IngestHandovers', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  }
  const summary: IngestChainResult = {
    chainId: chain.chainId,
    role: outcome.role,
    reason: outcome.reason,
    advanced: outcome.advanced,
    reorgs: outcome.reorgs,
    failedRounds: outcome.failedRounds,
    cursor: outcome.cursor,
    waitedMs: outcome.waitedMs,
    tookOver: outcome.tookOver,
    ended: outcome.ended,
    heldFrom: outcome.heldFrom,
    heldUntil: outcome.heldUntil,
  };
  logger.info(outcome.role === 'followed' ? 'Followed the chain' : 'Another invocation follows the chain', {
    ...summary,
    blockTimeMs: outcome.blockTimeMs,
    blockTimeSource: outcome.blockTimeSource,
  });
  return summary;
};
