/**
 * The history routes over a chain whose older blocks are cold (docs/decisions/cold-history.md, steps 4
 * and 5), the tier as deployed: a small Base-profile chain whose blocks are 10 days old, ingested into
 * dynalite with the tier on (COLD_AFTER_DAYS 30, COLD_MARGIN_DAYS 14: its history items carry their
 * expiry); the compaction job run as the clock passes its first blocks' 30th day (into a local S3,
 * s3rver on 127.0.0.1); then DynamoDB's TTL, as it stands 44 days past them: every item whose `ttl` has
 * passed deleted. Every page a user asks for, through the real handlers, must be the page the all-hot
 * table gave: the explorer's address tabs with their next_page_params, insights' lists by page number
 * in both orders, a transaction's transfers, and the resolver.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { requestJson } from '../../scripts/lib/dispatch';
import { startLocalS3, type LocalS3 } from '../../scripts/lib/local-s3';
import { s3ColdStore, type ColdStore } from '../../shared/aws/cold-store';
import { useColdStore } from '../../shared/db/cold-query';
import { writeItems } from '../../shared/db/operations';
import { compactColdHistory } from '../../shared/ingest/cold-history';
import { isHistoryRange } from '../../shared/table/cold-parts';
import type { ItemKey } from '../../shared/table/keys';
import { ingestedSmallBaseChain } from '../support/base-chain';
import { tableSnapshot, useTestTable } from '../support/table';
import { observingTable, type OtherCall, roundTripsInSequence } from '../support/table-calls';

const CHAIN = vi.hoisted(() => {
  // The explorer serves one chain: this test's Base-profile chain (scripts/bench/dataset/spec.ts).
  process.env.EXPLORER_CHAIN_ID = '38453';
  return 38_453;
});

const table = useTestTable('cold-routes');
const BUCKET = 'cold-routes-test';
const BLOCKS = 12;
const COLD_TO = 8;
const DAY = 86_400;
const COLD_HISTORY = { afterDays: 30, marginDays: 14 };
/** The first block's time: 10 days ago (whole seconds), a block every 2 s; the job and the TTL run in the days to come. */
const FIRST_TIMESTAMP = Math.floor(Date.now() / 1000) - 10 * DAY;
const blockTime = (number: number): number => FIRST_TIMESTAMP + (number - 1) * 2;
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const WETH = '0x4200000000000000000000000000000000000006';

let s3: LocalS3;
let store: ColdStore;
let requests: string[] = [];

