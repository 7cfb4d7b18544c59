/**
 * thirdweb's dashboard on this service (issue 25 §1): the ten aggregate queries of its contract
 * analytics (thirdweb-dev/js apps/dashboard/src/app/(app)/(dashboard)/(chain)/[chain_id]/[contractAddress]/
 * analytics/utils/*.ts, read at commits 2253ce5e4af3, 2f6f3a094799 and a94cf80dbd54), written below as the
 * dashboard builds them (its parameter strings joined with `&`, sent as a browser's fetch encodes them),
 * and a user's query after them (thirdweb-example/yeet-or-jeet src/lib/helpers/insight.ts); then the
 * other forms of the family through the handlers. Every answer is compared with the chains' own data
 * (viem, truth.ts), on the two-chain fixture: chain A's demo token (many transfers within minutes),
 * chain B's token, sink and emitters (blocks 3 h 7 min apart, so several days).
 * The transaction shapes run on both `/v1/transactions/{contractAddress}` (what the dashboard calls) and
 * `/v1/transactions/{contractAddress}/{signature}`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEventSelector, toFunctionSelector } from 'viem';
import { requestJson } from '../../../scripts/lib/dispatch';
import { useTestTable } from '../../support/table';
import { tableWorkOf } from '../../shared/insights/table-work';
import { CHAIN_A, CHAIN_B, requestOnColdStart, startInsightsFixture, type InsightsFixture } from './fixture';
import { callsTo, logsOf, readTruth, utcBuckets, type ChainTransaction, type ChainTruth } from './truth';

useTestTable('insights-dashboard-aggregates');
let fx: InsightsFixture;
let A: ChainTruth;
let B: ChainTruth;
let token: string;

beforeAll(async () => {
  fx = await startInsightsFixture();
  [A, B] = await Promise.all([readTruth(CHAIN_A, fx.a.client), readTruth(CHAIN_B, fx.b.client)]);
  token = fx.a.manifest.contracts.token.toLowerCase();
}, 240_000);
afterAll(async () => fx?.stop());

// ---------------------------------------------------------------------------------------------------
// The dashboard's queries, as it writes them (`chain=${chainId}` first; the optional timestamp filters
// come from its date picker).

const DASHBOARD = {
  /** contract-events.ts getContractEventAnalytics: events per day. */
  eventsPerDay: ['group_by=time', 'aggregate=toStartOfDay(toDate(block_timestamp)) as time', 'aggregate=count(block_timestamp) as count'],
  /** contract-event-breakdown.ts (before a94cf80): events per signature per day. */
  eventBreakdown: [
    'group_by=time',
    'group_by=topic_0 as event_signature',
    'aggregate=toStartOfDay(toDate(block_timestamp)) as time',
    'aggregate=count(*) as count',
  ],
  /** total-contract-events.ts getTotalContractEvents: read back as aggregations[0][0].count. */
  totalEvents: ['aggregate=count()'],
  /** contract-event-breakdown.ts (a94cf80): the built-in day, no aggregate; rows with day, topic_0, count. */
  eventBreakdownByDay: ['group_by=day', 'group_by=topic_0', 'limit=300'],
  /** contract-transactions.ts getContractTransactionAnalytics: transactions per day. */
  transactionsPerDay: [
    'group_by=time',
    'aggregate=toStartOfDay(toDate(block_timestamp)) as time',
    'aggregate=count(block_timestamp) as count',
  ],
  /** contract-wallet-analytics.ts getContractUniqueWalletAnalytics: unique wallets per day. */
  walletsPerDay: [
    'group_by=time',
    'aggregate=toStartOfDay(toDate(block_timestamp)) as time',
    'aggregate=count(distinct from_address) as count',
  ],
  /** contract-function-breakdown.ts (before 2f6f3a0): calls per function per day. */
  functionBreakdown: [
    'group_by=time',
    'group_by=function_selector',
    'aggregate=toStartOfDay(toDate(block_timestamp)) as time',
    'aggregate=count(*) as count',
  ],
  /** total-contract-transactions.ts getTotalContractTransactions: aggregations[0][0].total. */
  totalTransactions: ['aggregate=count(block_number) as total'],
  /** total-unique-wallets.ts getTotalContractUniqueWallets: aggregations[0][0].total. */
  totalWallets: ['aggregate=count(distinct from_address) as total'],
  /** contract-function-breakdown.ts (2f6f3a0): the built-in day, no aggregate; rows with day, function_selector, count. */
  functionBreakdownByDay: ['group_by=day', 'group_by=function_selector', 'limit=300'],
} as const;

