/**
 * I1 (transactions of a contract calling a function), I2 (events of a contract), I3 (blocks) and
 * their aggregations, through the real handlers, on two anvil chains ingested by the real ingest.
 * Every expected value is read from the chains with viem (truth.ts), never from the table.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { decodeEventLog, decodeFunctionData, parseAbi, toEventSelector, toFunctionSelector, type AbiEvent, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { forgetChainRegistry } from '../../../shared/insights/chains';
import { useTestTable } from '../../support/table';
import { tableWorkOf } from '../../shared/insights/table-work';
import {
  CHAIN_A,
  CHAIN_B,
  requestOnColdStart,
  SINK_FUNCTION,
  SINK_SIGNATURE_TEXT,
  indexedHeads,
  startInsightsFixture,
  UNKNOWN_EVENT,
  type InsightsFixture,
} from './fixture';
import { callsTo, logsOf, readTruth, smallest, utcBuckets, type ChainTransaction, type ChainTruth } from './truth';

useTestTable('insights-lists');
let fx: InsightsFixture;
let A: ChainTruth;
let B: ChainTruth;
let token: string;

beforeAll(async () => {
  fx = await startInsightsFixture();
  [A, B] = await Promise.all([readTruth(CHAIN_A, fx.a.client), readTruth(CHAIN_B, fx.b.client)]);
  token = fx.a.manifest.contracts.token.toLowerCase();
  expect(fx.b.token.toLowerCase()).toBe(token); // the same ERC-20 address on both chains
});
afterAll(async () => fx?.stop());

type Params = Record<string, string | number | readonly (string | number)[]>;

function url(path: string, params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

const get = (path: string, params: Params = {}, headers?: Record<string, string>) =>
  requestJson('base', 'GET', url(path, params), { headers });
const BOTH = { chain_id: [CHAIN_A, CHAIN_B] };
/** `filter_<field><suffix>` and what it keeps. */
const COMPARISONS: [string, (value: bigint, pivot: bigint) => boolean][] = [
  ['', (value, pivot) => value === pivot],
  ['_gte', (value, pivot) => value >= pivot],
  ['_gt', (value, pivot) => value > pivot],
  ['_lte', (value, pivot) => value <= pivot],
  ['_lt', (value, pivot) => value < pivot],
];
const TRANSFER = toFunctionSelector('transfer(address,uint256)');
const transfersPath = () => `/insights/v1/transactions/${token}/${encodeURIComponent('transfer(address to,uint256 amount)')}`;
const hashes = (rows: { hash?: string; transaction_hash?: string }[]) => rows.map((row) => row.hash ?? row.transaction_hash);
const lower = (value: string | null | undefined) => (value ?? '').toLowerCase();

function expectedTransaction(chainId: number, tx: ChainTransaction) {
  return {
    chain_id: String(chainId),
    block_number: Number(tx.blockNumber),
    block_hash: tx.blockHash,
    block_timestamp: tx.timestamp,
    hash: tx.hash,
    nonce: tx.nonce,
    transaction_index: tx.transactionIndex,
    from_address: lower(tx.from),
    to_address: lower(tx.to),
    value: tx.value.toString(),
    gas_price: String(tx.gasPrice),
    gas: Number(tx.gas),
    function_selector: tx.input.slice(0, 10),
    data: tx.input,
    max_fee_per_gas: String(tx.maxFeePerGas),
    max_priority_fee_per_gas: String(tx.maxPriorityFeePerGas),
    transaction_type: Number(tx.typeHex),
    r: BigInt(tx.r).toString(),
    s: BigInt(tx.s).toString(),
  };
}

// ---------------------------------------------------------------------------------------------------

