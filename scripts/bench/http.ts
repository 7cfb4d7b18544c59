/**
 * `npx tsx scripts/bench/http.ts [--scale 0.05] [--reps 20] [--out FILE]` (or `npm run bench -- --only http`):
 * what every route costs on the benchmark dataset (dataset/build.ts, built once and cached).
 *
 * The dataset's table (LevelDB) is served by the embedded DynamoDB in a process of its own. Each
 * representative request goes through the local gateway's in-process dispatch (scripts/lib/dispatch.ts:
 * the route table, the API Gateway event, the handler module as Lambda runs it):
 *  1. once to warm up (module loaded, caches filled as in a warm function);
 *  2. once recorded: every DynamoDB call the table layer sends (command, input, start, end, items),
 *     through an SDK middleware on the shared document client;
 *  3. once inside measureTable (shared/db/instrument.ts): calls, items read, items returned, read and
 *     write units (ReturnConsumedCapacity), and the recording again for the analysis (round trips in
 *     sequence, item sizes, BatchGetItem keys that do not exist, Scans);
 *  4. --reps times through the handler and --reps times the recorded DynamoDB requests issued directly
 *     (the same inputs through the same client, wave after wave as the handler sent them: calls the
 *     handler had in flight together are sent together), alternately: p50 and p99 of each, and the
 *     handler's p50 over the direct p50.
 * Requests that write use a scratch table in the same store (created here, deleted at the end), so the
 * cached dataset is never changed. Prints and writes (--out) one JSON document; budgets are evaluated
 * by scripts/bench/lib/budgets.ts.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ApiName } from '../../shared/http/groups';
import { apiOf, routes } from '../../shared/routes';
import type { DatasetFacts } from './dataset/build';
import type { ChainFacts } from './dataset/chain';
import { SECOND_CHAIN, SMALL_CHAINS } from './dataset/spec';
import {
  callDepths,
  itemSize,
  median,
  minimumReadUnits,
  missingKeys,
  percentile,
  recordsOf,
  roundTrips,
  wastedReadAllowance,
  wastedReads,
  waves,
  type RecordedCall,
} from './lib/measure';

const SELF = fileURLToPath(import.meta.url);
const USAGE = 'usage: npx tsx scripts/bench/http.ts [--scale S] [--reps N] [--seconds-per-request S] [--out FILE]';

export type RequestKind = 'list' | 'aggregate' | 'single' | 'write' | 'error';

export interface BenchRequest {
  id: string;
  routeId: string;
  api: ApiName;
  method: 'GET' | 'POST';
  url: string;
  /** A new body for each call (POST). */
  body?: () => unknown;
  headers?: Record<string, string>;
  /** Requests that write (and what they read back) use the scratch table. */
  scratch?: boolean;
  kind: RequestKind;
  /** Part of the page mix of the cost model (one representative page per list route). */
  mix?: boolean;
}

export interface RequestResult {
  id: string;
  routeId: string;
  kind: RequestKind;
  mix: boolean;
  method: string;
  url: string;
  status: number;
  records: number;
  calls: Record<string, number>;
  callCount: number;
  roundTrips: number;
  itemsRead: number;
  itemsReturnedByDynamo: number;
  readUnits: number;
  writeUnits: number;
  itemsReadPerRecord: number | null;
  wastedReads: number;
  wastedAllowance: number;
  minimumReadUnits: number;
  missingBatchGetKeys: number;
  scans: number;
  handlerMs: { p50: number; p99: number; n: number };
  directMs: { p50: number; p99: number; n: number } | null;
  handlerOverDirect: number | null;
  /** Each DynamoDB call: command, round trip (1 = first), items read / returned or keys asked / found, bytes returned, capacity. */
  detail: string[];
  error?: string;
}

export interface HttpResult {
  dataset: {
    scale: number;
    key: string;
    dir: string;
    builtThisRun: boolean;
    buildSeconds: number;
    generation: DatasetFacts['generation'];
    chains: { chainId: number; counts: ChainFacts['counts'] }[];
    collections: number;
    orders: number;
  };
  settings: { reps: number; secondsPerRequest: number; transport: string };
  seconds: number;
  requests: RequestResult[];
  depth: {
    name: string;
    first: string;
    deep: string;
    pageReached: number | null;
    pageWanted: number;
    firstReadUnits: number;
    deepReadUnits: number | null;
    deepStatus: number;
    ratio: number | null;
  }[];
  /** Mean read units of one page of the mix (one representative page per list route). */
  mixReadUnitsPerPage: number;
}

// ---------------------------------------------------------------------------------------------------
// The requests

const TYPE_SETS = [
  '',
  'ERC-20',
  'ERC-721',
  'ERC-1155',
  'ERC-20,ERC-721',
  'ERC-20,ERC-1155',
  'ERC-721,ERC-1155',
  'ERC-20,ERC-721,ERC-1155',
  'ERC-404',
];
const DIRECTIONS = ['', 'to', 'from'];
const PAGE = 50;

