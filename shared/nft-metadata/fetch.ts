/**
 * Fetches one NFT metadata document from an untrusted server, every answer hostile until checked:
 *  - addresses: each hop's host is resolved and every address checked (shared/egress/: private,
 *    loopback, link-local, CGNAT, multicast, unspecified, reserved, the IPv6 equivalents and IPv4 carried
 *    in IPv6), and the socket connects to the checked addresses themselves: DNS rebinding between check
 *    and connection is impossible. An IP literal host is checked the same way. One refused address refuses the host.
 *  - redirects: followed by hand, at most `maxRedirects`, each new URL checked like the first (scheme,
 *    credentials, host, addresses); a redirect to ipfs:// or any other scheme is refused.
 *  - time: `connectTimeoutMs` for each TCP connection, `totalTimeoutMs` for the whole fetch (every hop,
 *    the body included).
 *  - size: a body larger than `maxBytes` (announced by Content-Length or counted while it arrives,
 *    after decompression) is abandoned at that size.
 *  - content: `application/json`, `*+json`, `text/json`, or what servers and IPFS gateways commonly send
 *    JSON files as (`text/plain`, `application/octet-stream`, none); then the body must parse as a JSON
 *    object. An `image/*` or `video/*` answer is the token's media itself (as Blockscout reads it):
 *    reported as such, its body not read. Anything else (text/html, ...) is refused.
 * Failures say whether a later attempt may succeed (timeouts, connection errors, DNS failures, 404,
 * 408, 425, 429, 5xx) or not (refused addresses, too many redirects, too large, wrong content, not JSON,
 * other 4xx, TLS errors).
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { refusedAddress } from '../egress/addresses';
import { checkedLookup, EgressError, type Resolve, systemResolve } from '../egress/lookup';
import type { FetchLimits } from './config';
import { checkedUrl } from '../egress/url';

export type FetchResult =
  | { ok: true; kind: 'json'; document: Record<string, unknown>; url: string }
  | { ok: true; kind: 'media'; media: 'image' | 'animation'; url: string }
  | { ok: false; retryable: boolean; reason: string };

const policyOf = (limits: FetchLimits) => ({
  allowLoopback: limits.allowLoopback,
  ...(limits.exceptions ? { exceptions: limits.exceptions } : {}),
});

const USER_AGENT = 'chain-data-api-nft-metadata/1.0';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const RETRYABLE_STATUSES = new Set([404, 408, 425, 429]);

class FetchFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

type Hop = { kind: 'redirect'; location: string } | { kind: 'body'; text: string } | { kind: 'media'; media: 'image' | 'animation' };

export async function fetchMetadataDocument(url: string, limits: FetchLimits, options: { resolve?: Resolve } = {}): Promise<FetchResult> {
  const resolve = options.resolve ?? systemResolve;
  const deadline = Date.now() + limits.totalTimeoutMs;
  let current = url;
  try {
    for (let redirects = 0; ; redirects += 1) {
      const checked = checkedUrl(current, limits.allowHttp);
      if (!checked.ok) throw new FetchFailure(redirects === 0 ? checked.reason : `redirect refused: ${checked.reason}`, false);
      const target = new URL(checked.url);
      const hop = await requestOnce(target, limits, deadline, resolve);
      if (hop.kind === 'media') return { ok: true, kind: 'media', media: hop.media, url: target.href };
      if (hop.kind === 'body') return { ok: true, kind: 'json', document: parseDocument(hop.text), url: target.href };
      if (redirects >= limits.maxRedirects) throw new FetchFailure(`more than ${limits.maxRedirects} redirects`, false);
      let next: URL;
      try {
        next = new URL(hop.location, target);
      } catch {
        throw new FetchFailure(`redirect to an invalid URL: ${hop.location.slice(0, 64)}`, false);
      }
      current = next.href;
    }
  } catch (error) {
    if (error instanceof FetchFailure) return { ok: false, retryable: error.retryable, reason: error.message };
    return { ok: false, retryable: true, reason: describe(error) };
  }
}

function parseDocument(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new FetchFailure('the body is not JSON', false);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new FetchFailure('the body is JSON but not an object', false);
  return parsed as Record<string, unknown>;
}

function requestOnce(target: URL, limits: FetchLimits, deadline: number, resolve: Resolve): Promise<Hop> {
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(hostname) !== 0;
  if (literal) {
    const refused = refusedAddress(hostname, policyOf(limits));
    if (refused) return Promise.reject(new FetchFailure(`refused address: ${refused}`, false));
  }
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new FetchFailure(`timed out after ${limits.totalTimeoutMs} ms`, true));
  // The connection goes to the addresses checked here, never to a second DNS answer.
  const lookup = checkedLookup(policyOf(limits), resolve);
  return new Promise<Hop>((resolvePromise, reject) => {
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    const settle = (outcome: { hop: Hop } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(totalTimer);
      clearTimeout(connectTimer);
      if ('hop' in outcome) resolvePromise(outcome.hop);
      else reject(outcome.error);
    };
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'GET',
      agent: false,
      ...(literal ? {} : { lookup }),
      headers: {
        accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
        'user-agent': USER_AGENT,
      },
    });
    const fail = (error: FetchFailure) => {
      settle({ error });
      request.destroy();
    };
    const totalTimer = setTimeout(() => fail(new FetchFailure(`timed out after ${limits.totalTimeoutMs} ms`, true)), remaining);
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => fail(new FetchFailure(`no connection within ${limits.connectTimeoutMs} ms`, true)),
        limits.connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    request.on('error', (error) =>
      settle({
        error:
          error instanceof FetchFailure
            ? error
            : error instanceof EgressError
              ? new FetchFailure(error.message, error.retryable)
              : networkFailure(error),
      }),
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const done = (outcome: { hop: Hop } | { error: FetchFailure }) => {
        settle(outcome);
        response.destroy();
        request.destroy();
      };
      if (REDIRECTS.has(status)) {
        const location = response.headers.location;
        if (!location) return done({ error: new FetchFailure(`HTTP ${status} without a Location`, false) });
        return done({ hop: { kind: 'redirect', location } });
      }
      if (status < 200 || status > 299 || status === 204 || status === 205) {
        const retryable = RETRYABLE_STATUSES.has(status) || status >= 500;
        return done({ error: new FetchFailure(`HTTP ${status}`, retryable) });
      }
      const type = contentType(response);
      if (type.startsWith('image/')) return done({ hop: { kind: 'media', media: 'image' } });
      if (type.startsWith('video/')) return done({ hop: { kind: 'media', media: 'animation' } });
      if (!isJsonLike(type)) return done({ error: new FetchFailure(`not JSON: the content type is ${type.slice(0, 64)}`, false) });
      const announced = Number(response.headers['content-length']);
      if (Number.isFinite(announced) && announced > limits.maxBytes)
        return done({ error: new FetchFailure(`the body is larger than ${limits.maxBytes} bytes (Content-Length ${announced})`, false) });
      let body: Readable;
      try {
        body = decoded(response);
      } catch (error) {
        return done({ error: error as FetchFailure });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          done({ error: new FetchFailure(`the body is larger than ${limits.maxBytes} bytes`, false) });
          body.destroy();
          return;
        }
        chunks.push(chunk);
      });
      body.on('end', () => done({ hop: { kind: 'body', text: Buffer.concat(chunks).toString('utf8') } }));
      body.on('error', (error) => done({ error: error instanceof FetchFailure ? error : networkFailure(error) }));
      response.on('close', () => {
        if (!response.complete) done({ error: new FetchFailure('the server closed the connection mid-body', true) });
      });
    });
    request.end();
  });
}

function contentType(response: IncomingMessage): string {
  const header = response.headers['content-type'];
  return (Array.isArray(header) ? header[0] : (header ?? '')).split(';')[0]!.trim().toLowerCase();
}

/** JSON as servers label it, and the labels IPFS gateways and object stores put on files with no extension. */
function isJsonLike(type: string): boolean {
  return (
    type === '' ||
    type === 'application/json' ||
    type === 'text/json' ||
    type.endsWith('+json') ||
    type === 'text/plain' ||
    type === 'application/octet-stream' ||
    type === 'binary/octet-stream'
  );
}

/** The body decompressed as its Content-Encoding says (the size cap counts what comes out). */
function decoded(response: IncomingMessage): Readable {
  const header = response.headers['content-encoding'];
  const encoding = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return response;
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) throw new FetchFailure(`unsupported Content-Encoding ${encoding.slice(0, 32)}`, false);
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

function networkFailure(error: unknown): FetchFailure {
  const code = (error as { code?: string }).code ?? '';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME_MISMATCH|ERR_SSL/i.test(code) || /certificate/i.test(describe(error)))
    return new FetchFailure(`TLS: ${describe(error)}`, false);
  if (error instanceof Error && /incorrect header check|invalid|unexpected end of file/i.test(error.message) && code.startsWith('Z_'))
    return new FetchFailure(`the body does not decompress: ${error.message}`, false);
  return new FetchFailure(`network: ${describe(error)}`, true);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return code && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
  }
  return String(error);
}
