/**
 * I4 (resolve), I5a-c (token transfers), names, the event-ABI CLI and every kind of invalid input,
 * through the real handlers, on two anvil chains ingested by the real ingest. Expected values are
 * read from the chains with viem (truth.ts).
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { erc20Abi, toEventSelector, toFunctionSelector, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { tableSnapshot, useTestTable } from '../../support/table';
import { transactionKeys } from '../../../shared/table/keys';
import { MAX_BUCKET_ENTRIES } from '../../../shared/table/buckets';
import { tableWorkOf } from '../../shared/insights/table-work';
import { CHAIN_A, CHAIN_B, indexedHeads, startInsightsFixture, UNKNOWN_EVENT, type InsightsFixture } from './fixture';
import {
  callsTo,
  largest,
  readTruth,
  smallest,
  transfersOf,
  transferTypeOf,
  type ChainTransaction,
  type ChainTransfer,
  type ChainTruth,
} from './truth';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const table = useTestTable('insights-transfers');
let fx: InsightsFixture;
let A: ChainTruth;
let B: ChainTruth;
let token: string;
let transfers: Record<number, ChainTransfer[]>;

beforeAll(async () => {
  fx = await startInsightsFixture();
  [A, B] = await Promise.all([readTruth(CHAIN_A, fx.a.client), readTruth(CHAIN_B, fx.b.client)]);
  token = fx.a.manifest.contracts.token.toLowerCase();
  const { nft, multi } = fx.a.manifest.contracts;
  transfers = { [CHAIN_A]: await transfersOf(A, [token, nft, multi]), [CHAIN_B]: await transfersOf(B, [token]) };
});
afterAll(async () => fx?.stop());

type Params = Record<string, string | number | readonly (string | number)[]>;
function url(pathname: string, params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  const query = search.toString();
  return query ? `${pathname}?${query}` : pathname;
}
const get = (pathname: string, params: Params = {}) => requestJson('base', 'GET', url(pathname, params));
const BOTH = { chain_id: [CHAIN_A, CHAIN_B] };
const lower = (value: string | null | undefined) => (value ?? '').toLowerCase();
const truthOf = (chainId: number) => (chainId === CHAIN_A ? A : B);

/** A transfer as the API documents it. */
function expectedRow(transfer: ChainTransfer) {
  return {
    chain_id: transfer.chainId,
    block_number: String(transfer.blockNumber),
    block_hash: truthOf(transfer.chainId).blocks[transfer.blockNumber].hash,
    block_timestamp: String(transfer.timestamp),
    transaction_hash: transfer.transactionHash,
    log_index: transfer.logIndex,
    contract_address: transfer.token,
    from_address: transfer.from,
    to_address: transfer.to,
    transfer_type: transferTypeOf(transfer),
    token_type: transfer.standard,
    amount: transfer.amount.toString(),
    ...(transfer.tokenId === null ? {} : { token_id: transfer.tokenId.toString() }),
  };
}

const ids = (rows: { chain_id: number; transaction_hash: string; log_index: number; token_id?: string }[]) =>
  rows.map((row) => `${row.chain_id}/${row.transaction_hash}/${row.log_index}/${row.token_id ?? ''}`);
const idsOf = (list: ChainTransfer[]) => list.map((t) => `${t.chainId}/${t.transactionHash}/${t.logIndex}/${t.tokenId ?? ''}`);

// ---------------------------------------------------------------------------------------------------