const query = (entries: Record<string, string | number | readonly (string | number)[] | undefined>): string => {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(entries)) {
    if (value === undefined || value === '') continue;
    for (const one of Array.isArray(value) ? value : [value]) parts.push(`${name}=${encodeURIComponent(String(one))}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
};

export function buildRequests(
  facts: DatasetFacts,
  extra: {
    deep: { id: string; routeId: string; url: string }[];
    sessionId: string;
    collectionBody: () => unknown;
    orderBody: () => unknown;
  },
): BenchRequest[] {
  const a = facts.chains.find((chain) => chain.chainId === facts.explorerChain)!;
  const whale = a.whale;
  const busy = a.busyToken;
  const fiveChains = [a.chainId, SECOND_CHAIN, ...SMALL_CHAINS];
  const requests: BenchRequest[] = [];
  const get = (id: string, routeId: string, api: ApiName, url: string, kind: RequestKind, more: Partial<BenchRequest> = {}) =>
    requests.push({ id, routeId, api, method: 'GET', url, kind, ...more });
  const explorer = (suffix: string) => `/explorer/addresses/${whale}/${suffix}`;

  // Explorer (E1 - E6): the whale, every filter combination.
  for (const type of TYPE_SETS)
    get(`E1 tokens type=${type || '-'}`, 'ListAddressTokens', 'base', explorer('tokens') + query({ type }), 'list', { mix: type === '' });
  for (const type of TYPE_SETS)
    get(
      `E2 nft/collections type=${type || '-'}`,
      'ListAddressNftCollections',
      'base',
      explorer('nft/collections') + query({ type }),
      'list',
      {
        mix: type === '',
      },
    );
  for (const type of TYPE_SETS)
    for (const filter of DIRECTIONS)
      for (const token of ['', busy])
        get(
          `E3 token-transfers type=${type || '-'} filter=${filter || '-'} token=${token ? 'BUSY' : '-'}`,
          'ListAddressTokenTransfers',
          'base',
          explorer('token-transfers') + query({ type, filter, token }),
          'list',
          { mix: type === '' && filter === '' && token === '' },
        );
  for (const filter of DIRECTIONS)
    get(
      `E4 transactions filter=${filter || '-'}`,
      'ListAddressTransactions',
      'base',
      explorer('transactions') + query({ filter }),
      'list',
      {
        mix: filter === '',
      },
    );
  for (const filter of DIRECTIONS)
    get(
      `E5 internal-transactions filter=${filter || '-'}`,
      'ListAddressInternalTransactions',
      'base',
      explorer('internal-transactions') + query({ filter }),
      'list',
      { mix: filter === '' },
    );
  get('E6 withdrawals', 'ListAddressWithdrawals', 'base', explorer('withdrawals'), 'list', { mix: true });
  get(
    'E3 token-transfers of an ordinary holder',
    'ListAddressTokenTransfers',
    'base',
    `/explorer/addresses/${a.holder}/token-transfers`,
    'list',
  );
  for (const deep of extra.deep) get(deep.id, deep.routeId, 'base', deep.url, 'list');

  // Insights (I1 - I5c).
  const signature = encodeURIComponent(a.swapSignature);
  get(
    'I1 contract transactions (swap)',
    'ListContractTransactions',
    'base',
    `/insights/v1/transactions/${a.router}/${signature}${query({ chain_id: a.chainId, limit: PAGE })}`,
    'list',
    {
      mix: true,
    },
  );
  get(
    'I1 contract transactions decode=true',
    'ListContractTransactions',
    'base',
    `/insights/v1/transactions/${a.router}/${signature}${query({ chain_id: a.chainId, limit: PAGE, decode: 'true' })}`,
    'list',
  );
  const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  get(
    'I2 events of BUSY (Transfer)',
    'ListContractEvents',
    'base',
    `/insights/v1/events/${busy}${query({ chain_id: a.chainId, filter_topic_0: transferTopic, limit: PAGE })}`,
    'list',
    {
      mix: true,
    },
  );
  get(
    'I2 events of BUSY decode=true',
    'ListContractEvents',
    'base',
    `/insights/v1/events/${busy}${query({ chain_id: a.chainId, limit: PAGE, decode: 'true' })}`,
    'list',
  );
  get(
    'I3 blocks over 5 chains',
    'ListBlocks',
    'base',
    `/insights/v1/blocks${query({ chain_id: fiveChains, limit: PAGE, sort_order: 'desc' })}`,
    'list',
    { mix: true },
  );
  get(
    'I3 blocks of one chain',
    'ListBlocks',
    'base',
    `/insights/v1/blocks${query({ chain_id: a.chainId, limit: PAGE, sort_order: 'desc' })}`,
    'list',
  );
  get(
    'I4 resolve block number',
    'Resolve',
    'base',
    `/insights/v1/resolve/${Math.floor(a.head / 2)}${query({ chain_id: a.chainId })}`,
    'single',
  );
  get(
    'I4 resolve transaction hash',
    'Resolve',
    'base',
    `/insights/v1/resolve/${a.swapTransactionHash}${query({ chain_id: a.chainId })}`,
    'single',
  );
  get('I4 resolve address (whale)', 'Resolve', 'base', `/insights/v1/resolve/${whale}${query({ chain_id: a.chainId })}`, 'list');
  get('I4 resolve selector', 'Resolve', 'base', `/insights/v1/resolve/0xa9059cbb${query({ chain_id: a.chainId })}`, 'list');
  get('I4 resolve without input', 'ResolveWithoutInput', 'base', `/insights/v1/resolve${query({ chain_id: a.chainId })}`, 'error');
  get(
    'I5a transfers of the whale over 5 chains',
    'ListTokenTransfers',
    'base',
    `/insights/v1/tokens/transfers${query({ chain_id: fiveChains, owner_address: whale, limit: PAGE })}`,
    'list',
    {
      mix: true,
    },
  );
  get(
    'I5a transfers of the whale in BUSY',
    'ListTokenTransfers',
    'base',
    `/insights/v1/tokens/transfers${query({ chain_id: a.chainId, owner_address: whale, contract_address: busy, limit: PAGE })}`,
    'list',
  );
  get(
    'I5a transfers of BUSY by name over 5 chains, metadata',
    'ListTokenTransfers',
    'base',
    `/insights/v1/tokens/transfers${query({ chain_id: fiveChains, contract_address: 'BUSY', limit: PAGE, metadata: 'true' })}`,
    'list',
  );
  get(
    'I5b transfers of a swap transaction',
    'ListTransactionTokenTransfers',
    'base',
    `/insights/v1/tokens/transfers/transaction/${a.swapTransactionHash}${query({ chain_id: a.chainId })}`,
    'list',
    {
      mix: true,
    },
  );
  const busyTransfers = `/insights/v1/tokens/transfers/${busy}`;
  get(
    'I5c BUSY page 0',
    'ListContractTokenTransfers',
    'base',
    busyTransfers + query({ chain_id: a.chainId, limit: PAGE, page: 0 }),
    'list',
    { mix: true },
  );
  const lastPage = Math.max(0, Math.ceil(a.counts.busyTokenTransfers / PAGE) - 1);
  const middlePage = Math.floor(lastPage / 2);
  get(
    `I5c BUSY middle page (${middlePage})`,
    'ListContractTokenTransfers',
    'base',
    busyTransfers + query({ chain_id: a.chainId, limit: PAGE, page: middlePage }),
    'list',
  );
  get(
    `I5c BUSY middle page (${middlePage}), oldest first`,
    'ListContractTokenTransfers',
    'base',
    busyTransfers + query({ chain_id: a.chainId, limit: PAGE, page: middlePage, sort_order: 'asc' }),
    'list',
  );
  get(
    `I5c BUSY last page (${lastPage})`,
    'ListContractTokenTransfers',
    'base',
    busyTransfers + query({ chain_id: a.chainId, limit: PAGE, page: lastPage }),
    'list',
  );
  get(
    'I5c BUSY page 0, metadata',
    'ListContractTokenTransfers',
    'base',
    busyTransfers + query({ chain_id: a.chainId, limit: PAGE, metadata: 'true' }),
    'list',
  );
  const day = 'toStartOfDay(toDateTime(block_timestamp)) AS day';
  get(
    'I5c BUSY count() by day',
    'ListContractTokenTransfers',
    'base',
    busyTransfers + query({ chain_id: a.chainId, aggregate: [day, 'count() AS transfers'], group_by: 'day', limit: 1000 }),
    'aggregate',
  );
  get(
    'I5c BUSY sum(amount) by day',
    'ListContractTokenTransfers',
    'base',
    busyTransfers + query({ chain_id: a.chainId, aggregate: [day, 'sum(amount) AS total'], group_by: 'day', limit: 1000 }),
    'aggregate',
  );

  // Orders.
  requests.push({
    id: 'POST /orders',
    routeId: 'CreateOrder',
    api: 'orders',
    method: 'POST',
    url: '/orders',
    body: extra.orderBody,
    scratch: true,
    kind: 'write',
  });
  get('GET /orders/{id}', 'GetOrder', 'orders', `/orders/${facts.orders.sampleId}`, 'single');
  // O11 / O12: pointers newest first, then the page's orders.
  get('GET /orders newest first', 'ListOrders', 'orders', `/orders${query({ limit: 20 })}`, 'list');
  get('GET /orders offset 2000', 'ListOrders', 'orders', `/orders${query({ limit: 20, offset: 2000 })}`, 'list');
  if (facts.orders.sampleCreator)
    get(
      'GET /orders of a creator',
      'ListOrders',
      'orders',
      `/orders${query({ creatorAddress: facts.orders.sampleCreator, limit: 20 })}`,
      'list',
    );
  requests.push({
    id: 'POST /checkout-sessions',
    routeId: 'CreateCheckoutSession',
    api: 'orders',
    method: 'POST',
    url: '/checkout-sessions',
    body: () => ({ expires_in: 1800 }),
    scratch: true,
    kind: 'write',
  });
  get('GET /checkout-sessions/{id}', 'GetCheckoutSession', 'orders', `/checkout-sessions/${extra.sessionId}`, 'single', { scratch: true });

  // Collections.
  get('GET /collections', 'ListCollections', 'collections', `/collections${query({ limit: PAGE })}`, 'list', { mix: true });
  get('GET /collections page 20', 'ListCollections', 'collections', `/collections${query({ limit: PAGE, page: 20 })}`, 'list');
  get(
    'GET /collections chainId',
    'ListCollections',
    'collections',
    `/collections${query({ limit: PAGE, chainId: facts.collections.twoFilters.chainId })}`,
    'list',
  );
  get(
    'GET /collections creator + chainId',
    'ListCollections',
    'collections',
    `/collections${query({ limit: PAGE, creator: facts.collections.twoFilters.creator, chainId: facts.collections.twoFilters.chainId })}`,
    'list',
  );
  requests.push({
    id: 'POST /collections',
    routeId: 'CreateCollection',
    api: 'collections',
    method: 'POST',
    url: '/collections',
    body: extra.collectionBody,
    scratch: true,
    kind: 'write',
  });
  get('GET /collections/signing-domain', 'GetCollectionSigningDomain', 'collections', '/collections/signing-domain?chainId=8453', 'single');
  get('GET /collections/{predictedAddress}', 'GetCollection', 'collections', `/collections/${facts.collections.sampleAddress}`, 'single');

  // Any route not covered above (a route added since): its own example request.
  for (const route of routes) {
    if (requests.some((request) => request.routeId === route.id)) continue;
    // A route that answers 501 by design (its data is outside the chain) has nothing to measure.
    if (route.notServed || (route.method !== 'GET' && route.method !== 'POST')) continue;
    let url = route.path;
    for (const [name, value] of Object.entries(route.example.pathParameters ?? {}))
      url = url.replace(`{${name}}`, encodeURIComponent(value));
    url += query((route.example.query ?? {}) as Record<string, string | readonly string[]>);
    const body = route.example.body;
    requests.push({
      id: `${route.method} ${route.path} (route example)`,
      routeId: route.id,
      api: apiOf(route),
      method: route.method,
      url,
      ...(body === undefined ? {} : { body: () => body }),
      headers: route.example.headers,
      scratch: route.table.write.length > 0,
      kind: route.method === 'POST' ? 'write' : 'single',
    });
  }
  return requests;
}

// ---------------------------------------------------------------------------------------------------
// The run

interface Recorded extends RecordedCall {
  input: Record<string, unknown>;
  /** Consumed capacity DynamoDB reported (measured runs only). */
  capacity: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '0.05' },
      reps: { type: 'string', default: '20' },
      'seconds-per-request': { type: 'string', default: '8' },
      out: { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const scale = Number(values.scale);
  const reps = Number(values.reps);
  const secondsPerRequest = Number(values['seconds-per-request']);
  if (!(reps >= 1 && reps <= 1000) || !(secondsPerRequest > 0)) throw new Error(USAGE);
  const log = (line: string) => console.error(line);
  const started = performance.now();

  const { ensureDataset } = await import('./dataset/build');
  const buildStarted = performance.now();
  const { dir, facts, built } = await ensureDataset(scale, log);
  const buildSeconds = (performance.now() - buildStarted) / 1000;
  log(`dataset ${path.basename(dir)}${built ? ` built in ${buildSeconds.toFixed(0)} s` : ' (cached)'}`);

  const { startTableProcess } = await import('../lib/table-process');
  const { ensureTable, localClient } = await import('../lib/local-table/ensure-table');
  const table = await startTableProcess({ path: path.join(dir, 'table'), timeoutMs: 120_000 });
  process.env.DYNAMODB_ENDPOINT = table.endpoint;
  process.env.TABLE_NAME = facts.tableName;
  process.env.EXPLORER_CHAIN_ID = String(facts.explorerChain);
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const scratchTable = 'bench-scratch';
  const admin = localClient(table.endpoint);
  await deleteLocalTable(table.endpoint, scratchTable).catch(() => undefined); // a run that was cut short
  await ensureTable(admin, scratchTable);
  try {
    const result = await measureAll({
      facts,
      dir,
      built,
      buildSeconds,
      scale,
      reps,
      secondsPerRequest,
      scratchTable,
      log,
      only: values.only,
    });
    result.seconds = Math.round((performance.now() - started) / 100) / 10;
    const text = `${JSON.stringify(result, null, 2)}\n`;
    if (values.out) await writeFile(values.out, text);
    else process.stdout.write(text);
  } finally {
    await deleteLocalTable(table.endpoint, scratchTable).catch(() => undefined);
    admin.destroy();
    await table.close();
  }
}

async function measureAll(options: {
  facts: DatasetFacts;
  dir: string;
  built: boolean;
  buildSeconds: number;
  scale: number;
  reps: number;
  secondsPerRequest: number;
  scratchTable: string;
  only?: string;
  log: (line: string) => void;
}): Promise<HttpResult> {
  const { facts, reps, scratchTable, log } = options;
  const { db, useTable } = await import('../../shared/db/client');
  const { measureTable } = await import('../../shared/db/instrument');
  const { dispatch } = await import('../lib/dispatch');
  const layer = await import('../../shared/db/operations');
  const datasetTable = facts.tableName;

  // The recorder: every call of the table layer while `recording` is set.
  let recording: Recorded[] | undefined;
  let origin = 0;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const calls = recording;
      if (!calls) return next(args);
      const command = context.commandName ?? 'unknown';
      const input = structuredClone(args.input) as Record<string, unknown>;
      const start = performance.now() - origin;
      const output = (await next(args)).output as Record<string, unknown>;
      const consumed = ([] as { CapacityUnits?: number }[]).concat((output.ConsumedCapacity as never) ?? []);
      const capacity = consumed.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
      calls.push({ command, input, start, end: performance.now() - origin, capacity, ...analyse(command, input, output) });
      return { output } as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name: 'benchRecorder' },
  );
  const send = async (request: BenchRequest) => {
    useTable(request.scratch ? scratchTable : datasetTable);
    try {
      const body = request.body ? JSON.stringify(request.body()) : undefined;
      return await dispatch({
        api: request.api,
        method: request.method,
        url: request.url,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...request.headers },
        body,
      });
    } finally {
      useTable(datasetTable);
    }
  };
  const record = async <T>(work: () => Promise<T>): Promise<{ value: T; calls: Recorded[] }> => {
    const calls: Recorded[] = [];
    recording = calls;
    origin = performance.now();
    try {
      return { value: await work(), calls };
    } finally {
      recording = undefined;
    }
  };
  const replay = async (plan: Recorded[][], scratch: boolean): Promise<void> => {
    useTable(scratch ? scratchTable : datasetTable);
    try {
      for (const wave of plan)
        await Promise.all(
          // A replayed conditional write may fail its condition: it still made its round trip.
          wave.map((call) => sendDirect(layer, call.command, structuredClone(call.input)).catch(() => undefined)),
        );
    } finally {
      useTable(datasetTable);
    }
  };

  // Setup: a checkout session in the scratch table, signed collection bodies, deep explorer pages.
  const sessionResponse = await send({
    id: 'setup',
    routeId: 'CreateCheckoutSession',
    api: 'orders',
    method: 'POST',
    url: '/checkout-sessions',
    body: () => ({ expires_in: 3600 }),
    scratch: true,
    kind: 'write',
  });
  const sessionId = (JSON.parse(sessionResponse.body) as { data: { id: string } }).data.id;
  const collectionBody = await collectionBodies(reps + 5);
  const { orderBody } = await import('./dataset/build');
  let orderIndex = 0;
  const deep: { id: string; routeId: string; url: string }[] = [];
  const depth: HttpResult['depth'] = [];
  const a = facts.chains.find((chain) => chain.chainId === facts.explorerChain)!;
  const wanted = 200;
  for (const [name, routeId, suffix] of [
    ['E3 whale token-transfers', 'ListAddressTokenTransfers', 'token-transfers'],
    ['E4 whale transactions', 'ListAddressTransactions', 'transactions'],
  ] as const) {
    const first = `/explorer/addresses/${a.whale}/${suffix}`;
    let url = first;
    let page = 1;
    while (page < wanted) {
      const response = await send({ id: 'setup', routeId, api: 'base', method: 'GET', url, kind: 'list' });
      const next = (JSON.parse(response.body) as { next_page_params?: Record<string, unknown> | null }).next_page_params;
      if (!next) break;
      url = first + query(Object.fromEntries(Object.entries(next).map(([key, value]) => [key, String(value)])));
      page += 1;
    }
    const id = `${name} page ${page}`;
    deep.push({ id, routeId, url });
    depth.push({
      name,
      first: `E${suffix === 'token-transfers' ? 3 : 4} ${suffix} filter=-`,
      deep: id,
      pageReached: page,
      pageWanted: wanted,
      firstReadUnits: 0,
      deepReadUnits: null,
      deepStatus: 0,
      ratio: null,
    });
  }
  log(`deep pages: ${deep.map((entry) => entry.id).join(', ')}`);

  let requests = buildRequests(facts, {
    deep,
    sessionId,
    collectionBody,
    orderBody: () => {
      orderIndex += 1;
      return orderBody(a.whale, orderIndex);
    },
  });
  if (options.only) requests = requests.filter((request) => request.id.includes(options.only!));
  // Depth variants of the explorer lists, in the same form as their first pages.
  const e3First = requests.find((request) => request.id === 'E3 token-transfers type=- filter=- token=-');
  const e4First = requests.find((request) => request.id === 'E4 transactions filter=-');
  if (depth[0] && e3First) depth[0].first = e3First.id;
  if (depth[1] && e4First) depth[1].first = e4First.id;

  const results: RequestResult[] = [];
  for (const [position, request] of requests.entries()) {
    try {
      await send(request); // warm: module loaded, caches filled
      const plain = await record(() => send(request));
      const measured = await record(() => measureTable(() => send(request)));
      const { result: response, usage } = measured.value;
      const calls = measured.calls;
      let body: unknown;
      try {
        body = JSON.parse(response.body);
      } catch {
        body = undefined;
      }
      const records = recordsOf(response.statusCode, body);
      const plan = waves(plain.calls);
      // Repetitions: as many as fit in the time allowed per request (at least 5).
      const once = Math.max(0.1, ...plain.calls.map((call) => call.end));
      const n = Math.max(5, Math.min(reps, Math.floor((options.secondsPerRequest * 1000) / (2 * once))));
      const handlerMs: number[] = [];
      const directMs: number[] = [];
      for (let rep = 0; rep < n; rep += 1) {
        const t0 = performance.now();
        await send(request);
        handlerMs.push(performance.now() - t0);
        if (plain.calls.length > 0) {
          const t1 = performance.now();
          await replay(plan, request.scratch === true);
          directMs.push(performance.now() - t1);
        }
      }
      const handler = { p50: round(median(handlerMs), 2), p99: round(percentile(handlerMs, 99), 2), n };
      const direct = directMs.length > 0 ? { p50: round(median(directMs), 2), p99: round(percentile(directMs, 99), 2), n } : null;
      const result: RequestResult = {
        id: request.id,
        routeId: request.routeId,
        kind: request.kind,
        mix: request.mix === true,
        method: request.method,
        url: request.url,
        status: response.statusCode,
        records,
        calls: usage.calls,
        callCount: calls.length,
        roundTrips: roundTrips(calls),
        itemsRead: usage.itemsRead,
        itemsReturnedByDynamo: usage.itemsReturned,
        readUnits: round(usage.readUnits, 2),
        writeUnits: round(usage.writeUnits, 2),
        itemsReadPerRecord: records > 0 ? round(usage.itemsRead / records, 2) : null,
        wastedReads: wastedReads(calls, records),
        wastedAllowance: round(wastedReadAllowance(records), 1),
        minimumReadUnits: minimumReadUnits(calls, records),
        missingBatchGetKeys: missingKeys(calls.filter((call) => call.command === 'BatchGetItemCommand')),
        scans: calls.filter((call) => call.command === 'ScanCommand').length,
        handlerMs: handler,
        directMs: direct,
        handlerOverDirect: direct && direct.p50 > 0 ? round(handler.p50 / direct.p50, 2) : null,
        detail: describeCalls(calls),
      };
      if (response.statusCode >= 400)
        result.error = String(
          (body as { error?: string; message?: string })?.error ?? (body as { message?: string })?.message ?? response.body.slice(0, 200),
        );
      results.push(result);
      log(
        `[${position + 1}/${requests.length}] ${request.id}: ${response.statusCode}, ${records} records, ${result.callCount} calls / ${result.roundTrips} in sequence, read ${result.itemsRead} (${result.readUnits} RCU, min ${result.minimumReadUnits}), handler p50 ${handler.p50} ms / direct ${direct?.p50 ?? '-'} ms`,
      );
    } catch (error) {
      log(`[${position + 1}/${requests.length}] ${request.id}: FAILED ${(error as Error).message}`);
      results.push({
        id: request.id,
        routeId: request.routeId,
        kind: request.kind,
        mix: request.mix === true,
        method: request.method,
        url: request.url,
        status: 0,
        records: 0,
        calls: {},
        callCount: 0,
        roundTrips: 0,
        itemsRead: 0,
        itemsReturnedByDynamo: 0,
        readUnits: 0,
        writeUnits: 0,
        itemsReadPerRecord: null,
        wastedReads: 0,
        wastedAllowance: 0,
        minimumReadUnits: 0,
        missingBatchGetKeys: 0,
        scans: 0,
        handlerMs: { p50: 0, p99: 0, n: 0 },
        directMs: null,
        handlerOverDirect: null,
        detail: [],
        error: (error as Error).message,
      });
    }
  }

  // Page depth: the deep explorer pages and the busy token's last insights page against their first.
  const byId = new Map(results.map((result) => [result.id, result]));
  const lastPageWanted = Math.max(0, Math.ceil(a.counts.busyTokenTransfers / PAGE) - 1);
  for (const [name, prefix, pageWanted] of [
    ['I5c BUSY transfers, last page', 'I5c BUSY last page', lastPageWanted],
    ['I5c BUSY transfers, middle page', 'I5c BUSY middle page', Math.floor(lastPageWanted / 2)],
  ] as const) {
    const deep = results.filter((result) => result.id.startsWith(prefix));
    for (const result of deep.length > 0 ? deep : [undefined]) {
      depth.push({
        name: result && deep.length > 1 ? `${name}${result.id.slice(prefix.length).replace(/^ \(\d+\)/, '')}` : name,
        first: 'I5c BUSY page 0',
        deep: result?.id ?? prefix,
        pageReached: null,
        pageWanted,
        firstReadUnits: 0,
        deepReadUnits: null,
        deepStatus: 0,
        ratio: null,
      });
    }
  }
  for (const entry of depth) {
    const first = byId.get(entry.first);
    const deepResult = byId.get(entry.deep);
    entry.firstReadUnits = first?.readUnits ?? 0;
    entry.deepStatus = deepResult?.status ?? 0;
    if (entry.name.startsWith('I5c')) entry.pageReached = deepResult && deepResult.status < 400 ? entry.pageWanted : null;
    entry.deepReadUnits = deepResult && deepResult.status < 400 ? deepResult.readUnits : null;
    entry.ratio = entry.deepReadUnits !== null && entry.firstReadUnits > 0 ? round(entry.deepReadUnits / entry.firstReadUnits, 2) : null;
  }
  const mix = results.filter((result) => result.mix && result.status < 400);
  return {
    dataset: {
      scale: options.scale,
      key: facts.key,
      dir: path.relative(path.resolve(path.dirname(SELF), '../..'), options.dir),
      builtThisRun: options.built,
      buildSeconds: options.built ? round(options.buildSeconds, 1) : facts.generation.seconds,
      generation: facts.generation,
      chains: facts.chains.map((chain) => ({ chainId: chain.chainId, counts: chain.counts })),
      collections: facts.collections.count,
      orders: facts.orders.count,
    },
    settings: {
      reps,
      secondsPerRequest: options.secondsPerRequest,
      transport: 'in-process dispatch (scripts/lib/dispatch.ts) to the handler modules; table in its own process',
    },
    seconds: 0,
    requests: results,
    depth,
    mixReadUnitsPerPage: mix.length > 0 ? round(mix.reduce((sum, result) => sum + result.readUnits, 0) / mix.length, 2) : 0,
  };
}

type TableLayer = typeof import('../../shared/db/operations');

/**
 * One recorded request sent again through the table layer's function for its verb (the layer only
 * sends what it is given: one Query page, one BatchGetItem of these keys ...), without the handler.
 */
function sendDirect(layer: TableLayer, command: string, input: Record<string, any>): Promise<unknown> {
  const { TableName: _table, ReturnConsumedCapacity: _capacity, ...rest } = input;
  switch (command) {
    case 'QueryCommand':
      return layer.queryPage(rest);
    case 'GetItemCommand':
      return layer.getItem(rest.Key, {
        consistent: rest.ConsistentRead,
        ProjectionExpression: rest.ProjectionExpression,
        ExpressionAttributeNames: rest.ExpressionAttributeNames,
      });
    case 'BatchGetItemCommand': {
      const [request] = Object.values(
        rest.RequestItems as Record<string, { Keys: { pk: string; sk: string }[]; ConsistentRead?: boolean }>,
      );
      return layer.batchGetItems(request.Keys, { consistent: request.ConsistentRead });
    }
    case 'TransactWriteItemsCommand':
      return layer.transactWrite(
        (rest.TransactItems as Record<string, Record<string, unknown>>[]).map((item) =>
          Object.fromEntries(Object.entries(item).map(([verb, { TableName: _name, ...operation }]) => [verb, operation])),
        ),
      );
    case 'PutItemCommand':
      return layer.putItem(rest as never);
    case 'UpdateItemCommand':
      return layer.updateItem(rest as never);
    case 'DeleteItemCommand':
      return layer.deleteItem(rest as never);
    case 'BatchWriteItemCommand': {
      const [requests] = Object.values(rest.RequestItems as Record<string, { PutRequest?: { Item: any }; DeleteRequest?: { Key: any } }[]>);
      return layer.writeItems({
        put: requests.flatMap((entry) => (entry.PutRequest ? [entry.PutRequest.Item] : [])),
        delete: requests.flatMap((entry) => (entry.DeleteRequest ? [entry.DeleteRequest.Key] : [])),
      });
    }
    default:
      // A Scan has no function in the table layer (the budget "no Scan" reports it).
      return Promise.reject(new Error(`no direct form of ${command}`));
  }
}

/** Deletes a table of the embedded DynamoDB (its wire protocol; the table layer has no such verb). */
async function deleteLocalTable(endpoint: string, tableName: string): Promise<void> {
  await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.DeleteTable',
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      'x-amz-date': '20200101T000000Z',
    },
    body: JSON.stringify({ TableName: tableName }),
  });
}

function describeCalls(calls: Recorded[]): string[] {
  const depths = callDepths(calls);
  return calls.map((call, index) => {
    const name = call.command.replace(/Command$/, '');
    const what =
      call.keysRequested > 0
        ? `${call.keysFound}/${call.keysRequested} keys found`
        : call.scanned || call.returned
          ? `${call.scanned} read, ${call.returned} returned`
          : '';
    const bytes = call.itemBytes.reduce((sum, size) => sum + size, 0);
    const pk =
      typeof (call.input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk'] === 'string'
        ? ` ${(call.input.ExpressionAttributeValues as Record<string, string>)[':pk']}`
        : '';
    return `#${depths[index]} ${name}${pk}: ${what}${bytes ? `, ${bytes} B` : ''}, ${round(call.capacity, 2)} CU`;
  });
}

