/**
 * A route bundled with the Powertools tracer (context `tracerSdk=true`), run as Lambda runs it: the
 * environment of an invocation with active tracing (a trace header, the X-Ray daemon's address) and a
 * UDP socket at that address standing in for the daemon. What an operator sees in X-Ray: a subsegment
 * per request named after its route, annotated with the route, its status, ColdStart and Service, and a
 * DynamoDB subsegment for each call of the request, all in the invocation's trace; and the same for a
 * scheduled job (shared/observability/job-metrics.ts): a subsegment per invocation named after the job.
 */
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LAMBDA_RUNTIME } from '../../lib/api-function';
import { buildApiEvent } from '../../scripts/lib/api-event';
import { jobs } from '../../shared/jobs';
import { routes } from '../../shared/routes';
import { useTestTable } from '../support/table';
import { bundleRoute } from './support/bundle-route';

const ROUTE = routes.find((route) => route.id === 'GetOrder')!;
const JOB = jobs.find((job) => job.id === 'ExpireOrders')!;
const TRACE_ID = '1-67891233-abcdef012345678912345678';

useTestTable('tracer-bundle');

const outdir = mkdtempSync(join(tmpdir(), 'cdk-tracer-bundle-'));
let assetDir: string;
let jobAssetDir: string;
let daemon: Socket;
const received: Record<string, any>[] = [];

beforeAll(async () => {
  assetDir = bundleRoute(ROUTE, outdir, { tracerSdk: true });
  jobAssetDir = bundleRoute(JOB, outdir, { tracerSdk: true });
  daemon = createSocket('udp4');
  daemon.on('message', (message) => {
    // Each datagram: a JSON header line, then the (sub)segment document.
    const [, document] = message.toString().split('\n');
    if (document) received.push(JSON.parse(document));
  });
  daemon.bind(0, '127.0.0.1');
  await once(daemon, 'listening');
  Object.assign(process.env, {
    AWS_LAMBDA_FUNCTION_NAME: 'GetOrder',
    LAMBDA_TASK_ROOT: assetDir,
    AWS_EXECUTION_ENV: `AWS_Lambda_${LAMBDA_RUNTIME.name}`,
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    POWERTOOLS_TRACE_ENABLED: 'true',
    POWERTOOLS_METRICS_DISABLED: 'true',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    _X_AMZN_TRACE_ID: `Root=${TRACE_ID};Parent=53995c3f42cd8ad8;Sampled=1`,
  });
}, 120_000);

afterAll(() => {
  for (const name of [
    'AWS_LAMBDA_FUNCTION_NAME',
    'LAMBDA_TASK_ROOT',
    'AWS_EXECUTION_ENV',
    'AWS_LAMBDA_INITIALIZATION_TYPE',
    'POWERTOOLS_TRACE_ENABLED',
    'POWERTOOLS_METRICS_DISABLED',
    'AWS_XRAY_DAEMON_ADDRESS',
    'AWS_XRAY_CONTEXT_MISSING',
    '_X_AMZN_TRACE_ID',
  ])
    delete process.env[name];
  daemon.close();
  rmSync(outdir, { recursive: true, force: true });
});

it('bundles the tracer and the X-Ray SDK only when asked', () => {
  const sources: string[] = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')).sources;
  expect(sources.some((source) => source.includes('@aws-lambda-powertools/tracer/'))).toBe(true);
  expect(sources.some((source) => source.includes('aws-xray-sdk-core/'))).toBe(true);
});

it('sends the route subsegment, annotated, with a DynamoDB subsegment per call, in the invocation trace', async () => {
  const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
    handler: (event: APIGatewayProxyEventV2, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;
  };
  const id = '0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30';
  const event = buildApiEvent({ api: 'orders', method: 'GET', rawPath: `/orders/${id}`, routePath: ROUTE.path, pathParameters: { id } });
  const context = { awsRequestId: 'trace-test', functionName: 'GetOrder', getRemainingTimeInMillis: () => 10_000 };
  const response = await handler(event, context);
  expect(response.statusCode).toBe(404);

  const deadline = Date.now() + 5_000;
  const routeSegment = () => received.find((segment) => segment.name === '## GET /orders/{id}');
  while (!routeSegment() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const segment = routeSegment();
  expect(segment, JSON.stringify(received)).toBeDefined();
  expect(segment!.trace_id).toBe(TRACE_ID);
  expect(segment!.annotations).toMatchObject({ route: 'GET /orders/{id}', status: 404, ColdStart: true, Service: 'chain-data-api' });
  const calls = [...(segment!.subsegments ?? []), ...received.filter((item) => item.parent_id === segment!.id)];
  expect(calls.some((call: any) => call.name === 'DynamoDB' && call.aws?.operation === 'Query')).toBe(true);
});

it('sends a job invocation subsegment, annotated, with its DynamoDB subsegments, in the invocation trace', async () => {
  const { handler } = (await import(pathToFileURL(join(jobAssetDir, 'index.mjs')).href)) as {
    handler: () => Promise<{ examined: number; expired: number }>;
  };
  const result = await handler();
  expect(result.expired).toBe(0);

  const deadline = Date.now() + 5_000;
  const jobSegment = () => received.find((segment) => segment.name === '## ExpireOrders');
  while (!jobSegment() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const segment = jobSegment();
  expect(segment, JSON.stringify(received)).toBeDefined();
  expect(segment!.trace_id).toBe(TRACE_ID);
  expect(segment!.annotations).toMatchObject({ job: 'ExpireOrders', failed: false, ColdStart: true, Service: 'chain-data-api' });
  const calls = [...(segment!.subsegments ?? []), ...received.filter((item) => item.parent_id === segment!.id)];
  expect(calls.some((call: any) => call.name === 'DynamoDB' && call.aws?.operation === 'Query')).toBe(true);
});
