import { concat, getAddress, keccak256, slice, stringToBytes } from 'viem';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { dispatch } from '../../../scripts/lib/dispatch';
import { orderResponseSchema } from '../../../shared/orders/schemas';
import { BASE_USDC, CREATOR, MAINNET_USDC, getOrder, onramp, orderBody, postOrder, storedOrder } from './fixtures';

const table = useTestTable('orders-create');

type Mutation = (body: Record<string, any>) => any;

const without =
  (field: string): Mutation =>
  (body) => {
    delete body[field];
    return body;
  };
const set =
  (path: string, value: unknown): Mutation =>
  (body) => {
    const keys = path.split('.');
    let target = body;
    for (const key of keys.slice(0, -1)) target = target[key];
    if (value === undefined) delete target[keys[keys.length - 1]];
    else target[keys[keys.length - 1]] = value;
    return body;
  };
const withOnramp =
  (field: string, value: unknown): Mutation =>
  (body) => {
    body.onramp = { ...onramp, [field]: value };
    if (value === undefined) delete body.onramp[field];
    return body;
  };

/** [case, change to a valid body, the message that must name the field]. */
const invalid: [string, Mutation, string][] = [
  ...['type', 'recipientAddress', 'srcChain', 'dstChain', 'srcTokenAddress', 'dstTokenAddress', 'srcAmount', 'payload', 'metadata'].map(
    (field): [string, Mutation, string] => [`missing ${field}`, without(field), `${field}: is required`],
  ),
  [
    'type other than the five order types',
    set('type', 'bridge'),
    'type: must be one of: swap, custom, mint_nft, join_tournament, fund_tournament',
  ],
  ['recipientAddress too short', set('recipientAddress', '0x1234'), 'recipientAddress: must be an address'],
  [
    'recipientAddress without 0x',
    set('recipientAddress', '70997970C51812dc3A010C7d01b50e0d17dc79C8'),
    'recipientAddress: must be an address',
  ],
  [
    'recipientAddress with a non-hex digit',
    set('recipientAddress', '0x70997970C51812dc3A010C7d01b50e0d17dc79CG'),
    'recipientAddress: must be an address',
  ],
  ['recipientAddress a number', set('recipientAddress', 1234), 'recipientAddress: must be a string'],
  ['srcChain as a string', set('srcChain', '8453'), 'srcChain: must be a number'],
  ['srcChain zero', set('srcChain', 0), 'srcChain: must be a positive integer'],
  ['srcChain negative', set('srcChain', -1), 'srcChain: must be a positive integer'],
  ['srcChain fractional', set('srcChain', 8453.5), 'srcChain: must be an integer'],
  ['srcChain not configured', set('srcChain', 999_999), 'srcChain: is not a supported chain'],
  ['dstChain not configured', set('dstChain', 5), 'dstChain: is not a supported chain'],
  ['srcTokenAddress invalid', set('srcTokenAddress', '0xnothex'), 'srcTokenAddress: must be an address'],
  ['dstTokenAddress invalid', set('dstTokenAddress', ''), 'dstTokenAddress: must be an address'],
  ['srcAmount zero', set('srcAmount', '0'), 'srcAmount: must be a positive integer string'],
  ['srcAmount negative', set('srcAmount', '-5'), 'srcAmount: must be a positive integer string'],
  ['srcAmount decimal', set('srcAmount', '1.5'), 'srcAmount: must be a positive integer string'],
  ['srcAmount leading zero', set('srcAmount', '0100'), 'srcAmount: must be a positive integer string'],
  ['srcAmount exponent', set('srcAmount', '1e6'), 'srcAmount: must be a positive integer string'],
  ['srcAmount a number', set('srcAmount', 25_000_000), 'srcAmount: must be a string'],
  ['srcAmount above uint256', set('srcAmount', (2n ** 256n).toString()), 'srcAmount: must fit in 256 bits'],
  ['payload not an object', set('payload', 'x'), 'payload: must be an object'],
  ['payload.expectedDstAmount missing', set('payload.expectedDstAmount', undefined), 'payload.expectedDstAmount: is required'],
  ['payload.expectedDstAmount zero', set('payload.expectedDstAmount', '0'), 'payload.expectedDstAmount: must be a positive integer string'],
  ['payload with an unknown field', set('payload.slippage', 1), 'payload.slippage: is not an allowed field'],
  ['metadata.srcToken missing', set('metadata.srcToken', undefined), 'metadata.srcToken: is required'],
  ['metadata with an unknown field', set('metadata.extra', {}), 'metadata.extra: is not an allowed field'],
  ['srcToken on another chain', set('metadata.srcToken.chainId', 1), 'metadata.srcToken.chainId: must equal srcChain'],
  ['dstToken on another chain', set('metadata.dstToken.chainId', 8453), 'metadata.dstToken.chainId: must equal dstChain'],
  ['srcToken of another address', set('metadata.srcToken.address', MAINNET_USDC), 'metadata.srcToken.address: must equal srcTokenAddress'],
  ['dstToken of another address', set('metadata.dstToken.address', BASE_USDC), 'metadata.dstToken.address: must equal dstTokenAddress'],
  ['token decimals negative', set('metadata.srcToken.decimals', -1), 'metadata.srcToken.decimals: must be at least 0'],
  ['token decimals fractional', set('metadata.dstToken.decimals', 6.5), 'metadata.dstToken.decimals: must be an integer'],
  ['token decimals above uint8', set('metadata.dstToken.decimals', 256), 'metadata.dstToken.decimals: must be at most 255'],
  ['token symbol empty', set('metadata.srcToken.symbol', ''), 'metadata.srcToken.symbol: must not be empty'],
  ['token name missing', set('metadata.dstToken.name', undefined), 'metadata.dstToken.name: is required'],
  ['token logoURI not a URL', set('metadata.srcToken.metadata.logoURI', 'logo'), 'metadata.srcToken.metadata.logoURI: must be a URL'],
  [
    'token metadata unknown field',
    set('metadata.srcToken.metadata.color', 'red'),
    'metadata.srcToken.metadata.color: is not an allowed field',
  ],
  ['token unknown field', set('metadata.dstToken.priceUsd', 1), 'metadata.dstToken.priceUsd: is not an allowed field'],
  [
    'same token on the same chain',
    (body) => ({
      ...body,
      dstChain: 8453,
      dstTokenAddress: BASE_USDC.toLowerCase(),
      metadata: { ...body.metadata, dstToken: { ...body.metadata.srcToken } },
    }),
    'dstTokenAddress: must differ from srcTokenAddress',
  ],
  [
    'clientReferenceId with a space',
    set('clientReferenceId', 'order 1'),
    'clientReferenceId: may only contain letters, digits, hyphens and underscores',
  ],
  ['clientReferenceId of 256 characters', set('clientReferenceId', 'a'.repeat(256)), 'clientReferenceId: must be at most 255 characters'],
  ['clientReferenceId empty', set('clientReferenceId', ''), 'clientReferenceId: may only contain'],
  ['partnerId with a symbol', set('partnerId', 'partner!'), 'partnerId: must be 1 to 64 letters'],
  ['creatorAddress invalid', set('creatorAddress', '0x12'), 'creatorAddress: must be an address'],
  ['checkoutSessionId not a UUID', set('checkoutSessionId', 'session-1'), 'checkoutSessionId: must be a UUID'],
  ['onramp not an object', set('onramp', 'coinbase'), 'onramp: must be an object'],
  ['onramp vendor not configured', withOnramp('vendor', 'paypal'), 'onramp.vendor: must be one of: coinbase, stripe'],
  ['onramp vendor an inherited property name', withOnramp('vendor', 'constructor'), 'onramp.vendor: must be one of'],
  ['onramp country unassigned', withOnramp('country', 'XX'), 'onramp.country: must be an ISO 3166-1 alpha-2 country code'],
  ['onramp country reserved (UK)', withOnramp('country', 'UK'), 'onramp.country: must be an ISO 3166-1 alpha-2 country code'],
  ['onramp country lower case', withOnramp('country', 'us'), 'onramp.country: must be an ISO 3166-1 alpha-2 country code'],
  ['onramp country alpha-3', withOnramp('country', 'USA'), 'onramp.country: must be an ISO 3166-1 alpha-2 country code'],
  ['onramp redirectUrl over http', withOnramp('redirectUrl', 'http://app.example.com/done'), 'onramp.redirectUrl: must be an https URL'],
  ['onramp redirectUrl not a URL', withOnramp('redirectUrl', 'app.example.com'), 'onramp.redirectUrl: must be a URL'],
  ['onramp paymentMethod missing', withOnramp('paymentMethod', undefined), 'onramp.paymentMethod: is required'],
  ['onramp ipAddress from the body', withOnramp('ipAddress', '1.2.3.4'), 'onramp.ipAddress: is not an allowed field'],
  ['unknown top-level field', set('status', 'executed'), 'status: is not an allowed field'],
  ['body an array', () => [orderBody()], 'the request body must be a JSON object'],
  ['body null', () => null, 'the request body must be a JSON object'],
];

