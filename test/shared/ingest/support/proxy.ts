/**
 * Small HTTP proxies on 127.0.0.1 for fault tests: a JSON-RPC proxy in front of anvil that injects
 * 429s, hangs (client timeouts), malformed JSON, receipts of another block, refused methods and
 * latency; and a plain proxy (used in front of the embedded DynamoDB) whose hook can hold a request.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HttpProxy {
  url: string;
  close(): Promise<void>;
}

type Hook = (request: { headers: http.IncomingHttpHeaders; body: Buffer }) => Promise<'forward' | 'hang'> | 'forward' | 'hang';

/** Forwards every request to `target`; `hook` may hold one (never answered) instead. */
export async function startHttpProxy(target: string, hook?: Hook): Promise<HttpProxy> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      void (async () => {
        if (hook && (await hook({ headers: request.headers, body })) === 'hang') return;
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) {
          if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
        }
        const upstream = await fetch(target, { method: request.method, headers, body: request.method === 'GET' ? undefined : body });
        const answer = Buffer.from(await upstream.arrayBuffer());
        response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
        response.end(answer);
      })().catch((error: Error) => {
        response.writeHead(502);
        response.end(error.message);
      });
    });
  });
  return listenLocally(server);
}

/** Faults still to inject; each counter goes down as its fault is served (Infinity: never stop). */
export interface FaultPlan {
  http429: number;
  hang: number;
  malformedJson: number;
  /** eth_getBlockReceipts answered with the receipts of the previous block. */
  wrongBlockReceipts: number;
  /** Methods answered with JSON-RPC error -32601 (method not found). */
  unsupportedMethods: string[];
  /** Added to every answer. */
  delayMs: number;
  /**
   * A node that traces one block at a time (anvil): each debug_traceBlockByNumber call waits for the
   * ones before it, then takes this long, whether or not its client is still waiting.
   */
  serialTraceMs: number;
}

export interface RpcProxy extends HttpProxy {
  plan: FaultPlan;
  /** Faults served so far, by kind. */
  served: Record<'http429' | 'hang' | 'malformedJson' | 'wrongBlockReceipts' | 'unsupported', number>;
  /** JSON-RPC calls seen, by method. */
  calls: Map<string, number>;
}

interface RpcCall {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown[];
}

export async function startRpcProxy(target: string, plan: Partial<FaultPlan> = {}): Promise<RpcProxy> {
  const faults: FaultPlan = {
    http429: 0,
    hang: 0,
    malformedJson: 0,
    wrongBlockReceipts: 0,
    unsupportedMethods: [],
    delayMs: 0,
    serialTraceMs: 0,
    ...plan,
  };
  let traceLane: Promise<unknown> = Promise.resolve();
  const served = { http429: 0, hang: 0, malformedJson: 0, wrongBlockReceipts: 0, unsupported: 0 };
  const calls = new Map<string, number>();

  const forward = async (batch: RpcCall[]): Promise<unknown[]> => {
    if (batch.length === 0) return [];
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    return (await upstream.json()) as unknown[];
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString()) as RpcCall | RpcCall[];
        const isBatch = Array.isArray(parsed);
        const batch = (isBatch ? parsed : [parsed]).map((call) => ({ ...call }));
        for (const call of batch) calls.set(call.method, (calls.get(call.method) ?? 0) + 1);
        if (faults.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
        const traces = faults.serialTraceMs > 0 ? batch.filter((call) => call.method === 'debug_traceBlockByNumber').length : 0;
        for (let trace = 0; trace < traces; trace += 1) {
          const turn = traceLane.then(() => new Promise((resolve) => setTimeout(resolve, faults.serialTraceMs)));
          traceLane = turn;
          await turn;
        }
        if (faults.hang > 0) {
          faults.hang -= 1;
          served.hang += 1;
          return; // never answered: the client times out
        }
        if (faults.http429 > 0) {
          faults.http429 -= 1;
          served.http429 += 1;
          response.writeHead(429, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too Many Requests' } }));
          return;
        }
        if (faults.malformedJson > 0) {
          faults.malformedJson -= 1;
          served.malformedJson += 1;
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"jsonrpc":"2.0","id":1,"result":{"number":"0x1", "hash":');
          return;
        }
        for (const call of batch) {
          if (call.method === 'eth_getBlockReceipts' && faults.wrongBlockReceipts > 0 && typeof call.params?.[0] === 'string') {
            const number = BigInt(call.params[0] as string);
            if (number > 1n) {
              faults.wrongBlockReceipts -= 1;
              served.wrongBlockReceipts += 1;
              call.params = [`0x${(number - 1n).toString(16)}`];
            }
          }
        }
        const refused = batch.map((call) => faults.unsupportedMethods.includes(call.method));
        const answers = await forward(batch.filter((_, position) => !refused[position]));
        const byId = new Map((answers as { id: unknown }[]).map((answer) => [answer.id, answer]));
        const results = batch.map((call, position) => {
          if (!refused[position]) return byId.get(call.id);
          served.unsupported += 1;
          return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `Method not found` } };
        });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(isBatch ? results : results[0]));
      })().catch((error: Error) => {
        if (!response.headersSent) response.writeHead(502);
        response.end(error.message);
      });
    });
  });
  return { ...(await listenLocally(server)), plan: faults, served, calls };
}

/** Listens on a free port of 127.0.0.1; close() also ends open keep-alive connections (never waits on them). */
async function listenLocally(server: http.Server): Promise<HttpProxy> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
