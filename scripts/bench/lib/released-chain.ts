/**
 * A synthetic chain (dataset/chain.ts: the Base profile's generator) served as a JSON-RPC node over
 * HTTP whose head moves as time passes: its blocks are generated up front and `release(n)` makes
 * blocks up to n visible, as a node sees them arrive. A block past the released head does not exist
 * (null, or the node's "not found" error for traces); `latest` is the released head. Single and batch
 * requests; every call counted by method (the ingest's calls to the node, for its cost per
 * transaction). Listens on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SyntheticChain } from '../dataset/chain';

interface RpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Where a method's block (number or tag) is among its parameters. */
const BLOCK_PARAMETER: Record<string, number> = {
  eth_getBlockByNumber: 0,
  eth_getBlockReceipts: 0,
  debug_traceBlockByNumber: 0,
  trace_block: 0,
  // (eth_call's third parameter is its state override.)
  eth_call: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
};
/** Methods that answer null for a block the node does not have (the others: its "not found" error). */
const NULL_WHEN_MISSING = new Set(['eth_getBlockByNumber', 'eth_getBlockReceipts']);

export interface ReleasedChainNode {
  url: string;
  /** The released head. */
  readonly head: number;
  release(number: number): void;
  /** Calls answered, by method (a batch's entries each count). */
  readonly calls: Map<string, number>;
  readonly httpRequests: number;
  close(): Promise<void>;
}

export async function serveReleasedChain(
  chain: SyntheticChain,
  options: { released?: number; onCall?: (method: string, params: readonly unknown[]) => void } = {},
): Promise<ReleasedChainNode> {
  let head = Math.min(options.released ?? 0, chain.head);
  const calls = new Map<string, number>();
  let httpRequests = 0;
  const tagOf = (value: unknown): number | 'latest' | undefined => {
    if (value === undefined || value === 'latest' || value === 'pending' || value === 'safe' || value === 'finalized') return 'latest';
    if (value === 'earliest') return 0;
    if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)) return Number(BigInt(value));
    return undefined;
  };
  const answer = async (request: RpcRequest): Promise<Record<string, unknown>> => {
    const id = request.id ?? null;
    const method = typeof request.method === 'string' ? request.method : '';
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const params = Array.isArray(request.params) ? [...request.params] : [];
    options.onCall?.(method, params);
    const fail = (code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });
    if (method === 'eth_blockNumber') return { jsonrpc: '2.0', id, result: `0x${head.toString(16)}` };
    const position = BLOCK_PARAMETER[method];
    if (position !== undefined) {
      const tag = tagOf(params[position]);
      if (tag === undefined) return fail(-32602, `invalid block: ${String(params[position])}`);
      const number = tag === 'latest' ? head : tag;
      if (number > head) return NULL_WHEN_MISSING.has(method) ? { jsonrpc: '2.0', id, result: null } : fail(-32000, 'header not found');
      params[position] = `0x${number.toString(16)}`;
    }
    try {
      return { jsonrpc: '2.0', id, result: await chain.request(method, params) };
    } catch (error) {
      const { code, message } = error as { code?: number; message?: string };
      return fail(typeof code === 'number' ? code : -32603, message ?? String(error));
    }
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      httpRequests += 1;
      void (async () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString());
        } catch {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
          return;
        }
        const result = Array.isArray(body)
          ? await Promise.all(body.map((entry) => answer(entry as RpcRequest)))
          : await answer(body as RpcRequest);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(result, (_key, value) => (typeof value === 'bigint' ? `0x${value.toString(16)}` : value)));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get head() {
      return head;
    },
    release(number: number) {
      head = Math.max(head, Math.min(number, chain.head));
    },
    calls,
    get httpRequests() {
      return httpRequests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
