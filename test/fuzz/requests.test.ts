/**
 * Generated bad input, a fixed-seed sample per group (test/support/fuzz.ts has the generators and the
 * property): every request gets a 2xx or a 4xx in its group's JSON error format, never a 5xx, a hang or
 * a dropped connection, and a rejected write leaves the table as it was. Most requests go through
 * `dispatch`, a share over a raw socket to the local gateway. `npm run fuzz` runs any size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../scripts/lib/gateway';
import { requestJson } from '../../scripts/lib/dispatch';
import fc from 'fast-check';
import { apisOf, routes } from '../../shared/routes';
import {
  bodyOverGatewayLimit,
  checkRequest,
  CRLF_VALUES,
  fuzzConcurrently,
  requestArbitrary,
  FUZZ_GROUPS,
  fuzzGroup,
  type FuzzRequest,
  type FuzzTarget,
  ingestDemoChain,
  seedExamples,
} from '../support/fuzz';

/** Runs per group: the whole file stays well under a minute on two cores. */
const RUNS = 500;
const SEED = 20261123;

let service: LocalService;
let target: FuzzTarget;

beforeAll(async () => {
  // Its own DynamoDB and table: the handlers of this file load against them, in process and over HTTP.
  // Nothing may load the table layer before (test/support/table.ts does): it reads the endpoint once.
  service = await startLocalService({ tableName: `fuzz-${process.pid}` });
  const { tableSnapshot } = await import('../support/table');
  target = { urls: service.urls, snapshot: () => tableSnapshot(service.tableName), timeoutMs: 15_000 };
  await seedExamples();
});

afterAll(async () => {
  await service?.stop();
});

describe('the generators', () => {
  it('cover every route of the route table on every base URL that serves it, both transports and every kind of body', async () => {
    const seen = new Set<string>();
    const transports = new Set<string>();
    const bodies = new Set<string>();
    for (const group of FUZZ_GROUPS) {
      for (const request of fc.sample(await requestArbitrary(group), { numRuns: 1500, seed: SEED })) {
        if (request.from) seen.add(`${request.api} ${request.from}`);
        transports.add(request.transport);
        bodies.add(request.body === undefined ? 'none' : typeof request.body === 'string' ? 'text' : 'bytes');
        if (typeof request.body === 'string' && request.body.length > 1024 * 1024) bodies.add('1 MiB');
        if (request.body instanceof Uint8Array && request.body.length > 10 * 1024 * 1024) bodies.add('over 10 MiB');
        if (request.headers.some(([, value]) => /[\r\n]/.test(value))) bodies.add('CR/LF in a header');
      }
    }
    const expected = routes.flatMap((route) => apisOf(route).map((api) => `${api} ${route.id}`));
    expect([...seen].sort()).toEqual(expected.sort());
    expect([...transports].sort()).toEqual(['dispatch', 'http']);
    expect([...bodies].sort()).toEqual(['1 MiB', 'CR/LF in a header', 'bytes', 'none', 'over 10 MiB', 'text']);
  });
});

/**
 * The shrunk counterexamples the fuzz runs found, as plain examples (each was a 5xx or an answer
 * outside its group's format before its fix). `checkRequest` sends them as the fuzz run did and checks
 * the same property; the expectations below pin the answer.
 */
describe('regressions found by the fuzz runs', () => {
  const request = (overrides: Partial<FuzzRequest> & Pick<FuzzRequest, 'api' | 'target'>): FuzzRequest => ({
    method: 'GET',
    headers: [],
    transport: 'dispatch',
    ...overrides,
  });

  it('POST /orders with a body without a valid type: 400 naming type, not a 500 from the checks across fields', async () => {
    // Found as `{"a":{"a":...}}` nested 2000 deep (seed 20261123, path 114:0:0:0:0:0).
    for (const body of [
      '{"a":{"a":1}}',
      '{}',
      '{"srcChain":8453,"srcTokenAddress":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"}',
      '{"type":"nope"}',
    ]) {
      for (const transport of ['dispatch', 'http'] as const) {
        const sent = request({
          api: 'orders',
          method: 'POST',
          target: '/orders',
          headers: [['content-type', 'application/json']],
          body,
          transport,
        });
        expect(await checkRequest(sent, target), body).toBe(400);
      }
    }
    const answer = await requestJson('orders', 'POST', '/orders', { body: { a: { a: 1 } } });
    expect(answer.body).toEqual({ success: false, message: 'type: is required', statusCode: 400 });
  });

  it('POST /orders with an inherited name inside metadata or next to mistyped addresses: 400, not a 500', async () => {
    // Found over HTTP at run 9469 of a 10,000-run orders group (seed 42; its path no longer replays since
    // the generators copy their values): the example with a metadata of inherited names (`constructor`,
    // `__proto__`, ...) and no tokens; the checks across fields read metadata.srcToken of a metadata whose
    // pipe had stopped without an issue on that path.
    const example = routes.find((route) => route.id === 'CreateOrder')!.example.body as Record<string, unknown>;
    const bodies = [
      JSON.stringify({ ...example, metadata: { a: 1 } }).replace('"metadata":{', '"metadata":{"constructor":"x",'),
      JSON.stringify({ ...example, srcTokenAddress: 5, dstTokenAddress: 5, dstChain: example.srcChain }).replace('{', '{"__proto__":1,'),
    ];
    for (const body of bodies) {
      const before = await target.snapshot();
      const answer = await requestJson('orders', 'POST', '/orders', { body });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.message).toMatch(/constructor|__proto__/);
      expect(await target.snapshot()).toEqual(before);
    }
  });

  it('an insights path with a doubled leading slash answers in the insights format (it matches the insights route)', async () => {
    // Found over HTTP as GET //insights/v1/events/0x?chain_id=31337&... (seed 20261123, path 32:0:0:0:0:0:0):
    // the route answered {"error"}, the contract expected the explorer format, the gateway a 500.
    const url = '//insights/v1/events/0x?chain_id=31337&decode=true';
    for (const transport of ['dispatch', 'http'] as const) {
      // 404: no chain is indexed here; what matters is the format (checkRequest) and no 500.
      expect(await checkRequest(request({ api: 'base', target: url, transport }), target)).toBe(404);
    }
    const answer = await requestJson('base', 'GET', url);
    expect(Object.keys(answer.body)).toEqual(['error']);
  });

  it('a request the HTTP parser refuses (NUL in a header) answers in the format of its path’s group', async () => {
    // Found as GET /insights/v1/events/0X5F...?... with Idempotency-Key: "\u0000" (seed 20261123, path 23:0:1:0:2:1:2:2:2:2).
    const sent = request({
      api: 'base',
      target: '/insights/v1/blocks?chain_id=31337',
      headers: [['Idempotency-Key', '\u0000']],
      transport: 'http',
    });
    expect(await checkRequest(sent, target)).toBe(400);
    const explorer = request({
      api: 'base',
      target: '/explorer/addresses/0x0/transactions',
      headers: [['x-odd', '\u0000']],
      transport: 'http',
    });
    expect(await checkRequest(explorer, target)).toBe(400);
  });
});

