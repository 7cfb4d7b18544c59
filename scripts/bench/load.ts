/**
 * `npm run bench:load [-- --duration 60] [--connections 16,64] [--settle 30] [--no-chain] [--in-memory | --data-dir DIR]`:
 * HTTP load on the local service (`npm start`'s gateway, handlers and embedded DynamoDB) and what it
 * does to the service's memory.
 *
 * 1. The service runs in a child process (this file with --serve, node --expose-gc), set up as
 *    `npm start` sets it up: startLocalService with the table in LevelDB under a data folder (a fresh
 *    temporary one, deleted afterwards; --data-dir DIR to choose it, --in-memory for memory-level),
 *    then the local chain step (anvil on a free port, the demo contracts and activity, ingested and
 *    followed; no activity ticker), unless --no-chain. The child prints one line per request to
 *    /dev/null (like `npm start` with LOG_REQUESTS=1) and answers memory questions over IPC
 *    (process.memoryUsage(); when asked, after global.gc() and a second for V8 to return the freed pages).
 * 2. The parent seeds a few checkout sessions, orders and the example collection through the HTTP API,
 *    sends every request of the mix once (all handler modules loaded), collects garbage in the child
 *    and takes the start figures.
 * 3. For each connection count (default 16 then 64): autocannon against the three base URLs at once
 *    (half of the connections on the explorer + insights URL, a quarter on each of the others), for
 *    --duration seconds; memory at the end of the load; --settle seconds idle; memory again (after gc).
 *
 * Prints a JSON summary (requests/s, p99 latency, errors = socket errors + timeouts + 5xx, status
 * counts, memory in MB at start / end / +settle, peak RSS). Exits 1 if there were errors or the RSS
 * after the last settle is above 1.2 x the start.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { ApiName } from '../../shared/http/groups';
import type { DemoManifest } from '../lib/demo-activity';

const SELF = fileURLToPath(import.meta.url);
const USAGE =
  'usage: npx tsx scripts/bench/load.ts [--duration 60] [--connections 16,64] [--settle 30] [--no-chain] [--in-memory | --data-dir DIR] [--max-rss-ratio 1.2]';
const MB = 1024 * 1024;

interface Memory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

type ToChild = { type: 'memory'; gc: boolean; id: number };
type FromChild =
  | { type: 'ready'; urls: Record<ApiName, string>; manifest?: DemoManifest; chainId?: number }
  | { type: 'memory'; id: number; memory: Memory; gc: boolean };

// ---------------------------------------------------------------------------------------------------
// The service (child process)

async function serveChild(noChain: boolean, dataDir: string | undefined): Promise<void> {
  const { startLocalService } = await import('../lib/gateway');
  const service = await startLocalService({
    dataDir,
    onRequest: (entry) => {
      const route = entry.routeId ?? (entry.event ? 'route-not-found' : 'gateway');
      console.log(`${entry.method} ${entry.api}${entry.url} -> ${entry.statusCode} (${route}, ${entry.durationMs} ms)`);
    },
  });
  let stopChain: (() => Promise<void>) | undefined;
  let manifest: DemoManifest | undefined;
  let chainId: number | undefined;
  if (!noChain) {
    const { startLocalChain } = await import('../lib/local-chain');
    const chain = await startLocalChain(service, {
      env: { ...process.env, RPC_URL: '', ANVIL_PORT: '0', DEMO_ACTIVITY_INTERVAL_MS: '0' },
      print: () => undefined,
    });
    stopChain = chain.stop;
    manifest = chain.manifest;
    chainId = chain.chainId;
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stopChain?.().catch(() => undefined);
    await service.stop();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('message', async (message: ToChild) => {
    if (message.type !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    if (message.gc && gc) {
      gc();
      gc();
      // V8 hands freed pages back to the OS from a background thread, shortly after a collection.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const usage = process.memoryUsage();
    const memory: Memory = {
      rss: usage.rss,
      heapTotal: usage.heapTotal,
      heapUsed: usage.heapUsed,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
    };
    process.send!({ type: 'memory', id: message.id, memory, gc: message.gc && gc !== undefined } satisfies FromChild);
  });
  process.send!({ type: 'ready', urls: service.urls, manifest, chainId } satisfies FromChild);
}

// ---------------------------------------------------------------------------------------------------
// The load (parent process)

interface Service {
  child: ChildProcess;
  urls: Record<ApiName, string>;
  manifest?: DemoManifest;
  chainId?: number;
  memory(gc?: boolean): Promise<Memory>;
  stop(): Promise<void>;
}

async function startService(noChain: boolean, dataDir: string | undefined): Promise<Service> {
  const log = openSync('/dev/null', 'w');
  const child = fork(SELF, ['--serve', ...(noChain ? ['--no-chain'] : []), ...(dataDir ? ['--data-dir', dataDir] : [])], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', log, 'inherit', 'ipc'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Extract<FromChild, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service did not start within 180 s')), 180_000);
    child.on('message', (message: FromChild) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (code ${code}) before it was ready`));
    });
  });
  let nextId = 0;
  const pending = new Map<number, (memory: Memory) => void>();
  child.on('message', (message: FromChild) => {
    if (message.type === 'memory') pending.get(message.id)?.(message.memory);
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  return {
    child,
    urls: ready.urls,
    manifest: ready.manifest,
    chainId: ready.chainId,
    memory: (gc = false) =>
      new Promise<Memory>((resolve) => {
        const id = nextId++;
        pending.set(id, (memory) => {
          pending.delete(id);
          resolve(memory);
        });
        child.send({ type: 'memory', gc, id } satisfies ToChild);
      }),
    async stop() {
      process.off('exit', kill);
      if (child.connected) child.disconnect();
      const timer = setTimeout(kill, 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

async function call(url: string, method: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** A few checkout sessions, orders and the example collection, created through the API; their ids. */
async function seed(service: Service): Promise<{ sessions: string[]; orders: string[]; collections: string[] }> {
  const { routes } = await import('../../shared/routes');
  const example = (id: string) => routes.find((route) => route.id === id)!.example;
  const sessions: string[] = [];
  const orders: string[] = [];
  const collections: string[] = [];
  for (let index = 0; index < 5; index += 1) {
    const session = await call(`${service.urls.orders}/checkout-sessions`, 'POST', {
      expires_in: 3600,
      clientReferenceId: `load-session-${index}`,
    });
    if (session.status < 300 && session.json?.data?.id) sessions.push(session.json.data.id);
    const orderBody = { ...(example('CreateOrder').body as object), clientReferenceId: `load-order-${index}` };
    const order = await call(`${service.urls.orders}/orders`, 'POST', orderBody);
    if (order.status < 300 && order.json?.data?.id) orders.push(order.json.data.id);
  }
  const collection = await call(`${service.urls.collections}/collections`, 'POST', example('CreateCollection').body);
  const predicted = collection.json?.data?.predictedAddress ?? (example('GetCollection').pathParameters?.predictedAddress as string);
  collections.push(predicted);
  return { sessions, orders, collections };
}

