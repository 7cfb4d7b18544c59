/**
 * Deposit detection end to end on a real anvil: orders created through the real handler
 * (POST /orders) with the anvil chain as srcChain, real ETH and ERC-20 transfers to their deposit
 * addresses, the real ingest with deposit detection as its listener (as the composition roots wire
 * it), then the orders as GET /orders/{id} and the table show them. Also repair runs, a listener
 * failure before the cursor moves, and reorgs that orphan (and re-mine) deposits.
 */
process.env.ORDER_CHAINS = '1,31337';

import { createWalletClient, defineChain, http, parseEther, type Abi, type Address, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { orderKeys } from '../../../shared/table/keys';
import { DEFAULT_RETRY_POLICY } from '../../../shared/chain/retry';
import { deriveBlock } from '../../../shared/ingest/derive';
import { BlockSource } from '../../../shared/ingest/fetch-block';
import { ingestRange } from '../../../shared/ingest/ingest';
import type { BlockIngestedEvent, IngestListener } from '../../../shared/ingest/listeners';
import { queryRange } from '../../../shared/ingest/table-io';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { detectOrderDepositsInBlocks, orderDepositListener, type OrderDepositRecord } from '../../../shared/orders/deposits';
import { getOrder, MAINNET_USDC, orderBody, postOrder, storedOrder } from '../../functions/orders/fixtures';
import { publicClient } from '../ingest/support/truth';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('deposits');
const CHAIN_ID = 31337;
const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
let anvil: Anvil;
let artifacts: DemoArtifacts;
let wallet: ReturnType<typeof createWalletClient>;
let token: Address;
let splitter: Address;

interface CreatedOrder {
  id: string;
  globalAddress: Address;
  createdAt: number;
  expiredAt: number;
  status: string;
}

const client = () => createChainClient(anvil.rpcUrl);
/** The ingest as the composition roots wire it (deposit detection first), with `listeners` after it. */
const ingest = (options: { repair?: boolean; from?: number; listeners?: readonly IngestListener[] } = {}) =>
  ingestRange({ chainId: CHAIN_ID, client: client(), ...options, listeners: [orderDepositListener, ...(options.listeners ?? [])] });
const rpc = (method: string, params: unknown[] = []) =>
  publicClient(anvil.rpcUrl).request({ method: method as never, params: params as never });
const headNumber = async () => Number(await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 }));

async function mined(hash: Hash | Promise<Hash>) {
  return publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
}

async function deploy(name: 'DemoToken' | 'DemoSplitter', args: unknown[]): Promise<Address> {
  const artifact = artifacts[name];
  return (
    await mined(wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, account: accounts[0], chain: wallet.chain }))
  ).contractAddress!;
}

const sendEth = (to: Address, value: bigint, from = 1) =>
  mined(wallet.sendTransaction({ to, value, account: accounts[from], chain: wallet.chain }));

const sendToken = (to: Address, amount: bigint, from = 1) =>
  mined(
    wallet.writeContract({
      address: token,
      abi: artifacts.DemoToken.abi as Abi,
      functionName: 'transfer',
      args: [to, amount],
      account: accounts[from],
      chain: wallet.chain,
    }),
  );

/** Block time of a mined transaction's block, in epoch ms. */
async function blockTimeMs(blockNumber: bigint): Promise<number> {
  return Number((await publicClient(anvil.rpcUrl).getBlock({ blockNumber })).timestamp) * 1000;
}