/** The most frequent value of `pick` over the chain's transactions. */
function busiest<T>(values: T[]): T {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

beforeAll(async () => {
  s3 = await startLocalS3(BUCKET);
  store = s3ColdStore({ bucket: BUCKET, endpoint: s3.endpoint, credentials: s3.credentials });
  const { spec, chain } = await ingestedSmallBaseChain(BLOCKS, 30, undefined, {
    firstTimestamp: FIRST_TIMESTAMP,
    ingest: { coldHistory: COLD_HISTORY },
  });
  expect(spec.chainId).toBe(CHAIN);

  const txs = chain.blocks.flatMap((block) => block.txs.filter((tx) => !tx.deposit));
  const sender = busiest(txs.map((tx) => tx.from));
  const contract = busiest(txs.map((tx) => tx.to));
  const selector = busiest(txs.filter((tx) => tx.to === contract).map((tx) => tx.input.slice(0, 10)));
  const early = chain.blocks[2]!.txs.find((tx) => tx.logs.length > 0 && !tx.deposit)!;
  const pool = chain.pools[0]!;
  const explorer = [sender, contract, pool, WETH].flatMap((address) => [
    `/explorer/addresses/${address}/transactions`,
    `/explorer/addresses/${address}/transactions?filter=to`,
    `/explorer/addresses/${address}/token-transfers`,
    `/explorer/addresses/${address}/token-transfers?type=ERC-20&filter=from`,
    `/explorer/addresses/${address}/token-transfers?token=${WETH}`,
    `/explorer/addresses/${address}/internal-transactions`,
    `/explorer/addresses/${address}/transactions?sort=block_number&order=asc`,
  ]);
  const insights = ['desc', 'asc'].flatMap((order) =>
    [
      `/insights/v1/events/${WETH}?limit=15`,
      `/insights/v1/events/${WETH}/${TRANSFER}?limit=15`,
      `/insights/v1/events?filter_topic_0=${TRANSFER}&limit=15`,
      `/insights/v1/transactions/${contract}?limit=15`,
      `/insights/v1/transactions/${contract}/${selector}?limit=15`,
      `/insights/v1/tokens/transfers/${WETH}?limit=15`,
      `/insights/v1/tokens/transfers?owner_address=${sender}&limit=15`,
      `/insights/v1/wallets/${sender}/transactions?limit=15`,
    ].map((path) => `${path}&chain_id=${CHAIN}&sort_order=${order}`),
  );
  requests = [
    ...explorer,
    ...insights,
    `/insights/v1/tokens/transfers/transaction/${early.hash}?chain_id=${CHAIN}`,
    `/insights/v1/resolve/${early.hash}?chain_id=${CHAIN}`,
  ];
}, 120_000);

afterAll(async () => {
  useColdStore(undefined);
  await s3?.close();
});

/** A request's pages as a user reads them: next_page_params (explorer) or page numbers (insights), up to 6 pages. */
async function pagesOf(path: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  if (path.startsWith('/explorer/')) {
    let url = path;
    for (let page = 0; page < 6; page += 1) {
      const response = await requestJson('base', 'GET', url);
      pages.push({ status: response.status, body: response.body });
      const next = response.body?.next_page_params as Record<string, unknown> | null | undefined;
      if (response.status !== 200 || !next) break;
      const [base, query = ''] = path.split('?');
      const params = new URLSearchParams(query);
      for (const [name, value] of Object.entries(next)) params.set(name, String(value));
      url = `${base}?${params}`;
    }
    return pages;
  }
  for (let page = 0; page < 6; page += 1) {
    const response = await requestJson('base', 'GET', path.includes('limit=') ? `${path}&page=${page}` : path);
    pages.push({ status: response.status, body: response.body });
    if (response.status !== 200 || !Array.isArray(response.body?.data) || response.body.data.length === 0 || !path.includes('limit='))
      break;
  }
  return pages;
}

/** Milliseconds each table call and part read takes while round trips are measured (as in AWS, where latency dwarfs the CPU between calls). */
const LATENCY_MS = 15;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The round trips in sequence one page of `path` waits on (explorer: the first; insights: page 3), each
 * table call and part read taking LATENCY_MS, and the parts it read; `cold` the tier's store, if on.
 */
async function roundTripsOf(path: string, cold: ColdStore | undefined): Promise<{ depth: number; chain: string; parts: number }> {
  const reads: OtherCall[] = [];
  const timed: ColdStore | undefined = cold && {
    put: cold.put,
    read: async (key, offset, length) => {
      const call = { start: performance.now(), end: Number.POSITIVE_INFINITY, label: `GET part at ${offset}` };
      reads.push(call);
      try {
        await sleep(LATENCY_MS);
        return await cold.read(key, offset, length);
      } finally {
        call.end = performance.now();
      }
    },
  };
  useColdStore(timed);
  try {
    const url = path.includes('limit=') ? `${path}&page=3` : path;
    const { depth, path: chain } = await roundTripsInSequence(
      () =>
        observingTable(
          () => sleep(LATENCY_MS),
          () => requestJson('base', 'GET', url),
        ),
      reads,
    );
    return { depth, chain: chain.join(' -> '), parts: reads.length };
  } finally {
    useColdStore(cold);
  }
}

async function answers(): Promise<Map<string, unknown[]>> {
  const found = new Map<string, unknown[]>();
  for (const path of requests) found.set(path, await pagesOf(path));
  return found;
}

describe('the history routes with the older blocks cold', () => {
  it("give every page the all-hot table gave, once the compacted items are gone from it: the explorer's in two round trips, insights' in one more at most", async () => {
    const allHot = await answers();
    // The pages hold history: some requests have several pages of it.
    expect([...allHot.values()].filter((pages) => pages.length > 2).length).toBeGreaterThan(10);
    const hotTrips = new Map<string, number>();
    for (const path of requests) hotTrips.set(path, (await roundTripsOf(path, undefined)).depth);

    // The ingest stamped every history item, and only those, with the tier's expiry: 44 days past its block
    // (the manifests, which the job reads, are kept as long).
    const before = await tableSnapshot(table.name);
    const history = before.filter((item) => isHistoryRange(String(item.pk)));
    expect(history.length).toBeGreaterThan(500);
    for (const item of history) expect(item.ttl, `${item.pk} ${item.sk}`).toBeGreaterThanOrEqual(blockTime(1) + 44 * DAY);
    for (const item of history) expect(item.ttl, `${item.pk} ${item.sk}`).toBeLessThanOrEqual(blockTime(BLOCKS) + 44 * DAY);
    expect(before.filter((item) => !isHistoryRange(String(item.pk)) && item.ttl !== undefined && item.kind !== 'manifest')).toEqual([]);

    // The job, as the clock passes block 4's 30th day (spans of 2 blocks, parts of 5 entries: a range in
    // many parts), then block 8's (one span, parts of the default size).
    const job = { chainId: CHAIN, store, afterSeconds: COLD_HISTORY.afterDays * DAY };
    const first = await compactColdHistory({ ...job, spanBlocks: 2, partEntries: 5, now: () => (blockTime(4) + 30 * DAY) * 1000 + 500 });
    expect([first.from, first.to]).toEqual([undefined, 4]);
    const second = await compactColdHistory({ ...job, spanBlocks: 8, now: () => (blockTime(COLD_TO) + 30 * DAY) * 1000 + 500 });
    expect([second.from, second.to]).toEqual([4, COLD_TO]);

    // DynamoDB's TTL 44 days past block 8: every item whose expiry has passed is deleted (blocks 1 to 8's
    // history and their manifests, kept as long as the history).
    const expired = before.filter((item) => typeof item.ttl === 'number' && item.ttl <= blockTime(COLD_TO) + 44 * DAY);
    expect(expired.filter((item) => isHistoryRange(String(item.pk))).length).toBeGreaterThan(300);
    expect(expired.some((item) => item.kind === 'manifest')).toBe(true);
    await writeItems({ delete: expired.map((item) => ({ pk: item.pk, sk: item.sk }) as ItemKey) });

    // Without the tier, the table alone has lost what the pages showed.
    const tableAlone = await answers();
    expect(requests.filter((path) => JSON.stringify(tableAlone.get(path)) !== JSON.stringify(allHot.get(path))).length).toBeGreaterThan(20);

    useColdStore(store);
    const cold = await answers();
    for (const path of requests) expect(cold.get(path), path).toEqual(allHot.get(path));

    // A range read that reaches cold history waits on its parts' GETs once, after the table's Queries
    // that find them. The explorer's address tabs read what their entries join (address items, NFT
    // instances) in that same round trip, the parts' pointers naming it (table/joins.ts): two round trips,
    // as all hot (docs/decisions/cold-history.md, "Cold pages in two round trips"). Insights' pages wait
    // on one round trip more than all hot for each range read they make in sequence: a wallet's
    // transactions by page number make two (one end of the address's union, the positions that number its
    // pages, then the page). A transaction the table misses, looked up by hash (the resolver's), waits on
    // one more: its first part's pointer is asked for by key with it (table/cold-parts.ts FIRST_PART_SK),
    // then the part is read; it waited on two more before (the pointer's Query, then the part).
    let reachingParts = 0;
    let explorerReachingParts = 0;
    for (const path of requests) {
      const { depth, chain, parts } = await roundTripsOf(path, store);
      if (path.startsWith('/explorer/')) {
        expect(depth, `${path}: ${chain}`).toBeLessThanOrEqual(2);
        if (parts > 0) explorerReachingParts += 1;
      } else {
        const rangeReads = path.startsWith('/insights/v1/wallets/') ? 2 : 1;
        expect(depth, `${path}: ${chain}`).toBeLessThanOrEqual(hotTrips.get(path)! + (parts > 0 ? rangeReads : 0));
        if (path.startsWith('/insights/v1/resolve/')) {
          expect(parts, path).toBeGreaterThan(0);
          expect(depth, `${path}: ${chain}`).toBeLessThanOrEqual(2);
        }
      }
      if (parts > 0) reachingParts += 1;
    }
    expect(explorerReachingParts).toBeGreaterThan(10);
    expect(reachingParts).toBeGreaterThan(20);
  }, 300_000);

  it('say in the status which blocks are past their expiry and not compacted, and that indexing is not finished then', async () => {
    // As the first test left it: blocks 1 to 8 compacted, 9 to 12 hot (their items expire 44 days past them).
    const status = async () => (await requestJson('base', 'GET', `/insights/v1/chains/${CHAIN}/status`)).body.data;
    const explorer = async () => (await requestJson('base', 'GET', '/explorer/main-page/indexing-status')).body;
    expect((await status()).cold_history).toEqual({ compacted_to: COLD_TO, missing: null });
    const following = await explorer();
    expect(following.cold_history).toEqual({ compacted_to: COLD_TO, missing: null });
    expect(following.finished_indexing).toBe(following.state === 'following');
    // The node's head is not known to this ingest: the ratio is still a string, as Blockscout's frontend requires.
    expect(following.indexed_blocks_ratio).toBe(following.finished_indexing ? '1.00' : '0.00');

    // The job stopped: the clock passes block 10's expiry (44 days) with the cold cursor still at block 8.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime((blockTime(COLD_TO + 2) + 44 * DAY) * 1000 + 500);
      expect((await status()).cold_history).toEqual({ compacted_to: COLD_TO, missing: { from_block: COLD_TO + 1, to_block: COLD_TO + 2 } });
      const behind = await explorer();
      expect(behind.cold_history.missing).toEqual({ from_block: COLD_TO + 1, to_block: COLD_TO + 2 });
      expect(behind.finished_indexing).toBe(false);
      // Past the last block's expiry: every block the job has not compacted, up to the indexed head.
      vi.setSystemTime((blockTime(BLOCKS) + 100 * DAY) * 1000);
      expect((await status()).cold_history.missing).toEqual({ from_block: COLD_TO + 1, to_block: BLOCKS });
    } finally {
      vi.useRealTimers();
    }

    // The job catches up to block 10: only 11 and 12 are left missing.
    const job = { chainId: CHAIN, store, afterSeconds: COLD_HISTORY.afterDays * DAY, spanBlocks: 8 };
    const caughtUp = await compactColdHistory({ ...job, now: () => (blockTime(COLD_TO + 2) + 30 * DAY) * 1000 + 500 });
    expect(caughtUp.to).toBe(COLD_TO + 2);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime((blockTime(BLOCKS) + 44 * DAY) * 1000 + 500);
      expect((await status()).cold_history).toEqual({
        compacted_to: COLD_TO + 2,
        missing: { from_block: COLD_TO + 3, to_block: BLOCKS },
      });
    } finally {
      vi.useRealTimers();
    }
  }, 120_000);
});
