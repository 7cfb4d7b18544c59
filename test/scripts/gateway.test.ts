/**
 * The local gateway over real HTTP: the service started on free ports with its data in a temporary
 * folder, requested with fetch as a client would, stopped and started again on the same folder.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClient } from '../../scripts/lib/local-table/ensure-table';
import { MAX_BODY_BYTES } from '../../shared/http/handler';
import { routes } from '../../shared/routes';
import { GATEWAY_MAX_BODY_BYTES, startLocalService, type LocalService, type RequestLogEntry } from '../../scripts/lib/gateway';

let dataDir: string;
let service: LocalService;
const requests: RequestLogEntry[] = [];
const previousEndpoint = process.env.DYNAMODB_ENDPOINT;
const previousTable = process.env.TABLE_NAME;

const start = (dynamodbPort = 0) =>
  startLocalService({ dataDir, dynamodbPort, tableName: 'gateway-test', onRequest: (entry) => requests.push(entry) });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-test-'));
  service = await start();
});

afterAll(async () => {
  await service?.stop();
  await rm(dataDir, { recursive: true, force: true });
  expect(process.env.DYNAMODB_ENDPOINT).toBe(previousEndpoint);
  expect(process.env.TABLE_NAME).toBe(previousTable);
});

async function fetchJson(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** The event the handler received for the last request to `url` (as logged by the gateway). */
function lastEventFor(pathAndQuery: string) {
  const entry = [...requests].reverse().find((candidate) => candidate.url === pathAndQuery);
  expect(entry, `a logged request for ${pathAndQuery}`).toBeDefined();
  return entry!;
}

const exampleCollection = routes.find((route) => route.id === 'CreateCollection')?.example.body as Record<string, unknown> | undefined;