function requestMix(service: Service, seeded: Awaited<ReturnType<typeof seed>>): Record<ApiName, LoadRequest[]> {
  const get = (path: string): LoadRequest => ({ method: 'GET', path });
  const chain = service.chainId ?? 31337;
  const m = service.manifest;
  const addresses = m
    ? [m.accounts.busy, m.accounts.alice, m.contracts.token, m.contracts.nft, m.contracts.splitter]
    : ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'];
  const token = m?.contracts.token ?? '0xdAC17F958D2ee523a2206206994597C13D831ec7';
  const txHash = m?.transactions.at(-1)?.hash ?? `0x${'ab'.repeat(32)}`;
  const base: LoadRequest[] = [];
  for (const address of addresses) {
    base.push(
      get(`/explorer/addresses/${address}/tokens`),
      get(`/explorer/addresses/${address}/token-transfers`),
      get(`/explorer/addresses/${address}/transactions`),
      get(`/explorer/addresses/${address}/internal-transactions`),
      get(`/explorer/addresses/${address}/nft/collections`),
      get(`/explorer/addresses/${address}/withdrawals`),
      get(`/insights/v1/tokens/transfers?chain_id=${chain}&owner_address=${address}&limit=20`),
    );
  }
  base.push(
    get(`/insights/v1/blocks?chain_id=${chain}&limit=20&sort_order=desc`),
    get(`/insights/v1/events/${token}?chain_id=${chain}&limit=20&decode=true`),
    get(`/insights/v1/transactions/${token}/transfer(address,uint256)?chain_id=${chain}&limit=20&decode=true`),
    get(`/insights/v1/tokens/transfers/${token}?chain_id=${chain}&limit=20`),
    get(`/insights/v1/tokens/transfers/transaction/${txHash}?chain_id=${chain}`),
    get(`/insights/v1/resolve/${txHash}?chain_id=${chain}`),
    get(`/insights/v1/resolve/0xa9059cbb?chain_id=${chain}`),
    get('/explorer/no-such-route'),
  );
  const orders: LoadRequest[] = [
    ...seeded.orders.map((id) => get(`/orders/${id}`)),
    ...seeded.sessions.map((id) => get(`/checkout-sessions/${id}`)),
    get('/orders/00000000-0000-4000-8000-000000000000'),
  ];
  const collections: LoadRequest[] = [
    get('/collections?limit=10'),
    get('/collections?limit=5&chainId=8453'),
    ...seeded.collections.map((address) => get(`/collections/${address}`)),
    get('/collections/signing-domain?chainId=8453'),
  ];
  return { base, orders, collections };
}

