/**
 * The interactive reference in a real browser: Debian's chromium (`apt-get install -y chromium`, which
 * .ci/run does) driven by playwright-core opens GET /docs on each base URL of the local service, finds
 * every route of that base URL listed, sends one request with the page's own "Try it out", and saves a
 * screenshot under test/artifacts/ (git-ignored). Where chromium is absent the tests skip, saying so.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import { type LocalService, startLocalService } from '../../scripts/lib/gateway';
import { API_NAMES, type ApiName } from '../../shared/http/groups';
import { type Route, routes, routesOf } from '../../shared/routes';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const ARTIFACTS = path.join(REPOSITORY_ROOT, 'test/artifacts');

/** The route whose "Try it out" each page sends, with the route table's example prefilled by the page. */
const TRIED: Record<ApiName, string> = {
  base: 'ListAddressTokens',
  orders: 'CreateCheckoutSession',
  collections: 'GetCollectionSigningDomain',
};

const missing = `no chromium at ${CHROMIUM} (install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH)`;
const skipNote = hasChromium ? '' : ` (skipped: ${missing})`;
// The reporter lists skipped tests without their suite's name: say why once, on stderr.
if (!hasChromium) console.warn(`Skipping the browser test of GET /docs: ${missing}`);

/** The operation block of a route on the page (Swagger UI's `opblock`, identified by method and path). */
const operation = (page: Page, route: Route) =>
  page.locator(`.opblock.opblock-${route.method.toLowerCase()}`).filter({
    has: page.locator(`.opblock-summary-path[data-path="${route.path}"]`),
  });

describe.skipIf(!hasChromium)(`GET /docs in chromium${skipNote}`, () => {
  let service: LocalService;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    service = await startLocalService();
    // Root in a container has no user namespaces for chromium's sandbox.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  for (const api of API_NAMES) {
    it(`${api}: lists every route of the base URL, sends a request from the page, saves a screenshot`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const foreign: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(service.urls[api]) && !request.url().startsWith('data:')) foreign.push(request.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      try {
        const response = await page.goto(`${service.urls[api]}/docs`);
        expect(response?.status()).toBe(200);
        await page.locator('.opblock').first().waitFor();

        const served = routesOf(api);
        await expect.poll(() => page.locator('.opblock').count()).toBe(served.length);
        for (const route of served) {
          expect(await operation(page, route).count(), `${route.method} ${route.path}`).toBe(1);
        }

        const tried = routes.find((route) => route.id === TRIED[api])!;
        const block = operation(page, tried);
        await block.locator('.opblock-summary').click();
        await block.locator('button.try-out__btn').click();
        const [answer] = await Promise.all([
          page.waitForResponse((candidate) => new URL(candidate.url()).pathname.startsWith(tried.path.split('{')[0]!)),
          block.locator('button.execute').click(),
        ]);
        expect(answer.request().method()).toBe(tried.method);
        expect(answer.status(), await answer.text()).toBeLessThan(300);
        const shown = block.locator('.live-responses-table tbody .response-col_status').first();
        await expect.poll(async () => (await shown.textContent())?.trim()).toBe(String(answer.status()));

        await page.screenshot({ path: path.join(ARTIFACTS, `reference-${api}.png`), fullPage: true });
        expect(foreign).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