/** A user's query after the dashboard (yeet-or-jeet getHourlyTransferCount), its parameters in its order. */
const hourlyTransfers = (topic0: string, from: number) =>
  `filter_topic_0=${topic0}&aggregate=toStartOfHour(toDateTime(block_timestamp)) as date&filter_block_timestamp_gte=${from}&aggregate=sum(1) as count&group_by=date&sort_by=date&sort_order=desc`;

/** GET `path?query` as a browser's fetch sends the dashboard's string (spaces as %20, the rest as written). */
const fetchLike = (path: string, query: string) => requestJson('base', 'GET', encodeURI(`${path}?${query}`));
const dashboard = (path: string, chainId: number, shape: readonly string[], extra: string[] = []) =>
  fetchLike(path, [`chain=${chainId}`, ...shape, ...extra].join('&'));

// ---------------------------------------------------------------------------------------------------
// The chains' truth.

const lower = (text: string | null | undefined) => (text ?? '').toLowerCase();
const timestampOf = (truth: ChainTruth, blockNumber: bigint | number | null) => Number(truth.blocks[Number(blockNumber)]!.timestamp);

interface Item {
  timestamp: number;
  from?: string;
  key?: string;
}

async function eventsOf(truth: ChainTruth, contract: string): Promise<Item[]> {
  return (await logsOf(truth, contract)).map((log) => ({ timestamp: timestampOf(truth, log.blockNumber), key: log.topics[0] ?? '' }));
}

const selectorOf = (tx: ChainTransaction) => (tx.input.length >= 10 ? tx.input.slice(0, 10).toLowerCase() : '');
const itemsOfTransactions = (txs: ChainTransaction[]): Item[] =>
  txs.map((tx) => ({ timestamp: tx.timestamp, from: lower(tx.from), key: selectorOf(tx) }));

/**
 * Transactions sent to `contract` (what /v1/transactions/{contract} lists: `to_address` = the contract,
 * so not the transaction that created it).
 */
function toContract(truth: ChainTruth, contract: string): ChainTransaction[] {
  return truth.transactions.filter((tx) => lower(tx.to) === contract);
}

/** Rows grouped by `keys` (column -> value of an item), ordered by the keys ascending, with `value` per group. */
function grouped(
  items: Item[],
  keys: Record<string, (item: Item) => string>,
  value: Record<string, (group: Item[]) => number>,
): Record<string, unknown>[] {
  const groups = new Map<string, { keys: string[]; items: Item[] }>();
  for (const item of items) {
    const values = Object.values(keys).map((key) => key(item));
    const id = JSON.stringify(values);
    const group = groups.get(id) ?? { keys: values, items: [] };
    group.items.push(item);
    groups.set(id, group);
  }
  const compare = (a: string[], b: string[]) => {
    for (const [index, left] of a.entries()) if (left !== b[index]) return left < b[index]! ? -1 : 1;
    return 0;
  };
  return [...groups.values()]
    .sort((a, b) => compare(a.keys, b.keys))
    .map((group) => ({
      ...Object.fromEntries(Object.keys(keys).map((name, index) => [name, group.keys[index]])),
      ...Object.fromEntries(Object.entries(value).map(([name, of]) => [name, of(group.items)])),
    }));
}
const count = (group: Item[]) => group.length;
const wallets = (group: Item[]) => new Set(group.map((item) => item.from)).size;
const dayTime = (item: Item) => utcBuckets(item.timestamp).day; // toStartOfDay(toDate(...)): a DateTime
const dayDate = (item: Item) => utcBuckets(item.timestamp).date; // the built-in day: a Date
const key = (item: Item) => item.key ?? '';

/** Checks the envelope the dashboard reads and returns the chain's rows. */
function rowsOf(response: { status: number; body: any }, chains = 1): Record<string, unknown>[] {
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.data).toEqual([]);
  expect(response.body.aggregations).toHaveLength(chains);
  return response.body.aggregations[0];
}

