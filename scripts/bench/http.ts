/**
 * `npx tsx scripts/bench/http.ts [--scale 0.05] [--reps 60] [--out FILE]` (or `npm run bench -- --only http`):
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
 *  4. --reps times through the handler (the event built before the clock starts: API Gateway's part, not
 *     the handler's) and --reps times the recorded DynamoDB requests issued directly
 *     (the same inputs through the same client, wave after wave as the handler sent them: calls the
 *     handler had in flight together are sent together), alternately: p50 and p99 of each, and the
 *     handler's p50 over the direct p50.
 * Requests that write use a scratch table in the same store (created here, deleted at the end), so the
 * cached dataset is never changed. Prints and writes (--out) one JSON document; budgets are evaluated
 * by scripts/bench/lib/budgets.ts.
 *
 * Every served route of shared/routes.ts has requests of its own (buildRequests, routesAddedSince); a
 * route without one is measured by its route example, printed loudly and counted in `coverage` (a
 * broken budget; test/scripts/bench/http-routes.test.ts fails on it). The routes that answer 501 by
 * design (Route.notServed) are sent once each, outside the requests: `notServed` (status, DynamoDB calls).
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ApiName } from '../../shared/http/groups';
import { DEFAULT_SORTED_HISTORY_BOUND } from '../../shared/explorer/limits';
import {
  DEFAULT_MAX_ITEMS_READ_PER_CHAIN,
  DEFAULT_LIMIT as INSIGHTS_DEFAULT_LIMIT,
  WEBHOOK_TIMEOUT_MS,
} from '../../shared/insights/limits';
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
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  url: string;
  /** The URL of each call, made before the call (outside its timing): a DELETE of a resource made for it. */
  urlEach?: () => Promise<string>;
  /** A new body for each call (POST). */
  body?: () => unknown;
  headers?: Record<string, string>;
  /** Requests that write (and what they read back) use the scratch table. */
  scratch?: boolean;
  kind: RequestKind;
  /** Part of the page mix of the cost model (one representative page per list route). */
  mix?: boolean;
  /** The route's own example request (shared/routes.ts): no request of the bench names the route yet. */
  example?: boolean;
  /**
   * A bounded read by design (a bounded check, a sort of a whole history, an aggregate that is no running
   * total: docs/decisions): the most items it may read per chain; past them it answers a clear 4xx.
   */
  boundedRead?: number;
  /**
   * The handler sends a request to a stranger's URL (the webhook test ping): its time is that request's,
   * bounded by its timeout, not the table's; budgeted by FAMILIES.egress instead of FAMILIES.overhead.
   */
  egressTimeoutMs?: number;
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
  /** Items read from the chain registry (registryItemsRead), counted in itemsRead. */
  registryItemsRead?: number;
  /** Issue 27's read rules: the Queries, the items they read, the most in one wave, and the page's size and chains. */
  queries?: number;
  queryItemsRead?: number;
  /** BenchRequest.boundedRead: the most items this bounded read may read per chain. */
  boundedRead?: number;
  /** BenchRequest.egressTimeoutMs: the timeout of the request the handler sends out. */
  egressTimeoutMs?: number;
  maxParallelQueries?: number;
  pageSize?: number;
  chains?: number;
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
  /** Which served routes of shared/routes.ts have requests of their own (absent before issue 25). */
  coverage?: HttpCoverage;
  /** The routes that answer 501 by design (Route.notServed): status, DynamoDB calls, time. */
  notServed?: NotServedResult[];
}

export interface HttpCoverage {
  /** Routes of shared/routes.ts without `notServed`. */
  served: number;
  /** Of those, the routes a request of the bench names (not only the route's own example). */
  measured: number;
  /** Served routes with no request of their own: measured by their example request, or not at all. */
  uncovered: string[];
  /** Routes that answer 501 by design. */
  notServed: string[];
}

export interface NotServedResult {
  id: string;
  routeId: string;
  method: string;
  url: string;
  status: number;
  /** DynamoDB calls while answering (a 501 needs none). */
  callCount: number;
  handlerMs: { p50: number; p99: number; n: number };
  error?: string;
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
    /** A page of GET /explorer/addresses/{hash}/nft of the whale some pages in (followed from the first). */
    nftDeep?: { id: string; url: string };
    /** Insight's webhook routes: the bench project's key and webhook (in the scratch table), and a fresh webhook's path per call. */
    webhooks?: { key: string; webhookId: string; freshWebhookPath: () => Promise<string> };
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

