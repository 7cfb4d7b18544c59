/**
 * ApiFunction really bundles a handler (the route-not-found fallback) with the local esbuild, and the
 * asset it leaves in the cloud assembly is a working ES module: importing it and calling `handler`
 * answers like API Gateway's `$default` route would. This is the one test that pays for bundling.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_HANDLER, NO_TABLE, routesOf } from '../../shared/routes';
import { ApiFunction, REPO_ROOT } from '../../lib/api-function';

const CDK_CONTEXT: Record<string, unknown> = JSON.parse(readFileSync(resolve(REPO_ROOT, 'cdk.json'), 'utf8')).context;

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

function event(method: string, path: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'request-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 1767225600000,
    },
  };
}

describe('ApiFunction bundling', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-bundle-'));
  let assetDir: string;
  let template: Template;
  const apiNameBefore = process.env.API_NAME;

  beforeAll(() => {
    // The CLI adds asset metadata (which sam local reads to find the code); an App in a test must ask for it.
    const app = new App({ outdir, context: { ...CDK_CONTEXT, 'aws:cdk:enable-asset-metadata': true } });
    const stack = new Stack(app, 'BundleStack');
    const table = new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    new ApiFunction(stack, 'CollectionsRouteNotFound', {
      handler: FALLBACK_HANDLER,
      table,
      access: NO_TABLE,
      serviceName: 'chain-data-api',
      logRetention: RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
      environment: { API_NAME: 'collections' },
      timeout: Duration.seconds(10),
      memorySize: 256,
    });
    template = Template.fromStack(stack);
    const fn = template.toJSON().Resources.CollectionsRouteNotFound;
    assetDir = join(outdir, fn.Metadata['aws:asset:path']);
  }, 120_000);

  afterAll(() => {
    rmSync(outdir, { recursive: true, force: true });
    if (apiNameBefore === undefined) delete process.env.API_NAME;
    else process.env.API_NAME = apiNameBefore;
  });

  it('writes a minified ESM bundle with a source map and a require shim into the asset', () => {
    const bundle = join(assetDir, 'index.mjs');
    expect(existsSync(bundle)).toBe(true);
    expect(existsSync(`${bundle}.map`)).toBe(true);
    const code = readFileSync(bundle, 'utf8');
    expect(code.startsWith("import { createRequire as __createRequire } from 'node:module';")).toBe(true);
    expect(code).toMatch(/sourceMappingURL=index\.mjs\.map/);
    // Minified: a handful of very long lines, not the source's hundreds of short ones.
    expect(code.split('\n').length).toBeLessThan(20);
    const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8'));
    expect(map.sources.some((source: string) => source.endsWith('functions/platform/route-not-found.ts'))).toBe(true);
    template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.handler', Runtime: 'nodejs24.x' });
  });

  it('answers from the bundle: 404 for an unknown path, 405 with Allow for a known path and wrong method', async () => {
    process.env.API_NAME = 'collections';
    const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as { handler: Handler };

    const notFound = await handler(event('GET', '/no-such-thing'));
    expect(notFound.statusCode).toBe(404);
    expect(JSON.parse(notFound.body ?? '')).toMatchObject({ success: false, statusCode: 404 });

    // A path of the collections API, and the methods the route table serves on it.
    const { path } = routesOf('collections').find((route) => !route.path.includes('{'))!;
    const methods = routesOf('collections')
      .filter((route) => route.path === path)
      .map((route) => route.method);
    const wrongMethod = await handler(event('DELETE', path));
    expect(wrongMethod.statusCode).toBe(405);
    const allow = Object.entries(wrongMethod.headers ?? {}).find(([name]) => name.toLowerCase() === 'allow')?.[1];
    expect(String(allow).split(/,\s*/).sort()).toEqual([...new Set(methods)].sort());
    expect(JSON.parse(wrongMethod.body ?? '')).toMatchObject({ success: false, statusCode: 405 });
  });
});
