/**
 * The local service behind `npm start`: the embedded DynamoDB and one HTTP server per base URL, each
 * request turned into the API Gateway HTTP API 2.0 event that AWS would build and handed to the very
 * handler module Lambda runs (scripts/lib/dispatch.ts). Tests start it on port 0s.
 *
 * What it imitates from API Gateway, and where it stops:
 *  - routing through the route table; unknown routes, wrong methods and CORS preflights go to the
 *    `$default` fallback (functions/platform/route-not-found.ts);
 *  - the 2.0 event: raw path and query as sent (repeats kept), comma-joined queryStringParameters,
 *    lowercase headers, `sourceIp` = the client's address, `x-forwarded-*` headers, bodies of
 *    non-text content types base64-encoded (and text bodies whose bytes are not UTF-8, kept as sent);
 *  - request bodies capped at API Gateway's 10 MiB payload limit (413 in the group's format); the
 *    handlers' own, smaller JSON limit applies inside;
 *  - a handler that throws answers 500 `{"message":"Internal Server Error"}`, like API Gateway when a
 *    function fails.
 */
import { isUtf8 } from 'node:buffer';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DEFAULT_TABLE_NAME } from '../../shared/config';
import { ensureTable, localClient } from './local-table/ensure-table';
import { startLocalDynamo, type LocalDynamo } from './local-table/server';
import { errorBody, groupOfPath, type ApiName } from '../../shared/http/groups';
import { ownRecord } from '../../shared/http/query';
import { API_NAMES } from '../../shared/routes';
import { invoke, loadedHandlerCount, prepareRequest, splitUrl, type LocalResponse } from './dispatch';

/** API Gateway's payload limit. */
export const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface LocalServiceOptions {
  /** Interface of the three HTTP servers; 127.0.0.1 unless said otherwise. */
  host?: string;
  /** Port of each base URL; 0 (a free port) when absent. */
  ports?: Partial<Record<ApiName, number>>;
  /** Interface of the DynamoDB endpoint; `host` when absent. */
  dynamodbHost?: string;
  /** Port of the DynamoDB endpoint; 0 (a free port) when absent. */
  dynamodbPort?: number;
  /** Folder that keeps the data across restarts (LevelDB under `<dataDir>/dynamodb`); in memory when absent. */
  dataDir?: string;
  tableName?: string;
  /**
   * Starts the table the service uses in place of the embedded dynalite (the benchmark's stand-in
   * table, scripts/bench/lib/stand-in/table.ts); never with `dataDir`.
   */
  startTable?: (host: string, port: number) => Promise<LocalDynamo>;
  maxBodyBytes?: number;
  /** Called once per answered request (the start script prints these). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Called when a handler fails; the client gets a 500. Defaults to printing the error on stderr. */
  onHandlerError?: (error: unknown, entry: Omit<RequestLogEntry, 'statusCode' | 'durationMs'>) => void;
}

export interface RequestLogEntry {
  api: ApiName;
  method: string;
  url: string;
  statusCode: number;
  durationMs: number;
  /** The route that answered; absent for the fallback and for requests refused before dispatch. */
  routeId?: string;
  /** The event the handler received; absent for requests refused before dispatch. */
  event?: APIGatewayProxyEventV2;
}

export interface LocalService {
  urls: Record<ApiName, string>;
  dynamodbEndpoint: string;
  tableName: string;
  /** Absent when the data lives in memory. */
  dataDir?: string;
  /** Closes the HTTP servers, then the DynamoDB (flushing LevelDB). Safe to call twice. */
  stop(): Promise<void>;
}

/** The DynamoDB endpoint the handler modules of this process were loaded against (they keep it). */
let handlersEndpoint: string | undefined;

