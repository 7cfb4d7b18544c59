/**
 * The NFT metadata fetcher against real local servers (test/support/metadata-server.ts) that answer
 * slowly, hugely, with redirect loops, redirects to 169.254.169.254 and 127.0.0.1, invalid JSON, the
 * wrong content type, 404 then 200; DNS answers are checked (a name resolving to a refused address is
 * refused, and each connection is checked again: rebinding between two connections is caught).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchLimits } from '../../../shared/nft-metadata/config';
import type { Resolve } from '../../../shared/egress/lookup';
import { fetchMetadataDocument } from '../../../shared/nft-metadata/fetch';
import {
  drip,
  gzipBomb,
  gzipJson,
  huge,
  json,
  type MetadataServer,
  redirect,
  slow,
  startMetadataServer,
  status,
} from '../../support/metadata-server';

const LOCAL: FetchLimits = {
  connectTimeoutMs: 1_000,
  totalTimeoutMs: 1_500,
  maxBytes: 64 * 1024,
  maxRedirects: 3,
  allowLoopback: true,
  allowHttp: true,
};
/** Loopback refused, except the second server's own address (127.0.0.2): as in AWS, with one server to talk to. */
const STRICT: FetchLimits = { ...LOCAL, allowLoopback: false, exceptions: ['127.0.0.2'] };

let server: MetadataServer;
/** The server on 127.0.0.2, reachable while the rest of loopback is refused (STRICT). */
let other: MetadataServer;
const document = { name: 'Token #1', image: 'ipfs://bafy/1.png', attributes: [{ trait_type: 'Hat', value: 'Bando' }] };

beforeAll(async () => {
  server = await startMetadataServer('127.0.0.1');
  other = await startMetadataServer('127.0.0.2');
  server.on('/doc.json', json(document));
  server.on('/doc-plain', json(document, 'text/plain; charset=utf-8'));
  server.on('/doc-octets', json(document, 'application/octet-stream'));
  server.on('/doc-gzip', gzipJson(document));
  server.on('/slow', slow(5_000));
  server.on('/never', slow(Number.POSITIVE_INFINITY));
  server.on('/drip', drip(100));
  server.on('/huge-announced', huge(10 * 1024 * 1024, true));
  server.on('/huge-chunked', huge(10 * 1024 * 1024, false));
  server.on('/bomb', gzipBomb(50 * 1024 * 1024));
  server.on('/loop', redirect('/loop'));
  server.on('/r3', redirect('/r2', 301));
  server.on('/r2', redirect(server.url('/r1'), 307));
  server.on('/r1', redirect('/doc.json', 308));
  server.on('/to-metadata', redirect('http://169.254.169.254/latest/meta-data/'));
  server.on('/to-ipfs', redirect('ipfs://bafy/1.json'));
  server.on('/invalid', json('{"name": "broken"', 'application/json'));
  server.on('/array', json([1, 2, 3]));
  server.on('/html', json('<html><body>hello</body></html>', 'text/html'));
  server.on('/image', json('not really a png', 'image/png'));
  server.on('/flaky', (request, response, count) =>
    count === 1 ? status(404)(request, response, count) : json(document)(request, response, count),
  );
  server.on('/error', status(503));
  server.on('/forbidden', status(403));
  other.on('/doc.json', json(document));
  other.on('/to-loopback', redirect(server.url('/doc.json')));
  other.on('/to-localhost', redirect(`http://localhost:${server.port}/doc.json`));
  other.on('/to-metadata', redirect('http://169.254.169.254/latest/meta-data/iam/'));
  other.on('/to-same-host', redirect('/doc.json'));
});

afterAll(async () => {
  await server?.close();
  await other?.close();
});

const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
};