describe('I1: transactions of a contract calling a function', () => {
  it('lists the calls of both chains, newest first, merged by block number, with every meta field', async () => {
    const [expectedA, expectedB] = [callsTo(A, token, TRANSFER), callsTo(B, token, TRANSFER)];
    expect(expectedA.length).toBeGreaterThan(50);
    expect(expectedB.length).toBeGreaterThan(4);
    const { status, body } = await get(transfersPath(), { ...BOTH, limit: 5 });
    expect(status).toBe(200);
    expect(body.meta).toEqual({
      chain_ids: [CHAIN_A, CHAIN_B],
      address: token,
      signature: TRANSFER,
      page: 0,
      limit_per_chain: 5,
      total_items: expectedA.length + expectedB.length,
      total_pages: Math.max(Math.ceil(expectedA.length / 5), Math.ceil(expectedB.length / 5)),
      indexed_heads: indexedHeads([CHAIN_A, CHAIN_B]),
    });
    expect(body.aggregations).toBeNull();
    const rowsOf = (chainId: number) => body.data.filter((row: { chain_id: string }) => row.chain_id === String(chainId));
    expect(hashes(rowsOf(CHAIN_A))).toEqual(expectedA.slice(0, 5).map((tx) => tx.hash));
    expect(hashes(rowsOf(CHAIN_B))).toEqual(expectedB.slice(0, 5).map((tx) => tx.hash));
    const blocks = body.data.map((row: { block_number: number }) => row.block_number);
    expect(blocks).toEqual([...blocks].sort((a, b) => b - a));
    for (const [index, row] of rowsOf(CHAIN_A).entries()) expect(row).toMatchObject(expectedTransaction(CHAIN_A, expectedA[index]));
    for (const row of body.data) {
      const receipt = await (row.chain_id === String(CHAIN_A) ? A : B).client.getTransactionReceipt({ hash: row.hash });
      expect(row).toMatchObject({
        status: receipt.status === 'success' ? 1 : 0,
        gas_used: Number(receipt.gasUsed),
        effective_gas_price: String(receipt.effectiveGasPrice),
      });
    }
  });

  it('pages through every call of both chains in either order, each exactly once', async () => {
    const expected: Record<number, ChainTransaction[]> = { [CHAIN_A]: callsTo(A, token, TRANSFER), [CHAIN_B]: callsTo(B, token, TRANSFER) };
    for (const order of ['desc', 'asc'] as const) {
      const seen: Record<number, string[]> = { [CHAIN_A]: [], [CHAIN_B]: [] };
      let pages = 0;
      let totalPages = -1;
      for (let page = 0; page <= 20; page += 1) {
        const { body } = await get(transfersPath(), { ...BOTH, limit: 7, page, sort_order: order, sort_by: 'block_number' });
        totalPages = body.meta.total_pages;
        if (body.data.length === 0) break;
        pages += 1;
        for (const row of body.data) seen[Number(row.chain_id)].push(row.hash);
      }
      expect(pages).toBe(totalPages);
      for (const chainId of [CHAIN_A, CHAIN_B]) {
        const hashesInOrder = expected[chainId].map((tx) => tx.hash);
        expect(seen[chainId]).toEqual(order === 'desc' ? hashesInOrder : [...hashesInOrder].reverse());
      }
    }
  });

  it('decodes calldata with the ABI of the signature in the path; a raw selector has nothing to decode with', async () => {
    const erc20 = parseAbi(['function transfer(address to, uint256 amount)']);
    const { body } = await get(transfersPath(), { chain_id: CHAIN_A, decode: 'true', limit: 10 });
    expect(body.data).toHaveLength(10);
    for (const row of body.data) {
      const { args } = decodeFunctionData({ abi: erc20, data: row.data as Hex });
      expect(row.decoded).toEqual({
        name: 'transfer',
        signature: 'transfer(address,uint256)',
        inputs: { to: lower(args[0]), amount: args[1].toString() },
      });
    }
    const encodedTwice = `/insights/v1/transactions/${token}/${encodeURIComponent(encodeURIComponent('transfer(address to, uint256 amount)'))}`;
    const twice = await get(encodedTwice, { chain_id: CHAIN_A, decode: 'true', limit: 10 });
    expect(twice.body.data).toEqual(body.data);
    const undecoded = await get(transfersPath(), { chain_id: CHAIN_A, limit: 1 });
    expect(undecoded.body.data[0].decoded).toBeNull();
    const bySelector = await get(`/insights/v1/transactions/${token}/${TRANSFER.toUpperCase().replace('0X', '0x')}`, {
      chain_id: CHAIN_A,
      decode: 'true',
      limit: 3,
    });
    expect(bySelector.body.meta.signature).toBe(TRANSFER);
    expect(hashes(bySelector.body.data)).toEqual(hashes(body.data.slice(0, 3)));
    expect(bySelector.body.data.map((row: { decoded: unknown }) => row.decoded)).toEqual([null, null, null]);
  });

  it('decodes every ABI value kind, and serves calldata over 1 KB in full with one BatchGetItem', async () => {
    const path = `/insights/v1/transactions/${fx.b.sink}/${encodeURIComponent(SINK_SIGNATURE_TEXT)}`;
    const { result, usage } = await tableWorkOf(() => get(path, { chain_id: CHAIN_B, decode: 'true', sort_order: 'asc' }));
    const { body } = result;
    expect(body.meta.signature).toBe(toFunctionSelector(SINK_FUNCTION));
    expect(hashes(body.data)).toEqual(fx.b.sinkCalls.map((call) => call.hash));
    expect(body.data.map((row: { data: string }) => row.data)).toEqual(fx.b.sinkCalls.map((call) => call.input));
    expect(fx.b.sinkCalls[1].input.length).toBeGreaterThan(2 + 2 * 1024);
    expect(usage.calls.BatchGetItemCommand).toBe(1);
    const [first, second] = body.data.map((row: { decoded: { inputs: unknown } }) => row.decoded.inputs);
    const owner = lower(fx.b.sinkCalls[0].args[8] as string);
    // uint8 / int24 / uint48 as numbers; uint64 and wider as decimal strings; addresses lowercase; bytes as hex.
    expect(first).toEqual({
      level: 7,
      tick: -120,
      window: 281_474_976_710_655,
      nonce: '18000000000000000000',
      liquidity: (2n ** 127n + 5n).toString(),
      amount: (2n ** 255n + 12345n).toString(),
      delta: (-(2n ** 200n)).toString(),
      enabled: true,
      owner,
      payload: '0xdeadbeef',
      salt: `0x${'ab'.repeat(32)}`,
      label: 'hello sink',
      ids: ['1', (2n ** 70n).toString()],
      entry: { weight: 65_535, account: owner },
    });
    expect(second).toMatchObject({
      level: 255,
      tick: 8_388_607,
      window: 0,
      nonce: '1',
      enabled: false,
      payload: `0x${'11'.repeat(1200)}`,
      label: '',
      ids: [],
    });
    expect(body.data[0].decoded).toMatchObject({
      name: 'configure',
      signature: 'configure(uint8,int24,uint48,uint64,uint128,uint256,int256,bool,address,bytes,bytes32,string,uint256[],(uint16,address))',
    });
  });

  it('filters by block number with equality and each comparison, as a key range', async () => {
    const expected = callsTo(A, token, TRANSFER);
    const pivot = Number(expected[10].blockNumber);
    const cases: [string, (block: number) => boolean][] = [
      ['filter_block_number', (block) => block === pivot],
      ['filter_block_number_gte', (block) => block >= pivot],
      ['filter_block_number_gt', (block) => block > pivot],
      ['filter_block_number_lte', (block) => block <= pivot],
      ['filter_block_number_lt', (block) => block < pivot],
    ];
    for (const [parameter, keep] of cases) {
      const { result, requests } = await tableWorkOf(() => get(transfersPath(), { chain_id: CHAIN_A, [parameter]: pivot, limit: 100 }));
      const want = expected.filter((tx) => keep(Number(tx.blockNumber)));
      expect(hashes(result.body.data), parameter).toEqual(want.map((tx) => tx.hash));
      expect(result.body.meta.total_items).toBe(want.length);
      const list = requests.find(
        (call) => call.command === 'QueryCommand' && !call.input.Select && JSON.stringify(call.input).includes('#CALLS#'),
      );
      expect(String(list?.input.KeyConditionExpression)).toMatch(/sk (BETWEEN|>=|<=)/);
      expect(list?.input.FilterExpression).toBeUndefined();
    }
  });

  it('turns block timestamp bounds into a block range through the block-by-time index', async () => {
    const expected = callsTo(B, token, TRANSFER);
    const pivot = expected[2].timestamp;
    const cases: [string, (time: number) => boolean][] = [
      ['filter_block_timestamp', (time) => time === pivot],
      ['filter_block_timestamp_gte', (time) => time >= pivot],
      ['filter_block_timestamp_gt', (time) => time > pivot],
      ['filter_block_timestamp_lte', (time) => time <= pivot],
      ['filter_block_timestamp_lt', (time) => time < pivot],
    ];
    for (const [parameter, keep] of cases) {
      const { result, requests } = await tableWorkOf(() => get(transfersPath(), { chain_id: CHAIN_B, [parameter]: pivot }));
      expect(hashes(result.body.data), parameter).toEqual(expected.filter((tx) => keep(tx.timestamp)).map((tx) => tx.hash));
      const lookups = requests.filter((call) => call.input.IndexName === 'gsi1');
      expect(lookups.length).toBeGreaterThanOrEqual(1);
      expect(lookups.every((call) => call.input.Limit === 1)).toBe(true);
      expect(requests.some((call) => call.input.FilterExpression !== undefined)).toBe(false);
    }
  });

  it('checks transaction index, value, gas price and gas inside the narrowed range', async () => {
    const expected = callsTo(A, token, TRANSFER);
    const check = async (params: Params, want: ChainTransaction[]) => {
      const { body } = await get(transfersPath(), { chain_id: CHAIN_A, limit: 100, ...params });
      expect(hashes(body.data), JSON.stringify(params)).toEqual(want.map((tx) => tx.hash));
      expect(body.meta.total_items).toBe(want.length);
    };
    await check(
      { filter_transaction_index: 0 },
      expected.filter((tx) => tx.transactionIndex === 0),
    );
    await check(
      { filter_transaction_index_gt: 0 },
      expected.filter((tx) => tx.transactionIndex! > 0),
    );
    const prices = [...new Set(expected.map((tx) => tx.gasPrice!))].sort((a, b) => (a < b ? -1 : 1));
    const price = prices[Math.floor(prices.length / 2)];
    await check(
      { filter_gas_price_gte: price.toString() },
      expected.filter((tx) => tx.gasPrice! >= price),
    );
    await check(
      { filter_gas_price_lt: price.toString() },
      expected.filter((tx) => tx.gasPrice! < price),
    );
    await check(
      { filter_gas_price: price.toString() },
      expected.filter((tx) => tx.gasPrice === price),
    );
    const gas = expected[3].gas;
    await check(
      { filter_gas: Number(gas) },
      expected.filter((tx) => tx.gas === gas),
    );
    await check(
      { filter_gas_gt: Number(gas) },
      expected.filter((tx) => tx.gas > gas),
    );
    await check(
      { filter_gas_lte: Number(gas) },
      expected.filter((tx) => tx.gas <= gas),
    );

    // value: the splitter's payable split carries ether (a 19-digit decimal: compared exactly).
    const splitter = fx.a.manifest.contracts.splitter.toLowerCase();
    const splitSelector = toFunctionSelector('split(address[],uint256[])');
    const [split] = callsTo(A, splitter, splitSelector);
    const value = split.value.toString();
    expect(value.length).toBeGreaterThan(18);
    const splitPath = `/insights/v1/transactions/${splitter}/${splitSelector}`;
    const valueCases: [Params, number][] = [
      [{ filter_value: value }, 1],
      [{ filter_value_gte: '999' }, 1],
      [{ filter_value_lte: '999' }, 0],
      [{ filter_value_gt: value }, 0],
      [{ filter_value_lt: (split.value + 1n).toString() }, 1],
      [{ filter_value_gte: (split.value + 1n).toString() }, 0],
      [{ filter_value_gt: (2n ** 256n - 1n).toString() }, 0],
    ];
    for (const [params, count] of valueCases) {
      const { body } = await get(splitPath, { chain_id: CHAIN_A, ...params });
      expect(body.data.length, JSON.stringify(params)).toBe(count);
      if (count) expect(body.data[0]).toMatchObject({ hash: split.hash, value });
    }
  });

  it('applies equality and every comparison to every comparable field, on both chains', async () => {
    const values: Record<string, (tx: ChainTransaction) => bigint> = {
      block_number: (tx) => tx.blockNumber!,
      block_timestamp: (tx) => BigInt(tx.timestamp),
      transaction_index: (tx) => BigInt(tx.transactionIndex!),
      value: (tx) => tx.value,
      gas_price: (tx) => tx.gasPrice!,
      gas: (tx) => tx.gas,
    };
    for (const [field, valueFor] of Object.entries(values)) {
      for (const truth of [A, B]) {
        const expected = callsTo(truth, token, TRANSFER);
        const sorted = expected.map(valueFor).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const pivot = sorted[Math.floor(sorted.length / 2)];
        for (const [suffix, keep] of COMPARISONS) {
          const { body } = await get(transfersPath(), {
            chain_id: truth.chainId,
            [`filter_${field}${suffix}`]: pivot.toString(),
            limit: 200,
          });
          const want = expected.filter((tx) => keep(valueFor(tx), pivot));
          expect(hashes(body.data), `${truth.chainId} filter_${field}${suffix}=${pivot}`).toEqual(want.map((tx) => tx.hash));
          expect(body.meta.total_items).toBe(want.length);
        }
      }
    }
  });

  it('finds a transaction by hash, a block by hash and a sender with their own ranges', async () => {
    const expected = callsTo(A, token, TRANSFER);
    const busy = lower(fx.a.manifest.accounts.busy);
    const byHash = await tableWorkOf(() => get(transfersPath(), { chain_id: CHAIN_A, filter_hash: expected[4].hash }));
    expect(hashes(byHash.result.body.data)).toEqual([expected[4].hash]);
    expect(
      byHash.requests
        .filter((call) => call.command === 'QueryCommand')
        .every((call) =>
          String(call.input.ExpressionAttributeValues && (call.input.ExpressionAttributeValues as Record<string, string>)[':pk']).includes(
            '#TX#',
          ),
        ),
    ).toBe(true);
    const other = A.transactions.find((tx) => lower(tx.to) !== token && tx.to)!;
    const none = await get(transfersPath(), { chain_id: CHAIN_A, filter_hash: other.hash });
    expect(none.body).toMatchObject({ data: [], meta: { total_items: 0, total_pages: 0 } });

    const byBlockHash = await get(transfersPath(), { chain_id: CHAIN_A, filter_block_hash: expected[6].blockHash! });
    expect(hashes(byBlockHash.body.data)).toEqual([expected[6].hash]);

    const fromBusy = expected.filter((tx) => lower(tx.from) === busy);
    const bySender = await tableWorkOf(() =>
      get(transfersPath(), { chain_id: CHAIN_A, filter_from_address: fx.a.manifest.accounts.busy, limit: 100 }),
    );
    expect(hashes(bySender.result.body.data)).toEqual(fromBusy.map((tx) => tx.hash));
    expect(bySender.requests.some((call) => JSON.stringify(call.input).includes(`#FROM#${busy}`))).toBe(true);
    const pivot = Number(fromBusy[5].blockNumber);
    const combined = await get(transfersPath(), {
      chain_id: CHAIN_A,
      filter_from_address: busy,
      filter_block_number_lte: pivot,
      limit: 100,
    });
    expect(hashes(combined.body.data)).toEqual(fromBusy.filter((tx) => Number(tx.blockNumber) <= pivot).map((tx) => tx.hash));

    const impossible = await tableWorkOf(() =>
      get(transfersPath(), { chain_id: CHAIN_A, filter_block_number_gte: 50, filter_block_number_lt: 10 }),
    );
    expect(impossible.result.body).toMatchObject({ data: [], meta: { total_items: 0, total_pages: 0 } });
    expect(impossible.usage.calls.QueryCommand ?? 0).toBe(0);
  });

  it('accepts a registered name for the contract on every requested chain', async () => {
    const { result, usage } = await tableWorkOf(() => get(`/insights/v1/transactions/DEMO/${TRANSFER}`, { ...BOTH, limit: 2 }));
    expect(result.status).toBe(200);
    expect(result.body.meta.address).toBe(token);
    expect(hashes(result.body.data)).toEqual(
      [...callsTo(A, token, TRANSFER).slice(0, 2), ...callsTo(B, token, TRANSFER).slice(0, 2)].map((tx) => tx.hash),
    );
    expect(usage.calls.BatchGetItemCommand).toBe(1);
    const unknown = await get(`/insights/v1/transactions/NOPE/${TRANSFER}`, BOTH);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/NOPE/);
  });
});