/** What a call read: Query / Scan items, Get / BatchGet keys asked and found, the size of each item. */
function analyse(
  command: string,
  input: Record<string, unknown>,
  output: Record<string, unknown>,
): Omit<RecordedCall, 'command' | 'start' | 'end'> {
  const none = { scanned: 0, returned: 0, keysRequested: 0, keysFound: 0, itemBytes: [] as number[] };
  switch (command) {
    case 'QueryCommand':
    case 'ScanCommand': {
      const items = (output.Items ?? []) as Record<string, unknown>[];
      return { ...none, scanned: Number(output.ScannedCount ?? items.length), returned: items.length, itemBytes: items.map(itemSize) };
    }
    case 'GetItemCommand': {
      const item = output.Item as Record<string, unknown> | undefined;
      return { ...none, keysRequested: 1, keysFound: item ? 1 : 0, itemBytes: item ? [itemSize(item)] : [] };
    }
    case 'BatchGetItemCommand': {
      const requested = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>).reduce(
        (sum, entry) => sum + (entry.Keys?.length ?? 0),
        0,
      );
      const items = Object.values((output.Responses ?? {}) as Record<string, Record<string, unknown>[]>).flat();
      const unprocessed = Object.values((output.UnprocessedKeys ?? {}) as Record<string, { Keys?: unknown[] }>).reduce(
        (sum, entry) => sum + (entry.Keys?.length ?? 0),
        0,
      );
      return { ...none, keysRequested: requested - unprocessed, keysFound: items.length, itemBytes: items.map(itemSize) };
    }
    default:
      return none;
  }
}