  // Insight's webhook routes (scratch table: the bench project's key and webhooks).
  if (extra.webhooks) {
    const { key, webhookId, freshWebhookPath } = extra.webhooks;
    const headers = { 'x-secret-key': key };
    const filters = { 'v1.events': { addresses: [a.busyToken], signatures: [{ sig_hash: TRANSFER_TOPIC }] } };
    const webhook = (
      id: string,
      routeId: string,
      method: BenchRequest['method'],
      url: string,
      kind: RequestKind,
      more: Partial<BenchRequest> = {},
    ) => requests.push({ id, routeId, api: 'base', method, url, headers, scratch: true, kind, ...more });
    webhook('I12b POST /v1/webhooks', 'CreateWebhook', 'POST', '/insights/v1/webhooks', 'write', {
      body: () => ({ name: 'bench', webhook_url: 'https://receiver.example.com/hook', filters }),
    });
    webhook('I12a GET /v1/webhooks', 'ListWebhooks', 'GET', '/insights/v1/webhooks', 'list');
    webhook('I12a GET /v1/webhooks?webhook_id', 'ListWebhooks', 'GET', `/insights/v1/webhooks?webhook_id=${webhookId}`, 'single');
    webhook('I12c PATCH /v1/webhooks/{id}', 'UpdateWebhook', 'PATCH', `/insights/v1/webhooks/${webhookId}`, 'write', {
      body: () => ({ name: `bench ${Date.now()}` }),
    });
    webhook('I12d DELETE /v1/webhooks/{id}', 'DeleteWebhook', 'DELETE', '/insights/v1/webhooks/made-for-each-call', 'write', {
      urlEach: freshWebhookPath,
    });
    // The ping of a receiver this machine cannot reach (no DNS answer): the route's own work and its failed send.
    webhook('I12e POST /v1/webhooks/test', 'TestWebhook', 'POST', '/insights/v1/webhooks/test', 'single', {
      body: () => ({ webhook_url: 'https://receiver.example.com/hook', type: 'event' }),
      egressTimeoutMs: WEBHOOK_TIMEOUT_MS,
    });
    webhook(
      'I12f POST /service/webhooks/filters/validate',
      'ValidateWebhookFilters',
      'POST',
      '/insights/service/webhooks/filters/validate',
      'single',
      {
        body: () => filters,
      },
    );
  }

  // Platform: the OpenAPI document and the API reference page (no table access).
  get('GET /openapi.json', 'GetOpenApiDocument', 'base', '/openapi.json', 'single');
  get('GET /docs', 'GetApiReference', 'base', '/docs', 'single');

  routesAddedSince(requests, facts, extra.nftDeep);

  // Any route not covered above (a route added since): its own example request, measured on the
  // dataset although its example names the demo chain's entities (an empty or 404 answer, mostly), and
  // reported as not covered (routeCoverage, the budget "every served route has a bench request").
  for (const route of routes) {
    if (requests.some((request) => request.routeId === route.id)) continue;
    // A route that answers 501 by design (its data is outside the chain): notServedRequests checks it.
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
      example: true,
    });
  }
  return requests;
}

/** The secret key of the bench's webhook project (registered in the scratch table). */
const BENCH_SECRET_KEY = `sk_bench_${'b'.repeat(43)}`;

/** The keccak-256 topic of Transfer(address,address,uint256) (ERC-20 and ERC-721). */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** transfer(address,uint256) */
const TRANSFER_SELECTOR = '0xa9059cbb';
/** Start of day over block_timestamp, as thirdweb's dashboard writes it. */
const DASHBOARD_DAY = 'toStartOfDay(toDate(block_timestamp)) as time';

/**
 * Requests of the routes added since the first bench (issue 25): the explorer's address page (E7 - E11,
 * E4's sorts), Insight v1's chain status, token and NFT balances, owners, NFT transfers and
 * collections (I5, I6a - I6p), transaction and event lists (I10a - I10e), ABI and decoding (I11a, I11b)
 * and the aggregate forms of thirdweb's dashboard (test/functions/insights/dashboard-aggregates.test.ts).
 * Every one names entities of the dataset: the whale (the NFT holder too: its fullest ERC-721 and
 * ERC-1155 collections, ChainFacts.nft), the busy token, the router, an ordinary holder.
 */