describe('POST /orders validation', () => {
  it.each(invalid)('rejects %s with 400 in the group format and writes nothing', async (_name, mutate, message) => {
    const before = await tableSnapshot(table.name);
    const response = await postOrder(mutate(orderBody()));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, message: expect.stringContaining(message), statusCode: 400 });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('reports every failing field at once', async () => {
    const response = await postOrder(orderBody({ srcAmount: '0', extra: true, payload: { expectedDstAmount: '1', actualDstAmount: '5' } }));
    expect(response.status).toBe(400);
    for (const part of [
      'srcAmount: must be a positive integer string',
      'extra: is not an allowed field',
      'payload.actualDstAmount: must be null when an order is created',
    ]) {
      expect(response.body.message).toContain(part);
    }
    // An unknown type decides nothing else: it is reported alone.
    const unknownType = await postOrder({ ...orderBody({ srcAmount: '0' }), type: 'x' });
    expect(unknownType.body.message).toBe('type: must be one of: swap, custom, mint_nft, join_tournament, fund_tournament');
  });

  const accepted: [string, Mutation][] = [
    [
      'token descriptor addresses in another letter case',
      (body) =>
        set(
          'metadata.srcToken.address',
          BASE_USDC.toLowerCase(),
        )(set('metadata.dstToken.address', MAINNET_USDC.toUpperCase().replace('0X', '0x'))(body)),
    ],
    ['a clientReferenceId of 255 characters', set('clientReferenceId', `${'a'.repeat(250)}-_Z09`)],
    [
      'the local chains',
      (body) => ({
        ...orderBody(),
        srcChain: 31337,
        dstChain: 1337,
        metadata: { srcToken: { ...body.metadata.srcToken, chainId: 31337 }, dstToken: { ...body.metadata.dstToken, chainId: 1337 } },
      }),
    ],
    [
      'a swap between two tokens on one chain',
      (body) => ({
        ...body,
        dstChain: 8453,
        dstTokenAddress: CREATOR,
        metadata: { ...body.metadata, dstToken: { ...body.metadata.dstToken, chainId: 8453, address: CREATOR } },
      }),
    ],
    ['an onramp with any assigned country (AX, Åland)', withOnramp('country', 'AX')],
    ['the stripe vendor', withOnramp('vendor', 'stripe')],
    [
      'a token descriptor without metadata and with 0 decimals',
      set('metadata.dstToken', { chainId: 1, address: MAINNET_USDC, symbol: 'X', name: 'X', decimals: 0 }),
    ],
  ];

  it.each(accepted)('accepts %s', async (_name, mutate) => {
    const response = await postOrder(mutate(orderBody()));
    expect(response.body.message).toBe('Created order successfully');
    expect(response.status).toBe(200);
  });

  const platform: [string, Record<string, string>, string | undefined, number][] = [
    ['a body that is not JSON', { 'content-type': 'application/json' }, '{"type": "swap",', 400],
    [
      'a body over 64 KiB',
      { 'content-type': 'application/json' },
      JSON.stringify(orderBody({ clientReferenceId: 'x'.repeat(70 * 1024) })),
      413,
    ],
    ['a text/plain body', { 'content-type': 'text/plain' }, JSON.stringify(orderBody()), 415],
    ['a body without content type', {}, JSON.stringify(orderBody()), 415],
    ['no body at all', { 'content-type': 'application/json' }, undefined, 400],
  ];

  it.each(platform)('rejects %s in the group format and writes nothing', async (_name, headers, body, status) => {
    const before = await tableSnapshot(table.name);
    const response = await dispatch({ api: 'orders', method: 'POST', url: '/orders', headers, body });
    expect(response.statusCode).toBe(status);
    expect(JSON.parse(response.body)).toEqual({ success: false, message: expect.any(String), statusCode: status });
    expect(await tableSnapshot(table.name)).toEqual(before);
  });
});

