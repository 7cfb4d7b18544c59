/**
 * Request and response schemas of the orders group (valibot), side by side. Request objects are
 * closed: an unknown field, at any depth, is an error naming that field. Rules that depend on the
 * deployment (supported chains, onramp vendors) are built from the configuration: the handler
 * module calls `createOrderBodySchema(config)` once, at cold start.
 */
import * as v from 'valibot';
import { maxUint256 } from 'viem';
import { CHECKOUT_SESSION_EXPIRY, type OrderConfig } from './config';
import { isAssignedCountryCode } from './countries';
import { ORDER_WIRE_STATUSES } from './states';
import { refuseInheritedNames } from '../http/inherited-names';

// ---------------------------------------------------------------------------------------------------
// Building blocks

/**
 * A closed object: every listed entry, and no other key. Built on objectWithRest + never so that a
 * missing field says "is required" and an unknown one "is not an allowed field", each at its own path;
 * an array is not an object here. Checks inside must not throw on values an earlier step rejected:
 * with abortEarly off, valibot runs every check of a pipe.
 */
const UNKNOWN_FIELD = 'is not an allowed field';

function closed<const TEntries extends v.ObjectEntries>(entries: TEntries, what = 'must be an object') {
  return v.pipe(
    v.custom<unknown>((input) => !Array.isArray(input), what),
    refuseInheritedNames(UNKNOWN_FIELD),
    v.objectWithRest(entries, v.never(UNKNOWN_FIELD), (issue) => (issue.expected === 'Object' ? what : 'is required')),
    v.transform((value) => value as v.InferOutput<v.ObjectSchema<TEntries, undefined>>),
  );
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const text = (max: number) =>
  v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

export const addressSchema = v.pipe(v.string('must be a string'), v.regex(ADDRESS, 'must be an address: 0x followed by 40 hex digits'));

/** A positive integer in a token's smallest unit, as a decimal string that fits in uint256. */
export const amountSchema = v.pipe(
  v.string('must be a string'),
  v.regex(/^[1-9][0-9]*$/, 'must be a positive integer string (smallest token unit, no sign, decimals or leading zeros)'),
  v.check((amount) => !/^[0-9]+$/.test(amount) || (amount.length <= 78 && BigInt(amount) <= maxUint256), 'must fit in 256 bits'),
);

const positiveInteger = v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be a positive integer'));

/** A chain id of this deployment (ORDER_CHAINS). */
const supportedChainSchema = (chains: OrderConfig['chains']) =>
  v.pipe(
    positiveInteger,
    v.check(
      (chainId) => chains.includes(chainId),
      () => `is not a supported chain (supported: ${chains.join(', ')})`,
    ),
  );

export const clientReferenceIdSchema = v.pipe(
  v.string('must be a string'),
  v.regex(/^[a-zA-Z0-9_-]+$/, 'may only contain letters, digits, hyphens and underscores'),
  v.maxLength(255, 'must be at most 255 characters'),
);

const httpsUrl = v.pipe(
  v.string('must be a string'),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.url('must be a URL'),
  v.check((url) => !URL.canParse(url) || new URL(url).protocol === 'https:', 'must be an https URL'),
);

const uuidSchema = v.pipe(v.string('must be a string'), v.uuid('must be a UUID'), v.toLowerCase());

/**
 * The query of POST /orders, POST /checkout-sessions and the GETs of one order or session: none. An
 * unknown parameter is refused as on the lists ("<name>: Unexpected field: <name>"), so that a client's typo or a parameter it believes
 * the route reads is not silently ignored.
 */
export const noQuerySchema = v.strictObject({});

// ---------------------------------------------------------------------------------------------------
// POST /orders

/** Token descriptor: display data of a token, checked against the order's chain and token address. */
export const tokenDescriptorSchema = closed({
  chainId: positiveInteger,
  address: addressSchema,
  symbol: text(32),
  name: text(128),
  decimals: v.pipe(
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(0, 'must be at least 0'),
    v.maxValue(255, 'must be at most 255'),
  ),
  metadata: v.optional(
    closed({
      logoURI: v.optional(
        v.pipe(v.string('must be a string'), v.maxLength(2048, 'must be at most 2048 characters'), v.url('must be a URL')),
      ),
    }),
  ),
});

/** An onramp of one of this deployment's vendors (ORDER_ONRAMP_VENDORS). */
const onrampRequestSchema = (vendors: OrderConfig['onrampVendors']) =>
  closed({
    vendor: v.pipe(
      v.string('must be a string'),
      v.check(
        (vendor) => Object.hasOwn(vendors, vendor),
        () => `must be one of: ${Object.keys(vendors).join(', ')}`,
      ),
    ),
    paymentMethod: v.pipe(
      v.string('must be a string'),
      v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, hyphens or underscores'),
    ),
    country: v.pipe(
      v.string('must be a string'),
      v.check(isAssignedCountryCode, 'must be an ISO 3166-1 alpha-2 country code in upper case, e.g. US'),
    ),
    redirectUrl: httpsUrl,
  });

/**
 * The path of a token descriptor field, for v.forward (valibot's path typing stops two levels deep;
 * the runtime follows any depth).
 */
const tokenField = (side: 'srcToken' | 'dstToken', field: 'chainId' | 'address') =>
  ['metadata', side, field] as unknown as ['metadata', typeof side];

/**
 * The checks across fields below read the body defensively: valibot runs a partial check whenever no
 * issue sits on its paths, and a pipe that stopped early leaves values untyped without one (an inherited
 * name such as `constructor` inside `metadata` stops metadata's pipe before its fields are checked).
 */
const sameAddress = (a: unknown, b: unknown): boolean =>
  typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

/** A side's token descriptor field, when the body got that far; undefined otherwise. */
const tokenValue = (body: unknown, side: 'srcToken' | 'dstToken', field: 'chainId' | 'address'): unknown => {
  const metadata = (body as { metadata?: unknown }).metadata;
  const token = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)[side] : undefined;
  return typeof token === 'object' && token !== null ? (token as Record<string, unknown>)[field] : undefined;
};

