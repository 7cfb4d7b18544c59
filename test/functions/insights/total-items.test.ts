/**
 * `total_items` is exact beyond the Select COUNT cap: with INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN at 3,
 * the lists of I1, I2, I3 and I5 still count every matching row of both anvil chains (ingested by the
 * real ingest, which numbers range entries with positions), with and without block bounds, from two
 * Limit-1 Queries per chain and no Select COUNT. Expected counts are read from the chains with viem.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { toEventSelector, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { blockKeys, logKeys, tokenTransferKeys, transactionKeys } from '../../../shared/table/keys';
import { queryRange } from '../../../shared/ingest/table-io';
import { useTestTable } from '../../support/table';
import { tableWorkOf } from '../../shared/insights/table-work';
import { CHAIN_A, CHAIN_B, requestOnColdStart, startInsightsFixture, type InsightsFixture } from './fixture';
import { callsTo, logsOf, readTruth, transfersOf, type ChainTransfer, type ChainTruth } from './truth';

useTestTable('insights-total-items');
const CAP = 3;
// Set before the first request: each handler module parses the configuration once, when it loads.
process.env.INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN = String(CAP);
let fx: InsightsFixture;
let truths: Record<number, ChainTruth>;
let token: string;
let busy: string;
let transfers: Record<number, ChainTransfer[]>;

beforeAll(async () => {
  fx = await startInsightsFixture();
  const [A, B] = await Promise.all([readTruth(CHAIN_A, fx.a.client), readTruth(CHAIN_B, fx.b.client)]);
  truths = { [CHAIN_A]: A, [CHAIN_B]: B };
  token = fx.a.manifest.contracts.token.toLowerCase();
  busy = fx.a.manifest.accounts.busy.toLowerCase();
  const { nft, multi } = fx.a.manifest.contracts;
  transfers = { [CHAIN_A]: await transfersOf(A, [token, nft, multi]), [CHAIN_B]: await transfersOf(B, [token]) };
});
afterAll(async () => fx?.stop());

const CHAINS = [CHAIN_A, CHAIN_B] as const;
const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');
const TRANSFER_SELECTOR = toFunctionSelector('transfer(address,uint256)');
const LIMIT = 4;

type Params = Record<string, string | number | readonly (string | number)[]>;
interface Bounds {
  from?: number;
  to?: number;
}
const within = (block: number, { from, to }: Bounds) => (from === undefined || block >= from) && (to === undefined || block <= to);
/** The block bounds every list is asked with: none, both, only a lower one, only an upper one. */
const BOUNDS: Bounds[] = [{}, { from: 5, to: 25 }, { from: 12 }, { to: 9 }];
const insightsBounds = ({ from, to }: Bounds): Params => ({
  ...(from === undefined ? {} : { filter_block_number_gte: from }),
  ...(to === undefined ? {} : { filter_block_number_lte: to }),
});
const transferBounds = ({ from, to }: Bounds): Params => ({
  ...(from === undefined ? {} : { block_number_from: from }),
  ...(to === undefined ? {} : { block_number_to: to }),
});

function url(path: string, params: Params): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  return `${path}?${search}`;
}

/** Whether a request has a lower block bound (a count then needs the position below it too). */
const lowerBound = (params: Params): boolean => params.filter_block_number_gte !== undefined || params.block_number_from !== undefined;

/**
 * Asks for the list on both chains and checks total_items and total_pages against the per-chain
 * truth, and that the counts were Limit-1 Queries of positions, `positionQueries` per chain: by
 * default two (one without a lower bound) for the list's one stored range.
 */
async function expectExactTotal(
  path: string,
  params: Params,
  expected: Record<number, number>,
  label: string,
  positionQueries: number | { total: number } = lowerBound(params) ? 2 : 1,
): Promise<void> {
  const { result, requests } = await tableWorkOf(() =>
    requestJson('base', 'GET', url(path, { chain_id: [...CHAINS], limit: LIMIT, ...params })),
  );
  expect(result.status, `${label}: ${JSON.stringify(result.body)}`).toBe(200);
  const total = expected[CHAIN_A] + expected[CHAIN_B];
  expect(total, `${label}: the truth exceeds the cap`).toBeGreaterThan(CAP);
  expect(result.body.meta.total_items, label).toBe(total);
  expect(result.body.meta.total_pages, label).toBe(Math.max(...CHAINS.map((chainId) => Math.ceil(expected[chainId] / LIMIT))));
  expect(
    requests.some((call) => call.input.Select === 'COUNT'),
    `${label}: no Select COUNT`,
  ).toBe(false);
  // A position is the range's last entry at or below a bound (range-seek.ts lastPosition); a union range's
  // is asked of both its members. (A bucketed range's Query is sent without its projection.)
  const counts = requests.filter(
    (call) =>
      call.input.Limit === 1 &&
      call.input.ScanIndexForward === false &&
      /^#pk = :pk(?: AND #sk <= :bound)?$/.test(String(call.input.KeyConditionExpression)),
  );
  expect(counts, label).toHaveLength(typeof positionQueries === 'number' ? positionQueries * CHAINS.length : positionQueries.total);
  for (const call of counts) expect(call.input, label).toMatchObject({ Limit: 1, ScanIndexForward: false });
}

