/**
 * The interactive reference of a base URL (GET /docs): one HTML page with Swagger UI's script and
 * style sheet inlined (from the `swagger-ui-dist` package; nothing is loaded from another host), which
 * reads the base URL's own document from `./openapi.json` and sends "Try it out" requests to the base
 * URL that served it. Built once per cold start; gzip-compressed for clients that accept it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { API_TITLES, type ApiName } from './groups';
import { REFERENCE_PAGE_ASSETS } from './reference-assets';
import type { RawResult } from './response';

export const REFERENCE_PAGE_CONTENT_TYPE = 'text/html; charset=utf-8';

/**
 * An asset's text: next to this module's file in a Lambda bundle (the stack copies the route's assets
 * there), from node_modules everywhere else.
 */
export function readAsset(specifier: string, moduleUrl: string = import.meta.url): string {
  const bundled = path.join(path.dirname(fileURLToPath(moduleUrl)), path.basename(specifier));
  const file = existsSync(bundled) ? bundled : createRequire(moduleUrl).resolve(specifier);
  return readFileSync(file, 'utf8');
}

/**
 * Text safe inside an HTML <script> or <style> element: `</script`, `<script` and `<!--` would end the
 * element or change how the parser reads it. Inside the bundle they occur only in string and regular
 * expression literals, where `\x3C` means `<` too.
 */
export function escapeForElement(text: string): string {
  return text.replace(/<(\/?script|!--)/gi, '\\x3C$1');
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function referencePageHtml(api: ApiName, assets: { script: string; style: string }): string {
  const title = `${API_TITLES[api]}: reference`;
  const options = {
    url: './openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    layout: 'BaseLayout',
    displayOperationId: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    // No call to swagger.io's online validator: the page talks to this base URL only.
    validatorUrl: null,
  };
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${escapeForElement(assets.style)}</style>`,
    '</head>',
    '<body>',
    '<div id="reference"></div>',
    `<script>${escapeForElement(assets.script)}</script>`,
    `<script>window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(options)}, { presets: [SwaggerUIBundle.presets.apis] }));</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

interface BuiltPage {
  html: string;
  gzipBase64: string;
}

const pages = new Map<ApiName, BuiltPage>();

function builtPage(api: ApiName): BuiltPage {
  let page = pages.get(api);
  if (!page) {
    const html = referencePageHtml(api, { script: readAsset(REFERENCE_PAGE_ASSETS.script), style: readAsset(REFERENCE_PAGE_ASSETS.style) });
    page = { html, gzipBase64: gzipSync(html, { level: 9 }).toString('base64') };
    pages.set(api, page);
  }
  return page;
}

/** Whether an Accept-Encoding header accepts gzip (and does not refuse it with q=0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((entry) => {
    const [coding = '', ...parameters] = entry.trim().toLowerCase().split(';');
    const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** The reference page of a base URL, compressed when the client accepts gzip. */
export function referencePage(api: ApiName, acceptEncoding: string | undefined): RawResult {
  const page = builtPage(api);
  // `Vary` spelled canonically: the CORS middleware adds `Origin` to it when the origin is echoed.
  const headers = { 'cache-control': 'public, max-age=300', Vary: 'Accept-Encoding', 'x-content-type-options': 'nosniff' };
  if (acceptsGzip(acceptEncoding)) {
    return {
      raw: page.gzipBase64,
      isBase64Encoded: true,
      contentType: REFERENCE_PAGE_CONTENT_TYPE,
      headers: { ...headers, 'content-encoding': 'gzip' },
    };
  }
  return { raw: page.html, contentType: REFERENCE_PAGE_CONTENT_TYPE, headers };
}