/** True unless both values are there and differ: a missing or mistyped value has its own issue. */
const equalWhenTyped = (a: unknown, b: unknown, same: (a: unknown, b: unknown) => boolean): boolean =>
  a === undefined || b === undefined || typeof a !== typeof b || same(a, b);

// Order types: payload and metadata of each (AnySpend's five; see docs/decisions/orders.md)

export const ORDER_TYPES = ['swap', 'custom', 'mint_nft', 'join_tournament', 'fund_tournament'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** A non-negative integer in a token's smallest unit (prices and amounts that may be zero). */
const quantitySchema = v.pipe(
  v.string('must be a string'),
  v.regex(/^(0|[1-9][0-9]*)$/, 'must be a non-negative integer string (smallest token unit, no sign, decimals or leading zeros)'),
  v.check((amount) => !/^[0-9]+$/.test(amount) || (amount.length <= 78 && BigInt(amount) <= maxUint256), 'must fit in 256 bits'),
);

const tokenIdSchema = v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(0, 'must be at least 0'));
const freeText = (max: number) => v.pipe(v.string('must be a string'), v.maxLength(max, `must be at most ${max} characters`));
const calldataSchema = v.pipe(
  v.string('must be a string'),
  v.regex(/^0x([0-9a-fA-F]{2})*$/, 'must be hex calldata: 0x followed by whole bytes'),
  v.maxLength(2 + 2 * 24_576, 'must be at most 24576 bytes'),
);
const nftContractType = v.picklist(['erc721', 'erc1155'], 'must be "erc721" or "erc1155"');

const swapPayloadSchema = closed({
  expectedDstAmount: amountSchema,
  /** What the settlement delivered: null (or absent) on creation; the SDK always sends null. */
  actualDstAmount: v.optional(v.null('must be null when an order is created')),
});

const customPayloadSchema = closed({
  data: calldataSchema,
  to: addressSchema,
  amount: quantitySchema,
  spenderAddress: v.optional(addressSchema),
  /** AnySpend's hooks spread the caller's payload, which carries the metadata's action as well. */
  action: v.optional(text(64)),
});