function routesAddedSince(requests: BenchRequest[], facts: DatasetFacts, nftDeep: { id: string; url: string } | undefined): void {
  const a = facts.chains.find((chain) => chain.chainId === facts.explorerChain)!;
  const whale = a.whale;
  const busy = a.busyToken;
  const chain_id = a.chainId;
  const fiveChains = [a.chainId, SECOND_CHAIN, ...SMALL_CHAINS];
  const first = (kind: string) => a.tokens.find((token) => token.kind === kind)?.address ?? '';
  // Facts of a dataset built before ChainFacts.nft: the first collection of each standard, id 1.
  const nft = a.nft ?? {
    holder: whale,
    erc721: first('ERC-721'),
    erc721Held: 0,
    erc721TokenId: '1',
    erc1155: first('ERC-1155'),
    erc1155Held: 0,
    erc1155TokenId: '1',
    batchTransferHash: a.swapTransactionHash,
  };
  /** A small ERC-20 token (not the busy one): a token of ordinary size for the owners list. */
  const plainToken = a.tokens.find((token) => token.kind === 'ERC-20' && token.address !== busy)?.address ?? busy;
  const get = (id: string, routeId: string, url: string, kind: RequestKind, more: Partial<BenchRequest> = {}) =>
    requests.push({ id, routeId, api: 'base', method: 'GET', url, kind, ...more });

  // Explorer: the address page of the whale (and of a token contract), its NFT list, the sorts of E4.
  const address = (hash: string, suffix = '') => `/explorer/addresses/${hash}${suffix}`;
  get('E7 indexing status', 'GetIndexingStatus', '/explorer/main-page/indexing-status', 'single');
  get('E8 address (whale)', 'GetAddress', address(whale), 'single');
  get('E8 address (BUSY token contract)', 'GetAddress', address(busy), 'single');
  get('E8 address (ERC-721 collection)', 'GetAddress', address(nft.erc721), 'single');
  get('E9 counters (whale)', 'GetAddressCounters', address(whale, '/counters'), 'single');
  get('E9 counters (BUSY token contract)', 'GetAddressCounters', address(busy, '/counters'), 'single');
  get('E9 counters (ordinary holder)', 'GetAddressCounters', address(a.holder, '/counters'), 'single');
  get('E10 tabs-counters (whale)', 'GetAddressTabsCounters', address(whale, '/tabs-counters'), 'single');
  get('E10 tabs-counters (ordinary holder)', 'GetAddressTabsCounters', address(a.holder, '/tabs-counters'), 'single');
  for (const type of ['', 'ERC-721', 'ERC-1155', 'ERC-721,ERC-1155', 'ERC-20'])
    get(`E11 nft type=${type || '-'}`, 'ListAddressNfts', address(whale, '/nft') + query({ type }), 'list', { mix: type === '' });
  if (nftDeep) get(nftDeep.id, 'ListAddressNfts', nftDeep.url, 'list');
  get('E11 nft of an ordinary holder', 'ListAddressNfts', address(a.holder, '/nft'), 'list');
  for (const sort of ['value', 'fee', 'block_number'])
    for (const order of ['desc', 'asc'])
      get(
        `E4 transactions sort=${sort} order=${order}`,
        'ListAddressTransactions',
        address(whale, '/transactions') + query({ sort, order }),
        'list',
        // value and fee read the direction's whole X4 range up to the bound (+1 to tell it is over), else a 422.
        sort === 'block_number' ? {} : { boundedRead: DEFAULT_SORTED_HISTORY_BOUND + 1 },
      );

  // I5: a chain's status.
  get('I5 chain status', 'GetChainStatus', `/insights/v1/chains/${chain_id}/status`, 'single');

  // I6a - I6e: balances of the whale.
  const owner = (route: string) => `/insights/v1/${route}/${whale}`;
  get('I6a ERC-20 balances of the whale', 'ListOwnerErc20Tokens', owner('tokens/erc20') + query({ chain_id, limit: PAGE }), 'list', {
    mix: true,
  });
  get(
    'I6a ERC-20 balances of the whale, metadata',
    'ListOwnerErc20Tokens',
    owner('tokens/erc20') + query({ chain_id, limit: PAGE, metadata: 'true' }),
    'list',
  );
  get(
    'I6a ERC-20 balances of the whale over 5 chains',
    'ListOwnerErc20Tokens',
    owner('tokens/erc20') + query({ chain_id: fiveChains, limit: PAGE }),
    'list',
  );
  get('I6b ERC-721 of the whale', 'ListOwnerErc721Tokens', owner('tokens/erc721') + query({ chain_id, limit: PAGE }), 'list', {
    mix: true,
  });
  get(
    'I6b ERC-721 of the whale, metadata',
    'ListOwnerErc721Tokens',
    owner('tokens/erc721') + query({ chain_id, limit: PAGE, metadata: 'true' }),
    'list',
  );
  get('I6c ERC-1155 of the whale', 'ListOwnerErc1155Tokens', owner('tokens/erc1155') + query({ chain_id, limit: PAGE }), 'list', {
    mix: true,
  });
  get('I6d NFTs of the whale', 'ListOwnerNfts', owner('nfts/balance') + query({ chain_id, limit: PAGE }), 'list', { mix: true });
  get(
    'I6d NFTs of the whale, erc721, metadata',
    'ListOwnerNfts',
    owner('nfts/balance') + query({ chain_id, limit: PAGE, token_types: 'erc721', metadata: 'true' }),
    'list',
  );
  get('I6e tokens of the whale', 'ListTokens', `/insights/v1/tokens${query({ chain_id, owner_address: whale, limit: PAGE })}`, 'list', {
    mix: true,
  });
  get(
    'I6e tokens of the whale and a holder, metadata',
    'ListTokens',
    `/insights/v1/tokens${query({ chain_id, owner_address: [whale, a.holder], limit: PAGE, metadata: 'true' })}`,
    'list',
  );
  get(
    'I6e tokens of the whale in BUSY',
    'ListTokens',
    `/insights/v1/tokens${query({ chain_id, owner_address: whale, token_address: busy })}`,
    'list',
  );
  // I6s: token lookup by symbol (BUSY: the busy token of every chain of the dataset).
  get(
    'I6s lookup of BUSY on five chains',
    'LookupTokens',
    `/insights/v1/tokens/lookup${query({ chain_id: fiveChains, symbol: 'busy' })}`,
    'list',
  );

  // I6f - I6p: NFTs of the whale's fullest collections (ERC-721 and ERC-1155).
  const nfts = (suffix: string) => `/insights/v1/nfts${suffix}`;
  get('I6f NFTs of an ERC-721 collection', 'ListContractNfts', nfts(`/${nft.erc721}`) + query({ chain_id, limit: PAGE }), 'list', {
    mix: true,
  });
  get(
    'I6f NFTs of an ERC-721 collection, owners',
    'ListContractNfts',
    nfts(`/${nft.erc721}`) + query({ chain_id, limit: PAGE, include_owners: 'true' }),
    'list',
  );
  get('I6f NFTs of an ERC-1155 collection', 'ListContractNfts', nfts(`/${nft.erc1155}`) + query({ chain_id, limit: PAGE }), 'list');
  get(
    'I6g ERC-721 token, owners',
    'GetNft',
    nfts(`/${nft.erc721}/${nft.erc721TokenId}`) + query({ chain_id, include_owners: 'true' }),
    'single',
  );
  get('I6g ERC-1155 token', 'GetNft', nfts(`/${nft.erc1155}/${nft.erc1155TokenId}`) + query({ chain_id }), 'single');
  get(
    'I6h NFT transfers of the whale',
    'ListNftTransfers',
    nfts('/transfers') + query({ chain_id, owner_address: whale, limit: PAGE }),
    'list',
    {
      mix: true,
    },
  );
  get(
    'I6h NFT transfers of the whale, metadata',
    'ListNftTransfers',
    nfts('/transfers') + query({ chain_id, owner_address: whale, limit: PAGE, metadata: 'true' }),
    'list',
  );
  get(
    'I6h NFT transfers of an ERC-721 collection',
    'ListNftTransfers',
    nfts('/transfers') + query({ chain_id, contract_address: nft.erc721, limit: PAGE }),
    'list',
  );
  if (nft.batchTransferHash)
    get(
      'I6i NFT transfers of a batch transaction',
      'ListNftTransactionTransfers',
      nfts(`/transfers/transaction/${nft.batchTransferHash}`) + query({ chain_id }),
      'list',
      { mix: true },
    );
  get(
    'I6j transfers of an ERC-721 collection',
    'ListNftContractTransfers',
    nfts(`/transfers/${nft.erc721}`) + query({ chain_id, limit: PAGE }),
    'list',
    { mix: true },
  );
  get(
    'I6j transfers of an ERC-1155 collection, metadata',
    'ListNftContractTransfers',
    nfts(`/transfers/${nft.erc1155}`) + query({ chain_id, limit: PAGE, metadata: 'true' }),
    'list',
  );
  get(
    'I6k transfers of an ERC-721 token',
    'ListNftTokenTransfers',
    nfts(`/transfers/${nft.erc721}/${nft.erc721TokenId}`) + query({ chain_id, limit: PAGE }),
    'list',
    { mix: true },
  );
  get(
    'I6k transfers of an ERC-1155 id to the whale',
    'ListNftTokenTransfers',
    nfts(`/transfers/${nft.erc1155}/${nft.erc1155TokenId}`) + query({ chain_id, owner_address: whale, limit: PAGE }),
    'list',
  );
  get(
    'I6l owners of an ERC-20 token',
    'ListTokenOwners',
    `/insights/v1/tokens/owners${query({ chain_id, contract_address: plainToken, limit: PAGE })}`,
    'list',
    { mix: true },
  );
  get(
    'I6l owners of BUSY',
    'ListTokenOwners',
    `/insights/v1/tokens/owners${query({ chain_id, contract_address: busy, limit: PAGE })}`,
    'list',
  );
  get('I6m owners of an ERC-721 collection', 'ListNftOwners', nfts(`/owners/${nft.erc721}`) + query({ chain_id, limit: PAGE }), 'list', {
    mix: true,
  });
  get(
    'I6m owners of an ERC-1155 collection, balances',
    'ListNftOwners',
    nfts(`/owners/${nft.erc1155}`) + query({ chain_id, limit: PAGE, include_balances: 'true' }),
    'list',
  );
  get(
    'I6n owner of an ERC-721 token',
    'ListNftTokenOwners',
    nfts(`/owners/${nft.erc721}/${nft.erc721TokenId}`) + query({ chain_id, include_balances: 'true' }),
    'list',
    { mix: true },
  );
  get(
    'I6n owners of an ERC-1155 id',
    'ListNftTokenOwners',
    nfts(`/owners/${nft.erc1155}/${nft.erc1155TokenId}`) + query({ chain_id, include_balances: 'true', limit: PAGE }),
    'list',
  );
  get('I6o NFTs of the whale', 'ListNfts', nfts('') + query({ chain_id, owner_address: whale, limit: PAGE }), 'list', { mix: true });
  get(
    'I6o NFTs of the whale in its fullest ERC-721 collection',
    'ListNfts',
    nfts('') + query({ chain_id, owner_address: whale, contract_address: nft.erc721, limit: PAGE }),
    'list',
  );
  get('I6p ERC-721 collection', 'GetNftCollection', nfts(`/collections/${nft.erc721}`) + query({ chain_id }), 'single');
  get(
    'I6p ERC-721 collection, stats',
    'GetNftCollection',
    nfts(`/collections/${nft.erc721}`) + query({ chain_id, include_stats: 'true' }),
    'single',
  );
  // I6q / I6r: a metadata refresh queued (the bench runs no fetcher: an answer without a queue).
  get(
    'I6q refresh of an ERC-721 token',
    'RefreshNftMetadata',
    nfts(`/metadata/refresh/${nft.erc721}/${nft.erc721TokenId}`) + query({ chain_id }),
    'single',
  );
  get(
    'I6r refresh of an ERC-721 contract',
    'RefreshContractNftMetadata',
    nfts(`/metadata/refresh/${nft.erc721}`) + query({ chain_id }),
    'single',
  );

  // I10a - I10e: transactions and events.
  const transactions = (suffix: string) => `/insights/v1/transactions${suffix}`;
  get(
    'I10a transactions to the router',
    'ListContractAllTransactions',
    transactions(`/${a.router}`) + query({ chain_id, limit: PAGE }),
    'list',
    { mix: true },
  );
  get(
    'I10a transactions to BUSY, transfer selector, decode=true',
    'ListContractAllTransactions',
    transactions(`/${busy}`) + query({ chain_id, limit: PAGE, filter_function_selector: TRANSFER_SELECTOR, decode: 'true' }),
    'list',
  );
  get(
    'I10b transactions from the whale',
    'ListTransactions',
    transactions('') + query({ chain_id, filter_from_address: whale, limit: PAGE }),
    'list',
    { mix: true },
  );
  get(
    'I10b transactions to the router',
    'ListTransactions',
    transactions('') + query({ chain_id, filter_to_address: a.router, limit: PAGE }),
    'list',
  );
  get(
    'I10b transactions by selector (transfer)',
    'ListTransactions',
    transactions('') + query({ chain_id, filter_function_selector: TRANSFER_SELECTOR, limit: PAGE }),
    'list',
  );
  const wallet = `/insights/v1/wallets/${whale}/transactions`;
  get('I10c wallet transactions of the whale', 'ListWalletTransactions', wallet + query({ chain_id, limit: PAGE }), 'list', { mix: true });
  get(
    'I10c wallet transactions of the whale over 5 chains',
    'ListWalletTransactions',
    wallet + query({ chain_id: fiveChains, limit: PAGE }),
    'list',
  );
  get(
    'I10c wallet transactions of the whale, oldest first, decode=true',
    'ListWalletTransactions',
    wallet + query({ chain_id, limit: PAGE, sort_order: 'asc', decode: 'true' }),
    'list',
  );
  get(
    'I10d events by topic 0 (Transfer)',
    'ListEvents',
    `/insights/v1/events${query({ chain_id, filter_topic_0: TRANSFER_TOPIC, limit: PAGE })}`,
    'list',
    { mix: true },
  );
  get(
    'I10d events of BUSY by topic 0',
    'ListEvents',
    `/insights/v1/events${query({ chain_id, filter_address: busy, filter_topic_0: TRANSFER_TOPIC, limit: PAGE })}`,
    'list',
  );
  const transferSignature = encodeURIComponent('Transfer(address indexed from,address indexed to,uint256 value)');
  get(
    'I10e events of BUSY by signature',
    'ListSignatureEvents',
    `/insights/v1/events/${busy}/${transferSignature}${query({ chain_id, limit: PAGE })}`,
    'list',
    { mix: true },
  );
  get(
    'I10e events of BUSY by signature, decode=true',
    'ListSignatureEvents',
    `/insights/v1/events/${busy}/${transferSignature}${query({ chain_id, limit: PAGE, decode: 'true' })}`,
    'list',
  );

  // I11a, I11b: the ABI this service knows for a token, and decoding with it.
  get('I11a ABI of BUSY', 'GetContractAbi', `/insights/v1/contracts/abi/${busy}${query({ chain_id })}`, 'single');
  get('I11a ABI of an ERC-721 collection', 'GetContractAbi', `/insights/v1/contracts/abi/${nft.erc721}${query({ chain_id })}`, 'single');
  const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
  const amount = word((10n ** 18n).toString(16));
  const decodeBody = {
    transactions: [{ data: `${TRANSFER_SELECTOR}${word(a.holder)}${amount}` }],
    logs: [{ topics: [TRANSFER_TOPIC, `0x${word(whale)}`, `0x${word(a.holder)}`], data: `0x${amount}` }],
  };
  requests.push({
    id: 'I11b decode a transfer call and log of BUSY',
    routeId: 'DecodeContractData',
    api: 'base',
    method: 'POST',
    url: `/insights/v1/decode/${busy}${query({ chain_id })}`,
    body: () => decodeBody,
    kind: 'single',
  });

  // Aggregates as thirdweb's dashboard and its users send them (running totals or bounded reads).
  const perDay = (count: string) => ({ group_by: 'time', aggregate: [DASHBOARD_DAY, count] });
  const router = transactions(`/${a.router}`);
  for (const [id, routeId, base, shape] of [
    ['I10a router transactions per day', 'ListContractAllTransactions', router, perDay('count(block_timestamp) as count')],
    ['I10a router transactions, total', 'ListContractAllTransactions', router, { aggregate: 'count(block_number) as total' }],
    ['I10a router wallets per day', 'ListContractAllTransactions', router, perDay('count(distinct from_address) as count')],
    ['I10a router wallets, total', 'ListContractAllTransactions', router, { aggregate: 'count(distinct from_address) as total' }],
    ['I10a router functions by day', 'ListContractAllTransactions', router, { group_by: ['day', 'function_selector'], limit: 300 }],
    ['I2 BUSY events per day', 'ListContractEvents', `/insights/v1/events/${busy}`, perDay('count(block_timestamp) as count')],
    ['I2 BUSY events, total', 'ListContractEvents', `/insights/v1/events/${busy}`, { aggregate: 'count()' }],
    ['I2 BUSY events by day', 'ListContractEvents', `/insights/v1/events/${busy}`, { group_by: ['day', 'topic_0'], limit: 300 }],
    ['I10c whale transactions by day', 'ListWalletTransactions', wallet, { group_by: 'day' }],
    [
      'I10c whale value and gas by day',
      'ListWalletTransactions',
      wallet,
      {
        group_by: 'time',
        aggregate: [DASHBOARD_DAY, 'count() as transactions', 'sum(value) as total_value', 'sum(gas_used) as total_gas'],
      },
    ],
    [
      'I5c BUSY wallets per day',
      'ListContractTokenTransfers',
      `/insights/v1/tokens/transfers/${busy}`,
      perDay('count(distinct from_address) as count'),
    ],
  ] as const)
    get(
      `${id} (aggregate)`,
      routeId,
      base + query({ chain_id, ...shape }),
      'aggregate',
      // Distinct counts and groups by a field are bounded reads (docs/decisions/insights.md); the rest running totals.
      /distinct|function_selector|topic_0/.test(JSON.stringify(shape)) ? { boundedRead: DEFAULT_MAX_ITEMS_READ_PER_CHAIN + 1 } : {},
    );
}

