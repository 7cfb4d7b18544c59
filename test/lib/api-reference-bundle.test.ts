/**
 * The reference page from the Lambda bundle: ApiFunction copies the route's assets (Swagger UI's files)
 * next to the bundle, and the bundled handler, imported from the cloud assembly (no node_modules
 * around it), serves the page with them inlined. api-function.test.ts covers bundling itself.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleRoute } from './support/bundle-route';
import { buildApiEvent } from '../../scripts/lib/api-event';
import { apiIdVariable } from '../../shared/http/api-name';
import { routes } from '../../shared/routes';
import { REPO_ROOT } from '../../lib/api-function';

const ROUTE = routes.find((route) => route.id === 'GetApiReference')!;

describe('GetApiReference bundled with its assets', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-reference-'));
  let assetDir: string;
  const saved = process.env[apiIdVariable('orders')];

  beforeAll(() => {
    assetDir = bundleRoute(ROUTE, outdir);
  }, 120_000);

  afterAll(() => {
    rmSync(outdir, { recursive: true, force: true });
    if (saved === undefined) delete process.env[apiIdVariable('orders')];
    else process.env[apiIdVariable('orders')] = saved;
  });

  it('copies every asset of the route next to index.mjs', () => {
    expect(ROUTE.assets?.length).toBeGreaterThan(0);
    const require = createRequire(join(REPO_ROOT, 'package.json'));
    for (const specifier of ROUTE.assets ?? []) {
      const copied = join(assetDir, basename(specifier));
      expect(existsSync(copied), specifier).toBe(true);
      expect(readFileSync(copied)).toEqual(readFileSync(require.resolve(specifier)));
    }
  });

  it('serves the page of the API the request came in on, from the bundle', async () => {
    process.env[apiIdVariable('orders')] = 'abc123';
    const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
      handler: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
    };
    const event = buildApiEvent({ api: 'orders', method: 'GET', rawPath: '/docs', routePath: '/docs' });
    event.requestContext.apiId = 'abc123';
    const response = await handler(event);
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<title>Chain data API: orders: reference</title>');
    expect(response.body).toContain('SwaggerUIBundle');
    expect(response.body?.length).toBeGreaterThan(1_000_000);
  });
});
