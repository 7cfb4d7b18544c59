/**
 * POST /orders in a deployment that sets the orders variables: the handler module reads them once, at
 * cold start, so they are set here before the first request loads it.
 */
import { concat, getAddress, keccak256, slice, stringToBytes } from 'viem';
import { describe, expect, it } from 'vitest';
import { useTestTable } from '../../support/table';
import { orderBody, postOrder, putIndexedBalance } from './fixtures';

const table = useTestTable('orders-config');

const FACTORY = '0x1111111111111111111111111111111111111111';
const INIT_CODE_HASH = keccak256(stringToBytes('deposit contract'));
/** The fee-discount token on Ethereum (dstChain of the default body). */
const FEE_TOKEN = '0xb3b32f9f8827d4634fe7d973fa1034ec9fddb3b3';

process.env.ORDER_DEPOSIT_FACTORY = FACTORY;
process.env.ORDER_DEPOSIT_INIT_CODE_HASH = INIT_CODE_HASH;
process.env.ORDER_EXPIRY_MINUTES = '30';
process.env.ORDER_SERVICE_FEE_BPS = '81';
process.env.ORDER_FEE_TOKENS = JSON.stringify({ '1': FEE_TOKEN });

describe('POST /orders with the orders variables set', () => {
  it('follows ORDER_DEPOSIT_FACTORY and ORDER_DEPOSIT_INIT_CODE_HASH', async () => {
    const { body } = await postOrder(orderBody());
    const expected = getAddress(slice(keccak256(concat(['0xff', FACTORY, keccak256(stringToBytes(body.data.id)), INIT_CODE_HASH])), 12));
    expect(body.data.globalAddress).toBe(expected);
  });

  it('uses ORDER_EXPIRY_MINUTES for expiredAt', async () => {
    const { body } = await postOrder(orderBody());
    expect(body.data.expiredAt - body.data.createdAt).toBe(30 * 60_000);
  });

  it('uses ORDER_SERVICE_FEE_BPS and rounds the whale discount down in integer arithmetic', async () => {
    const recipient = '0x00000000000000000000000000000000000000a1';
    await putIndexedBalance(table.name, 1, recipient, FEE_TOKEN, 100_000n * 10n ** 18n, 18);
    const response = await postOrder(orderBody({ recipientAddress: recipient }));
    // 81 - floor(81 * 5000 / 10000) = 81 - 40 = 41
    expect(response.body.data.fee).toMatchObject({ serviceFeeBps: 81, serviceWhaleDiscountBps: 5000, finalFeeBps: 41 });
  });
});