describe('the three base URLs', () => {
  it('listen on 127.0.0.1 and answer unknown routes with 404 JSON in each group’s format', async () => {
    for (const url of Object.values(service.urls)) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(service.dynamodbEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const explorer = await fetchJson(`${service.urls.base}/explorer/addresses/0x0000000000000000000000000000000000000001/nothing`);
    expect(explorer.status).toBe(404);
    expect(explorer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(explorer.body).toEqual({ message: 'No route for GET /explorer/addresses/0x0000000000000000000000000000000000000001/nothing' });

    const insights = await fetchJson(`${service.urls.base}/insights/v1/nothing`);
    expect(insights.status).toBe(404);
    expect(insights.body).toEqual({ error: 'No route for GET /insights/v1/nothing' });

    const orders = await fetchJson(`${service.urls.orders}/nothing`);
    expect(orders.body).toEqual({ success: false, message: 'No route for GET /nothing', statusCode: 404 });

    const collections = await fetchJson(`${service.urls.collections}/nothing/at/all`);
    expect(collections.body).toEqual({ success: false, message: 'No route for GET /nothing/at/all', statusCode: 404 });
  });

  it('answers a known path with a wrong method 405 and an Allow header', async () => {
    const response = await fetchJson(`${service.urls.collections}/collections`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')!.split(', ').sort()).toEqual(['GET', 'POST']);
    expect(response.body).toMatchObject({ success: false, statusCode: 405 });
  });

  it('serves a collections route through its real handler', async () => {
    const response = await fetchJson(`${service.urls.collections}/collections?limit=2&page=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({ success: true, page: 1, limit: 2, collections: expect.any(Array) });
    expect(lastEventFor('/collections?limit=2&page=1').routeId).toBe('ListCollections');
  });

  it('hands the raw query with its repeats to the handler, and queryStringParameters joined as API Gateway does', async () => {
    const url = '/collections?symbol=A%26B&symbol=C&limit=2&limit=3';
    const response = await fetchJson(`${service.urls.collections}${url}`);
    // `limit` takes one integer: a repeat must not be silently cut to one value.
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, statusCode: 400, message: expect.stringContaining('limit') });
    const { event } = lastEventFor(url);
    expect(event!.rawQueryString).toBe('symbol=A%26B&symbol=C&limit=2&limit=3');
    expect(event!.queryStringParameters).toEqual({ symbol: 'A&B,C', limit: '2,3' });
    expect(event!.routeKey).toBe('GET /collections');
  });

  it('passes the client address as sourceIp and in x-forwarded-for', async () => {
    await fetchJson(`${service.urls.orders}/whoami`, { headers: { 'User-Agent': 'gateway-test' } });
    const { event } = lastEventFor('/whoami');
    expect(event!.requestContext.http.sourceIp).toBe('127.0.0.1');
    expect(event!.requestContext.http.userAgent).toBe('gateway-test');
    expect(event!.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(event!.requestContext.apiId).toBe('orders');
  });

  it('answers a CORS preflight with 204 and the path’s methods', async () => {
    const response = await fetch(`${service.urls.collections}/collections`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')!.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST', 'OPTIONS']));
    expect(response.headers.get('access-control-allow-headers')).toContain('content-type');
  });

  it(`refuses a body over API Gateway's ${GATEWAY_MAX_BODY_BYTES} bytes with 413 before any handler runs`, async () => {
    const before = requests.length;
    const response = await fetchJson(`${service.urls.collections}/collections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(GATEWAY_MAX_BODY_BYTES + 1, 0x20),
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ success: false, statusCode: 413 });
    const entry = requests.slice(before).find((candidate) => candidate.method === 'POST');
    expect(entry?.event).toBeUndefined();
  });

  it('hands a JSON body whose bytes are not UTF-8 over as sent (base64), so the handler refuses it naming the field', async () => {
    const total = async () => (await fetchJson(`${service.urls.collections}/collections?limit=1`)).body.total as number;
    const before = await total();
    const [head, tail] = JSON.stringify({ ...exampleCollection, description: 'about @@' }).split('@@');
    const sent = Buffer.concat([Buffer.from(head!), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(tail!)]);
    const response = await fetchJson(`${service.urls.collections}/collections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sent,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, statusCode: 400, message: 'description: is not valid UTF-8' });
    const { event } = lastEventFor('/collections');
    expect(event!.isBase64Encoded).toBe(true);
    expect(Buffer.from(event!.body!, 'base64').equals(sent)).toBe(true);
    expect(await total()).toBe(before);
  });

  it('hands a JSON body of valid UTF-8 over, multi-byte characters kept', async () => {
    const response = await fetchJson(`${service.urls.orders}/checkout-sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientReferenceId: 'ref-1', expires_in: 'naïve 🪙' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('expires_in: must be a number');
    // The handler's JSON parser replaced the event's body by what it read: the characters as sent.
    const { event } = lastEventFor('/checkout-sessions');
    expect(event!.isBase64Encoded).toBe(false);
    expect(event!.body as unknown).toEqual({ clientReferenceId: 'ref-1', expires_in: 'naïve 🪙' });
  });

  it(`lets the handler refuse a JSON body over its own ${MAX_BODY_BYTES} bytes, in the group's format`, async () => {
    const response = await fetchJson(`${service.urls.collections}/collections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...exampleCollection, description: 'x'.repeat(MAX_BODY_BYTES) }),
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ success: false, statusCode: 413 });
  });
});

describe('hostile requests', () => {
  /** Sends bytes as they are (fetch would refuse or encode them) and reads the whole answer. */
  function rawRequest(url: string, request: string | Buffer): Promise<{ status: number; headers: string; body: any }> {
    const { port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head, body = ''] = text.split('\r\n\r\n', 2);
        if (!head) return reject(new Error('the connection closed without an answer'));
        resolve({ status: Number(head.split(' ')[1]), headers: head, body: body ? JSON.parse(body) : undefined });
      });
    });
  }

  it('answers query keys named after inherited members on all three base URLs, and stays up', async () => {
    const names = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'];
    for (const name of names) {
      for (const url of [
        `${service.urls.collections}/collections?${name}=1`,
        `${service.urls.base}/insights/v1/blocks?chain_id=1&${name}=1`,
        `${service.urls.base}/explorer/addresses/0x0000000000000000000000000000000000000001/transactions?${name}=1`,
        `${service.urls.orders}/orders/x?${name}=1`,
      ]) {
        const response = await fetchJson(url);
        expect(response.status, `${url}: ${response.text}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${url}: ${response.text}`).toBeLessThan(500);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      }
    }
    const listing = await fetchJson(`${service.urls.collections}/collections?limit=1`);
    expect(listing.status).toBe(200);
  });

  it('answers requests the HTTP parser refuses in JSON instead of closing the connection', async () => {
    const nonAscii = await rawRequest(service.urls.collections, Buffer.from('GET /collections/\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'));
    expect(nonAscii.status).toBe(400);
    expect(nonAscii.headers).toMatch(/content-type: application\/json/i);
    expect(nonAscii.body).toMatchObject({ success: false, statusCode: 400 });

    const control = await rawRequest(service.urls.base, 'GET /explorer/a\u0001b HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(control.status).toBe(400);
    expect(control.body).toEqual({ message: expect.stringContaining('Bad Request') });

    const hugeHeader = await rawRequest(service.urls.orders, `GET /orders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    expect(hugeHeader.status).toBe(431);
    expect(hugeHeader.body).toEqual({ success: false, message: 'Request Header Fields Too Large', statusCode: 431 });

    const unknownMethod = await rawRequest(service.urls.collections, 'BREW /collections HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(unknownMethod.status).toBe(501);
    expect(unknownMethod.body).toMatchObject({ success: false, statusCode: 501 });

    expect((await fetchJson(`${service.urls.collections}/collections?limit=1`)).status).toBe(200);
  });
});

describe('DATA_DIR', () => {
  it('keeps the data across a stop and a start on the same folder', async () => {
    const key = { pk: 'GATEWAY#persist', sk: 'ITEM' };
    const writer = DynamoDBDocumentClient.from(localClient(service.dynamodbEndpoint));
    await writer.send(new PutCommand({ TableName: service.tableName, Item: { ...key, note: 'written before the restart' } }));
    writer.destroy();

    // A collection created through the API, too.
    const created = await fetchJson(`${service.urls.collections}/collections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(exampleCollection),
    });
    expect(created.status).toBe(201);
    const predictedAddress: string = created.body.data.predictedAddress;

    const port = Number(new URL(service.dynamodbEndpoint).port);
    await service.stop();
    expect(await fetch(`${service.urls.collections}/collections`).catch(() => 'refused')).toBe('refused');
    await expect(readFile(path.join(dataDir, 'service.pid'), 'utf8')).rejects.toThrow();

    // Handler modules keep the endpoint they were loaded with, as `npm start` keeps DYNAMODB_PORT.
    service = await start(port);
    const reader = DynamoDBDocumentClient.from(localClient(service.dynamodbEndpoint));
    const item = await reader.send(new GetCommand({ TableName: service.tableName, Key: key }));
    reader.destroy();
    expect(item.Item).toEqual({ ...key, note: 'written before the restart' });

    const fetched = await fetchJson(`${service.urls.collections}/collections/${predictedAddress}`);
    expect(fetched.status).toBe(200);
    expect(JSON.stringify(fetched.body)).toContain(predictedAddress);
  });

  it('refuses a second service on a folder in use', async () => {
    await expect(startLocalService({ dataDir, tableName: 'gateway-test' })).rejects.toThrow(/in use by process/);
    // The running one is untouched.
    expect((await fetch(`${service.urls.base}/`)).status).toBe(404);
  });

  it('refuses a restart in the same process that would move the DynamoDB its loaded handlers use', async () => {
    const other = await mkdtemp(path.join(tmpdir(), 'gateway-test-'));
    try {
      await expect(startLocalService({ dataDir: other })).rejects.toThrow(/already use the DynamoDB/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