/** POST /collections bodies, each signed anew (a repeated body is a 409). */
async function collectionBodies(count: number): Promise<() => unknown> {
  const { privateKeyToAccount } = await import('viem/accounts');
  const { loadCollectionsConfig } = await import('../../shared/collections/config');
  const { collectionMessage, collectionTypedData } = await import('../../shared/collections/signing');
  const config = loadCollectionsConfig();
  const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  const nonce = randomUUID().slice(0, 8);
  const signed: unknown[] = [];
  for (let index = 0; index < count; index += 1) {
    const metadata = {
      name: `Bench Create ${nonce} ${index}`,
      symbol: 'BCRT',
      baseURI: `https://example.com/create/${index}/`,
      creator: account.address,
      gameOwner: account.address,
      maxSupply: '10000',
      mintPrice: '1000000000000000',
      maxPerWallet: '10',
      isWhitelistEnabled: false,
      whitelistMerkleRoot: `0x${'0'.repeat(64)}`,
      startTime: '1767225600',
      endTime: '1798761600',
    };
    const signature = await account.signTypedData({ ...collectionTypedData(8453, config), message: collectionMessage(metadata) });
    signed.push({ ...metadata, chainId: 8453, creatorSignature: signature, gameId: 'bench-game', referrer: 'benchpartner' });
  }
  let next = 0;
  return () => {
    if (next >= signed.length) throw new Error('out of signed collection bodies');
    return signed[next++];
  };
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