function nativeOrderBody(srcAmount: bigint, srcChain = CHAIN_ID) {
  return orderBody({
    srcChain,
    srcTokenAddress: NATIVE,
    srcAmount: srcAmount.toString(),
    metadata: {
      srcToken: { chainId: srcChain, address: NATIVE, symbol: 'ETH', name: 'Ether', decimals: 18 },
      dstToken: { chainId: 1, address: MAINNET_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    },
  });
}

function tokenOrderBody(srcAmount: bigint) {
  return orderBody({
    srcChain: CHAIN_ID,
    srcTokenAddress: token,
    srcAmount: srcAmount.toString(),
    metadata: {
      srcToken: { chainId: CHAIN_ID, address: token, symbol: 'DEMO', name: 'Demo Token', decimals: 18 },
      dstToken: { chainId: 1, address: MAINNET_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    },
  });
}

async function createOrder(body: Record<string, unknown>): Promise<CreatedOrder> {
  const response = await postOrder(body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data as CreatedOrder;
}

async function apiStatus(order: CreatedOrder): Promise<{ status: string; receivedDepositAt: number | null }> {
  const response = await getOrder(order.id);
  expect(response.status).toBe(200);
  return response.body.data.order;
}

const stored = (order: CreatedOrder) => storedOrder(table.name, order.id) as Promise<Record<string, any>>;
const deposits = (order: CreatedOrder) => queryRange<OrderDepositRecord>(orderKeys.depositsRange(order.id));

/** Every item of the orders' partitions (orders and their deposits), to compare before and after. */
async function orderItems() {
  return (await tableSnapshot(table.name)).filter((item) => String(item.pk).startsWith('ORDER#'));
}

beforeAll(async () => {
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'deposits',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl) });
  token = await deploy('DemoToken', [accounts[0].address]);
  splitter = await deploy('DemoSplitter', []);
  await mined(
    wallet.writeContract({
      address: token,
      abi: artifacts.DemoToken.abi as Abi,
      functionName: 'mint',
      args: [accounts[1].address, parseEther('1000')],
      account: accounts[0],
      chain: wallet.chain,
    }),
  );
  await ingest({ from: 0 });
}, 120_000);

afterEach(() => resetClock());

afterAll(async () => {
  await anvil?.stop();
});

