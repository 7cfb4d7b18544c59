/**
 * thirdweb's published Insight client (`@thirdweb-dev/insight`), unchanged, against the service that
 * `npm start` runs: every insights route the client has a function for, configured only with
 * `configure({ clientId, override: { baseUrl: '<base URL>/insights' } })` as a user would. Expected
 * values are read from the demo chain itself (anvil, through viem).
 */
import {
  configure,
  getV1Blocks,
  getV1EventsByContractAddress,
  getV1TokensTransfers,
  getV1TokensTransfersByContractAddress,
  getV1TokensTransfersTransactionByTransactionHash,
  getV1TransactionsByContractAddressBySignature,
} from '@thirdweb-dev/insight';
import { createPublicClient, erc20Abi, http, parseEventLogs, toEventSelector, toFunctionSelector, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NpmStartService, startNpmStart } from '../support/npm-start';

const CHAIN = 31337;
const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');

let service: NpmStartService;
let chain: PublicClient;
let token: string;

beforeAll(async () => {
  service = await startNpmStart();
  chain = createPublicClient({ transport: http(service.rpcUrl) });
  token = service.demo.contracts.token.toLowerCase();
  configure({ clientId: 'test-client-id', override: { baseUrl: `${service.urls.base}/insights` } });
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

/** A transaction of the demo of one kind (tokenTransfer, nftMint, ...). */
function demoTransaction(kind: (typeof service.demo.transactions)[number]['kinds'][number]) {
  const found = service.demo.transactions.find((tx) => tx.kinds.includes(kind) && tx.status === 'success');
  if (!found) throw new Error(`the demo sent no ${kind}`);
  return found;
}

describe('@thirdweb-dev/insight against npm start', () => {
  it('getV1Blocks: the chain’s blocks in a number range, as anvil has them', async () => {
    const { data, error, response } = await getV1Blocks({
      query: { chain_id: [CHAIN], filter_block_number_gte: 1, filter_block_number_lte: 5, sort_order: 'asc', limit: 10 },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(response.status).toBe(200);
    const blocks = data!.data!;
    expect(blocks.map((block) => Number(block.block_number))).toEqual([1, 2, 3, 4, 5]);
    for (const block of blocks) {
      const onChain = await chain.getBlock({ blockNumber: BigInt(block.block_number!) });
      expect(block.block_hash).toBe(onChain.hash);
      expect(block.parent_hash).toBe(onChain.parentHash);
      expect(Number(block.transaction_count)).toBe(onChain.transactions.length);
    }
    expect(data!.meta).toMatchObject({ chain_ids: [CHAIN], page: 0 });
  });

  it('getV1Blocks: aggregate and group_by', async () => {
    const { data, error } = await getV1Blocks({
      query: {
        chain_id: [CHAIN],
        filter_block_number_gte: 1,
        filter_block_number_lte: 5,
        aggregate: ['count() AS blocks'],
        group_by: ['chain_id'],
      },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    // One array of groups per chain, as thirdweb answers.
    expect(data!.aggregations).toEqual([[{ chain_id: CHAIN, blocks: 5 }]]);
  });

  it('getV1EventsByContractAddress: the token’s Transfer logs, decoded, equal to the receipts', async () => {
    const transfer = demoTransaction('tokenTransfer');
    const { data, error } = await getV1EventsByContractAddress({
      path: { contractAddress: token },
      query: {
        chain_id: [CHAIN],
        filter_transaction_hash: transfer.hash,
        decode: true,
        limit: 50,
      },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    const receipt = await chain.getTransactionReceipt({ hash: transfer.hash });
    const expected = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' });
    const events = data!.data!;
    expect(events.map((event) => event.log_index)).toEqual(expected.map((log) => log.logIndex));
    for (const [i, event] of events.entries()) {
      expect(event.address).toBe(token);
      expect(event.topics![0]).toBe(TRANSFER_TOPIC);
      expect(event.transaction_hash).toBe(transfer.hash);
      const decoded = (
        event as { decoded?: { name: string; indexed_params: Record<string, string>; non_indexed_params: Record<string, string> } }
      ).decoded!;
      expect(decoded.name).toBe('Transfer');
      expect(decoded.indexed_params.from?.toLowerCase()).toBe(expected[i]!.args.from.toLowerCase());
      expect(decoded.indexed_params.to?.toLowerCase()).toBe(expected[i]!.args.to.toLowerCase());
      expect(String(decoded.non_indexed_params.value)).toBe(expected[i]!.args.value.toString());
    }
  });

  it('getV1TransactionsByContractAddressBySignature: the calls of transfer(address,uint256), decoded', async () => {
    const { data, error } = await getV1TransactionsByContractAddressBySignature({
      path: { contractAddress: token, signature: 'transfer(address,uint256)' },
      query: { chain_id: [CHAIN], decode: true, sort_order: 'asc', limit: 100 },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    const transactions = data!.data!;
    expect(transactions.length).toBeGreaterThan(0);
    const selector = toFunctionSelector('transfer(address,uint256)');
    for (const tx of transactions) {
      const onChain = await chain.getTransaction({ hash: tx.hash as `0x${string}` });
      expect(onChain.to?.toLowerCase()).toBe(token);
      expect(onChain.input.slice(0, 10)).toBe(selector);
      expect(tx.from_address).toBe(onChain.from.toLowerCase());
      expect(Number(tx.block_number)).toBe(Number(onChain.blockNumber));
    }
    // Every call the demo made at start-up is listed (the demo's ticker may have added more since).
    const sent = await Promise.all(
      service.demo.transactions.filter((tx) => tx.to?.toLowerCase() === token).map((tx) => chain.getTransaction({ hash: tx.hash })),
    );
    const calls = sent.filter((tx) => tx.input.startsWith(selector)).map((tx) => tx.hash);
    expect(transactions.map((tx) => tx.hash)).toEqual(expect.arrayContaining(calls));
  });

  it('getV1TokensTransfers: an owner’s transfers of the token, newest first, paged', async () => {
    const owner = service.demo.accounts.busy.toLowerCase();
    const query = { chain_id: [CHAIN], owner_address: owner, contract_address: [token], sort_order: 'desc' as const, limit: 3 };
    const first = await getV1TokensTransfers({ query: { ...query, page: 0 } });
    const second = await getV1TokensTransfers({ query: { ...query, page: 1 } });
    expect(first.error, JSON.stringify(first.error)).toBeUndefined();
    expect(second.error, JSON.stringify(second.error)).toBeUndefined();
    const rows = [...first.data!.data!, ...second.data!.data!];
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) {
      expect(row.contract_address).toBe(token);
      expect([row.from_address, row.to_address]).toContain(owner);
    }
    const blocks = rows.map((row) => Number(row.block_number));
    expect(blocks).toEqual([...blocks].sort((a, b) => b - a));
    expect(new Set(rows.map((row) => `${row.transaction_hash}:${row.log_index}`)).size).toBe(rows.length);
  });

  it('getV1TokensTransfers: several contracts at once (the client sends the array as repeated parameters)', async () => {
    const { nft } = service.demo.contracts;
    const last = service.demo.blocks.last;
    const { data, error } = await getV1TokensTransfers({
      query: { chain_id: [CHAIN], contract_address: [token, nft.toLowerCase()], block_number_to: last, sort_order: 'asc', limit: 200 },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    const rows = data!.data!;
    expect(new Set(rows.map((row) => row.contract_address))).toEqual(new Set([token, nft.toLowerCase()]));
    const keys = rows.map((row) => Number(row.block_number) * 10_000 + Number(row.log_index));
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    expect(data!.meta).toMatchObject({ total_items: rows.length });
  });

  it('getV1TokensTransfersByContractAddress: every transfer of the token in a block range', async () => {
    const last = service.demo.blocks.last;
    const { data, error } = await getV1TokensTransfersByContractAddress({
      path: { contract_address: token },
      query: { chain_id: [CHAIN], block_number_from: 0, block_number_to: last, limit: 100 },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    const logs = await chain.getLogs({
      address: token as `0x${string}`,
      event: erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer')!,
      fromBlock: 0n,
      toBlock: BigInt(last),
    });
    expect(data!.data!.length).toBe(Math.min(100, logs.length));
    expect(data!.meta).toMatchObject({ total_items: logs.length });
  });

  it('getV1TokensTransfersTransactionByTransactionHash: the transfers of one transaction, by log index', async () => {
    const { hash } = service.demo.highlights.tokenViaContract;
    const { data, error } = await getV1TokensTransfersTransactionByTransactionHash({
      path: { transaction_hash: hash },
      query: { chain_id: [CHAIN] },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(data!.data!.map((row) => ({ from: row.from_address, to: row.to_address, amount: String(row.amount) }))).toEqual(
      service.demo.highlights.tokenViaContract.transfers.map((t) => ({
        from: t.from.toLowerCase(),
        to: t.to.toLowerCase(),
        amount: t.amount,
      })),
    );
  });

  it('a browser page using configure({ clientId }) passes the CORS preflight (x-client-id, x-secret-key)', async () => {
    const response = await fetch(`${service.urls.base}/insights/v1/blocks?chain_id=${CHAIN}`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-client-id,x-secret-key',
      },
    });
    expect(response.status).toBe(204);
    const allowed = response.headers.get('access-control-allow-headers')!.toLowerCase().split(',');
    expect(allowed).toEqual(expect.arrayContaining(['x-client-id', 'x-secret-key']));
  });

  it('errors arrive as the client’s `error`, not a throw: a 400 names the parameter', async () => {
    const { data, error, response } = await getV1Blocks({ query: { chain_id: [CHAIN], limit: -1 } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(JSON.stringify(error)).toMatch(/limit/);
  });
});
