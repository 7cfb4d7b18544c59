/**
 * A table route as ApiFunction bundles it (GetOrder): the AWS SDK's default credential chain is
 * replaced by its environment-variable link (BUNDLE_ALIASES), so none of the other links and none of
 * the STS, SSO or sign-in clients are in the bundle, and the bundled handler, imported from the cloud
 * assembly, still signs its DynamoDB calls with the credentials of the environment and answers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleRoute } from './support/bundle-route';
import { buildApiEvent } from '../../scripts/lib/api-event';
import { routes } from '../../shared/routes';
import { BUNDLE_ALIASES } from '../../lib/api-function';
import { useTestTable } from '../support/table';

const ROUTE = routes.find((route) => route.id === 'GetOrder')!;

useTestTable('sdk-bundle');

describe('a table route bundled by ApiFunction', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-sdk-bundle-'));
  let assetDir: string;

  beforeAll(() => {
    assetDir = bundleRoute(ROUTE, outdir);
  }, 120_000);

  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('bundles the environment link of the credential chain in place of the whole chain', () => {
    const sources: string[] = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')).sources;
    expect(sources.some((source) => source.endsWith('shared/aws/lambda-default-credentials.ts'))).toBe(true);
    expect(sources.some((source) => source.includes('@aws-sdk/credential-provider-env/'))).toBe(true);
    expect(sources.some((source) => source.includes('@aws-sdk/client-dynamodb/'))).toBe(true);
    const left = /@aws-sdk\/(credential-provider-(node|ini|sso|process|web-identity|login|http)|nested-clients|token-providers)\//;
    expect(sources.filter((source) => left.test(source))).toEqual([]);
    expect(Object.keys(BUNDLE_ALIASES)).toEqual(['@aws-sdk/credential-provider-node', '@aws-lambda-powertools/tracer']);
    // The Powertools tracer is off by default (context tracerSdk): its stand-in, no X-Ray SDK.
    expect(sources.some((source) => source.endsWith('shared/observability/tracer-left-out.ts'))).toBe(true);
    expect(sources.filter((source) => /aws-xray-sdk|@aws-lambda-powertools\/tracer\//.test(source))).toEqual([]);
    // The cold history's reader (every table read may continue into cold parts) is the ranged GET built
    // from the signer and HTTP handler the DynamoDB client brings: no S3 client, whose protocol and
    // middleware weigh 170 KB a bundle (shared/aws/cold-part-reader.ts).
    expect(sources.some((source) => source.endsWith('shared/aws/cold-part-reader.ts'))).toBe(true);
    expect(sources.filter((source) => /@aws-sdk\/(client-s3|middleware-sdk-s3|signature-v4-multi-region)\//.test(source))).toEqual([]);
  });

  it('reads the table with the credentials of the environment: an unknown order is a 404', async () => {
    // vitest.config.ts sets AWS_ACCESS_KEY_ID, as Lambda does; DYNAMODB_ENDPOINT is the embedded table.
    expect(process.env.AWS_ACCESS_KEY_ID).toBeTruthy();
    const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
      handler: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
    };
    const id = '0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30';
    const event = buildApiEvent({ api: 'orders', method: 'GET', rawPath: `/orders/${id}`, routePath: ROUTE.path, pathParameters: { id } });
    const response = await handler(event);
    expect(response.statusCode).toBe(404);
  });
});
