/**
 * A hostile-on-demand HTTP server on a loopback address for the NFT metadata fetcher's tests: each path
 * answers what the test scripts for it (a document, slowly, hugely, a redirect, invalid JSON, a wrong
 * content type, a 404 then a 200 ...), and every request is recorded (path, Host header, time). One
 * server can play both a metadata origin and an IPFS "gateway" (paths under /ipfs/).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse, count: number) => void;

export interface MetadataServer {
  host: string;
  port: number;
  /** `http://<host>:<port><path>`. */
  url(path: string): string;
  /** Scripts a path (exact match, query ignored). */
  on(path: string, handler: Handler): void;
  requests: { path: string; host: string | undefined; at: number }[];
  /** Requests of one path so far. */
  count(path: string): number;
  close(): Promise<void>;
}

export async function startMetadataServer(host = '127.0.0.1'): Promise<MetadataServer> {
  const handlers = new Map<string, Handler>();
  const requests: MetadataServer['requests'] = [];
  const counts = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    requests.push({ path, host: request.headers.host, at: Date.now() });
    const count = (counts.get(path) ?? 0) + 1;
    counts.set(path, count);
    const handler = handlers.get(path);
    if (!handler) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    handler(request, response, count);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    host,
    port,
    url: (path) => `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    on: (path, handler) => void handlers.set(path, handler),
    requests,
    count: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers `document` as JSON with `contentType` (application/json by default). */
export const json =
  (document: unknown, contentType = 'application/json'): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    response.end(typeof document === 'string' ? document : JSON.stringify(document));
  };

/** The same, gzip-encoded. */
export const gzipJson =
  (document: unknown): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    response.end(gzipSync(JSON.stringify(document)));
  };

export const redirect =
  (location: string, status = 302): Handler =>
  (_request, response) => {
    response.writeHead(status, { location });
    response.end();
  };

export const status =
  (code: number, body = ''): Handler =>
  (_request, response) => {
    response.writeHead(code, { 'content-type': 'text/plain' });
    response.end(body);
  };

/** Headers after `delayMs` (then the document), or never when `delayMs` is Infinity. */
export const slow =
  (delayMs: number, document: unknown = { name: 'late' }): Handler =>
  (_request, response) => {
    if (!Number.isFinite(delayMs)) return;
    const timer = setTimeout(() => json(document)(_request, response, 1), delayMs);
    response.on('close', () => clearTimeout(timer));
  };

/** Headers at once, then one byte every `everyMs`, forever. */
export const drip =
  (everyMs: number): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"name":"');
    const timer = setInterval(() => response.write('a'), everyMs);
    response.on('close', () => clearInterval(timer));
  };

/** A body of `bytes` bytes, chunked (no Content-Length), or announced with a Content-Length. */
export const huge =
  (bytes: number, announce: boolean): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', ...(announce ? { 'content-length': String(bytes) } : {}) });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const write = () => {
      while (sent < bytes) {
        const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += part.length;
        if (!response.write(part)) return void response.once('drain', write);
      }
      response.end();
    };
    response.on('close', () => (sent = bytes));
    write();
  };

/** A small gzip body that inflates to `bytes` bytes (a decompression bomb). */
export const gzipBomb =
  (bytes: number): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    response.end(gzipSync(Buffer.alloc(bytes, 0x20)));
  };
