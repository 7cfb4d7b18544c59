/** Request bodies and helpers shared by the orders tests. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../../shared/db/client';
import type { BlockIngestedEvent } from '../../../shared/ingest/listeners';
import type { BlockRecord } from '../../../shared/table/records';
import { addressKeys, orderKeys } from '../../../shared/table/keys';
import { requestJson } from '../../../scripts/lib/dispatch';

export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const MAINNET_USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
export const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const CREATOR = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/** A valid swap order body: 25 USDC on Base to USDC on Ethereum. */
export function orderBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    type: 'swap',
    recipientAddress: RECIPIENT,
    srcChain: 8453,
    dstChain: 1,
    srcTokenAddress: BASE_USDC,
    dstTokenAddress: MAINNET_USDC,
    srcAmount: '25000000',
    payload: { expectedDstAmount: '24900000' },
    metadata: {
      srcToken: {
        chainId: 8453,
        address: BASE_USDC,
        symbol: 'USDC',
        name: 'USD Coin',
        decimals: 6,
        metadata: { logoURI: 'https://example.com/usdc.png' },
      },
      dstToken: { chainId: 1, address: MAINNET_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    },
    ...overrides,
  };
}

export const onramp = { vendor: 'coinbase', paymentMethod: 'card', country: 'US', redirectUrl: 'https://app.example.com/done' };

export function postOrder(body: unknown, headers: Record<string, string> = {}, sourceIp?: string) {
  return requestJson('orders', 'POST', '/orders', { body, headers, sourceIp });
}

export function getOrder(id: string) {
  return requestJson('orders', 'GET', `/orders/${id}`);
}

export function postSession(body: unknown = {}, headers: Record<string, string> = {}) {
  return requestJson('orders', 'POST', '/checkout-sessions', { body, headers });
}

export function getSession(id: string) {
  return requestJson('orders', 'GET', `/checkout-sessions/${id}`);
}

export async function storedOrder(tableName: string, id: string): Promise<Record<string, any> | undefined> {
  return (await db.send(new GetCommand({ TableName: tableName, Key: orderKeys.order(id), ConsistentRead: true }))).Item;
}

/** Writes what the ingest would (shared/ingest/records.ts): a holder's balance item and the token's address item. */
export async function putIndexedBalance(
  tableName: string,
  chainId: number,
  holder: string,
  token: string,
  value: bigint,
  decimals: number,
) {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...addressKeys.balance(chainId, holder, token),
        kind: 'balance',
        holder: holder.toLowerCase(),
        token,
        value: value.toString(),
      },
    }),
  );
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...addressKeys.address(chainId, token), kind: 'address', address: token, tokenDecimals: decimals },
    }),
  );
}

export const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

/** An ETH order of CREATOR on the local chain (31337), whose deposit a blockPaying block pays. */
export const ethOrder = (overrides: Record<string, unknown> = {}) =>
  orderBody({
    srcChain: 31337,
    srcTokenAddress: NATIVE,
    srcAmount: '1000',
    creatorAddress: CREATOR,
    metadata: {
      srcToken: { chainId: 31337, address: NATIVE, symbol: 'ETH', name: 'Ether', decimals: 18 },
      dstToken: { chainId: 1, address: MAINNET_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    },
    ...overrides,
  });

let syntheticBlock = 500;
/** What the ingest publishes for a (synthetic) block of the local chain paying `value` wei to `to` at `timeMs`. */
export function blockPaying(to: string, value: bigint, timeMs: number): BlockIngestedEvent {
  syntheticBlock += 1;
  return {
    chainId: 31337,
    mode: 'advance',
    block: {
      kind: 'block',
      chainId: 31337,
      number: syntheticBlock,
      hash: `0x${syntheticBlock.toString(16).padStart(64, '0')}`,
      timestamp: Math.floor(timeMs / 1000),
    } as BlockRecord,
    nativeTransfers: [
      {
        transactionHash: `0x${(syntheticBlock * 7).toString(16).padStart(64, 'a')}`,
        transactionIndex: 0,
        internalIndex: null,
        from: '0x1111111111111111111111111111111111111111',
        to,
        value: value.toString(),
      },
    ],
    erc20Transfers: [],
    transactions: [],
    logs: [],
  };
}
