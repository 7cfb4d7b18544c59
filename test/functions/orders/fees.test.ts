import { beforeAll, describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../../shared/db/client';
import { addressKeys } from '../../../shared/table/keys';
import { putPartner } from '../../../shared/orders/partners';
import { MAINNET_USDC, orderBody, postOrder, putIndexedBalance } from './fixtures';

const table = useTestTable('orders-fees');

/** The fee-discount token on Ethereum (dstChain of the default body) and on Base. */
const FEE_TOKEN = '0xb3b32f9f8827d4634fe7d973fa1034ec9fddb3b3';
const BASE_FEE_TOKEN = '0x00000000000000000000000000000000000b3b3b';
/** On Optimism the fee token has no address item: nothing tells its decimals. */
const OPTIMISM_FEE_TOKEN = '0x00000000000000000000000000000000000b3b10';
process.env.ORDER_FEE_TOKENS = JSON.stringify({ '1': FEE_TOKEN, '8453': BASE_FEE_TOKEN, '10': OPTIMISM_FEE_TOKEN });

let holderCount = 0;
/** A fresh recipient for each case, so every balance row is independent. */
function newRecipient(): string {
  holderCount += 1;
  return `0x${holderCount.toString(16).padStart(40, 'a')}`;
}

const whole = (tokens: bigint, decimals: number): bigint => tokens * 10n ** BigInt(decimals);

describe('standard fee from the indexed balance on the destination chain', () => {
  /** [case, balance in the smallest unit, token decimals, whale bps, recipientBalance, finalFeeBps]. */
  const tiers: [string, bigint, number, number, string, number][] = [
    ['just under 100,000 tokens (18 decimals)', whole(100_000n, 18) - 1n, 18, 0, '99999.999999999999999999', 80],
    ['exactly 100,000 tokens', whole(100_000n, 18), 18, 5000, '100000', 40],
    ['499,999.5 tokens', whole(499_999n, 18) + whole(5n, 17), 18, 5000, '499999.5', 40],
    ['exactly 500,000 tokens', whole(500_000n, 18), 18, 7500, '500000', 20],
    ['just under 1,000,000 tokens', whole(1_000_000n, 18) - 1n, 18, 7500, '999999.999999999999999999', 20],
    ['exactly 1,000,000 tokens', whole(1_000_000n, 18), 18, 10000, '1000000', 0],
    ['50,000,000 tokens', whole(50_000_000n, 18), 18, 10000, '50000000', 0],
    ['exactly 100,000 tokens of a 6-decimal token', whole(100_000n, 6), 6, 5000, '100000', 40],
    ['just under 100,000 tokens of a 6-decimal token', whole(100_000n, 6) - 1n, 6, 0, '99999.999999', 80],
    ['100,000 smallest units of a 6-decimal token (0.1 token)', 100_000n, 6, 0, '0.1', 80],
    ['exactly 500,000 tokens of a 0-decimal token', 500_000n, 0, 7500, '500000', 20],
  ];

  it.each(tiers)('%s', async (_name, balance, decimals, whaleBps, recipientBalance, finalFeeBps) => {
    const recipient = newRecipient();
    await putIndexedBalance(table.name, 1, recipient, FEE_TOKEN, balance, decimals);
    const response = await postOrder(orderBody({ recipientAddress: recipient }));
    expect(response.status).toBe(200);
    expect(response.body.data.fee).toEqual({
      type: 'standard_fee',
      feeVersion: 1,
      tokenToCheckBalance: FEE_TOKEN,
      recipientBalance,
      serviceFeeBps: 80,
      serviceWhaleDiscountBps: whaleBps,
      servicePartnerDiscountBps: 0,
      finalFeeBps,
    });
  });

  it('counts no balance when nothing is indexed for the recipient', async () => {
    const response = await postOrder(orderBody({ recipientAddress: newRecipient() }));
    expect(response.body.data.fee).toMatchObject({
      tokenToCheckBalance: FEE_TOKEN,
      recipientBalance: '0',
      serviceWhaleDiscountBps: 0,
      finalFeeBps: 80,
    });
  });

  it('assumes 18 decimals when the token has no address item', async () => {
    const recipient = newRecipient();
    await db.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...addressKeys.balance(10, recipient, OPTIMISM_FEE_TOKEN), kind: 'balance', value: whole(100_000n, 18).toString() },
      }),
    );
    const opUsdc = '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85';
    const body = orderBody({ recipientAddress: recipient, dstChain: 10, dstTokenAddress: opUsdc });
    body.metadata.dstToken = { chainId: 10, address: opUsdc, symbol: 'USDC', name: 'USD Coin', decimals: 6 };
    const response = await postOrder(body);
    expect(response.body.data.fee).toMatchObject({ recipientBalance: '100000', serviceWhaleDiscountBps: 5000 });
  });

  it('reads the destination chain, not the source chain', async () => {
    const recipient = newRecipient();
    await putIndexedBalance(table.name, 8453, recipient, BASE_FEE_TOKEN, whole(2_000_000n, 18), 18);
    const toEthereum = await postOrder(orderBody({ recipientAddress: recipient }));
    expect(toEthereum.body.data.fee).toMatchObject({ tokenToCheckBalance: FEE_TOKEN, serviceWhaleDiscountBps: 0, finalFeeBps: 80 });

    const body = orderBody({
      recipientAddress: recipient,
      srcChain: 1,
      dstChain: 8453,
      srcTokenAddress: MAINNET_USDC,
      dstTokenAddress: orderBody().srcTokenAddress,
    });
    body.metadata = { srcToken: orderBody().metadata.dstToken, dstToken: orderBody().metadata.srcToken };
    const toBase = await postOrder(body);
    expect(toBase.body.data.fee).toMatchObject({
      tokenToCheckBalance: BASE_FEE_TOKEN,
      recipientBalance: '2000000',
      serviceWhaleDiscountBps: 10000,
    });
  });

  it('gives no whale discount on a chain without a configured fee token', async () => {
    const recipient = newRecipient();
    await putIndexedBalance(table.name, 137, recipient, FEE_TOKEN, whole(2_000_000n, 18), 18);
    const polygonToken = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
    const body = orderBody({ recipientAddress: recipient, dstChain: 137, dstTokenAddress: polygonToken });
    body.metadata.dstToken = { chainId: 137, address: polygonToken, symbol: 'USDC', name: 'USD Coin', decimals: 6 };
    const response = await postOrder(body);
    expect(response.body.data.fee).toMatchObject({
      tokenToCheckBalance: '0x0000000000000000000000000000000000000000',
      recipientBalance: '0',
      serviceWhaleDiscountBps: 0,
      finalFeeBps: 80,
    });
  });
});