// ---------------------------------------------------------------------------------------------------

describe('thirdweb’s dashboard: contract analytics, each of its ten queries as it sends them', () => {
  const eventContracts = () => [
    { truth: A, contract: token },
    { truth: B, contract: lower(fx.b.token) },
    { truth: B, contract: lower(fx.b.emitters[2]) },
    { truth: B, contract: lower(fx.b.emitters[3]) },
  ];

  it('events: per day, per signature per day (alias in group_by), the total, and by the built-in day', async () => {
    let days = 0;
    for (const { truth, contract } of eventContracts()) {
      const path = `/insights/v1/events/${contract}`;
      const events = await eventsOf(truth, contract);
      expect(events.length, contract).toBeGreaterThan(0);
      const perDay = rowsOf(await dashboard(path, truth.chainId, DASHBOARD.eventsPerDay));
      expect(perDay, `${truth.chainId} ${contract}`).toEqual(grouped(events, { time: dayTime }, { count }));
      days = Math.max(days, perDay.length);
      // The dashboard keeps rows whose count is a number and whose time parses.
      for (const row of perDay) expect([typeof row.count, Number.isNaN(new Date(String(row.time)).getTime())]).toEqual(['number', false]);

      expect(rowsOf(await dashboard(path, truth.chainId, DASHBOARD.eventBreakdown))).toEqual(
        grouped(events, { time: dayTime, event_signature: key }, { count }),
      );
      const total = await dashboard(path, truth.chainId, DASHBOARD.totalEvents);
      expect(total.body.aggregations[0][0].count).toBe(events.length);
      expect(rowsOf(total)).toEqual([{ count: events.length }]);
      expect(rowsOf(await dashboard(path, truth.chainId, DASHBOARD.eventBreakdownByDay))).toEqual(
        grouped(events, { day: dayDate, topic_0: key }, { count }),
      );
    }
    expect(days).toBeGreaterThan(1); // chain B's activity spans days
  });

  for (const route of ['/v1/transactions/{contractAddress}', '/v1/transactions/{contractAddress}/{signature}'] as const) {
    it(`transactions on ${route}: per day, unique wallets per day, per function per day, totals, by the built-in day`, async () => {
      const TRANSFER = 'transfer(address,uint256)';
      const cases =
        route === '/v1/transactions/{contractAddress}'
          ? [
              { truth: A, contract: token, path: `/insights/v1/transactions/${token}`, txs: toContract(A, token) },
              {
                truth: B,
                contract: lower(fx.b.token),
                path: `/insights/v1/transactions/${lower(fx.b.token)}`,
                txs: toContract(B, lower(fx.b.token)),
              },
              {
                truth: B,
                contract: lower(fx.b.sink),
                path: `/insights/v1/transactions/${lower(fx.b.sink)}`,
                txs: toContract(B, lower(fx.b.sink)),
              },
            ]
          : [A, B].map((truth) => ({
              truth,
              contract: token,
              path: `/insights/v1/transactions/${token}/${encodeURIComponent(TRANSFER)}`,
              txs: callsTo(truth, token, toFunctionSelector(TRANSFER)),
            }));
      let selectors = 0;
      for (const { truth, path, txs } of cases) {
        const items = itemsOfTransactions(txs);
        expect(items.length, path).toBeGreaterThan(0);
        const label = `${truth.chainId} ${path}`;
        expect(rowsOf(await dashboard(path, truth.chainId, DASHBOARD.transactionsPerDay)), label).toEqual(
          grouped(items, { time: dayTime }, { count }),
        );
        expect(rowsOf(await dashboard(path, truth.chainId, DASHBOARD.walletsPerDay)), label).toEqual(
          grouped(items, { time: dayTime }, { count: wallets }),
        );
        const functions = rowsOf(await dashboard(path, truth.chainId, DASHBOARD.functionBreakdown));
        expect(functions, label).toEqual(grouped(items, { time: dayTime, function_selector: key }, { count }));
        selectors = Math.max(selectors, new Set(functions.map((row) => row.function_selector)).size);
        expect((await dashboard(path, truth.chainId, DASHBOARD.totalTransactions)).body.aggregations[0][0].total, label).toBe(items.length);
        expect((await dashboard(path, truth.chainId, DASHBOARD.totalWallets)).body.aggregations[0][0].total, label).toBe(wallets(items));
        expect(rowsOf(await dashboard(path, truth.chainId, DASHBOARD.functionBreakdownByDay)), label).toEqual(
          grouped(items, { day: dayDate, function_selector: key }, { count }),
        );
      }
      if (route === '/v1/transactions/{contractAddress}') expect(selectors).toBeGreaterThan(1); // mint, transfer, burn
    });
  }

  it('takes the date picker’s bounds (filter_block_timestamp_gte / _lte) on the same queries', async () => {
    const contract = lower(fx.b.emitters[2]);
    const events = await eventsOf(B, contract);
    const times = [...new Set(events.map((event) => event.timestamp))].sort((a, b) => a - b);
    expect(times.length).toBeGreaterThan(2);
    const [from, to] = [times[1]!, times.at(-2)!];
    const inside = events.filter((event) => event.timestamp >= from && event.timestamp <= to);
    const bounds = [`filter_block_timestamp_gte=${from}`, `filter_block_timestamp_lte=${to}`];
    expect(rowsOf(await dashboard(`/insights/v1/events/${contract}`, CHAIN_B, DASHBOARD.eventsPerDay, bounds))).toEqual(
      grouped(inside, { time: dayTime }, { count }),
    );
    expect(rowsOf(await dashboard(`/insights/v1/events/${contract}`, CHAIN_B, DASHBOARD.eventBreakdownByDay, bounds))).toEqual(
      grouped(inside, { day: dayDate, topic_0: key }, { count }),
    );
  });

  it('a user’s hourly Transfer count: toStartOfHour(toDateTime(...)) as date, sum(1) as count, sorted by the alias, newest first', async () => {
    const topic0 = toEventSelector('Transfer(address,address,uint256)');
    for (const truth of [A, B]) {
      const contract = truth === A ? token : lower(fx.b.token);
      const transfers = (await eventsOf(truth, contract)).filter((event) => event.key === topic0);
      const from = Math.min(...transfers.map((event) => event.timestamp));
      const { status, body } = await fetchLike(
        `/insights/v1/events/${contract}`,
        `chain_id=${truth.chainId}&${hourlyTransfers(topic0, from)}`,
      );
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.aggregations[0]).toEqual(grouped(transfers, { date: (item) => utcBuckets(item.timestamp).hour }, { count }).reverse());
    }
  });
});

