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
import { ORDER_STATUSES } from './states';
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

const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The POST /orders body, with the chains and onramp vendors of `config`. */
export const createOrderBodySchema = (config: Pick<OrderConfig, 'chains' | 'onrampVendors'>) =>
  v.pipe(
    closed(
      {
        type: v.picklist(['swap'], 'must be "swap"'),
        recipientAddress: addressSchema,
        srcChain: supportedChainSchema(config.chains),
        dstChain: supportedChainSchema(config.chains),
        srcTokenAddress: addressSchema,
        dstTokenAddress: addressSchema,
        srcAmount: amountSchema,
        payload: closed({ expectedDstAmount: amountSchema }),
        metadata: closed({ srcToken: tokenDescriptorSchema, dstToken: tokenDescriptorSchema }),
        partnerId: v.optional(
          v.pipe(v.string('must be a string'), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, hyphens or underscores')),
        ),
        clientReferenceId: v.optional(clientReferenceIdSchema),
        onramp: v.optional(onrampRequestSchema(config.onrampVendors)),
        creatorAddress: v.optional(addressSchema),
        checkoutSessionId: v.optional(uuidSchema),
      },
      'the request body must be a JSON object',
    ),
    v.forward(
      v.partialCheck(
        [['srcChain'], ['metadata', 'srcToken', 'chainId']],
        (body) => body.metadata.srcToken.chainId === body.srcChain,
        'must equal srcChain',
      ),
      tokenField('srcToken', 'chainId'),
    ),
    v.forward(
      v.partialCheck(
        [['dstChain'], ['metadata', 'dstToken', 'chainId']],
        (body) => body.metadata.dstToken.chainId === body.dstChain,
        'must equal dstChain',
      ),
      tokenField('dstToken', 'chainId'),
    ),
    v.forward(
      v.partialCheck(
        [['srcTokenAddress'], ['metadata', 'srcToken', 'address']],
        (body) => sameAddress(body.metadata.srcToken.address, body.srcTokenAddress),
        'must equal srcTokenAddress',
      ),
      tokenField('srcToken', 'address'),
    ),
    v.forward(
      v.partialCheck(
        [['dstTokenAddress'], ['metadata', 'dstToken', 'address']],
        (body) => sameAddress(body.metadata.dstToken.address, body.dstTokenAddress),
        'must equal dstTokenAddress',
      ),
      tokenField('dstToken', 'address'),
    ),
    v.forward(
      v.partialCheck(
        [['srcChain'], ['dstChain'], ['srcTokenAddress'], ['dstTokenAddress']],
        (body) => body.srcChain !== body.dstChain || !sameAddress(body.srcTokenAddress, body.dstTokenAddress),
        'must differ from srcTokenAddress when srcChain equals dstChain',
      ),
      ['dstTokenAddress'],
    ),
  );

export type CreateOrderRequest = v.InferOutput<ReturnType<typeof createOrderBodySchema>>;
export type TokenDescriptor = v.InferOutput<typeof tokenDescriptorSchema>;
export type OnrampRequest = v.InferOutput<ReturnType<typeof onrampRequestSchema>>;

// ---------------------------------------------------------------------------------------------------
// Order (response)

const tokenDescriptorResponse = v.strictObject({
  chainId: v.number(),
  address: v.string(),
  symbol: v.string(),
  name: v.string(),
  decimals: v.number(),
  metadata: v.optional(v.strictObject({ logoURI: v.optional(v.string()) })),
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

/** onrampMetadata as returned: the stored `ipAddress` is never part of it. */
export const onrampMetadataSchema = v.strictObject({
  vendor: v.string(),
  paymentMethod: v.string(),
  country: v.string(),
  redirectUrl: v.string(),
  processorAmountInCents: v.nullable(v.number()),
  fingerprint: v.null(),
});

export const settlementSchema = v.strictObject({
  actualDstAmount: v.string(),
  relay: v.strictObject({
    status: v.string(),
    metadata: v.looseObject({ currencyOut: v.looseObject({ amount: v.string() }) }),
  }),
});

export const orderSchema = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  type: v.literal('swap'),
  status: v.picklist(ORDER_STATUSES),
  recipientAddress: v.string(),
  globalAddress: v.string(),
  srcChain: v.number(),
  dstChain: v.number(),
  srcTokenAddress: v.string(),
  dstTokenAddress: v.string(),
  srcAmount: v.string(),
  payload: v.strictObject({ expectedDstAmount: v.string() }),
  metadata: v.strictObject({ srcToken: tokenDescriptorResponse, dstToken: tokenDescriptorResponse }),
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
  settlement: v.nullable(settlementSchema),
  fee: feeSchema,
});

export type Order = v.InferOutput<typeof orderSchema>;
export type Fee = v.InferOutput<typeof feeSchema>;

/** The B3 envelope of a successful orders-group response. */
function envelope<TData extends v.GenericSchema>(data: TData) {
  return v.strictObject({ success: v.literal(true), message: v.string(), statusCode: v.literal(200), data });
}

export const orderResponseSchema = envelope(orderSchema);

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
