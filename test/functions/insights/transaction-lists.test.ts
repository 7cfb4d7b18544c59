/**
 * I10a (transactions of a contract, any function), I10b (transactions of a chain by recipient, sender
 * or selector) and I10c (a wallet's transactions) through the real handlers, on the two anvil chains of
 * the insights fixture ingested by the real ingest. Expected values come from the chains (viem).
 * Ids of endpoints and access patterns: see docs/access-patterns.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { useTestTable } from '../../support/table';
import { readRules, tableWorkOf } from '../../shared/insights/table-work';
import { allPages, itemsOf } from '../explorer/fixtures';
import { CHAIN_A, CHAIN_B, startInsightsFixture, type InsightsFixture } from './fixture';
import { readTruth, type ChainTransaction, type ChainTruth } from './truth';

useTestTable('insights-transaction-lists');
let fx: InsightsFixture;
let A: ChainTruth;
let B: ChainTruth;
let token: string;
/** Per chain: hash of the transaction that created each contract (lowercase address). */
const creations = new Map<number, Map<string, string>>();

beforeAll(async () => {
  fx = await startInsightsFixture();
  [A, B] = await Promise.all([readTruth(CHAIN_A, fx.a.client), readTruth(CHAIN_B, fx.b.client)]);
  token = fx.a.manifest.contracts.token.toLowerCase();
  for (const truth of [A, B]) {
    const created = new Map<string, string>();
    for (const tx of truth.transactions.filter((candidate) => candidate.to === null)) {
      const receipt = await truth.client.getTransactionReceipt({ hash: tx.hash });
      if (receipt.contractAddress) created.set(receipt.contractAddress.toLowerCase(), tx.hash);
    }
    creations.set(truth.chainId, created);
  }
}, 240_000);
afterAll(async () => fx?.stop());

type Params = Record<string, string | number | readonly (string | number)[]>;
function url(path: string, params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}
const get = (path: string, params: Params = {}) => requestJson('base', 'GET', url(path, params));
const lower = (text: string | null | undefined) => (text ?? '').toLowerCase();
const newestFirst = (txs: ChainTransaction[]) =>
  [...txs].sort((a, b) => Number(b.blockNumber! - a.blockNumber!) || b.transactionIndex! - a.transactionIndex!);
const hashes = (rows: { hash: string }[]) => rows.map((row) => row.hash);

/** Transactions sent to `contract` on a chain (`to_address` = the contract, so not its creation), newest first. */
function toContract(truth: ChainTruth, contract: string): ChainTransaction[] {
  return newestFirst(truth.transactions.filter((tx) => lower(tx.to) === contract));
}

/** The transaction that created `contract` on a chain (its own creation: no `to`). */
function creationOf(truth: ChainTruth, contract: string): ChainTransaction {
  const hash = creations.get(truth.chainId)?.get(contract);
  const creation = truth.transactions.find((tx) => tx.hash === hash);
  if (!creation) throw new Error(`no creation of ${contract} on chain ${truth.chainId}`);
  return creation;
}