describe('partner discount', () => {
  beforeAll(async () => {
    await putPartner({ partnerId: 'partner-30', discountBps: 30, name: 'Thirty' });
    await putPartner({ partnerId: 'partner-50', discountBps: 50 });
  });

  it('takes the partner discount off the service fee', async () => {
    const response = await postOrder(orderBody({ partnerId: 'partner-30', recipientAddress: newRecipient() }));
    expect(response.body.data.partnerId).toBe('partner-30');
    expect(response.body.data.fee).toMatchObject({
      serviceFeeBps: 80,
      serviceWhaleDiscountBps: 0,
      servicePartnerDiscountBps: 30,
      finalFeeBps: 50,
    });
  });

  it('combines the whale and partner discounts', async () => {
    const recipient = newRecipient();
    await putIndexedBalance(table.name, 1, recipient, FEE_TOKEN, whole(100_000n, 18), 18);
    const response = await postOrder(orderBody({ partnerId: 'partner-30', recipientAddress: recipient }));
    expect(response.body.data.fee).toMatchObject({ serviceWhaleDiscountBps: 5000, servicePartnerDiscountBps: 30, finalFeeBps: 10 });
  });

  it('floors at 0 when the partner discount is larger than what the whale discount leaves', async () => {
    const recipient = newRecipient();
    await putIndexedBalance(table.name, 1, recipient, FEE_TOKEN, whole(100_000n, 18), 18);
    const response = await postOrder(orderBody({ partnerId: 'partner-50', recipientAddress: recipient }));
    expect(response.body.data.fee).toMatchObject({ serviceWhaleDiscountBps: 5000, servicePartnerDiscountBps: 50, finalFeeBps: 0 });
  });

  it('rejects an unknown partnerId with 400 and writes nothing', async () => {
    const before = await tableSnapshot(table.name);
    const response = await postOrder(orderBody({ partnerId: 'nobody' }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, message: 'partnerId: unknown partner "nobody"', statusCode: 400 });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });
});