describe('I5a: token transfers of an owner and / or a contract', () => {
  it('lists every transfer touching an owner on both chains, newest first, as the chains logged them', async () => {
    const busy = lower(fx.a.manifest.accounts.busy);
    const expected = [CHAIN_A, CHAIN_B].map((chainId) => transfers[chainId].filter((t) => t.from === busy || t.to === busy));
    const { status, body } = await get('/insights/v1/tokens/transfers', {
      ...BOTH,
      owner_address: fx.a.manifest.accounts.busy,
      limit: 1000,
    });
    expect(status).toBe(200);
    expect(body.meta).toEqual({
      chain_id: CHAIN_A,
      chain_ids: [CHAIN_A, CHAIN_B],
      address: busy,
      signature: '',
      page: 0,
      limit: 1000,
      total_items: expected[0].length + expected[1].length,
      total_pages: 1,
      indexed_heads: indexedHeads([CHAIN_A, CHAIN_B]),
    });
    expect(body.data).toEqual([...expected[0], ...expected[1]].map(expectedRow));
    expect(body.aggregations).toBeNull();
  });

  it('narrows by contract, token types, transfer type, block and time bounds, in either order', async () => {
    const alice = lower(fx.a.manifest.accounts.alice);
    const carol = lower(fx.a.manifest.accounts.carol);
    const nft = lower(fx.a.manifest.contracts.nft);
    const ofA = transfers[CHAIN_A];
    const check = async (params: Params, want: ChainTransfer[], pk?: string | string[], total = want.length) => {
      const { result, requests } = await tableWorkOf(() =>
        get('/insights/v1/tokens/transfers', { chain_id: CHAIN_A, limit: 1000, ...params }),
      );
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect(ids(result.body.data), JSON.stringify(params)).toEqual(idsOf(want));
      expect(result.body.meta.total_items).toBe(total);
      for (const end of pk === undefined ? [] : [pk].flat()) {
        // An `all` range is the union of the `to` and `from` ranges: read as both of them.
        const members = end.includes('#all') ? [end.replace('#all', '#to'), end.replace('#all', '#from')] : [end];
        for (const member of members) {
          expect(
            requests.some((call) => String((call.input.ExpressionAttributeValues as Record<string, string>)[':pk']).endsWith(member)),
            member,
          ).toBe(true);
        }
      }
    };
    const touches = (address: string) => (t: ChainTransfer) => t.from === address || t.to === address;
    await check(
      { owner_address: alice, contract_address: nft },
      ofA.filter(touches(alice)).filter((t) => t.token === nft),
      `#TT#all#TOKEN#${nft}:1`,
    );
    await check(
      { owner_address: alice, token_types: ['erc721', 'erc1155'] },
      ofA.filter(touches(alice)).filter((t) => t.standard !== 'erc20'),
      [`#A#${alice}#TT#all#ERC-721`, `#A#${alice}#TT#all#ERC-1155`],
    );
    await check(
      { owner_address: alice, token_types: 'erc1155,erc20' },
      ofA.filter(touches(alice)).filter((t) => t.standard !== 'erc721'),
      [`#A#${alice}#TT#all#ERC-20`, `#A#${alice}#TT#all#ERC-1155`],
    );
    await check(
      { owner_address: alice, token_types: 'erc20' },
      ofA.filter(touches(alice)).filter((t) => t.standard === 'erc20'),
    );
    await check(
      { owner_address: alice, transfer_type: 'mint' },
      ofA.filter((t) => t.to === alice && transferTypeOf(t) === 'mint'),
      `#A#${alice}#TT#to#ALL`,
    );
    await check(
      { owner_address: carol, transfer_type: 'burn' },
      ofA.filter((t) => t.from === carol && transferTypeOf(t) === 'burn'),
      `#A#${carol}#TT#from#ALL`,
    );
    await check(
      { owner_address: alice, transfer_type: 'transfer' },
      ofA.filter(touches(alice)).filter((t) => transferTypeOf(t) === 'transfer'),
    );
    await check(
      { contract_address: token, transfer_type: 'mint' },
      ofA.filter((t) => t.token === token && transferTypeOf(t) === 'mint'),
    );
    await check({ contract_address: nft, token_types: 'erc20' }, []);
    // Several contracts (thirdweb's client sends an array: repeated, or comma-joined): their ranges merged by block.
    const multi = lower(fx.a.manifest.contracts.multi);
    const ofTokens = (...tokens: string[]) => ofA.filter((t) => tokens.includes(t.token));
    await check({ contract_address: [token, nft] }, ofTokens(token, nft), [`#TT#${token}`, `#TT#${nft}`]);
    await check({ contract_address: `${nft},${multi}` }, ofTokens(nft, multi));
    await check({ contract_address: [token, token.toUpperCase().replace('0X', '0x')] }, ofTokens(token));
    await check({ owner_address: alice, contract_address: [nft, multi] }, ofTokens(nft, multi).filter(touches(alice)), [
      `#TT#all#TOKEN#${nft}:1`,
      `#TT#all#TOKEN#${multi}:2`,
    ]);
    const both = ofTokens(token, nft);
    await check({ contract_address: [token, nft], limit: 5, page: 2 }, both.slice(10, 15), undefined, both.length);
    const [from, to] = [20, 60];
    await check(
      { owner_address: alice, block_number_from: from, block_number_to: to },
      ofA.filter(touches(alice)).filter((t) => t.blockNumber >= from && t.blockNumber <= to),
    );
    await check({ owner_address: alice, sort_order: 'asc' }, ofA.filter(touches(alice)).reverse());
    const ofAlice = ofA.filter(touches(alice));
    await check({ owner_address: alice, limit: 4, page: 1 }, ofAlice.slice(4, 8), undefined, ofAlice.length);
    await check({ owner_address: alice, include_owners: 'true', limit: 3 }, ofAlice.slice(0, 3), undefined, ofAlice.length);
    const deprecated = await get('/insights/v1/tokens/transfers', { chain: CHAIN_A, owner_address: alice, block_number_to: 40 });
    expect(ids(deprecated.body.data)).toEqual(idsOf(ofAlice.filter((t) => t.blockNumber <= 40).slice(0, 20)));
    const ofB = transfers[CHAIN_B];
    const [t1, t2] = [ofB[5].timestamp, ofB[1].timestamp];
    const { body } = await get('/insights/v1/tokens/transfers', {
      chain_id: CHAIN_B,
      contract_address: token,
      block_timestamp_from: t1,
      block_timestamp_to: t2,
    });
    expect(ids(body.data)).toEqual(idsOf(ofB.filter((t) => t.timestamp >= t1 && t.timestamp <= t2)));
    expect(body.data.length).toBe(5);
  });

  it('pages an owner in two token types (two ranges merged per chain) by page number, with an exact total_items', async () => {
    const busy = lower(fx.a.manifest.accounts.busy);
    const types = ['erc20', 'erc1155'];
    const want = (chainId: number) => transfers[chainId].filter((t) => (t.from === busy || t.to === busy) && types.includes(t.standard));
    expect(new Set(want(CHAIN_A).map((t) => t.standard))).toEqual(new Set(types));
    const limit = 7;
    for (const sort_order of ['desc', 'asc'] as const) {
      const perChain = [CHAIN_A, CHAIN_B].map((chainId) => (sort_order === 'asc' ? [...want(chainId)].reverse() : want(chainId)));
      const pages = Math.max(...perChain.map((list) => Math.ceil(list.length / limit)));
      expect(pages).toBeGreaterThan(1);
      const seen: string[] = [];
      for (let page = 0; page <= pages; page += 1) {
        const params = { ...BOTH, owner_address: busy, token_types: types, limit, page, sort_order };
        const { result, requests } = await tableWorkOf(() => get('/insights/v1/tokens/transfers', params));
        expect(result.status, JSON.stringify(result.body)).toBe(200);
        // Each chain's rows: its slice of the two standards' listing, in order (limit and page are per chain).
        const slices = perChain.map((list) => list.slice(page * limit, (page + 1) * limit));
        const rows = result.body.data as { chain_id: number; transaction_hash: string; log_index: number; token_id?: string }[];
        expect(rows).toHaveLength(slices[0].length + slices[1].length);
        [CHAIN_A, CHAIN_B].forEach((chainId, index) => {
          expect(ids(rows.filter((row) => row.chain_id === chainId)), `chain ${chainId} page ${page} ${sort_order}`).toEqual(
            idsOf(slices[index]),
          );
        });
        expect(result.body.meta).toMatchObject({ total_items: perChain[0].length + perChain[1].length, total_pages: pages, page, limit });
        seen.push(...ids(result.body.data));
        for (const chainId of [CHAIN_A, CHAIN_B]) {
          for (const standard of ['ERC-20', 'ERC-1155']) {
            // The owner's `all` range of the standard: the union of its `to` and `from` ranges, both read.
            for (const direction of ['to', 'from']) {
              const pk = `C#${chainId}#A#${busy}#TT#${direction}#${standard}`;
              expect(
                requests.some((call) => (call.input.ExpressionAttributeValues as Record<string, string> | undefined)?.[':pk'] === pk),
                pk,
              ).toBe(true);
            }
          }
        }
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.sort()).toEqual(idsOf([...perChain[0], ...perChain[1]]).sort());
    }
  });

  it('adds token metadata read from the address items with one BatchGetItem', async () => {
    const alice = fx.a.manifest.accounts.alice;
    const { result, usage, requests } = await tableWorkOf(() =>
      get('/insights/v1/tokens/transfers', { ...BOTH, owner_address: alice, metadata: 'true', limit: 1000 }),
    );
    expect(usage.calls.BatchGetItemCommand).toBe(1);
    const registry = (call: { input: Record<string, unknown> }) =>
      (call.input.ExpressionAttributeValues as Record<string, string> | undefined)?.[':pk'] === 'CHAINS';
    // Per chain: the page and its count (one position), each of the owner's `all` union: of its two members.
    expect(requests.filter((call) => call.command === 'QueryCommand' && !registry(call))).toHaveLength(8);
    const read = async (chainId: number, address: string, functionName: 'name' | 'symbol' | 'decimals') => {
      try {
        const value = await truthOf(chainId).client.readContract({ address: address as Address, abi: erc20Abi, functionName });
        return functionName === 'decimals' ? Number(value) : value;
      } catch {
        return null;
      }
    };
    const standards = new Set<string>();
    for (const row of result.body.data) {
      standards.add(row.token_type);
      const decimals = row.token_type === 'erc20' ? await read(row.chain_id, row.contract_address, 'decimals') : null;
      expect(row.token_metadata, row.contract_address).toEqual({
        name: await read(row.chain_id, row.contract_address, 'name'),
        symbol: await read(row.chain_id, row.contract_address, 'symbol'),
        decimals,
      });
    }
    expect([...standards].sort()).toEqual(['erc1155', 'erc20', 'erc721']);
    expect(result.body.data.some((row: { token_metadata: { symbol: string } }) => row.token_metadata.symbol === 'DEMO')).toBe(true);
    const without = await get('/insights/v1/tokens/transfers', { chain_id: CHAIN_A, owner_address: alice, limit: 1 });
    expect(without.body.data[0]).not.toHaveProperty('token_metadata');
    expect(without.body.data[0]).not.toHaveProperty('price_data');
  });
});