describe('I10a GET /insights/v1/transactions/{contractAddress}', () => {
  it('lists every transaction sent to the contract on both chains, merged newest first, with exact totals', async () => {
    const want = [
      ...toContract(A, token).map((tx) => ({ tx, chain: CHAIN_A })),
      ...toContract(B, token).map((tx) => ({ tx, chain: CHAIN_B })),
    ];
    const { body, status } = await get(`/insights/v1/transactions/${token}`, { chain_id: [CHAIN_A, CHAIN_B], limit: 1000 });
    expect(status, body.error).toBe(200);
    expect(body.meta).toMatchObject({ chain_ids: [CHAIN_A, CHAIN_B], address: token, signature: '', total_items: want.length });
    expect(new Set(hashes(body.data))).toEqual(new Set(want.map((entry) => entry.tx.hash)));
    for (const row of body.data) expect(row.decoded).toBeNull();
    const rowsOfA = body.data.filter((row: { chain_id: string }) => row.chain_id === String(CHAIN_A));
    expect(hashes(rowsOfA)).toEqual(toContract(A, token).map((tx) => tx.hash));
  });

  it('pages at any page number with one page of items read, ascending and descending', async () => {
    const all = toContract(A, token);
    expect(all.length).toBeGreaterThan(6);
    for (const [order, expected] of [
      ['desc', all],
      ['asc', [...all].reverse()],
    ] as const) {
      const { result, usage } = await tableWorkOf(() =>
        get(`/insights/v1/transactions/${token}`, { chain_id: CHAIN_A, limit: 2, page: 2, sort_order: order }),
      );
      expect(hashes(result.body.data), order).toEqual(expected.slice(4, 6).map((tx) => tx.hash));
      expect(result.body.meta).toMatchObject({ total_items: all.length, total_pages: Math.ceil(all.length / 2) });
      expect(usage.calls.ScanCommand ?? 0).toBe(0);
    }
  });

  it('filter_function_selector reads I1’s range; filter_from_address checks the sender; filter_hash one transaction', async () => {
    const transfer = '0xa9059cbb';
    const calls = toContract(A, token).filter((tx) => tx.input.startsWith(transfer));
    expect(calls.length).toBeGreaterThan(0);
    const { result, requests } = await tableWorkOf(() =>
      get(`/insights/v1/transactions/${token}`, { chain_id: CHAIN_A, filter_function_selector: transfer, limit: 100 }),
    );
    expect(hashes(result.body.data)).toEqual(calls.map((tx) => tx.hash));
    expect(result.body.meta.signature).toBe(transfer);
    expect(requests.some((call) => JSON.stringify(call.input).includes('#CALLS#'))).toBe(true);

    const sender = lower(calls[0]!.from);
    const fromSender = await get(`/insights/v1/transactions/${token}`, { chain_id: CHAIN_A, filter_from_address: sender, limit: 100 });
    expect(hashes(fromSender.body.data)).toEqual(
      toContract(A, token)
        .filter((tx) => lower(tx.from) === sender)
        .map((tx) => tx.hash),
    );
    expect(fromSender.body.meta.total_items).toBe(fromSender.body.data.length);

    const one = await get(`/insights/v1/transactions/${token}`, { chain_id: CHAIN_A, filter_hash: calls[0]!.hash });
    expect(hashes(one.body.data)).toEqual([calls[0]!.hash]);
  });

  it('answers aggregates from the range: count and sum(value) by chain', async () => {
    const all = toContract(A, token);
    const { body } = await get(`/insights/v1/transactions/${token}`, { chain_id: CHAIN_A, aggregate: ['count() AS n'] });
    expect(body.aggregations).toEqual([[{ n: all.length }]]);
  });

  it('refuses unknown parameters with the filter list', async () => {
    const { status, body } = await get(`/insights/v1/transactions/${token}`, { chain_id: CHAIN_A, filter_topic_0: '0x01' });
    expect(status).toBe(400);
    expect(body.error).toMatch(/valid filter fields/);
  });
});