describe('deposits that complete an order', () => {
  test('ETH in two parts: the order moves only when the second completes srcAmount', async () => {
    const order = await createOrder(nativeOrderBody(parseEther('1')));
    expect(order.status).toBe('scanning_deposit_transaction');

    await sendEth(order.globalAddress, parseEther('0.4'));
    await ingest();
    expect(await apiStatus(order)).toMatchObject({ status: 'scanning_deposit_transaction', receivedDepositAt: null });
    expect((await stored(order)).receivedAmount).toBe(parseEther('0.4').toString());

    const second = await sendEth(order.globalAddress, parseEther('0.6'), 2);
    await ingest();
    const expectedAt = Math.max(await blockTimeMs(second.blockNumber), order.createdAt);
    expect(await apiStatus(order)).toMatchObject({ status: 'sending_token_from_vault', receivedDepositAt: expectedAt });
    expect(await stored(order)).toMatchObject({
      receivedAmount: parseEther('1').toString(),
      depositAmount: parseEther('1').toString(),
      depositTransactionHash: second.transactionHash,
    });
    const recorded = await deposits(order);
    expect(recorded.map((d) => [d.token, d.amount, d.outcome, d.callIndex, d.logIndex])).toEqual(
      expect.arrayContaining([
        ['native', parseEther('0.4').toString(), 'counted', 0, null],
        ['native', parseEther('0.6').toString(), 'counted', 0, null],
      ]),
    );
    expect(recorded).toHaveLength(2);
  });

  test('a mint_nft order paid in ERC-20 of the demo token: detected as a swap is, and GET /orders/{id} lists its deposits', async () => {
    const body = tokenOrderBody(parseEther('10'));
    const nft = { contractAddress: MAINNET_USDC, contractType: 'erc1155', tokenId: 7, nftPrice: '5' };
    const order = await createOrder({
      ...body,
      type: 'mint_nft',
      payload: nft,
      metadata: {
        ...body.metadata,
        nft: { type: 'erc1155', contractAddress: MAINNET_USDC, tokenId: 7, name: 'N', description: '', imageUrl: '', price: '5' },
      },
    });
    expect((await getOrder(order.id)).body.data.depositTxs).toBeNull();

    const first = await sendToken(order.globalAddress, parseEther('4'));
    const second = await sendToken(order.globalAddress, parseEther('6'));
    await ingest();
    const read = (await getOrder(order.id)).body.data;
    expect(read.order).toMatchObject({ type: 'mint_nft', status: 'sending_token_from_vault', payload: nft });
    expect(read.depositTxs).toEqual(
      await Promise.all(
        [
          [first, parseEther('4')],
          [second, parseEther('6')],
        ].map(async ([receipt, amount]: any) => ({
          orderId: order.id,
          chain: CHAIN_ID,
          from: expect.stringMatching(new RegExp(`^${accounts[1]!.address}$`, 'i')),
          txHash: receipt.transactionHash,
          amount: amount.toString(),
          createdAt: await blockTimeMs(receipt.blockNumber),
        })),
      ),
    );
    expect(read).toMatchObject({ relayTx: null, executeTx: null, refundTxs: null });
  });

  test('an ERC-20 of the demo token in two parts', async () => {
    const order = await createOrder(tokenOrderBody(parseEther('100')));
    await sendToken(order.globalAddress, parseEther('30'));
    await ingest();
    expect((await apiStatus(order)).status).toBe('scanning_deposit_transaction');
    const second = await sendToken(order.globalAddress, parseEther('70'));
    await ingest();
    expect(await apiStatus(order)).toMatchObject({
      status: 'sending_token_from_vault',
      receivedDepositAt: Math.max(await blockTimeMs(second.blockNumber), order.createdAt),
    });
    const recorded = await deposits(order);
    expect(recorded.map((d) => [d.token, d.amount, d.outcome])).toEqual(
      expect.arrayContaining([
        [token.toLowerCase(), parseEther('30').toString(), 'counted'],
        [token.toLowerCase(), parseEther('70').toString(), 'counted'],
      ]),
    );
    expect(recorded.every((d) => d.logIndex !== null && d.callIndex === null)).toBe(true);
  });

  test('ETH paid by a contract in an internal call counts (call index of the trace)', async () => {
    const order = await createOrder(nativeOrderBody(parseEther('0.5')));
    await mined(
      wallet.writeContract({
        address: splitter,
        abi: artifacts.DemoSplitter.abi as Abi,
        functionName: 'split',
        args: [[order.globalAddress], [parseEther('0.5')]],
        value: parseEther('0.5'),
        account: accounts[3],
        chain: wallet.chain,
      }),
    );
    await ingest();
    expect((await apiStatus(order)).status).toBe('sending_token_from_vault');
    const [deposit] = await deposits(order);
    expect(deposit).toMatchObject({ token: 'native', from: splitter.toLowerCase(), outcome: 'counted' });
    expect(deposit.callIndex).toBeGreaterThan(0);
  });

  test('the same blocks ingested again (repair) count nothing twice and move nothing again', async () => {
    // An order still waiting with a part paid: the repair run finds it (GSI1) and meets its deposit again.
    const waiting = await createOrder(nativeOrderBody(parseEther('1')));
    await sendEth(waiting.globalAddress, parseEther('0.25'));
    await ingest();
    const before = await orderItems();
    const result = await ingest({ from: 1, repair: true });
    expect(result.repaired).toBeGreaterThan(5);
    expect(await orderItems()).toEqual(before);
    expect((await stored(waiting)).receivedAmount).toBe(parseEther('0.25').toString());
    expect(await deposits(waiting)).toHaveLength(1);
  });

  test('a block delivered again after a failure before the cursor moved counts once', async () => {
    const order = await createOrder(nativeOrderBody(parseEther('1')));
    await sendEth(order.globalAddress, parseEther('0.5'));
    const failing: IngestListener = {
      blocksIngested: () => {
        throw new Error('listener after deposit detection fails');
      },
    };
    await expect(ingest({ listeners: [failing] })).rejects.toThrow('listener after deposit detection fails');
    // Deposit detection ran before the failing listener; the cursor did not move past the block.
    expect((await stored(order)).receivedAmount).toBe(parseEther('0.5').toString());
    const afterFirst = await orderItems();
    expect((await ingest()).advanced).toBe(1);
    expect(await orderItems()).toEqual(afterFirst);

    const last = await sendEth(order.globalAddress, parseEther('0.5'));
    await ingest();
    expect(await stored(order)).toMatchObject({
      status: 'quoting_after_deposit',
      receivedAmount: parseEther('1').toString(),
      depositTransactionHash: last.transactionHash,
    });
  });
});

