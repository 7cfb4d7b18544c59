/**
 * AnySpend's published client (`@b3dotfun/sdk` 0.0.30) against the orders base URL of the service `npm start` runs (test/support/npm-start.ts), used
 * exactly as its React hooks use it: payload and metadata built by its own builders, addresses
 * normalised by its own helper, every order it reads passed to its status formatter (which throws on
 * a status outside its nine). Nothing of the SDK is mocked; the SDK is fetched by
 * test/support/anyspend-client.ts.
 */
import { createPublicClient, createWalletClient, erc20Abi, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS } from '../../scripts/lib/anvil';
import { type NpmStartService, startNpmStart } from '../support/npm-start';
import { type AnyspendClient, loadAnyspendClient } from '../support/anyspend-client';

const USDC_BASE = {
  chainId: 8453,
  address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  symbol: 'USDC',
  name: 'USD Coin',
  decimals: 6,
  metadata: { logoURI: 'https://example.com/usdc.png' },
};
const B3_BASE = {
  chainId: 8453,
  address: '0xb3b32f9f8827d4634fe7d973fa1034ec9fddb3b3',
  symbol: 'B3',
  name: 'B3',
  decimals: 18,
  metadata: { logoURI: 'https://example.com/b3.png' },
};
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CREATOR = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

let service: NpmStartService;
let sdk: AnyspendClient;

beforeAll(async () => {
  // The demo's ticker off: it sends from the account that pays the deposit below (nonces would race).
  service = await startNpmStart({ env: { DEMO_ACTIVITY_INTERVAL_MS: '0' } });
  sdk = await loadAnyspendClient(service.urls.orders);
}, 300_000);

afterAll(async () => {
  await service?.stop();
});

/** The tournament the SDK's tournament components describe (the hooks add the price or the fund amount). */
const TOURNAMENT = {
  slug: 'summer-2024',
  name: 'Summer Championship',
  description: 'The biggest tournament of the summer',
  imageUrl: 'https://example.com/t.png',
  contractAddress: CONTRACT,
};

/** The parameters the SDK's components hand to its createOrder hook, per order type. */
const hookParams: Record<string, Record<string, unknown>> = {
  swap: { expectedDstAmount: '4900000000000000000' },
  custom: {
    payload: { amount: '1000000000000000000', data: '0xa9059cbb', spenderAddress: CONTRACT, to: CONTRACT, action: 'deposit-hype' },
  },
  mint_nft: {
    nft: {
      type: 'erc1155',
      contractAddress: CONTRACT,
      tokenId: 1,
      name: 'Cool NFT',
      description: 'A very cool NFT',
      imageUrl: 'https://example.com/nft.png',
      price: '1000000000000000000',
    },
  },
  join_tournament: { tournament: { ...TOURNAMENT, entryPriceOrFundAmount: '2000000000000000000' } },
  fund_tournament: { tournament: { ...TOURNAMENT, entryPriceOrFundAmount: '3000000000000000000' } },
};

/** What useAnyspendCreateOrder sends for `orderType` (its mutationFn, minus the fingerprint hook). */
function createOrder(orderType: string, extra: Record<string, unknown> = {}) {
  const params = {
    orderType,
    srcToken: USDC_BASE,
    dstToken: B3_BASE,
    ...hookParams[orderType],
    payload: { ...(hookParams[orderType]?.payload ?? {}) },
  };
  return sdk.anyspendService.createOrder({
    recipientAddress: sdk.normalizeAddress(RECIPIENT),
    type: orderType,
    srcChain: 8453,
    dstChain: 8453,
    srcTokenAddress: sdk.normalizeAddress(USDC_BASE.address),
    dstTokenAddress: sdk.normalizeAddress(B3_BASE.address),
    srcAmount: '5000000',
    payload: sdk.buildPayload(orderType, params),
    metadata: sdk.buildMetadata(orderType, params),
    creatorAddress: sdk.normalizeAddress(CREATOR),
    ...extra,
  });
}