// ---------------------------------------------------------------------------------------------------

/** The JSON the API documents for a decoded value, written out here per ABI type. */
function expectedJson(type: string, value: unknown): unknown {
  if (type.endsWith('[]')) return (value as unknown[]).map((item) => expectedJson(type.slice(0, -2), item));
  const bits = /^u?int(\d*)$/.exec(type);
  if (bits) return Number(bits[1] || 256) <= 48 ? Number(value) : BigInt(value as bigint).toString();
  if (type === 'address') return lower(value as string);
  return value;
}

function expectedDecoded(event: AbiEvent, args: Record<string, unknown>) {
  const indexed: Record<string, unknown> = {};
  const nonIndexed: Record<string, unknown> = {};
  for (const input of event.inputs) (input.indexed ? indexed : nonIndexed)[input.name!] = expectedJson(input.type, args[input.name!]);
  const signature = `${event.name}(${event.inputs.map((input) => input.type).join(',')})`;
  return { name: event.name, signature, indexed_params: indexed, non_indexed_params: nonIndexed };
}

describe('I2: events of a contract', () => {
  it("lists a contract's events on both chains as they were logged, with meta", async () => {
    const [logsA, logsB] = await Promise.all([logsOf(A, token), logsOf(B, token)]);
    const { body } = await get(`/insights/v1/events/${token}`, { ...BOTH, limit: 30 });
    expect(body.meta).toEqual({
      chain_ids: [CHAIN_A, CHAIN_B],
      address: token,
      signature: '',
      page: 0,
      limit_per_chain: 30,
      total_items: logsA.length + logsB.length,
      total_pages: Math.max(Math.ceil(logsA.length / 30), Math.ceil(logsB.length / 30)),
      indexed_heads: indexedHeads([CHAIN_A, CHAIN_B]),
    });
    for (const [chainId, logs] of [
      [CHAIN_A, logsA],
      [CHAIN_B, logsB],
    ] as const) {
      const rows = body.data.filter((row: { chain_id: string }) => row.chain_id === String(chainId));
      expect(rows).toEqual(
        logs.slice(0, 30).map((log) => ({
          chain_id: String(chainId),
          block_number: Number(log.blockNumber),
          block_hash: log.blockHash,
          block_timestamp: Number((chainId === CHAIN_A ? A : B).blocks[Number(log.blockNumber)].timestamp),
          transaction_hash: log.transactionHash,
          transaction_index: log.transactionIndex,
          log_index: log.logIndex,
          address: token,
          data: log.data,
          topics: log.topics,
          decoded: null,
        })),
      );
    }
  });

  it('filters by topic 0 with its own range, and by topics 1 to 3 (left-padded) inside it', async () => {
    const topic0 = toEventSelector('Transfer(address,address,uint256)');
    const logs = await logsOf(A, token);
    const busy = lower(fx.a.manifest.accounts.busy);
    const carol = lower(fx.a.manifest.accounts.carol);
    const padded = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;
    const byTopic0 = await tableWorkOf(() =>
      get(`/insights/v1/events/${token}`, { chain_id: CHAIN_A, filter_topic_0: topic0, limit: 200 }),
    );
    expect(byTopic0.result.body.meta.signature).toBe(topic0);
    expect(hashes(byTopic0.result.body.data)).toEqual(logs.filter((log) => log.topics[0] === topic0).map((log) => log.transactionHash));
    expect(byTopic0.requests.some((call) => JSON.stringify(call.input).includes(`#T0#${topic0}`))).toBe(true);
    const fromBusy = await get(`/insights/v1/events/${token}`, {
      chain_id: CHAIN_A,
      filter_topic_0: topic0,
      filter_topic_1: busy,
      limit: 200,
    });
    expect(hashes(fromBusy.body.data)).toEqual(
      logs.filter((log) => log.topics[0] === topic0 && log.topics[1] === padded(busy)).map((log) => log.transactionHash),
    );
    expect(fromBusy.body.data.length).toBeGreaterThan(50);
    const toCarol = await get(`/insights/v1/events/${token}`, { chain_id: CHAIN_A, filter_topic_2: carol, limit: 200 });
    expect(hashes(toCarol.body.data)).toEqual(logs.filter((log) => log.topics[2] === padded(carol)).map((log) => log.transactionHash));
    const nft = lower(fx.a.manifest.contracts.nft);
    const nftLogs = await logsOf(A, nft);
    const idTwo = await get(`/insights/v1/events/${nft}`, { chain_id: CHAIN_A, filter_topic_3: '0x2' });
    expect(hashes(idTwo.body.data)).toEqual(nftLogs.filter((log) => log.topics[3] === padded('0x02')).map((log) => log.transactionHash));
    expect(idTwo.body.data.length).toBeGreaterThanOrEqual(2);
  });

  it('filters by block, log index, transaction index, transaction hash and block hash', async () => {
    const multi = lower(fx.a.manifest.contracts.multi);
    const logs = await logsOf(A, token);
    const check = async (params: Params, want: typeof logs) => {
      const { body } = await get(`/insights/v1/events/${token}`, { chain_id: CHAIN_A, limit: 200, ...params });
      expect(
        body.data.map((row: { log_index: number; block_number: number }) => `${row.block_number}/${row.log_index}`),
        JSON.stringify(params),
      ).toEqual(want.map((log) => `${log.blockNumber}/${log.logIndex}`));
    };
    const pivot = Number(logs[7].blockNumber);
    await check(
      { filter_block_number_gt: pivot },
      logs.filter((log) => Number(log.blockNumber) > pivot),
    );
    await check(
      { filter_block_number_lte: pivot, filter_log_index: 0 },
      logs.filter((log) => Number(log.blockNumber) <= pivot && log.logIndex === 0),
    );
    await check(
      { filter_log_index_gte: 1 },
      logs.filter((log) => log.logIndex! >= 1),
    );
    await check(
      { filter_log_index_lt: 1 },
      logs.filter((log) => log.logIndex! < 1),
    );
    await check(
      { filter_transaction_index_lte: 0 },
      logs.filter((log) => log.transactionIndex! <= 0),
    );
    await check(
      { filter_block_hash: logs[3].blockHash! },
      logs.filter((log) => log.blockHash === logs[3].blockHash),
    );
    // A transaction that moved several tokens: the logs of this contract only, from the transaction's own partition.
    const viaContract = fx.a.manifest.highlights.tokenViaContract.hash;
    await check(
      { filter_transaction_hash: viaContract },
      logs.filter((log) => log.transactionHash === viaContract),
    );
    const multiLogs = await logsOf(A, multi);
    const { body } = await get(`/insights/v1/events/${multi}`, { chain_id: CHAIN_A, filter_transaction_hash: viaContract });
    expect(body.data).toHaveLength(multiLogs.filter((log) => log.transactionHash === viaContract).length);
  });

  it('applies equality and every comparison to every comparable event field, on both chains', async () => {
    for (const truth of [A, B]) {
      const logs = await logsOf(truth, token);
      const values: Record<string, (log: (typeof logs)[number]) => bigint> = {
        block_number: (log) => log.blockNumber!,
        block_timestamp: (log) => truth.blocks[Number(log.blockNumber)].timestamp,
        transaction_index: (log) => BigInt(log.transactionIndex!),
        log_index: (log) => BigInt(log.logIndex!),
      };
      for (const [field, valueFor] of Object.entries(values)) {
        const sorted = logs.map(valueFor).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const pivot = sorted[Math.floor(sorted.length / 2)];
        for (const [suffix, keep] of COMPARISONS) {
          const { body } = await get(`/insights/v1/events/${token}`, {
            chain_id: truth.chainId,
            [`filter_${field}${suffix}`]: pivot.toString(),
            limit: 200,
          });
          const want = logs.filter((log) => keep(valueFor(log), pivot));
          expect(
            body.data.map((row: { block_number: number; log_index: number }) => `${row.block_number}/${row.log_index}`),
            `${truth.chainId} filter_${field}${suffix}`,
          ).toEqual(want.map((log) => `${log.blockNumber}/${log.logIndex}`));
        }
      }
    }
  });

  it('decodes well-known events of the token standards, WETH and Uniswap, and leaves unknown ones null', async () => {
    const known = parseAbi([
      'event Transfer(address indexed from, address indexed to, uint256 value)',
      'event Approval(address indexed owner, address indexed spender, uint256 value)',
      'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
      'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
      'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
      'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
      'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
    ]) as readonly AbiEvent[];
    const names = new Set<string>();
    for (const contract of [token, fx.a.manifest.contracts.nft, fx.a.manifest.contracts.multi].map(lower)) {
      const { body } = await get(`/insights/v1/events/${contract}`, { chain_id: CHAIN_A, decode: 'true', limit: 200 });
      expect(body.data.length).toBeGreaterThan(0);
      for (const row of body.data) {
        const abi = known.find(
          (event) =>
            toEventSelector(event) === row.topics[0] && event.inputs.filter((input) => input.indexed).length === row.topics.length - 1,
        );
        if (!abi) {
          expect(row.decoded, row.topics[0]).toBeNull(); // e.g. OwnershipTransferred: not a well-known event
          continue;
        }
        const { args } = decodeEventLog({ abi: [abi], topics: row.topics, data: row.data, strict: true });
        expect(row.decoded).toEqual(expectedDecoded(abi, args as Record<string, unknown>));
        names.add(`${abi.name}/${row.topics.length}`);
      }
    }
    expect([...names].sort()).toEqual([
      'Approval/3',
      'Approval/4',
      'ApprovalForAll/3',
      'Transfer/3',
      'Transfer/4',
      'TransferBatch/4',
      'TransferSingle/4',
    ]);

    for (const topics of [2, 3, 4] as const) {
      const { body } = await get(`/insights/v1/events/${fx.b.emitters[topics]}`, { chain_id: CHAIN_B, decode: 'true', sort_order: 'asc' });
      const emitted = fx.b.logs.filter((log) => log.emitter === fx.b.emitters[topics]);
      expect(body.data.map((row: { transaction_hash: string }) => row.transaction_hash)).toEqual(emitted.map((log) => log.hash));
      body.data.forEach((row: { decoded: unknown; data: string }, index: number) => {
        const log = emitted[index];
        expect(row.data).toBe(log.data); // in full, also above 1 KB
        expect(row.decoded, log.name).toEqual(log.event === UNKNOWN_EVENT ? null : expectedDecoded(log.event, log.args));
      });
    }
    expect(fx.b.logs.map((log) => log.name)).toEqual(
      expect.arrayContaining(['deposit', 'withdrawal', 'v2Swap', 'v2Mint', 'v2Burn', 'v3Swap', 'v3Mint', 'v3Burn']),
    );
  });
});