describe('hostile transport: CR/LF in header values, bodies over 10 MiB, many requests at once', () => {
  const routeOf = (id: string) => routes.find((route) => route.id === id)!;

  it.each(CRLF_VALUES.map((value) => [JSON.stringify(value), value]))(
    'a header value %s over the socket and in process: answered, 2xx or a 4xx in the group format, no write when refused',
    async (_name, value) => {
      const session = routeOf('CreateCheckoutSession');
      for (const transport of ['http', 'dispatch'] as const) {
        for (const header of ['Idempotency-Key', 'x-note']) {
          const sent: FuzzRequest = {
            api: 'orders',
            method: 'POST',
            target: session.path,
            headers: [
              ['content-type', 'application/json'],
              [header, value],
            ],
            body: JSON.stringify(session.example.body),
            transport,
          };
          expect(await checkRequest(sent, target)).toBeLessThan(500);
        }
        const read: FuzzRequest = {
          api: 'base',
          method: 'GET',
          target: '/insights/v1/blocks?chain_id=31337',
          headers: [['origin', value]],
          transport,
        };
        expect(await checkRequest(read, target)).toBeLessThan(500);
      }
    },
  );

  it('a body over API Gateway’s 10 MiB: 413 in the group format, answered before the upload ends, nothing written', async () => {
    for (const [api, path] of [
      ['orders', '/orders'],
      ['collections', '/collections'],
      ['base', '/insights/v1/blocks'],
    ] as const) {
      const sent: FuzzRequest = {
        api,
        method: 'POST',
        target: path,
        headers: [['content-type', 'application/json']],
        body: bodyOverGatewayLimit(),
        transport: 'http',
      };
      expect(await checkRequest(sent, target)).toBe(413);
    }
  });

  it.each(FUZZ_GROUPS.filter((group) => group === 'orders' || group === 'collections'))(
    '%s: 200 generated requests, 32 at a time over the socket, each answered 2xx or a 4xx in the group format',
    async (group) => {
      const report = await fuzzConcurrently(group, target, { runs: 200, seed: SEED, concurrency: 32 });
      expect(report.failures).toEqual([]);
      expect(Object.values(report.statuses).reduce((sum, count) => sum + count, 0)).toBe(200);
    },
  );
});

function fuzzes(group: (typeof FUZZ_GROUPS)[number]) {
  it(`${group}: ${RUNS} requests (seed ${SEED}) answer 2xx or a 4xx in the group's format, and rejected writes change nothing`, async () => {
    const report = await fuzzGroup(group, target, { runs: RUNS, seed: SEED });
    expect(report.failure, JSON.stringify(report.failure, null, 2)).toBeUndefined();
    expect(report.runs).toBe(RUNS);
    // Both kinds of answer occur, and some requests went over the socket.
    expect(Object.keys(report.statuses).some((status) => Number(status) < 300)).toBe(true);
    expect(Object.keys(report.statuses).some((status) => Number(status) >= 400)).toBe(true);
    expect(report.http).toBeGreaterThan(0);
  });
}

// The groups with write routes first: each rejected write scans the table, which the chain would fill.
describe('generated bad input, write groups', () => {
  for (const group of FUZZ_GROUPS.filter((name) => name === 'orders' || name === 'collections')) fuzzes(group);
});

describe('generated bad input, read groups over the ingested demo chain', () => {
  let stopChain: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    stopChain = await ingestDemoChain();
  });
  afterAll(async () => {
    await stopChain?.();
  });
  for (const group of FUZZ_GROUPS.filter((name) => name === 'explorer' || name === 'insights')) fuzzes(group);
});