/** Every stored entry of the range carries its 1-based position in sort-key order. */
async function expectNumbered(pk: string): Promise<void> {
  const entries = await queryRange({ pk });
  expect(entries.length, pk).toBeGreaterThan(0);
  expect(
    entries.map((entry) => entry.pos),
    pk,
  ).toEqual(entries.map((_, index) => index + 1));
}

const perChain = (count: (chainId: number) => number): Record<number, number> => ({ [CHAIN_A]: count(CHAIN_A), [CHAIN_B]: count(CHAIN_B) });

describe('total_items beyond the Select COUNT cap', () => {
  it('counts every block of both chains (I3)', async () => {
    for (const bounds of BOUNDS) {
      const expected = perChain((chainId) => truths[chainId].blocks.filter((block) => within(Number(block.number), bounds)).length);
      await expectExactTotal('/insights/v1/blocks', insightsBounds(bounds), expected, `blocks ${JSON.stringify(bounds)}`);
    }
    for (const chainId of CHAINS) await expectNumbered(blockKeys.blocksRange(chainId).pk);
  });

  it('counts every event of a contract, and of a contract with a topic0 (I2)', async () => {
    const logs = Object.fromEntries(
      await Promise.all(CHAINS.map(async (chainId) => [chainId, await logsOf(truths[chainId], token)] as const)),
    );
    for (const bounds of BOUNDS) {
      const all = perChain((chainId) => logs[chainId].filter((log) => within(Number(log.blockNumber), bounds)).length);
      await expectExactTotal(`/insights/v1/events/${token}`, insightsBounds(bounds), all, `events ${JSON.stringify(bounds)}`);
      const withTopic = perChain(
        (chainId) => logs[chainId].filter((log) => log.topics[0] === TRANSFER_TOPIC && within(Number(log.blockNumber), bounds)).length,
      );
      await expectExactTotal(
        `/insights/v1/events/${token}`,
        { filter_topic_0: TRANSFER_TOPIC, ...insightsBounds(bounds) },
        withTopic,
        `events topic0 ${JSON.stringify(bounds)}`,
      );
    }
    for (const chainId of CHAINS) {
      await expectNumbered(logKeys.contractLogs(chainId, token).pk);
      await expectNumbered(logKeys.contractLogsWithTopic0(chainId, token, TRANSFER_TOPIC).pk);
    }
  });

  it('counts every call of a contract with a function, also from one sender (I1)', async () => {
    const path = `/insights/v1/transactions/${token}/${encodeURIComponent('transfer(address to,uint256 amount)')}`;
    for (const bounds of BOUNDS) {
      const expected = perChain(
        (chainId) => callsTo(truths[chainId], token, TRANSFER_SELECTOR).filter((tx) => within(Number(tx.blockNumber), bounds)).length,
      );
      await expectExactTotal(path, insightsBounds(bounds), expected, `calls ${JSON.stringify(bounds)}`);
    }
    const fromBusy = perChain(
      (chainId) => callsTo(truths[chainId], token, TRANSFER_SELECTOR).filter((tx) => tx.from.toLowerCase() === busy).length,
    );
    await expectExactTotal(path, { filter_from_address: busy }, fromBusy, 'calls from busy');
    for (const chainId of CHAINS) await expectNumbered(transactionKeys.callsToContract(chainId, token, TRANSFER_SELECTOR, busy).pk);
  });

  it('counts every transfer of a token (I5c) and of an owner, in a type set or one token (I5a)', async () => {
    const touches = (transfer: ChainTransfer) => transfer.from === busy || transfer.to === busy;
    for (const bounds of BOUNDS) {
      const inBounds = (chainId: number) => transfers[chainId].filter((transfer) => within(transfer.blockNumber, bounds));
      const label = JSON.stringify(bounds);
      await expectExactTotal(
        `/insights/v1/tokens/transfers/${token}`,
        transferBounds(bounds),
        perChain((chainId) => inBounds(chainId).filter((t) => t.token === token).length),
        `token ${label}`,
      );
      // An owner's `all` range: the union of its `to` and `from` ranges, each position read from both.
      await expectExactTotal(
        '/insights/v1/tokens/transfers',
        { owner_address: busy, ...transferBounds(bounds) },
        perChain((chainId) => inBounds(chainId).filter(touches).length),
        `owner ${label}`,
        2 * (lowerBound(transferBounds(bounds)) ? 2 : 1),
      );
    }
    const ownerErc20 = perChain((chainId) => transfers[chainId].filter((t) => touches(t) && t.standard === 'erc20').length);
    await expectExactTotal('/insights/v1/tokens/transfers', { owner_address: busy, token_types: 'erc20' }, ownerErc20, 'owner erc20', 2);
    // Two token types: two single-standard unions per chain, each counted from its positions, summed: the
    // newest first page's first entry is the last at or below the upper bound, so only the position below
    // the lower bound is read (of both members of each union), after the pages.
    for (const bounds of BOUNDS) {
      const twoTypes = perChain(
        (chainId) => transfers[chainId].filter((t) => touches(t) && t.standard !== 'erc721' && within(t.blockNumber, bounds)).length,
      );
      // A union the page read to its end (no more than a page in bounds) is counted by that read.
      const counted = CHAINS.flatMap((chainId) =>
        ['erc20', 'erc1155'].filter(
          (standard) =>
            transfers[chainId].filter((t) => touches(t) && t.standard === standard && within(t.blockNumber, bounds)).length >= LIMIT,
        ),
      ).length;
      expect(counted, 'unions past a page').toBeGreaterThan(0);
      await expectExactTotal(
        '/insights/v1/tokens/transfers',
        { owner_address: busy, token_types: ['erc1155', 'erc20'], ...transferBounds(bounds) },
        twoTypes,
        `owner erc20+erc1155 ${JSON.stringify(bounds)}`,
        { total: lowerBound(transferBounds(bounds)) ? 2 * counted : 0 },
      );
    }
    const ownerInToken = perChain(
      (chainId) => transfers[chainId].filter((t) => touches(t) && t.token === token && t.blockNumber >= 3).length,
    );
    await expectExactTotal(
      '/insights/v1/tokens/transfers',
      { owner_address: busy, contract_address: token, block_number_from: 3 },
      ownerInToken,
      'owner in token',
      // One union per standard (the key carries the token's standard): without token_types, three, of
      // which two are empty (read to their end: counted by the read); the token's own is counted below
      // block 3, from both its members.
      2,
    );
    for (const chainId of CHAINS) {
      await expectNumbered(tokenTransferKeys.byToken(chainId, token).pk);
      await expectNumbered(tokenTransferKeys.byAddress(chainId, busy, 'all', 'ALL').pk);
      await expectNumbered(tokenTransferKeys.byAddress(chainId, busy, 'all', 'ERC-20').pk);
      if (chainId === CHAIN_A) await expectNumbered(tokenTransferKeys.byAddress(chainId, busy, 'all', 'ERC-1155').pk);
      await expectNumbered(tokenTransferKeys.byAddressAndToken(chainId, busy, 'all', token, 'ERC-20').pk);
    }
  });

  it('counts a read with checks exactly, in the same pass as its page (beyond the fallback cap); 400 past the read bound', async () => {
    const path = url(`/insights/v1/tokens/transfers/${token}`, { chain_id: CHAIN_A, transfer_type: 'transfer' });
    const { result, requests } = await tableWorkOf(() => requestJson('base', 'GET', path));
    expect(result.status).toBe(200);
    const rangeReads = requests.filter(
      (call) => (call.input.ExpressionAttributeValues as Record<string, unknown>)[':pk'] === tokenTransferKeys.byToken(CHAIN_A, token).pk,
    );
    expect(rangeReads, 'the range is read once (it fits one Query): no second pass to count').toHaveLength(1);
    const truth = transfers[CHAIN_A].filter(
      (t) =>
        t.token === token &&
        t.from !== '0x0000000000000000000000000000000000000000' &&
        t.to !== '0x0000000000000000000000000000000000000000',
    );
    expect(truth.length).toBeGreaterThan(CAP);
    expect(result.body.meta.total_items).toBe(truth.length);
    // The token's range holds every transfer of the token (mints too): fewer may not be examined.
    const range = transfers[CHAIN_A].filter((t) => t.token === token).length;
    const tooMany = await requestOnColdStart({ INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: String(range - 1) }, 'GET', path);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/narrow the block range/);
  });
});
