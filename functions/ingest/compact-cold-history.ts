/**
 * Scheduled (jobs row CompactColdHistory, deployed only with the stack's cold tier on: context
 * `coldAfterDays`): ONE function for every chain, invoked by one schedule per chain with the ingest's
 * event (only its `chainId` is read; a bad event fails the invocation naming the field). It compacts the
 * chain's history older than COLD_AFTER_DAYS into the cold store (COLD_BUCKET), span after span of
 * COLD_SPAN_BLOCKS from the chain's cold cursor, each span in COLD_RANGE_GROUPS runs, and moves the cursor
 * after each span on condition (shared/ingest/cold-history.ts compactColdHistory; docs/decisions/cold-history.md).
 * With COLD_GROUP_FUNCTION (the stack sets it: CompactColdHistoryGroup), a span's groups run at once, one
 * invocation of that worker each, and the cursor moves when all have ended (a failed group fails the run,
 * the cursor unmoved); without it, here, one after the other.
 * No span starts when less than COLD_SPAN_ALLOWANCE_MS remains; the next tick goes on from the cursor, and
 * a run cut anywhere is completed by the next. Its reserved concurrency is one a chain.
 *
 * Metrics per chain (namespace ChainDataApi, service `cold-history`): ColdBlocksCompacted, ColdItemsCompacted,
 * ColdPartsWritten, ColdBytesWritten, and ColdHistoryBehindSeconds (how long the oldest block still to
 * compact has been past the window: the ColdHistoryBehind alarm, since its items expire COLD_MARGIN_DAYS
 * after the window).
 */
import type { Context } from 'aws-lambda';
import { s3ColdStore } from '../../shared/aws/cold-store';
import { functionInvoker } from '../../shared/aws/invoke-function';
import {
  coldHistoryBehindSeconds,
  compactColdHistory,
  type ColdGroupRunner,
  type ColdJobResult,
  type CompactResult,
  groupsAtOnce,
} from '../../shared/ingest/cold-history';
import { loadColdJobConfig, parseColdJobEvent } from '../../shared/ingest/cold-job-config';
import { logger } from '../../shared/observability/logger';
import { createMetrics, MetricUnit } from '../../shared/observability/metrics';

const config = loadColdJobConfig();
const store = s3ColdStore({ bucket: config.bucket, endpoint: config.endpoint });
const metrics = createMetrics('cold-history');
const groupFunction = config.groupFunction;
const invoker = groupFunction ? functionInvoker() : undefined;
const runGroups: ColdGroupRunner | undefined =
  groupFunction && invoker ? groupsAtOnce((task) => invoker.invoke<CompactResult>(groupFunction, task)) : undefined;

export interface CompactColdHistoryResult extends Omit<ColdJobResult, 'spans'> {
  chainId: number;
  spans: number;
  items: number;
  behindSeconds: number;
}

export const handler = async (event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<CompactColdHistoryResult> => {
  const { chainId } = parseColdJobEvent(event);
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() - config.spanAllowanceMs : undefined;
  const run = await compactColdHistory({
    chainId,
    store,
    afterSeconds: config.afterSeconds,
    spanBlocks: config.spanBlocks,
    rangeGroups: config.rangeGroups,
    deadline,
    ...(runGroups ? { runGroups } : {}),
  });
  const behindSeconds = await coldHistoryBehindSeconds(chainId, run, config.afterSeconds, Date.now());
  const sum = (pick: (span: ColdJobResult['spans'][number]) => number) => run.spans.reduce((total, span) => total + pick(span), 0);
  const blocks = run.to === undefined ? 0 : run.to - (run.from ?? (run.firstBlock ?? 0) - 1);
  metrics.addDimension('chainId', String(chainId));
  metrics.addMetric('ColdBlocksCompacted', MetricUnit.Count, blocks);
  metrics.addMetric(
    'ColdItemsCompacted',
    MetricUnit.Count,
    sum((span) => span.items),
  );
  metrics.addMetric(
    'ColdPartsWritten',
    MetricUnit.Count,
    sum((span) => span.parts),
  );
  metrics.addMetric(
    'ColdBytesWritten',
    MetricUnit.Bytes,
    sum((span) => span.bytes),
  );
  metrics.addMetric('ColdHistoryBehindSeconds', MetricUnit.Seconds, behindSeconds);
  metrics.publishStoredMetrics();
  const result = {
    chainId,
    from: run.from,
    to: run.to,
    due: run.due,
    firstBlock: run.firstBlock,
    spans: run.spans.length,
    items: sum((span) => span.items),
    behindSeconds,
  };
  logger.info('Compacted cold history', { ...result });
  return result;
};
