/**
 * Small HTTP proxies on 127.0.0.1 for fault tests: the JSON-RPC fault proxy (test/support/rpc-fault-proxy.ts,
 * re-exported here) and a plain proxy (used in front of the embedded DynamoDB) whose hook can hold a request.
 */
import http from 'node:http';
import { listenLocally, type HttpProxy } from '../../../support/rpc-fault-proxy';

export {
  BATCH_LIMIT_FORMS,
  REFUSAL_FORMS,
  refusal,
  startRpcProxy,
  type BatchLimitForm,
  type Fault,
  type FaultKind,
  type FaultPlan,
  type FaultRule,
  type HttpProxy,
  type MethodMatch,
  type ProxiedRequest,
  type RefusalForm,
  type RpcProxy,
} from '../../../support/rpc-fault-proxy';

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
