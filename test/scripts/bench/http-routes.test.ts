/**
 * The http bench measures every route of shared/routes.ts (issue 25): each served route has requests of
 * its own on the dataset's entities (a route added without one fails here, and the bench reports it as
 * a broken budget), each request reaches the route it names, and each route not served is checked for
 * a cheap 501. Pure: the requests are built from the facts of a tiny synthetic chain, nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../../shared/routes';
import type { DatasetFacts } from '../../../scripts/bench/dataset/build';
import { SyntheticChain } from '../../../scripts/bench/dataset/chain';
import { datasetSpec, EXPLORER_CHAIN } from '../../../scripts/bench/dataset/spec';
import {
  buildRequests,
  notServedRequests,
  routeCoverage,
  type HttpResult,
  type NotServedResult,
  type RequestResult,
} from '../../../scripts/bench/http';
import { FAMILIES, httpBudgets } from '../../../scripts/bench/lib/budgets';
import { buildReport, markdown } from '../../../scripts/bench/lib/report';
import { prepareRequest } from '../../../scripts/lib/dispatch';

const chain = new SyntheticChain({
  ...datasetSpec(0.001).chains[0],
  chainId: EXPLORER_CHAIN,
  transactions: 400,
  blocks: 20,
  addresses: 30,
});
const facts = {
  key: 'k',
  scale: 0.001,
  builtAt: '2026-01-01T00:00:00.000Z',
  tableName: 'bench',
  chains: [chain.facts()],
  explorerChain: EXPLORER_CHAIN,
  collections: {
    count: 1,
    creators: [],
    chainIds: [8453],
    sampleAddress: '0x0000000000000000000000000000000000000001',
    twoFilters: { chainId: 8453, creator: '0x0000000000000000000000000000000000000002' },
  },
  orders: { count: 1, sampleId: 'order-1', sampleCreator: '0x0000000000000000000000000000000000000003' },
} as unknown as DatasetFacts;

const requests = buildRequests(facts, {
  deep: [],
  sessionId: 'session-1',
  collectionBody: () => ({}),
  orderBody: () => ({}),
  nftDeep: { id: 'E11 whale nft page 10', url: `/explorer/addresses/${chain.facts().whale}/nft?token_type=ERC-721` },
  webhooks: { key: `sk_bench_${'b'.repeat(43)}`, webhookId: 'webhook-1', freshWebhookPath: async () => '/insights/v1/webhooks/webhook-2' },
});

describe('the http bench covers the route table', () => {
  it('names every served route with requests of its own, and no route by its example only', () => {
    const coverage = routeCoverage(requests);
    expect(coverage.uncovered).toEqual([]);
    expect(coverage.measured).toBe(coverage.served);
    expect(coverage.served).toBe(routes.filter((route) => !route.notServed).length);
    expect(requests.filter((request) => request.example)).toEqual([]);
    expect(new Set(requests.map((request) => request.id)).size).toBe(requests.length);
    // The dataset's NFT facts name the whale's collections.
    const nft = chain.facts().nft;
    expect(nft.holder).toBe(chain.facts().whale);
    expect(nft.erc721).toMatch(/^0x[0-9a-f]{40}$/);
    expect(nft.erc1155).toMatch(/^0x[0-9a-f]{40}$/);
  });

  it('reports a served route without a request of its own', () => {
    const without = requests.filter((request) => request.routeId !== 'GetAddressCounters');
    expect(routeCoverage(without).uncovered).toEqual(['GetAddressCounters']);
    const byExample = [...without, { routeId: 'GetAddressCounters', example: true }];
    expect(routeCoverage(byExample).uncovered).toEqual(['GetAddressCounters']);
  });

  it('sends each request to the route it names', () => {
    for (const request of [...requests, ...notServedRequests()]) {
      const prepared = prepareRequest({ api: request.api, method: request.method, url: request.url });
      expect({ id: request.id, route: prepared.routeId }).toEqual({ id: request.id, route: request.routeId });
    }
  });

  it('measures the new list routes as list pages, the dashboard forms as aggregates, and each in the page mix once', () => {
    const kinds = (routeId: string) => new Set(requests.filter((request) => request.routeId === routeId).map((request) => request.kind));
    for (const routeId of [
      'ListAddressNfts',
      'ListOwnerErc20Tokens',
      'ListOwnerErc721Tokens',
      'ListOwnerErc1155Tokens',
      'ListOwnerNfts',
      'ListTokens',
      'ListContractNfts',
      'ListNfts',
      'ListNftTransfers',
      'ListNftTransactionTransfers',
      'ListNftContractTransfers',
      'ListNftTokenTransfers',
      'ListTokenOwners',
      'ListNftOwners',
      'ListNftTokenOwners',
      'ListContractAllTransactions',
      'ListTransactions',
      'ListWalletTransactions',
      'ListEvents',
      'ListSignatureEvents',
    ]) {
      expect(kinds(routeId).has('list'), routeId).toBe(true);
      expect(requests.filter((request) => request.routeId === routeId && request.mix).length, routeId).toBe(1);
    }
    const urls = requests.map((request) => decodeURIComponent(request.url));
    expect(urls).toEqual(expect.arrayContaining([expect.stringMatching(/transactions\?sort=value&order=asc$/)]));
    expect(urls).toEqual(expect.arrayContaining([expect.stringMatching(/aggregate=count\(distinct from_address\) as count/)]));
    expect(urls).toEqual(expect.arrayContaining([expect.stringMatching(/group_by=day&group_by=function_selector/)]));
    expect(requests.some((request) => request.id === 'E11 whale nft page 10')).toBe(true);
  });

  it('checks each route not served once, and budgets its 501 and the coverage', () => {
    const notServed = notServedRequests();
    expect(notServed.map((request) => request.routeId).sort()).toEqual(
      routes
        .filter((route) => route.notServed)
        .map((route) => route.id)
        .sort(),
    );
    const entry = (id: string, status: number, callCount: number): NotServedResult => ({
      id,
      routeId: id,
      method: 'GET',
      url: '/x',
      status,
      callCount,
      handlerMs: { p50: 0.2, p99: 0.3, n: 5 },
    });
    const http = {
      requests: [] as RequestResult[],
      depth: [],
      coverage: { served: 3, measured: 2, uncovered: ['NewRoute'], notServed: ['A', 'B', 'C'] },
      notServed: [entry('A', 501, 0), entry('B', 501, 2), entry('C', 200, 0)],
    } as unknown as HttpResult;
    const budgets = new Map(httpBudgets(http).map((budget) => [budget.name, budget]));
    expect(budgets.get('served routes without a bench request')).toMatchObject({
      value: 1,
      budget: 0,
      pass: false,
      family: FAMILIES.coverage,
      note: expect.stringContaining('NewRoute'),
    });
    expect(budgets.get('DynamoDB calls of a 501: A')).toMatchObject({ value: 0, pass: true, family: FAMILIES.notServed });
    expect(budgets.get('DynamoDB calls of a 501: B')).toMatchObject({ value: 2, pass: false });
    expect(budgets.get('DynamoDB calls of a 501: C')).toMatchObject({ value: null, pass: false, note: 'answered 200' });

    const report = buildReport({
      date: '2026-01-02T03:04:05.678Z',
      command: 'npm run bench -- --only http',
      machine: { cpus: 2, cpuModel: 'test', memoryGb: 24, node: process.version, platform: 'linux-x64' },
      seconds: { http: 1, total: 1 },
      parts: {
        http: {
          ...http,
          dataset: { scale: 1, key: 'k', dir: 'd', builtThisRun: false, buildSeconds: 1, chains: [], collections: 0, orders: 0 },
          settings: { reps: 1, secondsPerRequest: 1, transport: 't' },
        } as unknown as HttpResult,
        cold: null,
        ingest: null,
        load: null,
      },
      missing: {},
      cost: null,
      budgets: [...budgets.values()],
    });
    const md = markdown(report);
    expect(md).toContain('Routes: 2 of 3 served routes');
    expect(md).toContain('**not covered** (their route example only): NewRoute');
    expect(md).toContain('| C | 200 | 0 |');
  });
});