describe('a contract’s creation is not one of its transactions (Insight selects to_address = the contract)', () => {
  /** Contracts deployed by a transaction of their own, then called N times: chain A's token, chain B's sink. */
  const deployed = () => [
    { truth: A, contract: token },
    { truth: B, contract: lower(fx.b.sink) },
  ];
  const selectorOf = (tx: ChainTransaction) => tx.input.slice(0, 10).toLowerCase();
  const countBy = (txs: ChainTransaction[], key: (tx: ChainTransaction) => string | number) => {
    const counts = new Map<string | number, number>();
    for (const tx of txs) counts.set(key(tx), (counts.get(key(tx)) ?? 0) + 1);
    return counts;
  };
  const utcDay = (tx: ChainTransaction) => new Date(tx.timestamp * 1000).toISOString().slice(0, 10);

  it('lists and counts the N calls of a deployed contract, on I10a and I10b by recipient, on every page', async () => {
    for (const { truth, contract } of deployed()) {
      const calls = toContract(truth, contract);
      const creation = creationOf(truth, contract);
      expect(calls.length, contract).toBeGreaterThan(1);
      for (const [path, params] of [
        [`/insights/v1/transactions/${contract}`, {}],
        ['/insights/v1/transactions', { filter_to_address: contract }],
      ] as const) {
        const label = `${truth.chainId} ${path}`;
        const all = await get(path, { chain_id: truth.chainId, ...params, limit: 1000 });
        expect(all.status, all.body.error).toBe(200);
        expect(hashes(all.body.data), label).toEqual(calls.map((tx) => tx.hash));
        expect(all.body.meta.total_items, label).toBe(calls.length);
        // Page by page, both ways: the pages that would hold the creation (the oldest) hold the oldest calls.
        for (const order of ['desc', 'asc'] as const) {
          const paged: string[] = [];
          for (let page = 0; page * 2 < calls.length + 1; page++) {
            const { body } = await get(path, { chain_id: truth.chainId, ...params, limit: 2, page, sort_order: order });
            expect(body.meta, `${label} ${order} page ${page}`).toMatchObject({
              total_items: calls.length,
              total_pages: Math.ceil(calls.length / 2),
            });
            paged.push(...hashes(body.data));
          }
          expect(paged, `${label} ${order}`).toEqual((order === 'desc' ? calls : [...calls].reverse()).map((tx) => tx.hash));
        }
      }
      // The deployer's calls (a check on the sender inside the range), without its creation.
      const deployer = lower(creation.from);
      const byDeployer = await get(`/insights/v1/transactions/${contract}`, {
        chain_id: truth.chainId,
        filter_from_address: deployer,
        limit: 1000,
      });
      const deployerCalls = calls.filter((tx) => lower(tx.from) === deployer);
      expect(hashes(byDeployer.body.data)).toEqual(deployerCalls.map((tx) => tx.hash));
      expect(byDeployer.body.meta.total_items).toBe(deployerCalls.length);
      // Block bounds around the creation's block.
      const block = Number(creation.blockNumber);
      const bounded = await get(`/insights/v1/transactions/${contract}`, {
        chain_id: truth.chainId,
        filter_block_number_gte: block,
        filter_block_number_lte: block + 3,
        limit: 1000,
      });
      const inBlocks = calls.filter((tx) => Number(tx.blockNumber) >= block && Number(tx.blockNumber) <= block + 3);
      expect(hashes(bounded.body.data)).toEqual(inBlocks.map((tx) => tx.hash));
      expect(bounded.body.meta.total_items).toBe(inBlocks.length);
    }
  });

  /** Each deployed contract's calls and its aggregate answers on I10a. */
  async function eachDeployed(
    check: (calls: ChainTransaction[], aggregate: (params: Params) => Promise<unknown>, label: string) => Promise<void>,
  ) {
    for (const { truth, contract } of deployed()) {
      const aggregate = async (params: Params) => {
        const { status, body } = await get(`/insights/v1/transactions/${contract}`, { chain_id: truth.chainId, limit: 1000, ...params });
        expect(status, body.error).toBe(200);
        return body.aggregations[0];
      };
      await check(toContract(truth, contract), aggregate, `${truth.chainId} ${contract}`);
    }
  }

  it('aggregates N calls: the totals (count and sum from running totals, the dashboard’s count(block_number))', async () => {
    await eachDeployed(async (calls, aggregate, label) => {
      const value = calls.reduce((sum, tx) => sum + tx.value, 0n).toString();
      expect(await aggregate({ aggregate: ['count() AS n', 'sum(value) AS v'] }), label).toEqual([{ n: calls.length, v: value }]);
      expect(await aggregate({ aggregate: 'count(block_number) as total' }), label).toEqual([{ total: calls.length }]);
    });
  });

  it('aggregates N calls per function selector (the rows): no row for the init code’s first 4 bytes', async () => {
    await eachDeployed(async (calls, aggregate, label) => {
      const perSelector = [...countBy(calls, selectorOf)].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(await aggregate({ group_by: 'function_selector' }), label).toEqual(
        perSelector.map(([function_selector, count]) => ({ function_selector, count })),
      );
    });
  });

  it('aggregates N calls per day and per block (running totals), and per day and selector (the rows)', async () => {
    await eachDeployed(async (calls, aggregate, label) => {
      const perDay = [...countBy(calls, utcDay)].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(await aggregate({ group_by: 'day' }), label).toEqual(perDay.map(([day, count]) => ({ day, count })));
      const perBlock = [...countBy(calls, (tx) => Number(tx.blockNumber))].sort(([a], [b]) => Number(a) - Number(b));
      expect(await aggregate({ aggregate: 'intDiv(block_number, 1) AS b', group_by: 'b' }), label).toEqual(
        perBlock.map(([b, count]) => ({ b: Number(b), count })),
      );
      expect(await aggregate({ group_by: ['day', 'function_selector'] }), label).toEqual(
        [...countBy(calls, (tx) => `${utcDay(tx)} ${selectorOf(tx)}`)]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([key, count]) => ({ day: String(key).split(' ')[0], function_selector: String(key).split(' ')[1], count })),
      );
    });
  });

  it('looks the creation up beside the range’s first reads: a first page, a count and a per-day count in one round trip', async () => {
    const path = `/insights/v1/transactions/${token}`;
    await get(path, { chain_id: CHAIN_A, limit: 1 }); // (the chain registry, read once a minute)
    for (const params of [{ limit: 5 }, { aggregate: 'count()' }, { group_by: 'day' }] as Params[]) {
      const { result, requests } = await tableWorkOf(() => get(path, { chain_id: CHAIN_A, ...params }));
      expect(result.status, result.body.error).toBe(200);
      const rules = readRules(requests);
      expect(rules.roundTrips, JSON.stringify(params)).toBe(1);
      // Its own reads: the range's oldest entry (Limit 1) and the contract's address item; the page one entry more.
      expect(rules.queryItemsRead, JSON.stringify(params)).toBeLessThanOrEqual(8);
    }
  });

  it('the explorer’s address transactions (E4, Blockscout’s) still list the creation under the contract', async () => {
    const creation = creationOf(A, token);
    for (const filter of [undefined, 'to'] as const) {
      const listed = itemsOf(await allPages(token, 'transactions', filter ? { filter } : {})).map((tx: { hash: string }) => tx.hash);
      expect(listed, `filter ${filter}`).toContain(creation.hash);
      expect(listed.length).toBe(toContract(A, token).length + 1);
    }
  });
});

