/**
 * Scheduled (jobs row IngestChain, one function per chain, reserved concurrency 1): ingests the next
 * blocks of CHAIN_ID from its cursor, at most INGEST_MAX_BLOCKS per run and never past the
 * invocation's deadline. Its one listener publishes the ingested and orphaned blocks to the SQS FIFO
 * queue DEPOSIT_EVENTS_QUEUE_URL (shared/ingest/queue-listener.ts), which order deposit detection
 * consumes (functions/orders/detect-deposits.ts): this bundle carries no orders code. The RPC URL is read
 * from the SSM parameter RPC_URL_PARAMETER (decrypted, cached 5 minutes). A failure is thrown (the
 * cursor stays on the last complete block) so the next scheduled run picks up from there. Metrics per
 * chain: BlocksIngested, BlocksPerSecond, Reorgs, IngestFailed, IngestStopped (a reorg deeper than
 * INGEST_MAX_REORG_DEPTH: the IngestStopped alarm), and after the run LagBlocks / LagSeconds
 * behind the node's head (shared/ingest/lag.ts; the IngestLag alarm).
 */
import { getParameter } from '@aws-lambda-powertools/parameters/ssm';
import type { Context } from 'aws-lambda';
import { createChainClient, type ChainClient } from '../../shared/chain/client';
import { ingestLag } from '../../shared/ingest/lag';
import { loadIngestConfig } from '../../shared/ingest/config';
import { ChainIngest, type IngestResult } from '../../shared/ingest/ingest';
import { ReorgTooDeepError } from '../../shared/ingest/reorg';
import { logger } from '../../shared/observability/logger';
import { createMetrics, MetricUnit } from '../../shared/observability/metrics';
import { queueListener } from '../../shared/ingest/queue-listener';
import { sqsSend } from '../../shared/ingest/sqs-send';

const config = loadIngestConfig();
const metrics = createMetrics('ingest');
const listener = queueListener(config.listenerQueueUrl, sqsSend());

let current: { rpcUrl: string; client: ChainClient; ingest: ChainIngest } | undefined;

export const handler = async (_event: unknown, context?: Context): Promise<{ advanced: number; reorgs: number; cursor: number | null }> => {
  const rpcUrl = await getParameter(config.rpcUrlParameter, { decrypt: true, maxAge: 300 });
  if (!rpcUrl) throw new Error(`SSM parameter ${config.rpcUrlParameter} is empty`);
  if (current?.rpcUrl !== rpcUrl) {
    const client = createChainClient(rpcUrl, { timeoutMs: config.rpcTimeoutMs, batchSize: config.rpcBatchSize });
    current = {
      rpcUrl,
      client,
      ingest: new ChainIngest({
        chainId: config.chainId,
        client,
        listeners: [listener],
        traceMethod: config.traceMethod,
        maxReorgDepth: config.maxReorgDepth,
      }),
    };
  }
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() - config.safetyMarginMs : undefined;
  let result: IngestResult | undefined;
  let stopped = false;
  const started = Date.now();
  try {
    result = await current.ingest.ingestNext(config.maxBlocks, { firstBlock: config.firstBlock, deadline });
  } catch (error) {
    // A reorg deeper than INGEST_MAX_REORG_DEPTH: nothing is written until an operator acts (the IngestStopped alarm).
    stopped = error instanceof ReorgTooDeepError;
    throw error;
  } finally {
    metrics.addDimension('chainId', String(config.chainId));
    metrics.addMetric('BlocksIngested', MetricUnit.Count, result?.advanced ?? 0);
    if (result) {
      metrics.addMetric('BlocksPerSecond', MetricUnit.CountPerSecond, result.advanced / Math.max(0.001, (Date.now() - started) / 1000));
      // Behind the head after the run: the IngestLag alarm's metric.
      const lag = await ingestLag(current.client, result.cursor).catch(() => undefined);
      if (lag) {
        metrics.addMetric('LagBlocks', MetricUnit.Count, lag.blocks);
        metrics.addMetric('LagSeconds', MetricUnit.Seconds, lag.seconds);
      }
    }
    metrics.addMetric('Reorgs', MetricUnit.Count, result?.reorgs ?? 0);
    metrics.addMetric('IngestFailed', MetricUnit.Count, result ? 0 : 1);
    metrics.addMetric('IngestStopped', MetricUnit.Count, stopped ? 1 : 0);
    metrics.publishStoredMetrics();
  }
  const summary = { advanced: result.advanced, reorgs: result.reorgs, cursor: result.cursor?.blockNumber ?? null };
  logger.info('Ingested blocks', { chainId: config.chainId, ...summary });
  return summary;
};
