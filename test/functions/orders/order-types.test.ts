/**
 * POST /orders for AnySpend's four other order types (custom, mint_nft, join_tournament,
 * fund_tournament): created, stored, read back, fees as for swap; their payload and metadata checked
 * as closed objects that accept the extras AnySpend's SDK sends.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { orderResponseSchema } from '../../../shared/orders/schemas';
import { useTestTable } from '../../support/table';
import { getOrder, orderBody, postOrder, storedOrder } from './fixtures';

const table = useTestTable('order-types');

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const tournament = { slug: 's-1', name: 'Cup', description: 'A cup', imageUrl: 'https://example.com/cup.png' };
const nft = { type: 'erc1155', contractAddress: CONTRACT, name: 'N', description: 'd', imageUrl: 'https://example.com/n.png', tokenId: 3 };

const bodies: Record<string, Record<string, any>> = {
  custom: {
    type: 'custom',
    payload: { data: '0xa9059cbb00', to: CONTRACT, amount: '1000', spenderAddress: CONTRACT, action: 'claim' },
    metadata: { ...orderBody().metadata, action: 'claim' },
  },
  mint_nft: {
    type: 'mint_nft',
    payload: { contractAddress: CONTRACT.toLowerCase(), tokenId: 3, contractType: 'erc1155', nftPrice: '1000000' },
    metadata: { ...orderBody().metadata, nft: { ...nft, price: '1000000' } },
  },
  join_tournament: {
    type: 'join_tournament',
    payload: { contractAddress: CONTRACT, entryPrice: '500' },
    metadata: { ...orderBody().metadata, tournament: { ...tournament, contractAddress: CONTRACT, entryPriceOrFundAmount: '500' } },
  },
  fund_tournament: {
    type: 'fund_tournament',
    payload: { contractAddress: CONTRACT, fundAmount: '0' },
    metadata: { ...orderBody().metadata, tournament },
  },
};

describe.each(Object.keys(bodies))('POST /orders type %s', (type) => {
  it('creates, stores and reads back the order, with the swap fee and deposit indexing', async () => {
    const body = orderBody(bodies[type]);
    const swap = (await postOrder(orderBody())).body.data;
    const response = await postOrder(body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(v.safeParse(orderResponseSchema, response.body).success).toBe(true);
    const order = response.body.data;
    expect(order).toMatchObject({ type, status: 'scanning_deposit_transaction', payload: body.payload, srcAmount: body.srcAmount });
    expect(order.metadata[Object.keys(body.metadata).find((key) => !key.endsWith('Token')) ?? 'srcToken']).toBeDefined();
    expect(order.fee).toEqual(swap.fee);
    const stored = await storedOrder(table.name, order.id);
    expect(stored).toMatchObject({ type, payload: body.payload, metadata: body.metadata });
    expect(stored?.gsi1pk).toBe(`C#8453#DEPOSIT#${order.globalAddress.toLowerCase()}`);
    expect((await getOrder(order.id)).body.data.order).toEqual(order);
  });

  it('rejects an unknown field in its payload and in its metadata', async () => {
    const body = structuredClone(orderBody(bodies[type]));
    body.payload.extra = 1;
    body.metadata.extra = 1;
    const response = await postOrder(body);
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('payload.extra: is not an allowed field');
    expect(response.body.message).toContain('metadata.extra: is not an allowed field');
  });
});

describe('POST /orders type-specific rules', () => {
  it.each([
    [
      'mint_nft erc1155 without tokenId',
      'mint_nft',
      (b: any) => delete b.payload.tokenId,
      'payload.tokenId: is required (a number) for erc1155',
    ],
    [
      'mint_nft erc721 with a tokenId',
      'mint_nft',
      (b: any) => (b.payload.contractType = 'erc721'),
      'payload.tokenId: is required (a number) for erc1155',
    ],
    ['mint_nft without nft metadata', 'mint_nft', (b: any) => delete b.metadata.nft, 'metadata.nft: is required'],
    ['custom with calldata that is not hex', 'custom', (b: any) => (b.payload.data = '0xzz'), 'payload.data: must be hex calldata'],
    ['custom without to', 'custom', (b: any) => delete b.payload.to, 'payload.to: is required'],
    [
      'join_tournament with a swap payload',
      'join_tournament',
      (b: any) => (b.payload = { expectedDstAmount: '1' }),
      'payload.contractAddress: is required',
    ],
    [
      'fund_tournament with a negative amount',
      'fund_tournament',
      (b: any) => (b.payload.fundAmount = '-1'),
      'payload.fundAmount: must be a non-negative integer',
    ],
    [
      'a tournament without slug',
      'fund_tournament',
      (b: any) => delete b.metadata.tournament.slug,
      'metadata.tournament.slug: is required',
    ],
  ])('rejects %s', async (_name, type, mutate, message) => {
    const body = structuredClone(orderBody(bodies[type]));
    mutate(body);
    const response = await postOrder(body);
    expect(response.status).toBe(400);
    expect(response.body.message).toContain(message);
  });

  it('accepts an erc721 mint without tokenId and reads it back with tokenId null', async () => {
    const body = structuredClone(orderBody(bodies.mint_nft));
    body.payload = { contractAddress: CONTRACT, contractType: 'erc721', nftPrice: '1' };
    body.metadata.nft = { ...nft, type: 'erc721', contractType: 'erc721', tokenId: undefined, price: '1' };
    delete body.metadata.nft.tokenId;
    const response = await postOrder(body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.payload).toEqual({ ...body.payload, tokenId: null });
  });
});