describe('a batch of blocks', () => {
  /** What the ingest hands deposit detection for a block of the chain. */
  async function ingestedEvent(blockNumber: bigint): Promise<BlockIngestedEvent> {
    const derived = deriveBlock(
      CHAIN_ID,
      await new BlockSource(client(), DEFAULT_RETRY_POLICY, { warn: () => undefined }).fetch(blockNumber),
    );
    const erc20Transfers = derived.tokenTransfers.filter((transfer) => transfer.tokenStandard === 'ERC-20');
    return {
      chainId: CHAIN_ID,
      block: derived.block,
      mode: 'advance',
      nativeTransfers: derived.nativeTransfers,
      erc20Transfers,
      transactions: [],
      logs: [],
    };
  }

  test('three blocks handed over together: the order moves once; a payment in a later block, after it moved, is left alone as block by block', async () => {
    const order = await createOrder(nativeOrderBody(parseEther('1')));
    const first = await sendEth(order.globalAddress, parseEther('0.4'));
    const second = await sendEth(order.globalAddress, parseEther('0.6'), 2);
    const extra = await sendEth(order.globalAddress, parseEther('0.1'), 3);
    expect(new Set([first.blockNumber, second.blockNumber, extra.blockNumber]).size).toBe(3);
    const events = await Promise.all([first, second, extra].map((receipt) => ingestedEvent(receipt.blockNumber)));

    await detectOrderDepositsInBlocks(events);
    expect(await stored(order)).toMatchObject({
      status: 'quoting_after_deposit',
      receivedAmount: parseEther('1').toString(),
      depositTransactionHash: second.transactionHash,
    });
    expect((await deposits(order)).map((d) => [d.transactionHash, d.outcome]).sort()).toEqual(
      [
        [first.transactionHash, 'counted'],
        [second.transactionHash, 'counted'],
      ].sort(),
    );

    // Delivered again (a batch retried), then by the ingest itself: nothing changes.
    const after = await orderItems();
    await detectOrderDepositsInBlocks(events);
    await ingest();
    expect(await orderItems()).toEqual(after);
  });
});

describe('transfers that are not the order deposit', () => {
  test('an order on another chain, and orders in another token, are untouched', async () => {
    const otherChain = await createOrder(nativeOrderBody(parseEther('1'), 1));
    const tokenOrder = await createOrder(tokenOrderBody(parseEther('10')));
    const nativeOrder = await createOrder(nativeOrderBody(parseEther('10')));
    const before = await orderItems();
    await sendEth(otherChain.globalAddress, parseEther('1'));
    await sendEth(tokenOrder.globalAddress, parseEther('1'));
    await sendToken(nativeOrder.globalAddress, parseEther('10'));
    const result = await ingest();
    expect(result.advanced).toBe(3);
    expect(await orderItems()).toEqual(before);
    for (const order of [otherChain, tokenOrder, nativeOrder]) {
      expect((await stored(order)).receivedAmount).toBeUndefined();
      expect(await deposits(order)).toEqual([]);
    }
  });

  test('a deposit after expiry does not move the order; it is recorded for a refund', async () => {
    setClock(() => Date.now() - 20 * 60_000);
    const order = await createOrder(nativeOrderBody(parseEther('1')));
    resetClock();
    expect(order.expiredAt).toBeLessThan(Date.now());
    await sendEth(order.globalAddress, parseEther('1'));
    await ingest();
    expect(await stored(order)).toMatchObject({ status: 'scanning_deposit_transaction', receivedDepositAt: null });
    expect((await stored(order)).receivedAmount).toBeUndefined();
    expect((await apiStatus(order)).status).toBe('expired');
    expect((await deposits(order)).map((d) => [d.amount, d.outcome, d.totalAfter])).toEqual([
      [parseEther('1').toString(), 'after_expiry', null],
    ]);
  });
});

