/**
 * GET /docs: each base URL serves an interactive reference (Swagger UI inlined from swagger-ui-dist)
 * that reads the base URL's own ./openapi.json and loads nothing from another host; gzip-compressed
 * for clients that accept it. The browser test (test/scripts/reference-browser.test.ts) runs the page.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { dispatch } from '../../../scripts/lib/dispatch';
import { API_NAMES, API_TITLES } from '../../../shared/http/groups';
import { acceptsGzip, escapeForElement, readAsset } from '../../../shared/http/reference-page';
import { REFERENCE_PAGE_ASSETS } from '../../../shared/http/reference-assets';

const page = async (api: (typeof API_NAMES)[number], headers: Record<string, string> = {}) => {
  const response = await dispatch({ api, method: 'GET', url: '/docs', headers });
  const body = response.isBase64Encoded ? Buffer.from(response.body, 'base64') : Buffer.from(response.body);
  return { ...response, bytes: body };
};

describe('GET /docs', () => {
  for (const api of API_NAMES) {
    it(`${api}: an HTML page titled for the base URL, with Swagger UI inlined, reading ./openapi.json`, async () => {
      const response = await page(api);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-encoding']).toBeUndefined();
      const html = response.bytes.toString('utf8');
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      expect(html).toContain(`<title>${API_TITLES[api]}: reference</title>`);
      expect(html).toContain('"url":"./openapi.json"');
      expect(html).toContain('SwaggerUIBundle(');
      // Nothing from another host: no src or href attribute at all, the validator badge off.
      expect(html).not.toMatch(/<(script|link|img)\b[^>]*\b(src|href)=/i);
      expect(html).toContain('"validatorUrl":null');
      // The page is one <script> for the bundle and one for the set-up: nothing in the bundle ends it early.
      expect(html.match(/<\/script>/g)).toHaveLength(2);
    });
  }

  it('sends the page gzip-compressed to a client that accepts gzip', async () => {
    const plain = await page('orders');
    const compressed = await page('orders', { 'accept-encoding': 'gzip, deflate, br' });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
    expect(compressed.bytes.length).toBeLessThan(plain.bytes.length / 2);
    expect(gunzipSync(compressed.bytes).toString('utf8')).toBe(plain.bytes.toString('utf8'));
  });

  it('reads Accept-Encoding as RFC 9110 says', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('inlines the package files unchanged but for what would end the element', () => {
    const require = createRequire(import.meta.url);
    for (const specifier of Object.values(REFERENCE_PAGE_ASSETS)) {
      expect(readAsset(specifier)).toBe(readFileSync(require.resolve(specifier), 'utf8'));
    }
    expect(escapeForElement('a("</script>"); b(/<!--/); c("<SCRIPT>")')).toBe('a("\\x3C/script>"); b(/\\x3C!--/); c("\\x3CSCRIPT>")');
    // What the escapes mean inside string and regular expression literals is what they replaced.
    expect(vm.runInNewContext(`"${escapeForElement('</script><!--')}"`)).toBe('</script><!--');
    expect(new RegExp(escapeForElement('<!--'), 'u').test('<!--')).toBe(true);
  });
});