const mintNftPayloadSchema = v.pipe(
  closed({
    contractAddress: addressSchema,
    tokenId: v.optional(v.nullable(tokenIdSchema)),
    contractType: nftContractType,
    nftPrice: quantitySchema,
  }),
  v.forward(
    v.partialCheck(
      [['contractType'], ['tokenId']],
      (payload) => (payload.contractType === 'erc1155') === (typeof payload.tokenId === 'number'),
      'is required (a number) for erc1155 and must be absent or null for erc721',
    ),
    ['tokenId'],
  ),
);

const joinTournamentPayloadSchema = closed({ contractAddress: addressSchema, entryPrice: quantitySchema });
const fundTournamentPayloadSchema = closed({ contractAddress: addressSchema, fundAmount: quantitySchema });

/** metadata.nft: AnySpend's ERC721NFT / ERC1155NFT, plus `price` (and `contractType`) the SDK's components add. */
const nftMetadataSchema = closed({
  type: nftContractType,
  contractAddress: addressSchema,
  name: text(256),
  description: freeText(4096),
  imageUrl: freeText(2048),
  tokenId: v.optional(tokenIdSchema),
  price: v.optional(quantitySchema),
  contractType: v.optional(nftContractType),
});

/** metadata.tournament: AnySpend's Tournament, plus `contractAddress` and `entryPriceOrFundAmount` the SDK's components add. */
const tournamentMetadataSchema = closed({
  slug: text(128),
  name: text(256),
  description: freeText(4096),
  imageUrl: freeText(2048),
  contractAddress: v.optional(addressSchema),
  entryPriceOrFundAmount: v.optional(quantitySchema),
});

const tokens = { srcToken: tokenDescriptorSchema, dstToken: tokenDescriptorSchema };

/** The payload and metadata of each order type, as POST /orders accepts them. */
const ORDER_TYPE_PARTS = {
  swap: { payload: swapPayloadSchema, metadata: closed(tokens) },
  custom: { payload: customPayloadSchema, metadata: closed({ ...tokens, action: v.optional(text(64)) }) },
  mint_nft: { payload: mintNftPayloadSchema, metadata: closed({ ...tokens, nft: nftMetadataSchema }) },
  join_tournament: { payload: joinTournamentPayloadSchema, metadata: closed({ ...tokens, tournament: tournamentMetadataSchema }) },
  fund_tournament: { payload: fundTournamentPayloadSchema, metadata: closed({ ...tokens, tournament: tournamentMetadataSchema }) },
} as const;