describe('reorgs', () => {
  /** A signed transfer that can be sent again after evm_revert (same hash, another block). */
  async function signedTransfer(to: Address, value: bigint, from: number): Promise<Hex> {
    const account = accounts[from];
    const nonce = await publicClient(anvil.rpcUrl).getTransactionCount({ address: account.address, blockTag: 'pending' });
    const request = await wallet.prepareTransactionRequest({ to, value, account, chain: wallet.chain, nonce });
    return wallet.signTransaction({ ...request, account, chain: wallet.chain } as never);
  }

  test('an orphaned partial deposit is undone; re-mined in a later block it counts once', async () => {
    const order = await createOrder(nativeOrderBody(parseEther('1')));
    const raw = await signedTransfer(order.globalAddress, parseEther('0.5'), 4);
    const snapshot = await rpc('evm_snapshot');
    const first = await mined(rpc('eth_sendRawTransaction', [raw]) as Promise<Hash>);
    await ingest();
    expect((await stored(order)).receivedAmount).toBe(parseEther('0.5').toString());

    // The competing branch: another block first, then the same transaction one block later.
    await rpc('evm_revert', [snapshot]);
    await sendEth(accounts[0].address, 1n, 3);
    await sendEth(accounts[0].address, 1n, 3);
    const again = await mined(rpc('eth_sendRawTransaction', [raw]) as Promise<Hash>);
    expect(again.transactionHash).toBe(first.transactionHash);
    expect(again.blockNumber).toBeGreaterThan(first.blockNumber);
    const result = await ingest();
    expect(result.reorgs).toBe(1);

    expect((await stored(order)).receivedAmount).toBe(parseEther('0.5').toString());
    const recorded = await deposits(order);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      blockNumber: Number(again.blockNumber),
      blockHash: again.blockHash,
      outcome: 'counted',
      orphaned: false,
    });
    expect((await apiStatus(order)).status).toBe('scanning_deposit_transaction');
  });

  test('an orphaned deposit that is never re-mined: the total goes back and the order waits', async () => {
    const order = await createOrder(nativeOrderBody(parseEther('1')));
    const snapshot = await rpc('evm_snapshot');
    await sendEth(order.globalAddress, parseEther('0.3'));
    await ingest();
    expect((await stored(order)).receivedAmount).toBe(parseEther('0.3').toString());
    await rpc('evm_revert', [snapshot]);
    await sendEth(accounts[0].address, 1n, 3);
    await sendEth(accounts[0].address, 1n, 3);
    expect((await ingest()).reorgs).toBe(1);
    expect((await stored(order)).receivedAmount).toBe('0');
    expect(await deposits(order)).toEqual([]);

    await sendEth(order.globalAddress, parseEther('1'));
    await ingest();
    expect((await apiStatus(order)).status).toBe('sending_token_from_vault');
  });

  test('an orphaned deposit that had already moved the order: flagged, the order is not moved back', async () => {
    const order = await createOrder(nativeOrderBody(parseEther('1')));
    const snapshot = await rpc('evm_snapshot');
    await sendEth(order.globalAddress, parseEther('1'));
    await ingest();
    expect((await apiStatus(order)).status).toBe('sending_token_from_vault');
    const head = await headNumber();
    await rpc('evm_revert', [snapshot]);
    while ((await headNumber()) <= head) await sendEth(accounts[0].address, 1n, 3);
    expect((await ingest()).reorgs).toBe(1);
    expect(await stored(order)).toMatchObject({ status: 'quoting_after_deposit', depositOrphaned: true });
    expect((await deposits(order)).map((d) => [d.outcome, d.orphaned])).toEqual([['counted', true]]);
  });
});
