/**
 * Metrics and tracing of the functions no HTTP request starts (shared/jobs.ts: the scheduled order
 * expiry, the deposit consumer), the counterpart of route-metrics.ts and tracing.ts for routes.
 *
 * Each invocation prints one embedded-metric-format record, namespace POWERTOOLS_METRICS_NAMESPACE
 * (default ChainDataApi), dimensions `service` and `job` (the function id, e.g. `ExpireOrders`):
 *
 *   Duration                   Milliseconds  the invocation's time
 *   Failed                     Count         1 when the invocation threw (Lambda counts it in Errors too)
 *   DynamoDBCalls              Count         calls sent to the table
 *   DynamoDBReadUnits / WriteUnits  Count    capacity consumed, as DynamoDB reports it
 *   and what the job did, counted by its code with `countJobWork` (e.g. OrdersExpired, DepositsCounted,
 *   RecordsFailed), every declared name present (0 when nothing happened), so a Sum over time is exact.
 *
 * With the tracer on (POWERTOOLS_TRACE_ENABLED, context `tracerSdk`), each invocation is a subsegment
 * `## <job>` annotated with `job`, `ColdStart`, `Service` and `failed` (the error as metadata), inside
 * which the DynamoDB calls are subsegments, as a route's are. Same switches as the routes' metrics:
 * published in Lambda unless POWERTOOLS_METRICS_DISABLED=true, outside Lambda only when it is `false`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { emptyUsage, measureTableInto, totalCalls } from '../db/instrument';
import { createMetrics, MetricUnit } from './metrics';
import { routeMetricsEnabled } from './route-metrics';
import { loadTracer, tracerSdkEnabled } from './tracing';

const counts = new AsyncLocalStorage<Map<string, number>>();

/**
 * Adds `value` to a count of the running job's record (no-op outside `runJob`, e.g. under `npm start`
 * or the ingest CLI, which call the same code in process).
 */
export function countJobWork(name: string, value = 1): void {
  const current = counts.getStore();
  if (current) current.set(name, (current.get(name) ?? 0) + value);
}

/**
 * Runs one invocation of `job`: measured (table usage, duration, the counts its code adds), traced
 * when the tracer is on, and published as one EMF record whether it returns or throws. `counted`
 * lists the job's own counts, published as 0 when the run added none.
 */
export async function runJob<T>(job: string, counted: readonly string[], work: () => Promise<T>): Promise<T> {
  const measured = routeMetricsEnabled();
  const traced = tracerSdkEnabled();
  if (!measured && !traced) return work();
  const start = performance.now();
  const usage = emptyUsage();
  const jobCounts = new Map<string, number>(counted.map((name) => [name, 0]));
  const close = await openSubsegment(job);
  let failed: unknown;
  try {
    return await counts.run(jobCounts, () => (measured ? measureTableInto(usage, work) : work()));
  } catch (error) {
    failed = error ?? new Error('job failed');
    throw error;
  } finally {
    close?.(failed);
    if (measured) {
      const metrics = createMetrics(process.env.POWERTOOLS_SERVICE_NAME ?? 'chain-data-api');
      metrics.addDimension('job', job);
      metrics.addMetric('Duration', MetricUnit.Milliseconds, Math.round((performance.now() - start) * 100) / 100);
      metrics.addMetric('Failed', MetricUnit.Count, failed === undefined ? 0 : 1);
      metrics.addMetric('DynamoDBCalls', MetricUnit.Count, totalCalls(usage));
      metrics.addMetric('DynamoDBReadUnits', MetricUnit.Count, usage.readUnits);
      metrics.addMetric('DynamoDBWriteUnits', MetricUnit.Count, usage.writeUnits);
      for (const [name, value] of jobCounts) metrics.addMetric(name, MetricUnit.Count, value);
      metrics.publishStoredMetrics();
    }
  }
}

/** The job's subsegment, when the tracer is on and loaded; returns what closes it. */
async function openSubsegment(job: string): Promise<((error: unknown) => void) | undefined> {
  if (!tracerSdkEnabled()) return undefined;
  const tracer = await loadTracer();
  const parent = tracer?.getSegment();
  if (!tracer || !parent || !tracer.isTracingEnabled()) return undefined;
  const segment = parent.addNewSubsegment(`## ${job}`);
  tracer.setSegment(segment);
  tracer.annotateColdStart();
  tracer.addServiceNameAnnotation();
  tracer.putAnnotation('job', job);
  return (error) => {
    tracer.putAnnotation('failed', error !== undefined);
    if (error instanceof Error) tracer.addErrorAsMetadata(error);
    segment.close();
    tracer.setSegment(parent);
  };
}