describe('I10b GET /insights/v1/transactions', () => {
  it('lists by sender, by recipient, by selector; with none of them a 400', async () => {
    const sender = lower(A.transactions.find((tx) => tx.to !== null)!.from);
    const fromSender = newestFirst(A.transactions.filter((tx) => lower(tx.from) === sender));
    const bySender = await get('/insights/v1/transactions', { chain_id: CHAIN_A, filter_from_address: sender, limit: 1000 });
    expect(bySender.status, bySender.body.error).toBe(200);
    expect(hashes(bySender.body.data)).toEqual(fromSender.map((tx) => tx.hash));
    expect(bySender.body.meta.total_items).toBe(fromSender.length);

    const byRecipient = await get('/insights/v1/transactions', { chain_id: CHAIN_A, filter_to_address: token, limit: 1000 });
    expect(hashes(byRecipient.body.data)).toEqual(toContract(A, token).map((tx) => tx.hash));

    const transfer = '0xa9059cbb';
    const calls = newestFirst(A.transactions.filter((tx) => tx.to !== null && tx.input.startsWith(transfer)));
    const bySelector = await get('/insights/v1/transactions', { chain_id: CHAIN_A, filter_function_selector: transfer, limit: 1000 });
    expect(hashes(bySelector.body.data)).toEqual(calls.map((tx) => tx.hash));
    expect(bySelector.body.meta.total_items).toBe(calls.length);

    const none = await get('/insights/v1/transactions', { chain_id: CHAIN_A });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/filter_to_address, filter_from_address or filter_function_selector/);
  });
});

describe('I10c GET /insights/v1/wallets/{wallet_address}/transactions', () => {
  it('lists the transactions from or to the wallet on both chains, with exact totals and paging', async () => {
    const wallet = lower(A.transactions.find((tx) => tx.to !== null)!.from);
    const mine = (truth: ChainTruth) =>
      newestFirst(truth.transactions.filter((tx) => lower(tx.from) === wallet || lower(tx.to) === wallet));
    const { body, status } = await get(`/insights/v1/wallets/${wallet}/transactions`, { chain_id: [CHAIN_A, CHAIN_B], limit: 1000 });
    expect(status, body.error).toBe(200);
    expect(body.meta).toMatchObject({ address: wallet, total_items: mine(A).length + mine(B).length });
    expect(new Set(hashes(body.data))).toEqual(new Set([...mine(A), ...mine(B)].map((tx) => tx.hash)));

    const page = await get(`/insights/v1/wallets/${wallet}/transactions`, { chain_id: CHAIN_A, limit: 3, page: 1 });
    expect(hashes(page.body.data)).toEqual(
      mine(A)
        .slice(3, 6)
        .map((tx) => tx.hash),
    );
  });
});