describe('POST /orders creates the order', () => {
  it('answers the created order in the B3 envelope, every field of the spec', async () => {
    const before = Date.now();
    const body = orderBody({ clientReferenceId: 'ref_1', creatorAddress: CREATOR });
    const response = await postOrder(body);
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(v.safeParse(orderResponseSchema, response.body).success).toBe(true);
    const { success, message, statusCode, data } = response.body;
    expect({ success, message, statusCode }).toEqual({ success: true, message: 'Created order successfully', statusCode: 200 });
    expect(data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(data.createdAt).toBeGreaterThanOrEqual(before);
    expect(data.createdAt).toBeLessThanOrEqual(after);
    expect(data.expiredAt - data.createdAt).toBe(15 * 60_000);
    expect(data.status).toBe('scanning_deposit_transaction');
    for (const field of [
      'type',
      'recipientAddress',
      'srcChain',
      'dstChain',
      'srcTokenAddress',
      'dstTokenAddress',
      'srcAmount',
      'clientReferenceId',
      'creatorAddress',
    ]) {
      expect(data[field], field).toEqual(body[field]);
    }
    // Swap's actualDstAmount is null until settled; a token without metadata reads with an empty one.
    expect(data.payload).toEqual({ ...body.payload, actualDstAmount: null });
    expect(data.metadata).toEqual({ ...body.metadata, dstToken: { ...body.metadata.dstToken, metadata: {} } });
    for (const field of [
      'partnerId',
      'onrampMetadata',
      'oneClickBuyUrl',
      'processorPaymentIntentId',
      'stripePaymentIntentId',
      'settlement',
      'errorDetails',
      'filledAt',
      'receivedDepositAt',
    ]) {
      expect(data[field], field).toBeNull();
    }
    expect(data.fee).toEqual({
      type: 'standard_fee',
      feeVersion: 1,
      tokenToCheckBalance: '0x0000000000000000000000000000000000000000',
      recipientBalance: '0',
      serviceFeeBps: 80,
      serviceWhaleDiscountBps: 0,
      servicePartnerDiscountBps: 0,
      finalFeeBps: 80,
    });

    const read = await getOrder(data.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      success: true,
      message: 'Get order successfully',
      statusCode: 200,
      data: { order: data, depositTxs: null, relayTx: null, executeTx: null, refundTxs: null },
    });
  });

  it('derives globalAddress with CREATE2 from the factory, keccak256(order id) and the init code hash, unique per order', async () => {
    const factory = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
    const initCodeHash = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
    const orders = await Promise.all(Array.from({ length: 5 }, () => postOrder(orderBody())));
    const addresses = new Set<string>();
    for (const { body } of orders) {
      const { id, globalAddress } = body.data;
      const expected = getAddress(slice(keccak256(concat(['0xff', factory, keccak256(stringToBytes(id)), initCodeHash])), 12));
      expect(globalAddress).toBe(expected);
      addresses.add(globalAddress.toLowerCase());
    }
    expect(addresses.size).toBe(5);
  });

  it('starts an onramp order waiting for payment (scanning_deposit_transaction on the wire) with the vendor link and price; stores the source IP but never returns it', async () => {
    const sourceIp = '203.0.113.77';
    const response = await postOrder(orderBody({ onramp }), {}, sourceIp);
    expect(response.status).toBe(200);
    const order = response.body.data;
    expect(order.status).toBe('scanning_deposit_transaction');
    expect((await storedOrder(table.name, order.id))?.status).toBe('waiting_payment');
    expect(order.onrampMetadata).toEqual({ ...onramp, processorAmountInCents: 2500, stripeAmountInCents: 2500, fingerprint: null });
    const link = new URL(order.oneClickBuyUrl);
    expect(link.origin).toBe('https://pay.coinbase.com');
    expect(link.searchParams.get('destinationWallet')).toBe(order.globalAddress);
    expect(link.searchParams.get('presetCryptoAmount')).toBe('25');
    expect(link.searchParams.get('redirectUrl')).toBe(onramp.redirectUrl);
    expect(link.searchParams.get('partnerUserRef')).toBe(order.id);

    const stored = await storedOrder(table.name, order.id);
    expect(stored?.onrampMetadata.ipAddress).toBe(sourceIp);
    expect(JSON.stringify(response.body)).not.toContain(sourceIp);
    const read = await getOrder(order.id);
    expect(JSON.stringify(read.body)).not.toContain(sourceIp);
    expect(read.body.data.order.onrampMetadata).not.toHaveProperty('ipAddress');
  });

  it('prices only USD tokens: another source token gets processorAmountInCents null', async () => {
    const weth = '0x4200000000000000000000000000000000000006';
    const body = orderBody({ srcTokenAddress: weth, srcAmount: '1000000000000000000', onramp: { ...onramp, vendor: 'stripe' } });
    body.metadata.srcToken = { chainId: 8453, address: weth, symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 };
    const { body: response } = await postOrder(body);
    expect(response.data.onrampMetadata.processorAmountInCents).toBeNull();
    const link = new URL(response.data.oneClickBuyUrl);
    expect(link.origin).toBe('https://crypto.link.com');
    expect(link.searchParams.get('destination_amount')).toBe('1');
    expect(link.searchParams.get('source_amount')).toBe('');
  });

  it('indexes the new order for deposit detection (O4) and the expiry sweep (O5)', async () => {
    const { body } = await postOrder(orderBody());
    const stored = await storedOrder(table.name, body.data.id);
    expect(stored?.gsi1pk).toBe(`C#8453#DEPOSIT#${body.data.globalAddress.toLowerCase()}`);
    expect(stored?.gsi2pk).toBe(`ORDERS#PENDING#${parseInt(body.data.id[0], 16) % 8}`);
    expect(stored?.gsi2sk).toBe(`${String(body.data.expiredAt).padStart(15, '0')}#${body.data.id}`);
  });
});

describe('GET /orders/{id}', () => {
  it('answers 404 in the group format for an unknown id', async () => {
    const response = await getOrder('0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, message: 'Order 0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30 not found', statusCode: 404 });
  });

  it('answers 400 for an id that is not a UUID', async () => {
    const response = await getOrder('not-an-id');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, message: 'id: must be a UUID', statusCode: 400 });
  });
});

describe('route table examples (the sam events)', () => {
  it('POST /orders example creates a real order and POST /checkout-sessions example a real session', async () => {
    const { routes } = await import('../../../shared/routes');
    for (const [id, message] of [
      ['CreateOrder', 'Created order successfully'],
      ['CreateCheckoutSession', 'Created checkout session successfully'],
    ] as const) {
      const route = routes.find((candidate) => candidate.id === id)!;
      const response = await dispatch({
        api: 'orders',
        method: route.method,
        url: route.path,
        headers: route.example.headers,
        body: JSON.stringify(route.example.body),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(JSON.parse(response.body).message).toBe(message);
    }
  });
});
