/**
 * Per-route CloudWatch metrics of every HTTP function (Powertools, embedded metric format): one EMF
 * record per request, namespace POWERTOOLS_METRICS_NAMESPACE (default ChainDataApi), dimensions
 * `service` (POWERTOOLS_SERVICE_NAME) and `route` (API Gateway's route key, e.g. `GET /orders/{id}`;
 * `$default` for an unknown route):
 *
 *   Latency                   Milliseconds  the handler's time, from the event to the response
 *   Requests2xx / 4xx / 5xx   Count         1 for the response's status class, 0 for the others
 *                                           (Sum: requests of the class; Average: their share)
 *   DynamoDBCalls             Count         calls sent to the table (each SDK retry not counted apart)
 *   DynamoDBReadUnits         Count         read capacity consumed, as DynamoDB reports it
 *   DynamoDBWriteUnits        Count         write capacity consumed
 *
 * The DynamoDB figures are counted at the table's edge (the table layer's client middleware,
 * shared/db/instrument.ts), which asks DynamoDB for the consumed capacity of every call of the request.
 * Published in Lambda (AWS_LAMBDA_FUNCTION_NAME set) unless POWERTOOLS_METRICS_DISABLED=true; outside
 * Lambda (npm start, tests, benchmarks) only with POWERTOOLS_METRICS_DISABLED=false.
 */
import { performance } from 'node:perf_hooks';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { emptyUsage, measureTableInto, type TableUsage, totalCalls } from '../db/instrument';
import { createMetrics, MetricUnit } from './metrics';

const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;
const usageOfRequest = new WeakMap<object, TableUsage>();
const startOfRequest = new WeakMap<object, number>();

export function routeMetricsEnabled(env: Record<string, string | undefined> = process.env): boolean {
  const disabled = env.POWERTOOLS_METRICS_DISABLED?.trim().toLowerCase();
  if (disabled === 'false' || disabled === '0') return true;
  if (disabled === 'true' || disabled === '1') return false;
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
}

/**
 * Runs the handler's work in a measured scope and remembers its table usage for the request's
 * metrics (also when the work throws: the error responder answers, the metrics still count it).
 */
export async function measuredWork<T>(context: Context, work: () => Promise<T>): Promise<T> {
  if (!routeMetricsEnabled()) return work();
  const usage = emptyUsage();
  usageOfRequest.set(context, usage);
  return measureTableInto(usage, work);
}

/** The middleware, used first, that notes when a request started (before any other middleware ran). */
export function requestTimer(): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      if (routeMetricsEnabled()) startOfRequest.set(request.context, performance.now());
    },
  };
}

/** The middy plugin that publishes each request's metrics once its response is final (after the error responder). */
export function routeMetricsPlugin(): middy.PluginObject {
  return {
    requestEnd: (request) => {
      const start = startOfRequest.get(request.context);
      if (start === undefined) return;
      startOfRequest.delete(request.context);
      const event = request.event as APIGatewayProxyEventV2;
      const status = Number((request.response as { statusCode?: number } | undefined)?.statusCode ?? 500);
      const usage = usageOfRequest.get(request.context) ?? emptyUsage();
      usageOfRequest.delete(request.context);
      publishRequestMetrics(event.routeKey ?? '$default', performance.now() - start, status, usage);
    },
  };
}

export function publishRequestMetrics(route: string, latencyMs: number, status: number, usage: TableUsage): void {
  const metrics = createMetrics(process.env.POWERTOOLS_SERVICE_NAME ?? 'chain-data-api');
  metrics.addDimension('route', route);
  metrics.addMetric('Latency', MetricUnit.Milliseconds, Math.round(latencyMs * 100) / 100);
  const statusClass = `${Math.floor(status / 100)}xx`;
  for (const name of STATUS_CLASSES) metrics.addMetric(`Requests${name}`, MetricUnit.Count, name === statusClass ? 1 : 0);
  metrics.addMetric('DynamoDBCalls', MetricUnit.Count, totalCalls(usage));
  metrics.addMetric('DynamoDBReadUnits', MetricUnit.Count, usage.readUnits);
  metrics.addMetric('DynamoDBWriteUnits', MetricUnit.Count, usage.writeUnits);
  metrics.publishStoredMetrics();
}