describe('fetchMetadataDocument', () => {
  it('reads a JSON document, also labelled text/plain or application/octet-stream as gateways serve it, and gzip-encoded', async () => {
    for (const path of ['/doc.json', '/doc-plain', '/doc-octets', '/doc-gzip']) {
      expect(await fetchMetadataDocument(server.url(path), LOCAL), path).toEqual({
        ok: true,
        kind: 'json',
        document,
        url: server.url(path),
      });
    }
  });

  it('gives up on a server that answers slowly, or never, or drips its body, at the total timeout: a retryable failure', async () => {
    for (const path of ['/slow', '/never', '/drip']) {
      const { result, ms } = await timed(() => fetchMetadataDocument(server.url(path), LOCAL));
      expect(result, path).toEqual({ ok: false, retryable: true, reason: 'timed out after 1500 ms' });
      expect(ms, path).toBeGreaterThanOrEqual(1_400);
      expect(ms, path).toBeLessThan(3_000);
    }
  });

  it('refuses a body over the size cap, announced or counted as it arrives (decompressed too), without reading it all', async () => {
    const announced = await timed(() => fetchMetadataDocument(server.url('/huge-announced'), LOCAL));
    expect(announced.result).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/larger than 65536 bytes \(Content-Length 10485760\)/),
    });
    for (const path of ['/huge-chunked', '/bomb']) {
      const { result, ms } = await timed(() => fetchMetadataDocument(server.url(path), LOCAL));
      expect(result, path).toEqual({ ok: false, retryable: false, reason: 'the body is larger than 65536 bytes' });
      expect(ms, path).toBeLessThan(1_000);
    }
  });

  it('follows at most 3 redirects, each one checked again; a loop ends after the 4th request', async () => {
    expect(await fetchMetadataDocument(server.url('/r3'), LOCAL)).toEqual({
      ok: true,
      kind: 'json',
      document,
      url: server.url('/doc.json'),
    });
    const before = server.count('/loop');
    expect(await fetchMetadataDocument(server.url('/loop'), LOCAL)).toEqual({
      ok: false,
      retryable: false,
      reason: 'more than 3 redirects',
    });
    expect(server.count('/loop') - before).toBe(4);
    expect(await fetchMetadataDocument(server.url('/to-ipfs'), LOCAL)).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/^redirect refused: ipfs:/),
    });
  });

  it('refuses a redirect to the cloud metadata endpoint 169.254.169.254 before connecting, loopback allowed or not', async () => {
    expect(await fetchMetadataDocument(server.url('/to-metadata'), LOCAL)).toEqual({
      ok: false,
      retryable: false,
      reason: 'refused address: 169.254.169.254 is link-local (169.254.0.0/16, the cloud metadata endpoint among them)',
    });
    expect(await fetchMetadataDocument(other.url('/to-metadata'), STRICT)).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/169\.254\.169\.254 is link-local/),
    });
  });

  it('without loopback allowed: refuses 127.0.0.1, a redirect to it, and a redirect to a name that resolves to it (localhost)', async () => {
    expect(await fetchMetadataDocument(other.url('/doc.json'), STRICT)).toMatchObject({ ok: true, document });
    expect(await fetchMetadataDocument(server.url('/doc.json'), STRICT)).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/127\.0\.0\.1 is loopback/),
    });
    const served = server.count('/doc.json');
    expect(await fetchMetadataDocument(other.url('/to-loopback'), STRICT)).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/127\.0\.0\.1 is loopback/),
    });
    expect(await fetchMetadataDocument(other.url('/to-localhost'), STRICT)).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/^refused address: localhost resolves to .* loopback/),
    });
    expect(server.count('/doc.json')).toBe(served);
    expect(await fetchMetadataDocument(`http://[::ffff:127.0.0.1]:${server.port}/doc.json`, STRICT)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/loopback/),
    });
  });

  it('checks every address of a DNS answer, connects to the checked one, and checks each connection again (no rebinding)', async () => {
    const answers: Record<string, string[][]> = {
      'meta.test': [['127.0.0.2']],
      'mixed.test': [['127.0.0.2', '10.0.0.7']],
      'rebind.test': [['127.0.0.2'], ['169.254.169.254']],
    };
    const asked: string[] = [];
    const resolve: Resolve = async (hostname) => {
      asked.push(hostname);
      const queue = answers[hostname];
      if (!queue) throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
      const answer = queue.length > 1 ? queue.shift()! : queue[0]!;
      return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    const got = await fetchMetadataDocument(`http://meta.test:${other.port}/doc.json`, STRICT, { resolve });
    expect(got).toMatchObject({ ok: true, document });
    // The request went to the checked address, named as the URL names it.
    expect(other.requests.at(-1)).toMatchObject({ path: '/doc.json', host: `meta.test:${other.port}` });
    expect(await fetchMetadataDocument(`http://mixed.test:${other.port}/doc.json`, STRICT, { resolve })).toMatchObject({
      ok: false,
      retryable: false,
      reason: 'refused address: mixed.test resolves to 10.0.0.7 is private (10.0.0.0/8)',
    });
    // First connection to 127.0.0.2 (allowed), then a redirect on the same name: the second connection
    // resolves again, gets 169.254.169.254, and is refused before it connects.
    const requests = other.count('/doc.json');
    expect(await fetchMetadataDocument(`http://rebind.test:${other.port}/to-same-host`, STRICT, { resolve })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/rebind\.test resolves to 169\.254\.169\.254 is link-local/),
    });
    expect(other.count('/doc.json')).toBe(requests);
    expect(asked.filter((name) => name === 'rebind.test')).toHaveLength(2);
    expect(await fetchMetadataDocument(`http://nowhere.test:${other.port}/doc.json`, STRICT, { resolve })).toEqual({
      ok: false,
      retryable: true,
      reason: 'DNS: nowhere.test not found',
    });
  });

  it('refuses invalid JSON, JSON that is not an object, and a wrong content type; reads an image answer as the media itself', async () => {
    expect(await fetchMetadataDocument(server.url('/invalid'), LOCAL)).toEqual({
      ok: false,
      retryable: false,
      reason: 'the body is not JSON',
    });
    expect(await fetchMetadataDocument(server.url('/array'), LOCAL)).toEqual({
      ok: false,
      retryable: false,
      reason: 'the body is JSON but not an object',
    });
    expect(await fetchMetadataDocument(server.url('/html'), LOCAL)).toEqual({
      ok: false,
      retryable: false,
      reason: 'not JSON: the content type is text/html',
    });
    expect(await fetchMetadataDocument(server.url('/image'), LOCAL)).toEqual({
      ok: true,
      kind: 'media',
      media: 'image',
      url: server.url('/image'),
    });
  });

  it('reports 404, 5xx and connection failures as worth retrying, other 4xx not; a 404 then a 200 succeeds the second time', async () => {
    expect(await fetchMetadataDocument(server.url('/flaky'), LOCAL)).toEqual({ ok: false, retryable: true, reason: 'HTTP 404' });
    expect(await fetchMetadataDocument(server.url('/flaky'), LOCAL)).toMatchObject({ ok: true, document });
    expect(await fetchMetadataDocument(server.url('/error'), LOCAL)).toEqual({ ok: false, retryable: true, reason: 'HTTP 503' });
    expect(await fetchMetadataDocument(server.url('/forbidden'), LOCAL)).toEqual({ ok: false, retryable: false, reason: 'HTTP 403' });
    const closed = await startMetadataServer('127.0.0.1');
    const url = closed.url('/doc.json');
    await closed.close();
    expect(await fetchMetadataDocument(url, LOCAL)).toMatchObject({
      ok: false,
      retryable: true,
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('refuses plain http:// and credentials unless local, and any other scheme', async () => {
    const aws: FetchLimits = { ...LOCAL, allowHttp: false, allowLoopback: false };
    expect(await fetchMetadataDocument(server.url('/doc.json'), aws)).toEqual({
      ok: false,
      retryable: false,
      reason: 'http:// is not fetched (https only)',
    });
    expect(await fetchMetadataDocument(`http://user:pw@127.0.0.1:${server.port}/doc.json`, LOCAL)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/credentials/),
    });
    expect(await fetchMetadataDocument('ftp://127.0.0.1/doc.json', LOCAL)).toMatchObject({ ok: false, retryable: false });
  });
});
