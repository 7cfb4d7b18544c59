/**
 * The routes' ranged GET of a cold part (shared/aws/cold-part-reader.ts) against a server on 127.0.0.1
 * that plays S3: it checks each request's SigV4 signature as S3 does (the canonical request rebuilt from
 * what arrived on the wire, the signed headers only, the secret key), answers the byte range, and fails
 * on demand as S3 and networks do (SlowDown, 500, a dropped connection, a missing key, a hang).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ColdPartReadError, coldPartReader, objectAddress } from '../../../shared/aws/cold-part-reader';

const BUCKET = 'cold-parts';
const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'AKIDCOLDPARTS', secretAccessKey: 'cold-part-secret' };
const OBJECT = Buffer.from(Array.from({ length: 5_000 }, (_, index) => index % 251));

type Fault = 'slow-down' | 'server-error' | 'drop' | 'hang';

let server: Server;
let endpoint: string;
/** What each request was: its path as sent, whether its signature held, what it was answered. */
let seen: { path: string; signed: boolean; status: number }[] = [];
let faults: Fault[] = [];

/** The signature S3 would compute for the request that arrived, from its signed headers only. */
async function expectedAuthorization(request: IncomingMessage): Promise<string | undefined> {
  const authorization = request.headers.authorization;
  const date = request.headers['x-amz-date'];
  if (typeof authorization !== 'string' || typeof date !== 'string') return undefined;
  const signedNames = /SignedHeaders=([^,]+)/.exec(authorization)?.[1].split(';') ?? [];
  const headers: Record<string, string> = {};
  for (const name of signedNames) headers[name] = String(request.headers[name]);
  const [hostname, port] = String(request.headers.host).split(':');
  const rebuilt = new HttpRequest({ method: request.method, protocol: 'http:', hostname, port: Number(port), path: request.url, headers });
  const verifier = new SignatureV4({
    credentials: CREDENTIALS,
    region: REGION,
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signingDate = new Date(date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const signed = await verifier.sign(rebuilt, { signingDate });
  return signed.headers.authorization;
}

function answer(response: ServerResponse, status: number, body: Uint8Array | string, headers: Record<string, string> = {}): void {
  response.writeHead(status, headers);
  response.end(body);
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const expected = await expectedAuthorization(request);
  const signed = expected !== undefined && expected === request.headers.authorization;
  const record = { path: String(request.url), signed, status: 0 };
  seen.push(record);
  const respond = (status: number, body: Uint8Array | string, headers?: Record<string, string>) => {
    record.status = status;
    answer(response, status, body, headers);
  };
  const emptyHash = createHash('sha256').update('').digest('hex');
  if (!signed || request.headers['x-amz-content-sha256'] !== emptyHash) {
    respond(403, '<Error><Code>SignatureDoesNotMatch</Code></Error>');
    return;
  }
  const fault = faults.shift();
  if (fault === 'slow-down') return respond(503, '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
  if (fault === 'server-error') return respond(500, '<Error><Code>InternalError</Code></Error>');
  if (fault === 'drop') {
    record.status = -1;
    request.socket.destroy();
    return;
  }
  if (fault === 'hang') {
    record.status = -2;
    return;
  }
  const key = decodeURIComponent(String(request.url).slice(`/${BUCKET}/`.length));
  if (!key.startsWith('cold/')) return respond(404, '<Error><Code>NoSuchKey</Code><Key>x</Key></Error>');
  const range = /^bytes=(\d+)-(\d+)$/.exec(String(request.headers.range));
  if (!range) return respond(200, OBJECT);
  const start = Number(range[1]);
  const end = Math.min(Number(range[2]), OBJECT.length - 1);
  respond(206, OBJECT.subarray(start, end + 1), { 'content-range': `bytes ${start}-${end}/${OBJECT.length}` });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    handle(request, response).catch((error) => answer(response, 599, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
  faults = [];
});

const reader = (options: { requestTimeoutMs?: number; credentials?: typeof CREDENTIALS } = {}) =>
  coldPartReader({
    bucket: BUCKET,
    region: REGION,
    endpoint,
    credentials: async () => options.credentials ?? CREDENTIALS,
    requestTimeoutMs: options.requestTimeoutMs,
  });

describe('a cold part read', () => {
  it('is one signed ranged GET that S3 accepts, giving exactly the bytes asked for', async () => {
    const bytes = await reader().read('cold/8453/2026-11-30/a1b2.part', 1_000, 777);
    expect(Buffer.from(bytes).equals(OBJECT.subarray(1_000, 1_777))).toBe(true);
    expect(seen).toEqual([{ path: `/${BUCKET}/cold/8453/2026-11-30/a1b2.part`, signed: true, status: 206 }]);
  });

  it('signs a key that needs encoding as it is sent: each segment encoded once, the slashes kept', async () => {
    const bytes = await reader().read("cold/84 53/a+b=c(d)!'*~.part", 0, 10);
    expect(Buffer.from(bytes).equals(OBJECT.subarray(0, 10))).toBe(true);
    expect(seen).toEqual([{ path: `/${BUCKET}/cold/84%2053/a%2Bb%3Dc%28d%29%21%27%2A~.part`, signed: true, status: 206 }]);
  });

  it('is refused with a wrong secret, and says so without retrying', async () => {
    const failure = reader({ credentials: { ...CREDENTIALS, secretAccessKey: 'wrong' } }).read('cold/1/a', 0, 10);
    await expect(failure).rejects.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(seen.map((request) => request.signed)).toEqual([false]);
  });

  it('retries throttling, server errors and dropped connections, then answers', async () => {
    faults = ['slow-down', 'server-error'];
    expect(Buffer.from(await reader().read('cold/1/a', 5, 5)).equals(OBJECT.subarray(5, 10))).toBe(true);
    expect(seen.map((request) => request.status)).toEqual([503, 500, 206]);
    seen = [];
    faults = ['drop'];
    expect(Buffer.from(await reader().read('cold/1/a', 5, 5)).equals(OBJECT.subarray(5, 10))).toBe(true);
    expect(seen.map((request) => request.status)).toEqual([-1, 206]);
  });

  it('gives up after its attempts with the last error', async () => {
    faults = ['slow-down', 'slow-down', 'slow-down', 'slow-down'];
    await expect(reader().read('cold/1/a', 0, 10)).rejects.toMatchObject({ status: 503, code: 'SlowDown' });
    expect(seen).toHaveLength(3);
  });

  it('does not retry a missing object, and names S3 error code', async () => {
    const failure = reader().read('gone/1/a', 0, 10);
    await expect(failure).rejects.toBeInstanceOf(ColdPartReadError);
    await expect(reader().read('gone/1/a', 0, 10)).rejects.toMatchObject({ status: 404, code: 'NoSuchKey' });
    expect(seen).toHaveLength(2);
  });

  it('stops waiting on a server that does not answer', async () => {
    faults = ['hang', 'hang', 'hang'];
    const started = performance.now();
    await expect(reader({ requestTimeoutMs: 200 }).read('cold/1/a', 0, 10)).rejects.toThrow(/cold store: GET cold\/1\/a/);
    expect(seen.map((request) => request.status)).toEqual([-2, -2, -2]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses fewer bytes than asked, and a range that is not one', async () => {
    await expect(reader().read('cold/1/a', 4_990, 20)).rejects.toThrow('gave 10 bytes');
    await expect(reader().read('cold/1/a', -1, 5)).rejects.toThrow('bad byte range');
    await expect(reader().read('cold/1/a', 0, 0)).rejects.toThrow('bad byte range');
  });
});

describe("a cold part's address", () => {
  it('is the bucket virtual-hosted in its region in AWS, path-style under a local endpoint', () => {
    expect(objectAddress('parts', 'us-east-2', undefined)).toEqual({
      protocol: 'https:',
      hostname: 'parts.s3.us-east-2.amazonaws.com',
      pathPrefix: '',
    });
    expect(objectAddress('parts', 'cn-north-1', undefined).hostname).toBe('parts.s3.cn-north-1.amazonaws.com.cn');
    expect(objectAddress('parts', 'us-east-1', 'http://127.0.0.1:4569/')).toEqual({
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 4569,
      pathPrefix: '/parts',
    });
  });
});