/** The served routes of shared/routes.ts, which of them the requests measure, and which only by the route's own example. */
export function routeCoverage(requests: readonly Pick<BenchRequest, 'routeId' | 'example'>[]): HttpCoverage {
  const served = routes.filter((route) => !route.notServed).map((route) => route.id);
  const measured = new Set(requests.filter((request) => !request.example).map((request) => request.routeId));
  return {
    served: served.length,
    measured: served.filter((id) => measured.has(id)).length,
    uncovered: served.filter((id) => !measured.has(id)),
    notServed: routes.filter((route) => route.notServed).map((route) => route.id),
  };
}

/** Requests of the routes that answer 501 by design (Route.notServed): one each, its example. */
export function notServedRequests(): BenchRequest[] {
  return routes
    .filter((route) => route.notServed)
    .map((route) => {
      let url = route.path;
      for (const [name, value] of Object.entries(route.example.pathParameters ?? {}))
        url = url.replace(`{${name}}`, encodeURIComponent(value));
      for (const name of url.match(/\{[^}]+\}/g) ?? []) url = url.replace(name, 'bench');
      url += query((route.example.query ?? {}) as Record<string, string | readonly string[]>);
      const body = route.example.body;
      return {
        id: `${route.method} ${route.path} (not served)`,
        routeId: route.id,
        api: apiOf(route),
        method: route.method as BenchRequest['method'],
        url,
        ...(body === undefined ? {} : { body: () => body }),
        headers: route.example.headers,
        kind: 'error' as const,
      };
    });
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
      reps: { type: 'string', default: '60' },
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
  // The webhook routes' limits are not what the bench measures: every repetition is a request of one key.
  process.env.WEBHOOK_API_REQUESTS_PER_MINUTE ??= '9999999';
  process.env.WEBHOOKS_PER_PROJECT ??= '9999999';
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
  const { invoke, prepareRequest } = await import('../lib/dispatch');
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
  // What API Gateway does before Lambda runs (the route's match, the event, a new body), apart from
  // what the handler does: the handler's timings below cover `run` only.
  const prepare = async (request: BenchRequest) => {
    const body = request.body ? JSON.stringify(request.body()) : undefined;
    return prepareRequest({
      api: request.api,
      method: request.method,
      url: request.urlEach ? await request.urlEach() : request.url,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...request.headers },
      body,
    });
  };
  const run = async (request: BenchRequest, prepared: ReturnType<typeof prepareRequest>) => {
    useTable(request.scratch ? scratchTable : datasetTable);
    try {
      return await invoke(prepared);
    } finally {
      useTable(datasetTable);
    }
  };
  const send = async (request: BenchRequest) => run(request, await prepare(request));
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
  // Insight's webhook routes: the bench project's key in the scratch table, and a webhook to list and change.
  const { registerApiKey } = await import('../../shared/insights/api-keys');
  useTable(scratchTable);
  await registerApiKey(BENCH_SECRET_KEY, 'bench');
  useTable(datasetTable);
  const newWebhook = async (): Promise<string> => {
    const response = await send({
      id: 'setup',
      routeId: 'CreateWebhook',
      api: 'base',
      method: 'POST',
      url: '/insights/v1/webhooks',
      headers: { 'x-secret-key': BENCH_SECRET_KEY },
      body: () => ({
        webhook_url: 'https://receiver.example.com/hook',
        filters: { 'v1.transactions': { to_addresses: [facts.chains[0]!.busyToken] } },
      }),
      scratch: true,
      kind: 'write',
    });
    return (JSON.parse(response.body) as { data: { id: string } }).data.id;
  };
  const webhooks = {
    key: BENCH_SECRET_KEY,
    webhookId: await newWebhook(),
    freshWebhookPath: async () => `/insights/v1/webhooks/${await newWebhook()}`,
  };
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
  // E11 at depth: the whale's NFT instances some pages in (a collection with more ids than its X2 entry
  // embeds continues from its G4 holdings range, the cursor's collection beside the X2 Query).
  const nftFirst = `/explorer/addresses/${a.whale}/nft`;
  const nftWanted = 10;
  let nftUrl = nftFirst;
  let nftPage = 1;
  while (nftPage < nftWanted) {
    const response = await send({ id: 'setup', routeId: 'ListAddressNfts', api: 'base', method: 'GET', url: nftUrl, kind: 'list' });
    const next = (JSON.parse(response.body) as { next_page_params?: Record<string, unknown> | null }).next_page_params;
    if (!next) break;
    nftUrl = nftFirst + query(Object.fromEntries(Object.entries(next).map(([key, value]) => [key, String(value)])));
    nftPage += 1;
  }
  const nftDeep = nftPage > 1 ? { id: `E11 whale nft page ${nftPage}`, url: nftUrl } : undefined;
  if (nftDeep)
    depth.push({
      name: 'E11 whale nft',
      first: 'E11 nft type=-',
      deep: nftDeep.id,
      pageReached: nftPage,
      pageWanted: nftWanted,
      firstReadUnits: 0,
      deepReadUnits: null,
      deepStatus: 0,
      ratio: null,
    });

  const all = buildRequests(facts, {
    deep,
    sessionId,
    collectionBody,
    orderBody: () => {
      orderIndex += 1;
      return orderBody(a.whale, orderIndex);
    },
    nftDeep,
    webhooks,
  });
  const coverage = routeCoverage(all);
  log(`routes: ${coverage.measured} of ${coverage.served} served routes measured, ${coverage.notServed.length} not served (501)`);
  if (coverage.uncovered.length > 0) {
    const line = '!'.repeat(100);
    log(line);
    log(`!!! ${coverage.uncovered.length} served route(s) without a bench request of their own (scripts/bench/http.ts buildRequests):`);
    for (const id of coverage.uncovered) log(`!!!   ${id}: measured by its route example only, on entities the dataset may not hold`);
    log(line);
  }
  let requests = all;
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
      // (Prepared before the recording: a request's urlEach makes what the call needs, unmeasured.)
      const plainRequest = await prepare(request);
      const plain = await record(() => run(request, plainRequest));
      const measuredRequest = await prepare(request);
      const measured = await record(() => measureTable(() => run(request, measuredRequest)));
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
      // Repetitions: --reps (60: a p50 of 20 moved by a millisecond from run to run on sub-3 ms requests on
      // the shared 2-core machine, failing a different overhead row in each run), as many as fit in the
      // time allowed per request, at least 5.
      const once = Math.max(0.1, ...plain.calls.map((call) => call.end));
      const n = Math.max(5, Math.min(reps, Math.floor((options.secondsPerRequest * 1000) / (2 * once))));
      const handlerMs: number[] = [];
      const directMs: number[] = [];
      for (let rep = 0; rep < n; rep += 1) {
        const prepared = await prepare(request);
        const t0 = performance.now();
        await run(request, prepared);
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
        registryItemsRead: registryItemsRead(calls),
        ...readRuleFigures(request.url, calls, records),
        ...(request.boundedRead !== undefined ? { boundedRead: request.boundedRead } : {}),
        ...(request.egressTimeoutMs !== undefined ? { egressTimeoutMs: request.egressTimeoutMs } : {}),
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
  // Routes not served: each answers 501 without reading the table.
  const notServed: NotServedResult[] = [];
  for (const request of notServedRequests()) {
    if (options.only && !request.id.includes(options.only)) continue;
    try {
      await send(request);
      const measured = await record(() => send(request));
      const times: number[] = [];
      for (let rep = 0; rep < 5; rep += 1) {
        const t0 = performance.now();
        await send(request);
        times.push(performance.now() - t0);
      }
      const status = measured.value.statusCode;
      notServed.push({
        id: request.id,
        routeId: request.routeId,
        method: request.method,
        url: request.url,
        status,
        callCount: measured.calls.length,
        handlerMs: { p50: round(median(times), 2), p99: round(percentile(times, 99), 2), n: times.length },
        ...(status === 501 ? {} : { error: measured.value.body.slice(0, 200) }),
      });
      log(`${request.id}: ${status}, ${measured.calls.length} DynamoDB calls`);
    } catch (error) {
      notServed.push({
        id: request.id,
        routeId: request.routeId,
        method: request.method,
        url: request.url,
        status: 0,
        callCount: 0,
        handlerMs: { p50: 0, p99: 0, n: 0 },
        error: (error as Error).message,
      });
      log(`${request.id}: FAILED ${(error as Error).message}`);
    }
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
    coverage,
    notServed,
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

/**
 * Items read from the chain registry (N13, pk `CHAINS`): the insights handlers' container-cached list of
 * indexed chains, read again when the cache expires, at most one item per registered chain. Not part of
 * any range a page or aggregate reads, so a bounded read's budget leaves it out.
 */
export function registryItemsRead(calls: readonly Recorded[]): number {
  return calls
    .filter((call) => (call.input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk'] === 'CHAINS')
    .reduce((sum, call) => sum + call.scanned, 0);
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

/**
 * Issue 27's read rules, as figures of one request: its Queries, the items they read, the most Queries
 * in flight at once (one wave), the page size asked for (`limit`, else the group's default: 50 for the
 * explorer and collections, Insight's DEFAULT_LIMIT) and the chains it names (`chain` / `chain_id`).
 */
export function readRuleFigures(
  url: string,
  calls: readonly RecordedCall[],
  records: number,
): Pick<RequestResult, 'queries' | 'queryItemsRead' | 'maxParallelQueries' | 'pageSize' | 'chains'> {
  const parsed = new URL(url, 'http://bench.local');
  const limit = Number(parsed.searchParams.get('limit'));
  const insights = parsed.pathname.startsWith('/insights/');
  const pageSize = Number.isInteger(limit) && limit > 0 ? limit : Math.max(records, insights ? INSIGHTS_DEFAULT_LIMIT : 50);
  const chains = new Set(
    [...parsed.searchParams.getAll('chain'), ...parsed.searchParams.getAll('chain_id')]
      .flatMap((value) => value.split(','))
      .filter(Boolean),
  ).size;
  const queries = calls.filter((call) => call.command === 'QueryCommand');
  return {
    queries: queries.length,
    queryItemsRead: queries.reduce((sum, call) => sum + call.scanned, 0),
    maxParallelQueries: Math.max(0, ...waves(calls).map((wave) => wave.filter((call) => call.command === 'QueryCommand').length)),
    pageSize,
    chains: Math.max(1, chains),
  };
}
