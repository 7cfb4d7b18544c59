/**
 * The URL side of a connection to a URL a stranger chose (an NFT token URI, a webhook receiver): an
 * absolute http(s) URL, normalised by the URL parser, https only unless `allowHttp` (local runs), with no
 * credentials and a host. What its host resolves to is lookup.ts's to check.
 */

export type TargetUrl = { ok: true; url: string } | { ok: false; reason: string };

export function checkedUrl(url: string, allowHttp: boolean): TargetUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: `not a valid URL: ${url.slice(0, 64)}` };
  }
  if (parsed.protocol !== 'https:' && !(allowHttp && parsed.protocol === 'http:'))
    return { ok: false, reason: `${parsed.protocol}// is not fetched${allowHttp ? '' : ' (https only)'}` };
  if (parsed.username || parsed.password) return { ok: false, reason: 'a URL with credentials is not fetched' };
  if (!parsed.hostname) return { ok: false, reason: 'the URL names no host' };
  return { ok: true, url: parsed.href };
}