const TYPES = ['swap', 'custom', 'mint_nft', 'join_tournament', 'fund_tournament'] as const;

describe("AnySpend's client, unchanged, against the orders URL", () => {
  const created: any[] = [];

  it.each(TYPES)('createOrder: a %s order built by the SDK is created (200, message, the order)', async (type) => {
    const body = await createOrder(type);
    expect(body).toMatchObject({ success: true, statusCode: 200, data: { type, status: 'scanning_deposit_transaction' } });
    expect(body.message).toEqual(expect.any(String));
    expect(body.message.length).toBeGreaterThan(0);
    expect(body.data.fee).toMatchObject({ type: 'standard_fee', serviceFeeBps: 80, finalFeeBps: 80 });
    expect(body.data.metadata.srcToken.metadata.logoURI).toBe(USDC_BASE.metadata.logoURI);
    expect(body.data.stripePaymentIntentId).toBeNull();
    expect(sdk.getStatusDisplay(body.data)).toMatchObject({ text: 'Awaiting Deposit', status: 'processing' });
    created.push(body.data);
  });

  it('createOrder: the SDK payload of each type reads back as sent (swap actualDstAmount null, mint tokenId, tournament extras)', () => {
    const byType = Object.fromEntries(created.map((order) => [order.type, order]));
    expect(byType.swap.payload).toEqual({ expectedDstAmount: '4900000000000000000', actualDstAmount: null });
    expect(byType.mint_nft.payload).toEqual({
      contractAddress: CONTRACT.toLowerCase(),
      nftPrice: '1000000000000000000',
      tokenId: 1,
      contractType: 'erc1155',
    });
    expect(byType.mint_nft.metadata.nft).toEqual(hookParams.mint_nft!.nft);
    expect(byType.join_tournament.payload).toEqual({ contractAddress: CONTRACT, entryPrice: '2000000000000000000' });
    expect(byType.fund_tournament.payload).toEqual({ contractAddress: CONTRACT, fundAmount: '3000000000000000000' });
    expect(byType.fund_tournament.metadata.tournament).toEqual(hookParams.fund_tournament!.tournament);
    expect(byType.custom.payload).toEqual(hookParams.custom!.payload);
    expect(byType.custom.metadata.action).toBe('deposit-hype');
  });

  it('createOrder: an erc721 mint (no tokenId) and an onramp order; the formatter shows the onramp order as awaiting payment', async () => {
    const nft = { ...(hookParams.mint_nft!.nft as object), type: 'erc721', contractType: 'erc721', tokenId: undefined };
    const params = { srcToken: USDC_BASE, dstToken: B3_BASE, nft };
    const mint = await createOrder('mint_nft', {
      payload: sdk.buildPayload('mint_nft', params),
      metadata: sdk.buildMetadata('mint_nft', params),
    });
    expect(mint.data.payload).toEqual({
      contractAddress: CONTRACT.toLowerCase(),
      nftPrice: '1000000000000000000',
      contractType: 'erc721',
      tokenId: null,
    });
    const onramp = await createOrder('swap', {
      onramp: { vendor: 'coinbase', paymentMethod: 'card', country: 'US', redirectUrl: 'https://app.example.com' },
    });
    expect(onramp.data.status).toBe('scanning_deposit_transaction');
    expect(onramp.data.onrampMetadata.stripeAmountInCents).toBe(500);
    expect(sdk.getStatusDisplay(onramp.data).text).toBe('Awaiting Payment');
    created.push(mint.data, onramp.data);
  });

  it('getOrderAndTransactions: the order with depositTxs, relayTx, executeTx, refundTxs (null before any deposit)', async () => {
    for (const order of created) {
      const body = await sdk.anyspendService.getOrderAndTransactions(order.id);
      expect(body).toEqual({
        success: true,
        message: 'Get order successfully',
        statusCode: 200,
        data: { order, depositTxs: null, relayTx: null, executeTx: null, refundTxs: null },
      });
      expect(() => sdk.getStatusDisplay(body.data.order)).not.toThrow();
    }
  });

  it('getOrderHistory: the creator (in another letter case) sees every order newest first; limit and offset page it', async () => {
    const newestFirst = [...created].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((order) => order.id);
    const all = await sdk.anyspendService.getOrderHistory(CREATOR.toUpperCase().replace('0X', '0x'));
    expect(all).toMatchObject({ success: true, statusCode: 200 });
    expect(all.data.map((order: any) => order.id)).toEqual(newestFirst);
    for (const order of all.data) expect(() => sdk.getStatusDisplay(order)).not.toThrow();

    const page = await sdk.anyspendService.getOrderHistory(CREATOR, 2, 1);
    expect(page.data.map((order: any) => order.id)).toEqual(newestFirst.slice(1, 3));
    const everyone = await sdk.anyspendService.getOrderHistory(undefined as unknown as string, 100, 0);
    expect(everyone.data.map((order: any) => order.id)).toEqual(newestFirst);
    const stranger = await sdk.anyspendService.getOrderHistory('0x0000000000000000000000000000000000000001');
    expect(stranger.data).toEqual([]);
  });

  it('a deposit on the local chain: the ingest detects the payment and getOrderAndTransactions lists it in depositTxs', async () => {
    // An order paid in DemoToken on the chain npm start ingests (31337 is an order chain: it is ingested).
    const token = service.demo.contracts.token;
    const demoToken = { chainId: 31337, address: token.toLowerCase(), symbol: 'DEMO', name: 'Demo Token', decimals: 18, metadata: {} };
    const params = { srcToken: demoToken, dstToken: B3_BASE, expectedDstAmount: '1000' };
    const body = await sdk.anyspendService.createOrder({
      recipientAddress: sdk.normalizeAddress(RECIPIENT),
      type: 'swap',
      srcChain: 31337,
      dstChain: 8453,
      srcTokenAddress: sdk.normalizeAddress(token),
      dstTokenAddress: sdk.normalizeAddress(B3_BASE.address),
      srcAmount: '2000000000000000000',
      payload: sdk.buildPayload('swap', params),
      metadata: sdk.buildMetadata('swap', params),
      creatorAddress: sdk.normalizeAddress(CREATOR),
    });
    const order = body.data;
    // The demo's busy account pays it to the order's deposit address, in two transfers.
    const wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]!), transport: http(service.rpcUrl) });
    const chain = createPublicClient({ transport: http(service.rpcUrl) });
    const hashes: string[] = [];
    for (const amount of [1_500_000_000_000_000_000n, 500_000_000_000_000_000n]) {
      const hash = await wallet.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [order.globalAddress, amount],
        chain: null,
      });
      await chain.waitForTransactionReceipt({ hash });
      hashes.push(hash);
    }
    const read = () => sdk.anyspendService.getOrderAndTransactions(order.id);
    await expect.poll(async () => (await read()).data.depositTxs?.length ?? 0, { timeout: 30_000, interval: 250 }).toBe(2);
    // The deposits are recorded first; the order's move out of scanning is its own conditional write after them.
    await expect
      .poll(async () => (await read()).data.order.status, { timeout: 30_000, interval: 250 })
      .not.toBe('scanning_deposit_transaction');
    const { data } = await read();
    expect(data.depositTxs.map((tx: any) => tx.txHash).sort()).toEqual([...hashes].sort());
    for (const tx of data.depositTxs) {
      expect(tx).toMatchObject({ orderId: order.id, chain: 31337, from: service.demo.accounts.busy.toLowerCase() });
      expect(tx.createdAt).toBeGreaterThan(order.createdAt - 60_000);
    }
    // The UI sums the deposits as BigInt.
    expect(data.depositTxs.reduce((sum: bigint, tx: any) => sum + BigInt(tx.amount), 0n)).toBe(2_000_000_000_000_000_000n);
    expect(data.order.status).not.toBe('scanning_deposit_transaction');
    expect(() => sdk.getStatusDisplay(data.order)).not.toThrow();
  });
});