interface PhaseResult {
  connections: number;
  durationS: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors + timeouts + 5xx answers. */
  errors: number;
  socketErrors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  perApi: Record<string, { requests: number; p99Ms: number }>;
  memoryMb: { end: MemoryMb; afterSettle: MemoryMb; peakRss: number };
}

type MemoryMb = Record<keyof Memory, number>;

const toMb = (memory: Memory): MemoryMb =>
  Object.fromEntries(Object.entries(memory).map(([name, value]) => [name, Math.round((value / MB) * 10) / 10])) as MemoryMb;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

async function runPhase(
  service: Service,
  mix: Record<ApiName, LoadRequest[]>,
  connections: number,
  durationS: number,
  settleS: number,
  progress: (line: string) => void,
): Promise<PhaseResult> {
  const share: Record<ApiName, number> = {
    base: Math.max(1, Math.round(connections / 2)),
    orders: Math.max(1, Math.round(connections / 4)),
    collections: Math.max(1, connections - Math.round(connections / 2) - Math.round(connections / 4)),
  };
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let peakRss = 0;
  const sampler = setInterval(() => {
    void service.memory().then((memory) => {
      peakRss = Math.max(peakRss, memory.rss);
    });
  }, 2_000);

  const apis = Object.keys(mix) as ApiName[];
  const results = await Promise.all(
    apis.map(
      (api) =>
        new Promise<{ api: ApiName; result: autocannon.Result }>((resolve, reject) => {
          const instance = autocannon(
            {
              url: service.urls[api],
              connections: share[api],
              duration: durationS,
              timeout: 10,
              requests: mix[api],
            },
            (error, result) => (error ? reject(error) : resolve({ api, result })),
          );
          instance.on('response', (_client, statusCode, _bytes, responseTime) => {
            statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
            latencies.push(responseTime);
          });
        }),
    ),
  );
  clearInterval(sampler);
  const end = await service.memory();
  peakRss = Math.max(peakRss, end.rss);
  progress(`  ${connections} connections: load done, rss ${toMb(end).rss} MB; idle ${settleS} s…`);
  await new Promise((resolve) => setTimeout(resolve, settleS * 1000));
  const afterSettle = await service.memory(true);

  const sorted = Float64Array.from(latencies).sort();
  const socketErrors = results.reduce((sum, { result }) => sum + result.errors - result.timeouts, 0);
  const timeouts = results.reduce((sum, { result }) => sum + result.timeouts, 0);
  const serverErrors = Object.entries(statusCounts).reduce((sum, [code, count]) => sum + (Number(code) >= 500 ? count : 0), 0);
  return {
    connections,
    durationS,
    requests: latencies.length,
    requestsPerSecond: Math.round(latencies.length / durationS),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: socketErrors + timeouts + serverErrors,
    socketErrors,
    timeouts,
    statusCounts,
    perApi: Object.fromEntries(results.map(({ api, result }) => [api, { requests: result.requests.total, p99Ms: result.latency.p99 }])),
    memoryMb: { end: toMb(end), afterSettle: toMb(afterSettle), peakRss: Math.round((peakRss / MB) * 10) / 10 },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'boolean', default: false },
      'no-chain': { type: 'boolean', default: false },
      'in-memory': { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      duration: { type: 'string', default: '60' },
      connections: { type: 'string', default: '16,64' },
      settle: { type: 'string', default: '30' },
      'max-rss-ratio': { type: 'string', default: '1.2' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.serve) return serveChild(values['no-chain'], values['data-dir']);

  const durationS = Number(values.duration);
  const settleS = Number(values.settle);
  const maxRatio = Number(values['max-rss-ratio']);
  const connectionCounts = values.connections.split(',').map(Number);
  if (
    !(durationS > 0 && durationS <= 3600) ||
    !(settleS >= 0 && settleS <= 600) ||
    !(maxRatio > 0) ||
    connectionCounts.some((count) => !(count >= 1 && count <= 1024))
  ) {
    console.error(USAGE);
    process.exit(2);
  }
  const progress = (line: string) => console.error(line);

  // Like `npm start`: the table in LevelDB under a data folder (a fresh temporary one unless --data-dir).
  const ownDataDir = values['in-memory'] || values['data-dir'] ? undefined : await mkdtemp(path.join(os.tmpdir(), 'load-bench-'));
  const dataDir = values['in-memory'] ? undefined : (values['data-dir'] ?? ownDataDir);
  progress(
    `starting the local service (${dataDir ? `LevelDB in ${dataDir}` : 'in memory'})${values['no-chain'] ? '' : ' and the demo chain'}…`,
  );
  const service = await startService(values['no-chain'], dataDir).catch(async (error: unknown) => {
    if (ownDataDir) await rm(ownDataDir, { recursive: true, force: true });
    throw error;
  });
  let failed = true;
  try {
    const seeded = await seed(service);
    const mix = requestMix(service, seeded);
    // Every request once: all handler modules loaded (as after any first use) before the start figures.
    const warmStatus: Record<string, number> = {};
    for (const api of Object.keys(mix) as ApiName[]) {
      for (const request of mix[api]) {
        const { status } = await call(service.urls[api] + request.path, request.method);
        warmStatus[status] = (warmStatus[status] ?? 0) + 1;
      }
    }
    const start = await service.memory(true);
    progress(
      `seeded (${seeded.orders.length} orders, ${seeded.sessions.length} sessions, ${seeded.collections.length} collection); warm-up statuses ${JSON.stringify(warmStatus)}; start rss ${toMb(start).rss} MB`,
    );

    const phases: PhaseResult[] = [];
    for (const connections of connectionCounts) {
      progress(`  ${connections} connections for ${durationS} s…`);
      phases.push(await runPhase(service, mix, connections, durationS, settleS, progress));
    }
    const last = phases.at(-1)!;
    const errors = phases.reduce((sum, phase) => sum + phase.errors, 0);
    const rssRatio = Math.round((last.memoryMb.afterSettle.rss / toMb(start).rss) * 100) / 100;
    failed = errors > 0 || rssRatio > maxRatio;
    console.log(
      JSON.stringify(
        {
          bench: 'load',
          durationS,
          settleS,
          chain: !values['no-chain'],
          store: dataDir ? 'leveldb' : 'memory',
          routes: Object.fromEntries(Object.entries(mix).map(([api, requests]) => [api, requests.length])),
          memoryMb: { start: toMb(start) },
          phases,
          errors,
          rssAfterSettleOverStart: rssRatio,
          maxRssRatio: maxRatio,
          pass: !failed,
        },
        null,
        2,
      ),
    );
  } finally {
    await service.stop();
    if (ownDataDir) await rm(ownDataDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