/** The POST /orders body, with the chains and onramp vendors of `config`. */
export const createOrderBodySchema = (config: Pick<OrderConfig, 'chains' | 'onrampVendors'>) => {
  const common = {
    recipientAddress: addressSchema,
    srcChain: supportedChainSchema(config.chains),
    dstChain: supportedChainSchema(config.chains),
    srcTokenAddress: addressSchema,
    dstTokenAddress: addressSchema,
    srcAmount: amountSchema,
    partnerId: v.optional(
      v.pipe(v.string('must be a string'), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, hyphens or underscores')),
    ),
    clientReferenceId: v.optional(clientReferenceIdSchema),
    onramp: v.optional(onrampRequestSchema(config.onrampVendors)),
    creatorAddress: v.optional(addressSchema),
    checkoutSessionId: v.optional(uuidSchema),
  };
  /**
   * One closed object per order type; the variant on `type` picks it, so every message names the
   * type's own fields. An unknown `type` is reported alone: it decides which fields apply.
   */
  const variantOf = <const TType extends OrderType>(type: TType) =>
    v.objectWithRest(
      { ...common, type: v.literal(type), payload: ORDER_TYPE_PARTS[type].payload, metadata: ORDER_TYPE_PARTS[type].metadata },
      v.never(UNKNOWN_FIELD),
      'is required',
    );
  return v.pipe(
    v.custom<unknown>((input) => !Array.isArray(input), 'the request body must be a JSON object'),
    refuseInheritedNames(UNKNOWN_FIELD),
    v.variant(
      'type',
      [variantOf('swap'), variantOf('custom'), variantOf('mint_nft'), variantOf('join_tournament'), variantOf('fund_tournament')],
      (issue) =>
        issue.expected === 'Object'
          ? 'the request body must be a JSON object'
          : issue.input === undefined
            ? 'is required'
            : `must be one of: ${ORDER_TYPES.join(', ')}`,
    ),
    // A partial check runs once the paths it names carry no issue; naming `type` too keeps it off a body
    // whose `type` the variant refused (still untyped); the requirements read defensively all the same.
    v.forward(
      v.partialCheck(
        [['type'], ['srcChain'], ['metadata', 'srcToken', 'chainId']],
        (body) => equalWhenTyped(tokenValue(body, 'srcToken', 'chainId'), body.srcChain, (a, b) => a === b),
        'must equal srcChain',
      ),
      tokenField('srcToken', 'chainId'),
    ),
    v.forward(
      v.partialCheck(
        [['type'], ['dstChain'], ['metadata', 'dstToken', 'chainId']],
        (body) => equalWhenTyped(tokenValue(body, 'dstToken', 'chainId'), body.dstChain, (a, b) => a === b),
        'must equal dstChain',
      ),
      tokenField('dstToken', 'chainId'),
    ),
    v.forward(
      v.partialCheck(
        [['type'], ['srcTokenAddress'], ['metadata', 'srcToken', 'address']],
        (body) => equalWhenTyped(tokenValue(body, 'srcToken', 'address'), body.srcTokenAddress, sameAddress),
        'must equal srcTokenAddress',
      ),
      tokenField('srcToken', 'address'),
    ),
    v.forward(
      v.partialCheck(
        [['type'], ['dstTokenAddress'], ['metadata', 'dstToken', 'address']],
        (body) => equalWhenTyped(tokenValue(body, 'dstToken', 'address'), body.dstTokenAddress, sameAddress),
        'must equal dstTokenAddress',
      ),
      tokenField('dstToken', 'address'),
    ),
    v.forward(
      v.partialCheck(
        [['type'], ['srcChain'], ['dstChain'], ['srcTokenAddress'], ['dstTokenAddress']],
        (body) => body.srcChain !== body.dstChain || !sameAddress(body.srcTokenAddress, body.dstTokenAddress),
        'must differ from srcTokenAddress when srcChain equals dstChain',
      ),
      ['dstTokenAddress'],
    ),
  );
};

export type CreateOrderRequest = v.InferOutput<ReturnType<typeof createOrderBodySchema>>;
export type TokenDescriptor = v.InferOutput<typeof tokenDescriptorSchema>;
export type OnrampRequest = v.InferOutput<ReturnType<typeof onrampRequestSchema>>;

// ---------------------------------------------------------------------------------------------------
// Order (response)

/** A token descriptor as returned: `metadata` is always an object (AnySpend's UI reads `metadata.logoURI`). */
const tokenDescriptorResponse = v.strictObject({
  chainId: v.number(),
  address: v.string(),
  symbol: v.string(),
  name: v.string(),
  decimals: v.number(),
  metadata: v.strictObject({ logoURI: v.optional(v.string()) }),
});

export const feeSchema = v.strictObject({
  type: v.literal('standard_fee'),
  feeVersion: v.literal(1),
  tokenToCheckBalance: v.string(),
  /** The recipient's balance of tokenToCheckBalance on the destination chain, in whole tokens (decimal string). */
  recipientBalance: v.string(),
  serviceFeeBps: v.pipe(v.number(), v.integer()),
  serviceWhaleDiscountBps: v.pipe(v.number(), v.integer()),
  servicePartnerDiscountBps: v.pipe(v.number(), v.integer()),
  finalFeeBps: v.pipe(v.number(), v.integer()),
});

/**
 * onrampMetadata as returned: the stored `ipAddress` is never part of it. `stripeAmountInCents` is
 * AnySpend's name for `processorAmountInCents` (same value, present only when that is a number).
 */
export const onrampMetadataSchema = v.strictObject({
  vendor: v.string(),
  paymentMethod: v.string(),
  country: v.string(),
  redirectUrl: v.string(),
  processorAmountInCents: v.nullable(v.number()),
  stripeAmountInCents: v.optional(v.number()),
  fingerprint: v.null(),
});

export const settlementSchema = v.strictObject({
  actualDstAmount: v.string(),
  relay: v.strictObject({
    status: v.string(),
    metadata: v.looseObject({ currencyOut: v.looseObject({ amount: v.string() }) }),
  }),
});

const nftType = v.picklist(['erc721', 'erc1155']);
const tokensResponse = { srcToken: tokenDescriptorResponse, dstToken: tokenDescriptorResponse };
const tournamentResponse = v.strictObject({
  slug: v.string(),
  name: v.string(),
  description: v.string(),
  imageUrl: v.string(),
  contractAddress: v.optional(v.string()),
  entryPriceOrFundAmount: v.optional(v.string()),
});

/** Payload and metadata of each order type as returned (what was accepted; swap's actualDstAmount once settled). */
const ORDER_TYPE_RESPONSES = {
  swap: {
    payload: v.strictObject({ expectedDstAmount: v.string(), actualDstAmount: v.nullable(v.string()) }),
    metadata: v.strictObject(tokensResponse),
  },
  custom: {
    payload: v.strictObject({
      data: v.string(),
      to: v.string(),
      amount: v.string(),
      spenderAddress: v.optional(v.string()),
      action: v.optional(v.string()),
    }),
    metadata: v.strictObject({ ...tokensResponse, action: v.optional(v.string()) }),
  },
  mint_nft: {
    payload: v.strictObject({ contractAddress: v.string(), tokenId: v.nullable(v.number()), contractType: nftType, nftPrice: v.string() }),
    metadata: v.strictObject({
      ...tokensResponse,
      nft: v.strictObject({
        type: nftType,
        contractAddress: v.string(),
        name: v.string(),
        description: v.string(),
        imageUrl: v.string(),
        tokenId: v.optional(v.number()),
        price: v.optional(v.string()),
        contractType: v.optional(nftType),
      }),
    }),
  },
  join_tournament: {
    payload: v.strictObject({ contractAddress: v.string(), entryPrice: v.string() }),
    metadata: v.strictObject({ ...tokensResponse, tournament: tournamentResponse }),
  },
  fund_tournament: {
    payload: v.strictObject({ contractAddress: v.string(), fundAmount: v.string() }),
    metadata: v.strictObject({ ...tokensResponse, tournament: tournamentResponse }),
  },
} as const;

const orderFields = {
  id: v.pipe(v.string(), v.uuid()),
  /** AnySpend's nine status values; the service's own states map onto them (WIRE_STATUS in states.ts). */
  status: v.picklist(ORDER_WIRE_STATUSES),
  recipientAddress: v.string(),
  globalAddress: v.string(),
  srcChain: v.number(),
  dstChain: v.number(),
  srcTokenAddress: v.string(),
  dstTokenAddress: v.string(),
  srcAmount: v.string(),
  createdAt: v.number(),
  expiredAt: v.number(),
  filledAt: v.nullable(v.number()),
  receivedDepositAt: v.nullable(v.number()),
  errorDetails: v.nullable(v.string()),
  creatorAddress: v.nullable(v.string()),
  partnerId: v.nullable(v.string()),
  clientReferenceId: v.nullable(v.string()),
  onrampMetadata: v.nullable(onrampMetadataSchema),
  oneClickBuyUrl: v.nullable(v.string()),
  processorPaymentIntentId: v.nullable(v.string()),
  /** AnySpend's name for processorPaymentIntentId (same value). */
  stripePaymentIntentId: v.nullable(v.string()),
  settlement: v.nullable(settlementSchema),
  fee: feeSchema,
};

const orderOfType = <const TType extends OrderType>(type: TType) =>
  v.strictObject({
    ...orderFields,
    type: v.literal(type),
    payload: ORDER_TYPE_RESPONSES[type].payload,
    metadata: ORDER_TYPE_RESPONSES[type].metadata,
  });

/** An order as returned: a variant on `type`, each type with its own payload and metadata. */
export const orderSchema = v.variant('type', [
  orderOfType('swap'),
  orderOfType('custom'),
  orderOfType('mint_nft'),
  orderOfType('join_tournament'),
  orderOfType('fund_tournament'),
]);

export type Order = v.InferOutput<typeof orderSchema>;
export type Fee = v.InferOutput<typeof feeSchema>;

/** The B3 envelope of a successful orders-group response. */
function envelope<TData extends v.GenericSchema>(data: TData) {
  return v.strictObject({ success: v.literal(true), message: v.string(), statusCode: v.literal(200), data });
}

export const orderResponseSchema = envelope(orderSchema);

/** A deposit recorded for an order (AnySpend's DepositTx). */
export const depositTxSchema = v.strictObject({
  orderId: v.string(),
  chain: v.number(),
  from: v.string(),
  txHash: v.string(),
  /** Decimal string, smallest unit of the order's source token. */
  amount: v.string(),
  /** The block time of the deposit, epoch ms. */
  createdAt: v.number(),
});

export type DepositTx = v.InferOutput<typeof depositTxSchema>;

/** GET /orders/{id}: the order and its transactions; relayTx, executeTx and refundTxs stay null until a later stage writes them. */
export const orderWithTransactionsSchema = v.strictObject({
  order: orderSchema,
  depositTxs: v.nullable(v.array(depositTxSchema)),
  relayTx: v.null(),
  executeTx: v.null(),
  refundTxs: v.null(),
});

export type OrderWithTransactions = v.InferOutput<typeof orderWithTransactionsSchema>;

export const orderWithTransactionsResponseSchema = envelope(orderWithTransactionsSchema);

/** GET /orders: newest first. */
export const orderListResponseSchema = envelope(v.array(orderSchema));

/** The largest page and the deepest offset of GET /orders (see docs/decisions/orders.md). */
export const ORDER_LIST_LIMITS = { defaultLimit: 100, maxLimit: 100, maxOffset: 5000 } as const;

const wholeNumberQuery = (min: number, max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.regex(/^[0-9]+$/, 'must be a whole number'),
    v.transform(Number),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

export const listOrdersQuerySchema = v.strictObject({
  creatorAddress: v.optional(addressSchema),
  limit: v.optional(wholeNumberQuery(1, ORDER_LIST_LIMITS.maxLimit), String(ORDER_LIST_LIMITS.defaultLimit)),
  offset: v.optional(wholeNumberQuery(0, ORDER_LIST_LIMITS.maxOffset), '0'),
});

export type ListOrdersQuery = v.InferOutput<typeof listOrdersQuerySchema>;

export const orderIdPathSchema = v.object({ id: uuidSchema });

// ---------------------------------------------------------------------------------------------------
// Checkout sessions

export const CHECKOUT_SESSION_STATUSES = ['open', 'processing', 'complete', 'expired'] as const;
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

export const createCheckoutSessionBodySchema = closed(
  {
    expires_in: v.optional(
      v.pipe(
        v.number('must be a number'),
        v.integer('must be an integer'),
        v.minValue(CHECKOUT_SESSION_EXPIRY.min, `must be at least ${CHECKOUT_SESSION_EXPIRY.min} seconds`),
        v.maxValue(CHECKOUT_SESSION_EXPIRY.max, `must be at most ${CHECKOUT_SESSION_EXPIRY.max} seconds`),
      ),
    ),
    clientReferenceId: v.optional(clientReferenceIdSchema),
  },
  'the request body must be a JSON object',
);

export type CreateCheckoutSessionRequest = v.InferOutput<typeof createCheckoutSessionBodySchema>;

export const checkoutSessionSchema = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  status: v.picklist(CHECKOUT_SESSION_STATUSES),
  /** The order created with this session, once there is one. */
  orderId: v.nullable(v.string()),
  clientReferenceId: v.nullable(v.string()),
  createdAt: v.number(),
  expiresAt: v.number(),
});

export type CheckoutSession = v.InferOutput<typeof checkoutSessionSchema>;

export const checkoutSessionResponseSchema = envelope(checkoutSessionSchema);

export const checkoutSessionIdPathSchema = v.object({ id: uuidSchema });

// ---------------------------------------------------------------------------------------------------
// Headers

/** `Idempotency-Key`: 1 to 255 printable ASCII characters. */
export const idempotencyKeySchema = v.pipe(
  v.string(),
  v.regex(/^[\x21-\x7e]{1,255}$/, 'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces'),
);
