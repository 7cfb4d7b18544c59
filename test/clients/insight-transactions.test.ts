/**
 * thirdweb's published Insight client (`@thirdweb-dev/insight`), unchanged, against `npm start`'s
 * service: the transaction and event lists of issue 25 section 2 (I10a to I10e, see
 * docs/access-patterns.md). Configured only with `configure({ clientId, override: { baseUrl } })`;
 * expected values are read from the demo chain itself (anvil, through viem).
 */
import {
  configure,
  getV1Events,
  getV1EventsByContractAddressBySignature,
  getV1Transactions,
  getV1TransactionsByContractAddress,
  getV1WalletsByWalletAddressTransactions,
} from '@thirdweb-dev/insight';
import { createPublicClient, http, toEventSelector, type Block, type PublicClient, type Transaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NpmStartService, startNpmStart } from '../support/npm-start';

const CHAIN = 31337;
const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');

let service: NpmStartService;
let chain: PublicClient;
let token: string;
let transactions: Transaction[];

const lower = (text: string | null | undefined) => (text ?? '').toLowerCase();
const newestFirst = (txs: Transaction[]) =>
  [...txs].sort((a, b) => Number(b.blockNumber! - a.blockNumber!) || b.transactionIndex! - a.transactionIndex!);

beforeAll(async () => {
  service = await startNpmStart();
  chain = createPublicClient({ transport: http(service.rpcUrl) });
  token = service.demo.contracts.token.toLowerCase();
  configure({ clientId: 'test-client-id', override: { baseUrl: `${service.urls.base}/insights` } });
  const head = Number(await chain.getBlockNumber());
  const blocks: Block<bigint, true>[] = await Promise.all(
    Array.from({ length: head + 1 }, (_, number) => chain.getBlock({ blockNumber: BigInt(number), includeTransactions: true })),
  );
  transactions = blocks.flatMap((block) => block.transactions);
}, 240_000);

afterAll(async () => {
  await service?.stop();
});

describe('@thirdweb-dev/insight transaction and event lists against npm start', () => {
  it('getV1TransactionsByContractAddress: every transaction to the token (not its creation: no `to`), newest first, with exact totals', async () => {
    const want = newestFirst(transactions.filter((tx) => lower(tx.to) === token));
    const { data, error, response } = await getV1TransactionsByContractAddress({
      path: { contractAddress: token },
      query: { chain_id: [CHAIN], limit: 100 },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.data!.map((tx) => tx.hash)).toEqual(want.map((tx) => tx.hash));
    expect(data!.meta).toMatchObject({ chain_ids: [CHAIN], address: token, total_items: want.length });
    const [newest] = data!.data!;
    const onChain = want[0]!;
    expect(newest).toMatchObject({ from_address: lower(onChain.from), value: onChain.value.toString(), data: onChain.input });

    const page = await getV1TransactionsByContractAddress({
      path: { contractAddress: token },
      query: { chain_id: [CHAIN], limit: 2, page: 1, filter_function_selector: '0xa9059cbb' },
    });
    const transfers = want.filter((tx) => tx.input.startsWith('0xa9059cbb'));
    expect(page.data!.data!.map((tx) => tx.hash)).toEqual(transfers.slice(2, 4).map((tx) => tx.hash));
    expect(page.data!.meta.total_items).toBe(transfers.length);
  });

  it('getV1Transactions: by sender, and a 400 without sender, recipient or selector', async () => {
    const sender = lower(transactions.find((tx) => tx.to !== null)!.from);
    const want = newestFirst(transactions.filter((tx) => lower(tx.from) === sender));
    const { data, error } = await getV1Transactions({ query: { chain_id: [CHAIN], filter_from_address: sender, limit: 200 } });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(data!.data!.map((tx) => tx.hash)).toEqual(want.map((tx) => tx.hash));
    expect(data!.meta.total_items).toBe(want.length);

    const refused = await getV1Transactions({ query: { chain_id: [CHAIN] } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ error: expect.stringContaining('filter_from_address') });
  });

  it('getV1WalletsByWalletAddressTransactions: the busiest account’s transactions from or to it', async () => {
    const wallet = lower(service.demo.accounts.busy);
    const want = newestFirst(transactions.filter((tx) => lower(tx.from) === wallet || lower(tx.to) === wallet));
    const { data, error } = await getV1WalletsByWalletAddressTransactions({
      path: { wallet_address: wallet },
      query: { chain_id: [CHAIN], limit: 200 },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(data!.data!.map((tx) => tx.hash)).toEqual(want.map((tx) => tx.hash));
    expect(data!.meta).toMatchObject({ address: wallet, total_items: want.length });
  });

  it('getV1Events and getV1EventsByContractAddressBySignature: the token’s Transfer logs, decoded', async () => {
    const logs = (await chain.getLogs({ address: token as `0x${string}`, fromBlock: 0n, toBlock: 'latest' }))
      .filter((log) => log.topics[0] === TRANSFER_TOPIC)
      .sort((a, b) => Number(b.blockNumber! - a.blockNumber!) || b.logIndex! - a.logIndex!);
    const key = (log: { transaction_hash?: string; transactionHash?: string | null; log_index?: number; logIndex?: number | null }) =>
      `${log.transaction_hash ?? log.transactionHash}:${log.log_index ?? log.logIndex}`;

    const all = await getV1Events({ query: { chain_id: [CHAIN], filter_address: token, filter_topic_0: TRANSFER_TOPIC, limit: 100 } });
    expect(all.error, JSON.stringify(all.error)).toBeUndefined();
    expect(all.data!.data!.map(key)).toEqual(logs.map(key));

    const bySignature = await getV1EventsByContractAddressBySignature({
      path: { contractAddress: token, signature: 'Transfer(address indexed from, address indexed to, uint256 value)' },
      query: { chain_id: [CHAIN], decode: true, limit: 100 },
    });
    expect(bySignature.error, JSON.stringify(bySignature.error)).toBeUndefined();
    expect(bySignature.data!.data!.map(key)).toEqual(logs.map(key));
    expect(bySignature.data!.meta).toMatchObject({ signature: TRANSFER_TOPIC, total_items: logs.length });
    const [first] = bySignature.data!.data!;
    expect(first!.decoded).toMatchObject({
      name: 'Transfer',
      indexed_params: { from: `0x${logs[0]!.topics[1]!.slice(26)}`, to: `0x${logs[0]!.topics[2]!.slice(26)}` },
      non_indexed_params: { value: BigInt(logs[0]!.data).toString() },
    });
  });
});
