/**
 * One route's function bundled exactly as the stack bundles it (ApiFunction, synthesised into a cloud
 * assembly under `outdir`), for tests that import the bundle itself. Returns the asset folder that holds
 * the bundle (`index.mjs`) and whatever assets the route copies beside it.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ApiFunction, REPO_ROOT } from '../../../lib/api-function';
import type { Route } from '../../../shared/routes';

const CDK_CONTEXT: Record<string, unknown> = JSON.parse(readFileSync(resolve(REPO_ROOT, 'cdk.json'), 'utf8')).context;

/** A route, or any function row with a handler and its table access (a job of shared/jobs.ts). */
export type BundledFunction = Pick<Route, 'id' | 'handler' | 'table'> & { assets?: Route['assets'] };

export function bundleRoute(route: BundledFunction, outdir: string, options: { tracerSdk?: boolean } = {}): string {
  const app = new App({ outdir, context: { ...CDK_CONTEXT, 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, `${route.id}BundleStack`);
  const table = new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
  new ApiFunction(stack, route.id, {
    handler: route.handler,
    table,
    access: route.table,
    assets: route.assets,
    serviceName: 'chain-data-api',
    logRetention: RetentionDays.ONE_WEEK,
    removalPolicy: RemovalPolicy.DESTROY,
    timeout: Duration.seconds(10),
    memorySize: 256,
    tracerSdk: options.tracerSdk,
  });
  const fn = Template.fromStack(stack).toJSON().Resources[route.id];
  return join(outdir, fn.Metadata['aws:asset:path']);
}