// ---------------------------------------------------------------------------------------------------

describe('I3: blocks', () => {
  const expectedBlock = (chainId: number, truth: ChainTruth, number: number) => {
    const block = truth.blocks[number];
    return {
      chain_id: chainId,
      block_number: number,
      block_hash: block.hash,
      parent_hash: block.parentHash,
      block_timestamp: Number(block.timestamp),
      nonce: block.nonce,
      sha3_uncles: block.sha3Uncles,
      mix_hash: block.mixHash,
      miner: lower(block.miner),
      state_root: block.stateRoot,
      transactions_root: block.transactionsRoot,
      receipts_root: block.receiptsRoot,
      logs_bloom: block.logsBloom,
      size: Number(block.size),
      extra_data: block.extraData,
      difficulty: block.difficulty.toString(),
      transaction_count: block.transactions.length,
      gas_limit: Number(block.gasLimit),
      gas_used: Number(block.gasUsed),
      base_fee_per_gas: Number(block.baseFeePerGas),
    };
  };

  it('lists the blocks of both chains newest first, each as the chain reports it', async () => {
    const { body } = await get('/insights/v1/blocks', { ...BOTH, limit: 3 });
    const [headA, headB] = [A.blocks.length - 1, B.blocks.length - 1];
    expect(body.meta).toEqual({
      chain_ids: [CHAIN_A, CHAIN_B],
      address: '',
      signature: '',
      page: 0,
      limit_per_chain: 3,
      total_items: A.blocks.length + B.blocks.length,
      total_pages: Math.ceil(Math.max(A.blocks.length, B.blocks.length) / 3),
      indexed_heads: indexedHeads([CHAIN_A, CHAIN_B]),
    });
    expect(body.data).toEqual([
      ...[headA, headA - 1, headA - 2].map((number) => expect.objectContaining(expectedBlock(CHAIN_A, A, number))),
      ...[headB, headB - 1, headB - 2].map((number) => expect.objectContaining(expectedBlock(CHAIN_B, B, number))),
    ]);
  });

  it("answers any page, past the spec's old cap of 20: every block once, one per page, in both orders and both chains", async () => {
    const heads: Record<number, number> = { [CHAIN_A]: A.blocks.length - 1, [CHAIN_B]: B.blocks.length - 1 };
    expect(Math.min(heads[CHAIN_A], heads[CHAIN_B])).toBeGreaterThan(25);
    for (const order of ['desc', 'asc'] as const) {
      for (const page of [0, 1, 19, 21, 25, heads[CHAIN_A], heads[CHAIN_A] + 1]) {
        const { status, body } = await get('/insights/v1/blocks', { ...BOTH, limit: 1, page, sort_order: order });
        expect(status).toBe(200);
        expect(body.meta).toMatchObject({ page, total_items: A.blocks.length + B.blocks.length });
        const expected = [CHAIN_A, CHAIN_B].flatMap((chainId) => {
          const number = order === 'asc' ? page : heads[chainId] - page;
          return number >= 0 && number <= heads[chainId] ? [{ chain_id: String(chainId), block_number: number }] : [];
        });
        const rows = body.data.map((row: { chain_id: string; block_number: number }) => ({
          chain_id: String(row.chain_id),
          block_number: row.block_number,
        }));
        expect(rows.sort((a: { chain_id: string }, b: { chain_id: string }) => a.chain_id.localeCompare(b.chain_id))).toEqual(
          expected.sort((a, b) => a.chain_id.localeCompare(b.chain_id)),
        );
      }
    }
  });

  it('filters by number and timestamp ranges and by hash, oldest first on request', async () => {
    const numbers = (body: { data: { block_number: number }[] }) => body.data.map((row) => row.block_number);
    const range = await get('/insights/v1/blocks', {
      chain_id: CHAIN_A,
      filter_block_number_gte: 10,
      filter_block_number_lt: 15,
      sort_order: 'asc',
    });
    expect(numbers(range.body)).toEqual([10, 11, 12, 13, 14]);
    const t = Number(B.blocks[8].timestamp);
    const byTime = await get('/insights/v1/blocks', {
      chain_id: CHAIN_B,
      filter_block_timestamp_gt: t,
      filter_block_timestamp_lte: Number(B.blocks[12].timestamp),
    });
    expect(numbers(byTime.body)).toEqual([12, 11, 10, 9]);
    const exact = await get('/insights/v1/blocks', { chain_id: CHAIN_B, filter_block_timestamp: t });
    expect(numbers(exact.body)).toEqual([8]);
    const beforeGenesis = await get('/insights/v1/blocks', { chain_id: CHAIN_B, filter_block_timestamp_lt: Number(B.blocks[0].timestamp) });
    expect(beforeGenesis.body).toMatchObject({ data: [], meta: { total_items: 0 } });
    const byHash = await get('/insights/v1/blocks', { ...BOTH, filter_hash: B.blocks[7].hash! });
    expect(byHash.body.data).toEqual([expect.objectContaining(expectedBlock(CHAIN_B, B, 7))]);
    const hashOutOfRange = await get('/insights/v1/blocks', {
      chain_id: CHAIN_B,
      filter_hash: B.blocks[7].hash!,
      filter_block_number_gt: 7,
    });
    expect(hashOutOfRange.body.data).toEqual([]);
  });

  it('takes the chain from the Host header, or from the deprecated chain parameter', async () => {
    const byHost = await get('/insights/v1/blocks', { limit: 1 }, { host: `${CHAIN_B}.insight.localhost` });
    expect(byHost.body.meta.chain_ids).toEqual([CHAIN_B]);
    expect(byHost.body.data[0].block_number).toBe(B.blocks.length - 1);
    const parameterWins = await get('/insights/v1/blocks', { chain_id: CHAIN_A, limit: 1 }, { host: `${CHAIN_B}.insight.localhost` });
    expect(parameterWins.body.meta.chain_ids).toEqual([CHAIN_A]);
    const deprecated = await get('/insights/v1/blocks', { chain: [CHAIN_B, CHAIN_A], limit: 1 });
    expect(deprecated.body.meta.chain_ids).toEqual([CHAIN_B, CHAIN_A]);
    expect(deprecated.body.data.map((row: { chain_id: number }) => row.chain_id)).toEqual([CHAIN_A, CHAIN_B]); // A's head is the higher block
    const joined = await get('/insights/v1/blocks', { chain_id: `${CHAIN_A},${CHAIN_B}`, limit: 1 });
    expect(joined.body.meta.chain_ids).toEqual([CHAIN_A, CHAIN_B]);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('aggregate and group_by', () => {
  it('buckets blocks by day, hour, minute and date, each count checked against the chain', async () => {
    for (const [expression, bucket] of [
      ['toStartOfDay(toDateTime(block_timestamp))', 'day'],
      ['toStartOfHour(toDateTime(block_timestamp))', 'hour'],
      ['toStartOfMinute(block_timestamp)', 'minute'],
      ['toDate(block_timestamp)', 'date'],
    ] as const) {
      const counts = new Map<string, number>();
      for (const block of B.blocks) {
        const key = utcBuckets(Number(block.timestamp))[bucket];
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const expected = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, n]) => ({ t: key, n }));
      const { body } = await get('/insights/v1/blocks', {
        chain_id: CHAIN_B,
        aggregate: [`${expression} AS t`, 'count() AS n'],
        group_by: 't',
        limit: 1000,
      });
      expect(body.data).toEqual([]);
      expect(body.aggregations, bucket).toEqual([expected]);
      expect(body.meta.total_items).toBe(expected.length);
    }
    expect(new Set(B.blocks.map((block) => utcBuckets(Number(block.timestamp)).day)).size).toBeGreaterThan(2);
  });

  it('computes count, count distinct, sum, avg, min and max per group on both chains', async () => {
    const { body } = await get(transfersPath(), {
      ...BOTH,
      aggregate: [
        'count() AS calls',
        'count(distinct block_timestamp) AS seconds',
        'sum(gas) AS gas_total',
        'avg(gas) AS gas_mean',
        'min(gas_price) AS cheapest',
        'max(block_number) AS last_block',
      ],
      group_by: 'from_address',
      limit: 1000,
    });
    const expectedFor = (truth: ChainTruth) => {
      const groups = new Map<string, ChainTransaction[]>();
      for (const tx of callsTo(truth, token, TRANSFER)) groups.set(lower(tx.from), [...(groups.get(lower(tx.from)) ?? []), tx]);
      return [...groups]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([from, txs]) => {
          const gas = txs.reduce((sum, tx) => sum + tx.gas, 0n);
          return {
            from_address: from,
            calls: txs.length,
            seconds: new Set(txs.map((tx) => tx.timestamp)).size,
            gas_total: Number(gas),
            gas_mean: Number(gas) / txs.length,
            cheapest: txs
              .map((tx) => tx.gasPrice!)
              .reduce(smallest)
              .toString(),
            last_block: Math.max(...txs.map((tx) => Number(tx.blockNumber))),
          };
        });
    };
    expect(body.aggregations).toEqual([expectedFor(A), expectedFor(B)]);
    expect(expectedFor(B).some((row) => row.seconds > 1)).toBe(true);
  });

  it('sums uint256 values exactly and orders and pages rows by an alias', async () => {
    const topic0 = toEventSelector('Transfer(address,address,uint256)');
    const logs = (await logsOf(A, token)).filter((log) => log.topics[0] === topic0);
    const sums = new Map<string, bigint>();
    for (const log of logs) {
      const to = lower(`0x${log.topics[2]!.slice(26)}`);
      sums.set(to, (sums.get(to) ?? 0n) + BigInt(log.data));
    }
    const ordered = [...sums].sort(([, a], [, b]) => (a < b ? 1 : a > b ? -1 : 0));
    const params = {
      chain_id: CHAIN_A,
      filter_topic_0: topic0,
      aggregate: ['count() AS n'],
      group_by: 'topic_2',
      sort_by: 'n',
      sort_order: 'desc',
    };
    const counted = await get(`/insights/v1/events/${token}`, params);
    expect(counted.body, JSON.stringify(counted.body)).toHaveProperty('aggregations');
    expect(counted.body.aggregations[0][0].n).toBe(
      Math.max(...[...sums.keys()].map((to) => logs.filter((log) => lower(`0x${log.topics[2]!.slice(26)}`) === to).length)),
    );

    const { body } = await get('/insights/v1/tokens/transfers', {
      chain_id: CHAIN_A,
      contract_address: token,
      aggregate: ['sum(amount) AS received', 'max(amount) AS largest'],
      group_by: 'to_address',
      sort_by: 'received',
      sort_order: 'desc',
      limit: 3,
      page: 1,
    });
    expect(body.aggregations[0].map((row: { to_address: string; received: string }) => [row.to_address, row.received])).toEqual(
      ordered.slice(3, 6).map(([to, sum]) => [to, sum.toString()]),
    );
    expect(body.meta.total_items).toBe(sums.size);
    const asc = await get('/insights/v1/tokens/transfers', {
      chain_id: CHAIN_A,
      contract_address: token,
      aggregate: 'sum(amount) AS received',
      group_by: 'to_address',
      sort_by: 'received',
      sort_order: 'asc',
      limit: 1,
    });
    expect(asc.body.aggregations[0]).toEqual([{ to_address: ordered.at(-1)![0], received: ordered.at(-1)![1].toString() }]);
    const deepPage = await get('/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: 'count() AS n', page: 500 });
    expect(deepPage.body.aggregations).toEqual([[]]);
  });

  it('answers 400 asking for a narrower block range when an aggregation or a check would read too much', async () => {
    const READ_40 = { INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '40' };
    // max() has no running total: it reads every row, under the bound.
    const tooMany = await requestOnColdStart(
      READ_40,
      'GET',
      url('/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: 'max(gas_used) AS m' }),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/more than 40 items on chain 31337; narrow the block range/);
    expect(tooMany.body.error).toMatch(/aggregates other than count, sum and avg by time bucket/);
    const narrowed = await requestOnColdStart(
      READ_40,
      'GET',
      url('/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: 'count() AS n', filter_block_number_lt: 40 }),
    );
    expect(narrowed.body.aggregations).toEqual([[{ n: 40 }]]);
    // count() and sum() come from running totals: the bound does not apply, whatever the range's size.
    const anySize = await requestOnColdStart(
      READ_40,
      'GET',
      url('/insights/v1/blocks', { chain_id: CHAIN_A, aggregate: ['count() AS n', 'sum(gas_used) AS gas'] }),
    );
    expect(anySize.status).toBe(200);
    expect(anySize.body.aggregations).toEqual([
      [{ n: A.blocks.length, gas: A.blocks.reduce((sum, block) => sum + Number(block.gasUsed), 0) }],
    ]);
    const checked = await requestOnColdStart(READ_40, 'GET', url(transfersPath(), { chain_id: CHAIN_A, filter_gas_gt: 10 ** 9 }));
    expect(checked.status).toBe(400);
    // The count cap only bounds the fallback (checked reads): range positions count exactly.
    const counted = await requestOnColdStart(
      { ...READ_40, INSIGHTS_MAX_COUNTED_ITEMS_PER_CHAIN: '30' },
      'GET',
      url('/insights/v1/blocks', { chain_id: CHAIN_A, limit: 5 }),
    );
    expect(counted.body.meta).toMatchObject({ total_items: A.blocks.length, total_pages: Math.ceil(A.blocks.length / 5) });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('DynamoDB work per request', () => {
  it('reads one key range per chain for the page and one Limit-1 position read for the count, never a Scan', async () => {
    await get('/insights/v1/blocks', { chain_id: CHAIN_A }); // the chain registry is now cached
    const { usage, requests } = await tableWorkOf(() => get('/insights/v1/blocks', { ...BOTH, limit: 3 }));
    expect(usage.calls).toEqual({ QueryCommand: 4 });
    for (const chainId of [CHAIN_A, CHAIN_B]) {
      const ofChain = requests.filter(
        (call) => (call.input.ExpressionAttributeValues as Record<string, string>)[':pk'] === `C#${chainId}#BLOCKS`,
      );
      expect(ofChain.map((call) => call.input.Select ?? 'ITEMS')).toEqual(['ITEMS', 'ITEMS']);
      const count = ofChain.find((call) => call.input.Limit === 1);
      expect(count?.input).toMatchObject({ ProjectionExpression: '#sk, #pos', ScanIndexForward: false });
    }
    const events = await tableWorkOf(() =>
      get(`/insights/v1/events/${token}`, { ...BOTH, decode: 'true', filter_topic_2: fx.a.manifest.accounts.carol }),
    );
    // Only Queries; a checked read (topic 2) counts in the same pass as its page: one Query per chain for this small range.
    expect(events.usage.calls).toEqual({ QueryCommand: 2 });

    forgetChainRegistry();
    const cold = await tableWorkOf(() => get('/insights/v1/blocks', { ...BOTH, limit: 3 }));
    expect(
      cold.requests.filter((call) => (call.input.ExpressionAttributeValues as Record<string, string>)[':pk'] === 'CHAINS'),
    ).toHaveLength(1);
    // Five calls, every one a Query (never a Scan), like the warm requests above.
    expect(cold.usage.calls).toEqual({ QueryCommand: 5 });
  });
});