describe('I10d GET /insights/v1/events and I10e GET /insights/v1/events/{contractAddress}/{signature}', () => {
  const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  const logKey = (log: { transactionHash: string | null; logIndex: number | null }) => `${log.transactionHash}:${log.logIndex}`;
  const rowKey = (row: { transaction_hash: string; log_index: number }) => `${row.transaction_hash}:${row.log_index}`;

  it('I10d lists by topic 0 across contracts, by contract, by transaction; with none a 400', async () => {
    const logs = (await fx.a.client.getLogs({ fromBlock: 0n, toBlock: 'latest' })).sort(
      (a, b) => Number(b.blockNumber! - a.blockNumber!) || b.logIndex! - a.logIndex!,
    );
    const transfers = logs.filter((log) => log.topics[0] === TRANSFER);
    const byTopic = await get('/insights/v1/events', { chain_id: CHAIN_A, filter_topic_0: TRANSFER, limit: 1000 });
    expect(byTopic.status, byTopic.body.error).toBe(200);
    expect(byTopic.body.data.map(rowKey)).toEqual(transfers.map(logKey));
    expect(byTopic.body.meta.total_items).toBe(transfers.length);

    const ofToken = logs.filter((log) => lower(log.address) === token);
    const byContract = await get('/insights/v1/events', { chain_id: CHAIN_A, filter_address: token, limit: 2, page: 1 });
    expect(byContract.body.data.map(rowKey)).toEqual(ofToken.slice(2, 4).map(logKey));
    expect(byContract.body.meta).toMatchObject({ address: token, total_items: ofToken.length });

    const tx = transfers[0]!.transactionHash!;
    const byTransaction = await get('/insights/v1/events', { chain_id: CHAIN_A, filter_transaction_hash: tx, sort_order: 'asc' });
    expect(byTransaction.body.data.map(rowKey)).toEqual(
      logs
        .filter((log) => log.transactionHash === tx)
        .reverse()
        .map(logKey),
    );

    const none = await get('/insights/v1/events', { chain_id: CHAIN_A });
    expect(none.status).toBe(400);
  });

  it('I10e lists a contract’s events of one signature on both chains, decoded with it', async () => {
    const signature = 'Transfer(address indexed from, address indexed to, uint256 value)';
    const ofToken = async (truth: ChainTruth) =>
      (await truth.client.getLogs({ address: token as `0x${string}`, fromBlock: 0n, toBlock: 'latest' })).filter(
        (log) => log.topics[0] === TRANSFER,
      );
    const [onA, onB] = await Promise.all([ofToken(A), ofToken(B)]);
    const { status, body } = await get(`/insights/v1/events/${token}/${encodeURIComponent(signature)}`, {
      chain_id: [CHAIN_A, CHAIN_B],
      decode: 'true',
      limit: 1000,
    });
    expect(status, body.error).toBe(200);
    expect(body.meta).toMatchObject({ address: token, signature: TRANSFER, total_items: onA.length + onB.length });
    expect(new Set(body.data.map(rowKey))).toEqual(new Set([...onA, ...onB].map(logKey)));
    const first = body.data[0];
    expect(first.decoded).toMatchObject({ name: 'Transfer', signature: 'Transfer(address,address,uint256)' });
    expect(first.decoded.non_indexed_params.value).toBe(BigInt(first.data).toString());

    const byTopic = await get(`/insights/v1/events/${token}/${TRANSFER}`, { chain_id: CHAIN_A, limit: 1000 });
    expect(byTopic.body.meta.total_items).toBe(onA.length);
    const bad = await get(`/insights/v1/events/${token}/not-a-signature`, { chain_id: CHAIN_A });
    expect(bad.status).toBe(400);
  });
});