describe('the rest of the family through the handlers, against the chains', () => {
  it('nested week, month, year and Unix-time buckets, exact distinct counts, sort by any column, both chains', async () => {
    const contract = lower(fx.b.emitters[2]);
    const events = await eventsOf(B, contract);
    const path = `/insights/v1/events/${contract}`;
    const week = (item: Item) => {
      const date = new Date(item.timestamp * 1000);
      return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - date.getUTCDay())).toISOString().slice(0, 10);
    };
    const { body } = await fetchLike(
      path,
      `chain_id=${CHAIN_B}&aggregate=toStartOfWeek(toDate(block_timestamp)) AS w&aggregate=uniqExact(topic_0) AS signatures&aggregate=countDistinct(transaction_hash) AS txs&group_by=w`,
    );
    expect(body.aggregations[0]).toEqual(
      grouped(events, { w: week }, { signatures: (group) => new Set(group.map(key)).size, txs: (group) => group.length }),
    );
    const unix = await fetchLike(
      path,
      `chain_id=${CHAIN_B}&group_by=toUnixTimestamp(toStartOfDay(block_timestamp)) AS t&sort_by=t&sort_order=desc`,
    );
    expect(unix.body.aggregations[0]).toEqual(
      grouped(events, { t: (item) => String(Math.floor(item.timestamp / 86_400) * 86_400) }, { count })
        .map((row) => ({ ...row, t: Number(row.t) }))
        .reverse(),
    );
    const months = await fetchLike(path, `chain_id=${CHAIN_B}&group_by=month&group_by=year&aggregate=uniq(topic_0)`);
    const monthOf = (item: Item) => `${utcBuckets(item.timestamp).date.slice(0, 7)}-01`;
    const yearOf = (item: Item) => `${utcBuckets(item.timestamp).date.slice(0, 4)}-01-01`;
    expect(months.body.aggregations[0]).toEqual(
      grouped(events, { month: monthOf, year: yearOf }, { 'uniq(topic_0)': (group) => new Set(group.map(key)).size }),
    );

    // Both chains, sorted by the default count, then by the group keys.
    const both = await fetchLike(
      `/insights/v1/events/${token}`,
      `chain_id=${CHAIN_A}&chain_id=${CHAIN_B}&group_by=topic_0 as event_signature&sort_by=count&sort_order=desc`,
    );
    for (const [index, truth] of [A, B].entries()) {
      const expected = grouped(await eventsOf(truth, token), { event_signature: key }, { count }).sort(
        (a, b) => Number(b.count) - Number(a.count) || (String(a.event_signature) < String(b.event_signature) ? -1 : 1),
      );
      expect(both.body.aggregations[index]).toEqual(expected);
    }
  });

  it('sorts by an unaliased expression column, named as it is written', async () => {
    const name = 'count(distinct from_address)';
    const answer = await fetchLike(
      `/insights/v1/transactions/${token}`,
      `chain_id=${CHAIN_A}&group_by=function_selector&aggregate=${name}&sort_by=${name}&sort_order=desc`,
    );
    const expected = grouped(itemsOfTransactions(toContract(A, token)), { function_selector: key }, { [name]: wallets }).sort(
      (a, b) => Number(b[name]) - Number(a[name]) || (String(a.function_selector) < String(b.function_selector) ? -1 : 1),
    );
    expect(rowsOf(answer)).toEqual(expected);
  });

  it('answers the per-day counts from running totals at any size; a distinct count is a bounded read with a clear 400', async () => {
    const items = itemsOfTransactions(toContract(A, token));
    const READ_10 = { INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '10' };
    expect(items.length).toBeGreaterThan(10);
    const path = `/insights/v1/transactions/${token}`;
    const query = (shape: readonly string[]) => encodeURI(`${path}?${[`chain=${CHAIN_A}`, ...shape].join('&')}`);
    for (const shape of [
      DASHBOARD.transactionsPerDay,
      DASHBOARD.totalTransactions,
      ['group_by=day'],
      ['aggregate=sum(1) as n', 'aggregate=toStartOfHour(toDate(block_timestamp)) as h', 'group_by=h'],
    ]) {
      const fast = await requestOnColdStart(READ_10, 'GET', query(shape));
      expect(fast.status, JSON.stringify(fast.body)).toBe(200);
    }
    const bounded = await requestOnColdStart(READ_10, 'GET', query(DASHBOARD.walletsPerDay));
    expect(bounded.status).toBe(400);
    expect(bounded.body.error).toMatch(/more than 10 items on chain 31337; narrow the block range/);
    // The running-total path reads a few items per bucket, not the rows.
    const { result, usage } = await tableWorkOf(() => dashboard(path, CHAIN_A, DASHBOARD.transactionsPerDay));
    expect(rowsOf(result)).toEqual(grouped(items, { time: dayTime }, { count }));
    expect(usage.itemsRead).toBeLessThan(items.length);
  });

  it('refuses bad forms with a 400 in the insights format', async () => {
    const path = `/insights/v1/events/${token}`;
    for (const [query, message] of [
      ['aggregate=toStartOfDay(toDate(block_timestamp) as time&group_by=time', /aggregate: expected "\)"/],
      ['aggregate=toStartOfDay(now()) as time&group_by=time', /a time function takes a timestamp field/],
      ['aggregate=formatDateTime(block_timestamp) as t', /aggregate: unknown function/],
      ['group_by=topic_0 as event_signature; DROP TABLE t', /group_by: unexpected character ";"/],
      ['group_by=fortnight', /group_by: unknown name fortnight/],
      [
        'aggregate=toStartOfDay(toStartOfDay(toStartOfDay(toStartOfDay(toStartOfDay(block_timestamp))))) AS d&group_by=d',
        /nest at most 4 deep/,
      ],
      ['group_by=day&sort_by=time', /sort_by: with aggregate or group_by, sort by one of the output columns: day, count/],
    ] as const) {
      const { status, body } = await fetchLike(path, `chain_id=${CHAIN_A}&${query}`);
      expect(status, query).toBe(400);
      expect(body, query).toEqual({ error: expect.stringMatching(message) });
    }
  });
});
