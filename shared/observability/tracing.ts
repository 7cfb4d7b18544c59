/**
 * X-Ray tracing of the HTTP functions with the Powertools tracer, loaded only when it is switched on.
 *
 * Every function runs with Lambda's active tracing (lib/api-function.ts): Lambda itself records each
 * invocation's segment (initialisation, invocation, overhead) with no code here. The Powertools tracer
 * adds, inside that segment, a subsegment per request named after its route, annotated with `route`,
 * `ColdStart`, `Service` and the response's `status`, and a subsegment per DynamoDB call (the one
 * client of shared/db/client.ts, registered with `traceAwsClient`). It is opt-in (`POWERTOOLS_TRACE_ENABLED=true`, set by the
 * stack from the context key `tracerSdk`) and imported on the first request that needs it, because its
 * X-Ray SDK costs every cold start far more than it costs a request: off, a function never loads it.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logger } from './logger';

type TracerModule = typeof import('@aws-lambda-powertools/tracer');
type TracerInstance = InstanceType<TracerModule['Tracer']>;
type Segment = NonNullable<ReturnType<TracerInstance['getSegment']>>;

/** On in Lambda when POWERTOOLS_TRACE_ENABLED is `true` (the tracer itself stays off outside Lambda). */
export function tracerSdkEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return env.POWERTOOLS_TRACE_ENABLED?.trim().toLowerCase() === 'true' && env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
}

let loading: Promise<TracerInstance | undefined> | undefined;
const clients: object[] = [];

/**
 * Records an AWS SDK v3 client whose calls become subsegments once the tracer is loaded (the table
 * layer's client registers itself: shared/db/client.ts). Registering loads nothing.
 */
export function traceAwsClient<T extends object>(client: T): T {
  clients.push(client);
  void loading?.then((tracer) => tracer?.captureAWSv3Client(client));
  return client;
}

/** The process's tracer, with the DynamoDB client captured; created on first use, undefined when off. */
export function loadTracer(): Promise<TracerInstance | undefined> {
  loading ??= (async () => {
    if (!tracerSdkEnabled()) return undefined;
    const { Tracer } = await import('@aws-lambda-powertools/tracer');
    const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'chain-data-api' });
    for (const client of clients) tracer.captureAWSv3Client(client);
    return tracer;
  })().catch((error: unknown) => {
    // Tracing must never fail a request: without it the function still answers.
    logger.warn('Tracer not loaded; requests are not traced', { error });
    return undefined;
  });
  return loading;
}

interface Traced {
  tracer: TracerInstance;
  parent: Segment;
  segment: Segment;
}
const traced = new WeakMap<object, Traced>();

/** The middy middleware that wraps each request in its route's subsegment (no-op when the tracer is off). */
export function tracing(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const close = (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>) => {
    const entry = traced.get(request.context);
    if (!entry) return;
    traced.delete(request.context);
    const status = request.response?.statusCode;
    if (status !== undefined) entry.tracer.putAnnotation('status', status);
    if (request.error && (status === undefined || status >= 500)) entry.tracer.addErrorAsMetadata(request.error);
    entry.segment.close();
    entry.tracer.setSegment(entry.parent);
  };
  return {
    before: async (request) => {
      if (!tracerSdkEnabled()) return;
      const tracer = await loadTracer();
      const parent = tracer?.getSegment();
      if (!tracer || !parent || !tracer.isTracingEnabled()) return;
      const route = request.event.routeKey ?? '$default';
      const segment = parent.addNewSubsegment(`## ${route}`);
      tracer.setSegment(segment);
      tracer.annotateColdStart();
      tracer.addServiceNameAnnotation();
      tracer.putAnnotation('route', route);
      traced.set(request.context, { tracer, parent, segment });
    },
    after: close,
    onError: close,
  };
}