export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const host = options.host ?? '127.0.0.1';
  const tableName = options.tableName ?? DEFAULT_TABLE_NAME;
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : undefined;
  const storePath = dataDir ? path.join(dataDir, 'dynamodb') : undefined;
  if (storePath) await mkdir(storePath, { recursive: true });
  const releaseDataDir = dataDir ? await lockDataDir(dataDir) : async () => undefined;

  let dynamo: LocalDynamo;
  try {
    if (options.startTable && storePath) throw new Error('a table of its own (startTable) keeps no data directory');
    dynamo = options.startTable
      ? await options.startTable(options.dynamodbHost ?? host, options.dynamodbPort ?? 0)
      : await startDynamo(options.dynamodbHost ?? host, options.dynamodbPort ?? 0, storePath);
  } catch (error) {
    await releaseDataDir();
    throw error;
  }
  const dynamodbEndpoint = dynamo.endpoint.replace('//0.0.0.0:', '//127.0.0.1:');
  const boundTo = handlersEndpoint ?? process.env.DYNAMODB_ENDPOINT;
  if (loadedHandlerCount() > 0 && boundTo !== dynamodbEndpoint) {
    await dynamo.close();
    await releaseDataDir();
    throw new Error(
      `Handler modules of this process already use the DynamoDB at ${boundTo}; a restart in the same process must reuse its port (dynamodbPort).`,
    );
  }

  // Before any handler module is imported: shared/db/client.ts reads the endpoint at import.
  const previousEnv = { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT, TABLE_NAME: process.env.TABLE_NAME };
  process.env.DYNAMODB_ENDPOINT = dynamodbEndpoint;
  process.env.TABLE_NAME = tableName;
  handlersEndpoint = dynamodbEndpoint;
  // The table layer reads TABLE_NAME once, when first imported (now, unless this process loaded it before).
  const previousTable = (await import('../../shared/db/client')).useTable(tableName);

  const servers: http.Server[] = [];
  const restoreEnv = async () => {
    (await import('../../shared/db/client')).useTable(previousTable);
    for (const [name, value] of Object.entries(previousEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  const closeAll = async () => {
    await Promise.all(servers.map((server) => closeServer(server)));
    await dynamo.close();
    await releaseDataDir();
    await restoreEnv();
  };

  try {
    const client = localClient(dynamodbEndpoint);
    try {
      await ensureTable(client, tableName);
    } finally {
      client.destroy();
    }
    const urls = {} as Record<ApiName, string>;
    for (const api of API_NAMES) {
      const server = http.createServer((request, response) => {
        serve(api, request, response, options).catch((error: unknown) => {
          // Nothing a client sends may take the service down: whatever failed, the client gets a 500.
          (options.onHandlerError ?? printHandlerError)(error, { api, method: request.method ?? 'GET', url: request.url ?? '/' });
          send(response, jsonResponse(500, { message: 'Internal Server Error' }));
        });
      });
      server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerUnparsable(api, error, socket));
      servers.push(server);
      const port = await listen(server, options.ports?.[api] ?? 0, host, `the ${api} URL`);
      urls[api] = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    }
    let stopped: Promise<void> | undefined;
    return {
      urls,
      dynamodbEndpoint,
      tableName,
      dataDir,
      stop: () => (stopped ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * One running service per data folder: LevelDB allows a single opener, and dynalite would crash on the
 * second one's first request. A pid file says who holds the folder; a stale one (dead pid) is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const pidFile = path.join(dataDir, 'service.pid');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(pidFile, String(process.pid), { flag: 'wx' });
      return () => rm(pidFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
      if (holder && isAlive(holder)) {
        throw new Error(`${dataDir} is in use by process ${holder} (another \`npm start\`?); stop it or set DATA_DIR to another folder.`);
      }
      await rm(pidFile, { force: true });
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function startDynamo(host: string, port: number, storePath: string | undefined): Promise<LocalDynamo> {
  try {
    return await startLocalDynamo({ host, port, path: storePath });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`Port ${port} is in use: is another \`npm start\` running? Set DYNAMODB_PORT to use another port.`, { cause: error });
    }
    throw error;
  }
}

function listen(server: http.Server, port: number, host: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} (${what}) is in use: is another \`npm start\` running?`, { cause: error })
          : error,
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function serve(
  api: ApiName,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  options: LocalServiceOptions,
): Promise<void> {
  const started = performance.now();
  const method = (request.method ?? 'GET').toUpperCase();
  const url = request.url ?? '/';
  const log = (statusCode: number, extra: Pick<RequestLogEntry, 'routeId' | 'event'> = {}) =>
    options.onRequest?.({ api, method, url, statusCode, durationMs: Math.round(performance.now() - started), ...extra });

  const limit = options.maxBodyBytes ?? GATEWAY_MAX_BODY_BYTES;
  const body = await readBody(request, limit).catch(() => undefined);
  if (body === undefined) return; // the client went away
  if (body === 'too-large') {
    const group = groupOfPath(api, splitUrl(url).rawPath);
    send(response, jsonResponse(413, errorBody(group, 413, `Request body is larger than ${limit} bytes`)));
    log(413);
    return;
  }

  const sourceIp = clientAddress(request);
  const headers = requestHeaders(request, sourceIp);
  // A text body whose bytes are not UTF-8 is passed as they are (base64), never decoded with U+FFFD in
  // place of the bad bytes: the handler refuses it naming the field (shared/http/middleware/utf8-body.ts).
  const isText = body.length === 0 || (isTextContentType(headers['content-type']) && isUtf8(body));
  const prepared = prepareRequest({
    api,
    method,
    url,
    headers,
    body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !isText,
    sourceIp,
  });
  const entry = { api, method, url, routeId: prepared.routeId, event: prepared.event };
  let result: LocalResponse;
  try {
    result = await invoke(prepared);
  } catch (error) {
    (options.onHandlerError ?? printHandlerError)(error, entry);
    result = jsonResponse(500, { message: 'Internal Server Error' });
  }
  send(response, result);
  log(result.statusCode, { routeId: prepared.routeId, event: prepared.event });
}

/**
 * A request Node's HTTP parser refuses (control or non-ASCII characters in the path, headers over
 * Node's 16 KiB, an unknown method) never reaches a handler. API Gateway answers such requests with
 * a status and a JSON message rather than closing the connection; so does the local gateway.
 */
function answerUnparsable(api: ApiName, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || (error.code === 'ECONNRESET' && socket.destroyed)) {
    socket.destroy();
    return;
  }
  const [statusCode, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : error.code === 'HPE_INVALID_METHOD'
        ? [501, 'Not Implemented: unknown HTTP method']
        : [400, 'Bad Request: the request line or headers are not valid HTTP'];
  const body = JSON.stringify(errorBody(groupOfPath(api, unparsablePath(error)), statusCode, message));
  const reason = http.STATUS_CODES[statusCode] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${statusCode} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The path of a request the parser refused, read from the bytes it kept (`rawPacket`), to answer in its group's format. */
function unparsablePath(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string {
  const requestLine = error.rawPacket?.toString('latin1').split('\r\n', 1)[0] ?? '';
  const target = requestLine.split(' ')[1] ?? '';
  return target.startsWith('/') ? splitUrl(target).rawPath : '';
}

/** The body, or 'too-large' once it passes `limit` (the rest is read and dropped, so the client gets the answer). */
function readBody(request: http.IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    let tooLarge = declared > limit;
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    request.on('error', reject);
    request.on('aborted', () => reject(new Error('aborted')));
  });
}

function requestHeaders(request: http.IncomingMessage, sourceIp: string): Record<string, string> {
  const headers = ownRecord(
    Object.entries(request.headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value] as const],
    ),
  );
  const port = request.socket.localPort;
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${sourceIp}` : sourceIp;
  headers['x-forwarded-proto'] = 'http';
  if (port) headers['x-forwarded-port'] = String(port);
  return headers;
}

function clientAddress(request: http.IncomingMessage): string {
  const address = request.socket.remoteAddress ?? '127.0.0.1';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/** Content types whose bodies API Gateway passes as text; any other body arrives base64-encoded. */
export function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    /^application\/([\w.+-]+\+)?(json|xml)$/.test(type) ||
    type === 'application/javascript' ||
    type === 'application/x-www-form-urlencoded'
  );
}

function jsonResponse(statusCode: number, body: unknown): LocalResponse {
  return { statusCode, headers: { 'content-type': 'application/json' }, cookies: [], body: JSON.stringify(body), isBase64Encoded: false };
}

function send(response: http.ServerResponse, result: LocalResponse): void {
  if (response.headersSent || response.destroyed) return;
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body);
  for (const [name, value] of Object.entries(result.headers)) {
    if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection') response.setHeader(name, value);
  }
  if (result.cookies.length > 0) response.setHeader('set-cookie', result.cookies);
  response.setHeader('content-length', body.length);
  response.writeHead(result.statusCode);
  response.end(body);
}

function printHandlerError(error: unknown, entry: { method: string; url: string; routeId?: string }): void {
  const where = entry.routeId ?? 'route-not-found';
  console.error(`[gateway] ${entry.method} ${entry.url} (${where}) failed:`, error);
}