describe('I5b and I5c: token transfers of a transaction and of a contract', () => {
  it("lists a transaction's transfers by log index, flattening batches, filtered by token type", async () => {
    for (const hash of [fx.a.manifest.highlights.batchTransfer.hash, fx.a.manifest.highlights.tokenViaContract.hash]) {
      const expected = transfers[CHAIN_A].filter((t) => t.transactionHash === hash).reverse();
      expect(expected.length).toBeGreaterThan(1);
      const { body } = await get(`/insights/v1/tokens/transfers/transaction/${hash}`, BOTH);
      expect(body.data).toEqual(expected.map(expectedRow));
      expect(body.meta).toMatchObject({ chain_ids: [CHAIN_A, CHAIN_B], total_items: expected.length, address: '' });
      const desc = await get(`/insights/v1/tokens/transfers/transaction/${hash.toUpperCase().replace('0X', '0x')}`, {
        chain_id: CHAIN_A,
        sort_order: 'desc',
      });
      expect(ids(desc.body.data)).toEqual(idsOf([...expected].reverse()));
      const standard = expected[0].standard;
      const same = await get(`/insights/v1/tokens/transfers/transaction/${hash}`, { chain_id: CHAIN_A, token_types: standard });
      expect(same.body.data).toHaveLength(expected.length);
      const other = await get(`/insights/v1/tokens/transfers/transaction/${hash}`, {
        chain_id: CHAIN_A,
        token_types: standard === 'erc20' ? 'erc721' : 'erc20',
      });
      expect(other.body.data).toEqual([]);
    }
  });

  it("pages a transaction's transfers by page number with an exact total, reading nothing twice", async () => {
    const hash = fx.a.manifest.highlights.batchTransfer.hash;
    const expected = transfers[CHAIN_A].filter((t) => t.transactionHash === hash).reverse();
    expect(expected.length).toBeGreaterThan(2);
    // The whole transaction in one page: one Query, no count (the page reached the partition's end).
    const whole = await tableWorkOf(() => get(`/insights/v1/tokens/transfers/transaction/${hash}`, { chain_id: CHAIN_A }));
    expect(whole.result.body.meta.total_items).toBe(expected.length);
    // (The chains' registry, kept per container for a few seconds, may be read beside it on a slow run.)
    const ofTransaction = (call: { command: string; input: Record<string, unknown> }) =>
      call.command === 'QueryCommand' &&
      (call.input.ExpressionAttributeValues as Record<string, unknown>)[':pk'] === transactionKeys.transaction(CHAIN_A, hash).pk;
    expect(whole.requests.filter(ofTransaction)).toHaveLength(1);
    expect(whole.requests.filter((call) => call.command === 'QueryCommand' && !ofTransaction(call)).length).toBeLessThanOrEqual(1);
    // Its transfers are one bucket of its partition (shared/table/buckets.ts): fewer items than transfers.
    expect(whole.usage.itemsRead).toBe(Math.ceil(expected.length / MAX_BUCKET_ENTRIES));
    // Pages of 2: every page, and the total from a count of what follows the page.
    const limit = 2;
    for (let page = 0; page * limit < expected.length + limit; page += 1) {
      const { result, usage } = await tableWorkOf(() =>
        get(`/insights/v1/tokens/transfers/transaction/${hash}`, { chain_id: CHAIN_A, limit, page }),
      );
      expect(result.body.data, `page ${page}`).toEqual(expected.slice(page * limit, (page + 1) * limit).map(expectedRow));
      expect(result.body.meta, `page ${page}`).toMatchObject({
        total_items: expected.length,
        total_pages: Math.ceil(expected.length / limit),
      });
      expect(usage.itemsRead, `page ${page}: its items and those before it, counted once`).toBeLessThanOrEqual(expected.length + 1);
    }
  });

  it("lists a contract's transfers on both chains by address or by its registered name", async () => {
    const expected = [CHAIN_A, CHAIN_B].map((chainId) => transfers[chainId].filter((t) => t.token === token));
    for (const contract of [fx.a.manifest.contracts.token, 'DEMO', 'demo']) {
      const { body } = await get(`/insights/v1/tokens/transfers/${contract}`, { ...BOTH, limit: 10 });
      expect(body.meta).toEqual({
        chain_id: CHAIN_A,
        chain_ids: [CHAIN_A, CHAIN_B],
        address: token,
        signature: '',
        page: 0,
        limit: 10,
        total_items: expected[0].length + expected[1].length,
        total_pages: Math.ceil(expected[0].length / 10),
        indexed_heads: indexedHeads([CHAIN_A, CHAIN_B]),
      });
      expect(body.data).toEqual([...expected[0].slice(0, 10), ...expected[1].slice(0, 10)].map(expectedRow));
    }
    const burns = await get(`/insights/v1/tokens/transfers/${token}`, {
      chain_id: CHAIN_B,
      transfer_type: 'burn',
      block_number_from: 1,
      sort_order: 'asc',
    });
    expect(ids(burns.body.data)).toEqual(idsOf(expected[1].filter((t) => transferTypeOf(t) === 'burn').reverse()));
    const unknown = await get('/insights/v1/tokens/transfers/NOPE', BOTH);
    expect(unknown).toMatchObject({ status: 404, body: { error: expect.stringMatching(/NOPE/) } });
    // A name on two chains is one key, the name across chains (N11), which exists: no key per chain.
    const { requests } = await tableWorkOf(() => get('/insights/v1/tokens/transfers/DEMO', { ...BOTH, limit: 10 }));
    const keysAsked = requests
      .filter((call) => call.command === 'BatchGetItemCommand')
      .flatMap((call) => Object.values(call.input.RequestItems as Record<string, { Keys: { pk: string; sk: string }[] }>))
      .flatMap((request) => request.Keys.map((key) => `${key.pk}|${key.sk}`));
    expect(keysAsked).toEqual(['NAME#demo|CHAINS']);
  });

  it('aggregates amounts exactly per transfer type and token type, checked against the chains', async () => {
    const { body } = await get(`/insights/v1/tokens/transfers/${token}`, {
      ...BOTH,
      aggregate: [
        'count() AS n',
        'sum(amount) AS total',
        'avg(amount) AS mean',
        'min(amount) AS least',
        'max(amount) AS most',
        'count(distinct to_address) AS receivers',
      ],
      group_by: ['transfer_type', 'token_type'],
    });
    const expectedFor = (list: ChainTransfer[]) => {
      const groups = new Map<string, ChainTransfer[]>();
      for (const t of list.filter((entry) => entry.token === token))
        groups.set(transferTypeOf(t), [...(groups.get(transferTypeOf(t)) ?? []), t]);
      return [...groups]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([type, group]) => {
          const total = group.reduce((sum, t) => sum + t.amount, 0n);
          const n = BigInt(group.length);
          const mean = total % n === 0n ? (total / n).toString() : undefined;
          return {
            transfer_type: type,
            token_type: 'erc20',
            n: group.length,
            total: total.toString(),
            ...(mean ? { mean } : {}),
            least: group
              .map((t) => t.amount)
              .reduce(smallest)
              .toString(),
            most: group
              .map((t) => t.amount)
              .reduce(largest)
              .toString(),
            receivers: new Set(group.map((t) => t.to)).size,
          };
        });
    };
    const [rowsA, rowsB] = body.aggregations;
    for (const [rows, expected] of [
      [rowsA, expectedFor(transfers[CHAIN_A])],
      [rowsB, expectedFor(transfers[CHAIN_B])],
    ] as const) {
      expect(rows).toHaveLength(expected.length);
      rows.forEach((row: Record<string, string | number>, index: number) => {
        expect(row).toMatchObject(expected[index]);
        // avg: the exact quotient (at most 18 fraction digits): mean * n is within n * 10^-18 of the sum.
        const [whole, fraction = ''] = String(row.mean).split('.');
        const scaled = BigInt(whole + fraction.padEnd(18, '0')) * BigInt(row.n);
        expect(BigInt(expected[index].total) * 10n ** 18n - scaled).toBeLessThan(BigInt(row.n));
      });
    }
    expect(body.data).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('I4: resolve', () => {
  const resolve = (input: string, params: Params = BOTH) => get(`/insights/v1/resolve/${encodeURIComponent(input)}`, params);
  const latest = (truth: ChainTruth, keep: (tx: ChainTransaction) => boolean) =>
    truth.transactions
      .filter(keep)
      .sort((a, b) => Number(b.blockNumber! - a.blockNumber!))
      .slice(0, 20);
  const merged = (...lists: ChainTransaction[][]) =>
    lists
      .flat()
      .sort((a, b) => Number(b.blockNumber! - a.blockNumber!))
      .map((tx) => tx.hash);
  const txHashes = (body: { data: { transactions: { hash: string }[] } }) => body.data.transactions.map((tx) => tx.hash);

  it('resolves a block number, a block hash and a transaction hash', async () => {
    const number = await resolve('5');
    expect(number.body.data.type).toBe('block');
    expect(number.body.data.blocks.map((block: { chain_id: number; block_hash: string }) => [block.chain_id, block.block_hash])).toEqual([
      [CHAIN_A, A.blocks[5].hash],
      [CHAIN_B, B.blocks[5].hash],
    ]);
    expect(number.body.meta).toMatchObject({ chain_ids: [CHAIN_A, CHAIN_B], total_items: 2, limit_per_chain: 20 });
    const blockHash = await resolve(B.blocks[9].hash!);
    expect(blockHash.body.data).toMatchObject({ type: 'block', transactions: [], events: [] });
    expect(
      blockHash.body.data.blocks.map((block: { block_number: number; chain_id: number }) => [block.chain_id, block.block_number]),
    ).toEqual([[CHAIN_B, 9]]);
    const tx = A.transactions[30];
    const byTx = await resolve(tx.hash);
    expect(byTx.body.data.type).toBe('transaction');
    expect(byTx.body.data.transactions).toEqual([
      expect.objectContaining({ hash: tx.hash, chain_id: String(CHAIN_A), block_number: Number(tx.blockNumber), data: tx.input }),
    ]);
    expect(byTx.body.data.transactions[0]).not.toHaveProperty('decoded');
    const nothing = await resolve(`0x${'ab'.repeat(32)}`);
    expect(nothing.body.data).toEqual({ type: 'unknown', blocks: [], transactions: [], events: [], address: '' });
  });

  it('resolves a topic0 and an event signature to the latest events with it', async () => {
    const topic0 = toEventSelector('Transfer(address,address,uint256)');
    const logsOn = async (truth: ChainTruth) =>
      (await truth.client.getLogs({ fromBlock: 0n, toBlock: 'latest' }))
        .filter((log) => log.topics[0] === topic0)
        .sort((a, b) => Number(b.blockNumber! - a.blockNumber!) || b.logIndex! - a.logIndex!)
        .slice(0, 20);
    const expected = [...(await logsOn(A)), ...(await logsOn(B))]
      .sort((a, b) => Number(b.blockNumber! - a.blockNumber!) || b.logIndex! - a.logIndex!)
      .map((log) => `${log.blockNumber}/${log.logIndex}/${lower(log.address)}`);
    for (const input of [
      topic0,
      'Transfer(address,address,uint256)',
      'event Transfer(address indexed from, address indexed to, uint256 value)',
    ]) {
      const { body } = await resolve(input);
      expect(body.data.type, input).toBe('event_signature');
      expect(body.meta.signature).toBe(topic0);
      expect(
        body.data.events.map(
          (event: { block_number: number; log_index: number; address: string }) =>
            `${event.block_number}/${event.log_index}/${event.address}`,
        ),
      ).toEqual(expected);
    }
  });

  it('resolves a selector and a function signature to the latest calls with it', async () => {
    const selector = toFunctionSelector('transfer(address,uint256)');
    const expected = merged(callsTo(A, token, selector).slice(0, 20), callsTo(B, token, selector).slice(0, 20));
    for (const input of [selector, 'transfer(address,uint256)', 'transfer(address to, uint256 amount)']) {
      const { body } = await resolve(input);
      expect(body.data.type, input).toBe('function_signature');
      expect(body.meta.signature).toBe(selector);
      expect(txHashes(body)).toEqual(expected);
    }
    const unused = await resolve('0x12345678');
    expect(unused.body.data).toMatchObject({ type: 'function_signature', transactions: [] });
  });

  it('resolves a contract (also by its name) to calls to it, and an account to what it sent', async () => {
    const created = async (truth: ChainTruth, address: string) => {
      const creations = truth.transactions.filter((tx) => tx.to === null);
      const receipts = await Promise.all(creations.map((tx) => truth.client.getTransactionReceipt({ hash: tx.hash })));
      return new Set(creations.filter((_, index) => lower(receipts[index].contractAddress) === address).map((tx) => tx.hash));
    };
    const createdA = await created(A, token);
    const createdB = await created(B, token);
    const toToken = merged(
      latest(A, (tx) => lower(tx.to) === token || createdA.has(tx.hash)),
      latest(B, (tx) => lower(tx.to) === token || createdB.has(tx.hash)),
    );
    for (const input of [fx.a.manifest.contracts.token, 'DEMO']) {
      const { body } = await resolve(input);
      expect(body.data.type, input).toBe('contract');
      expect(body.data.address).toBe(token);
      expect(txHashes(body)).toEqual(toToken);
    }
    const carol = lower(fx.a.manifest.accounts.carol);
    const account = await resolve(fx.a.manifest.accounts.carol);
    expect(account.body.data).toMatchObject({ type: 'address', address: carol });
    expect(txHashes(account.body)).toEqual(
      merged(
        latest(A, (tx) => lower(tx.from) === carol),
        latest(B, (tx) => lower(tx.from) === carol),
      ),
    );
    expect(account.body.data.transactions.length).toBeGreaterThan(0);
  });

  it('answers unknown for anything else and 400 for an empty input', async () => {
    for (const input of ['hello', 'not a thing', '0x1234', 'Transfer']) {
      const { status, body } = await resolve(input);
      expect(status, input).toBe(200);
      expect(body.data, input).toEqual({ type: 'unknown', blocks: [], transactions: [], events: [], address: '' });
    }
    const blank = await resolve(' ');
    expect(blank).toMatchObject({ status: 400, body: { error: expect.stringMatching(/input/) } });
    const missing = await get('/insights/v1/resolve', BOTH);
    expect(missing).toMatchObject({ status: 400, body: { error: expect.stringMatching(/input: must not be empty/) } });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('the event ABI registry CLI', () => {
  function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/abi-registry.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, TABLE_NAME: table.name },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('adds an event ABI to the table, after which decode=true decodes the event', async () => {
    const emitter = fx.b.emitters[2];
    const unknown = fx.b.logs.filter((log) => log.event === UNKNOWN_EVENT);
    const rowsOf = async () => {
      const { result, usage } = await tableWorkOf(() =>
        get(`/insights/v1/events/${emitter}`, {
          chain_id: CHAIN_B,
          decode: 'true',
          filter_topic_0: toEventSelector(UNKNOWN_EVENT),
          sort_order: 'asc',
        }),
      );
      expect(usage.calls.BatchGetItemCommand).toBe(1); // registry + the >1 KB data together
      return result.body.data as { decoded: unknown; data: Hex }[];
    };
    expect((await rowsOf()).map((row) => row.decoded)).toEqual([null, null]);

    const bad = await runCli(['add', 'event Pinged(address indexed who, uint64 round, strin note)']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not an event ABI/);
    const added = await runCli(['add', 'event Pinged(address indexed who, uint64 round, string note)']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      topic0: toEventSelector(UNKNOWN_EVENT),
      signature: 'Pinged(address,uint64,string)',
      source: 'table',
    });
    const again = await runCli(['add', 'Pinged(address indexed who, uint64 round, string note)']);
    expect(again.code).toBe(0);
    const listed = await runCli(['list', 'Pinged(address,uint64,string)']);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1); // added twice, stored once

    const rows = await rowsOf();
    expect(rows.map((row) => row.decoded)).toEqual(
      unknown.map((log) => ({
        name: 'Pinged',
        signature: 'Pinged(address,uint64,string)',
        indexed_params: { who: lower(log.args.who as string) },
        non_indexed_params: { round: String(log.args.round), note: log.args.note },
      })),
    );
    expect(rows[1].data).toBe(unknown[1].data);
    const builtIn = await runCli(['list', toEventSelector('Transfer(address,address,uint256)')]);
    expect(
      builtIn.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).source),
    ).toEqual(['built-in', 'built-in']);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('invalid input', () => {
  it('answers every invalid request with a 400 (or 404) in the insights format and changes nothing', async () => {
    const before = await tableSnapshot(table.name);
    const t = `/insights/v1/transactions/${token}/transfer(address,uint256)`;
    const cases: [string, Params, number, RegExp][] = [
      ['/insights/v1/blocks', {}, 400, /chain_id: at least one chain is required/],
      ['/insights/v1/blocks', { chain_id: Array.from({ length: 56 }, (_, i) => i + 1) }, 400, /at most 55 chains/],
      ['/insights/v1/blocks', { chain_id: 'abc' }, 400, /chain_id: must be positive integers/],
      ['/insights/v1/blocks', { chain_id: 0 }, 400, /chain_id: must be positive integers/],
      ['/insights/v1/blocks', { chain_id: 1 }, 404, /chain 1 is not indexed/],
      ['/insights/v1/blocks', { chain_id: [CHAIN_A, 10, 137] }, 404, /chain 10, 137 are not indexed/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, limit: 0 }, 400, /limit: must be an integer from 1 to 1000/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, limit: 1001 }, 400, /limit: must be an integer from 1 to 1000/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, limit: 'ten' }, 400, /limit/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, page: -1 }, 400, /page: must be an integer from 0 to 1000000000/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, page: 1_000_000_001 }, 400, /page: must be an integer from 0 to 1000000000/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, page: '1e3' }, 400, /page: must be an integer/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, sort_order: 'up' }, 400, /sort_order: must be asc or desc/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, sort_by: 'gas_used' }, 400, /sort_by: must be block_number/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, filter_block_number: 'x' }, 400, /filter_block_number: must be a non-negative integer/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, filter_hash: '0x12' }, 400, /filter_hash: must be 0x followed by 64 hex digits/],
      [
        '/insights/v1/blocks',
        { chain_id: CHAIN_A, filter_miner: '0x0' },
        400,
        /filter_miner: unknown parameter; valid filter fields: block_number \(also _gte, _gt, _lte, _lt\), block_timestamp .*, hash;/,
      ],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, filter_hash_gte: `0x${'0'.repeat(64)}` }, 400, /filter_hash_gte: unknown parameter/],
      [t, { chain_id: CHAIN_A, filter_value_gte: '1.5' }, 400, /filter_value_gte: must be a non-negative decimal integer/],
      [t, { chain_id: CHAIN_A, filter_from_address: 'alice' }, 400, /filter_from_address: must be 0x followed by 40 hex digits/],
      [t, { chain_id: CHAIN_A, decode: 'maybe' }, 400, /decode: must be true or false/],
      [t, { chain_id: CHAIN_A, filter_topic_0: '0x1' }, 400, /filter_topic_0: unknown parameter; valid filter fields: .*from_address/],
      [`/insights/v1/transactions/${token}/transfer(address`, { chain_id: CHAIN_A }, 400, /signature: must be a function signature/],
      [
        `/insights/v1/transactions/${token}/${encodeURIComponent("transfer(address,uint256)'; DROP TABLE x; --")}`,
        { chain_id: CHAIN_A },
        400,
        /signature/,
      ],
      [
        `/insights/v1/events/${encodeURIComponent("' OR 1=1")}`,
        { chain_id: CHAIN_A },
        400,
        /contractAddress: must be a 0x address .* or a registered name/,
      ],
      [`/insights/v1/events/${encodeURIComponent("DEMO'--")}`, { chain_id: CHAIN_A }, 404, /no address is registered under the name/],
      [
        `/insights/v1/events/${token}`,
        { chain_id: CHAIN_A, filter_topic_1: '0xzz' },
        400,
        /filter_topic_1: must be 0x followed by 1 to 64 hex digits/,
      ],
      [`/insights/v1/events/${token}`, { chain_id: CHAIN_A, filter_topic_2: `0x${'1'.repeat(65)}` }, 400, /filter_topic_2/],
      ['/insights/v1/tokens/transfers', { chain_id: CHAIN_A }, 400, /owner_address or contract_address is required/],
      [
        '/insights/v1/tokens/transfers',
        { chain_id: CHAIN_A, contract_address: Array.from({ length: 11 }, (_, i) => `0x${String(i).padStart(40, '0')}`) },
        400,
        /contract_address: at most 10 contracts per request/,
      ],
      [
        '/insights/v1/tokens/transfers',
        { chain_id: CHAIN_A, owner_address: token, token_types: 'erc777' },
        400,
        /token_types: must be erc20, erc721 or erc1155/,
      ],
      [
        '/insights/v1/tokens/transfers',
        { chain_id: CHAIN_A, owner_address: token, transfer_type: 'swap' },
        400,
        /transfer_type: must be mint, transfer or burn/,
      ],
      [
        '/insights/v1/tokens/transfers',
        { chain_id: CHAIN_A, owner_address: token, block_timestamp_from: 0 },
        400,
        /block_timestamp_from: must be an integer greater than 0/,
      ],
      [
        '/insights/v1/tokens/transfers',
        { chain_id: CHAIN_A, owner_address: token, metadata: 'yes' },
        400,
        /metadata: must be true or false/,
      ],
      [
        '/insights/v1/tokens/transfers',
        { chain_id: CHAIN_A, owner: token },
        400,
        /owner: unknown parameter; other parameters: .*owner_address/,
      ],
      [
        '/insights/v1/tokens/transfers',
        { chain_id: CHAIN_A, owner_address: 'NOPE' },
        404,
        /owner_address: no address is registered under the name NOPE on chain 31337/,
      ],
      [
        '/insights/v1/tokens/transfers/transaction/0x1234',
        { chain_id: CHAIN_A },
        400,
        /transaction_hash: must be 0x followed by 64 hex digits/,
      ],
      // aggregate, group_by and sort_by: only the grammar's names, never text to evaluate
      ['/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: 'count(); DROP TABLE chain' }, 400, /aggregate: unexpected character ";"/],
      [
        '/insights/v1/blocks',
        { chain_id: CHAIN_A, aggregate: 'sum(gas_used) AS t UNION SELECT' },
        400,
        /aggregate: expected "," or the end/,
      ],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: 'sum(pk)' }, 400, /unknown field; valid fields:/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: "count() AS n' --" }, 400, /unexpected character "'"/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: 'constructor()' }, 400, /unknown function/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: 'sum(__proto__)' }, 400, /unknown field/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, group_by: 'miner) OR (1=1' }, 400, /group_by: unexpected character "=" at position 13/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, group_by: 'toString' }, 400, /group_by: unknown name toString/],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, group_by: '' }, 400, /group_by: must not be empty/],
      [
        '/insights/v1/blocks',
        { chain_id: CHAIN_A, sort_by: 'block_number; DROP TABLE x' },
        400,
        /sort_by: must be block_number or an output column/,
      ],
      ['/insights/v1/blocks', { chain_id: CHAIN_A, sort_by: 'block_number desc' }, 400, /sort_by/],
      [
        '/insights/v1/blocks',
        { chain_id: CHAIN_A, aggregate: 'count() AS n', sort_by: 'pk' },
        400,
        /sort_by: with aggregate or group_by, sort by one of the output columns: n/,
      ],
      [
        '/insights/v1/blocks',
        { chain_id: CHAIN_A, aggregate: Array.from({ length: 11 }, (_, i) => `count() AS n${i}`) },
        400,
        /aggregate: at most 10/,
      ],
    ];
    for (const [pathname, params, status, message] of cases) {
      const response = await get(pathname, params);
      expect(response.status, `${pathname} ${JSON.stringify(params)}`).toBe(status);
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(response.body.error, `${pathname} ${JSON.stringify(params)}`).toMatch(message);
    }
    expect(await tableSnapshot(table.name)).toEqual(before);
  });
});
