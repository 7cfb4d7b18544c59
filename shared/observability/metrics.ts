/**
 * CloudWatch metrics of a function (Powertools, embedded metric format), one Metrics object per service
 * and process: a handler module calls `createMetrics` at module top level. The namespace is
 * POWERTOOLS_METRICS_NAMESPACE (default ChainDataApi).
 */
import { Metrics } from '@aws-lambda-powertools/metrics';

export { MetricUnit } from '@aws-lambda-powertools/metrics';

const created = new Map<string, Metrics>();

export function createMetrics(serviceName: string): Metrics {
  let metrics = created.get(serviceName);
  if (!metrics) {
    metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'ChainDataApi', serviceName });
    created.set(serviceName, metrics);
  }
  return metrics;
}
