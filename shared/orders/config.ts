/**
 * Settings of the orders group, read from the environment with `readEnv`: each handler module calls
 * `loadOrderConfig()` once at cold start (a bad value fails loudly there) and passes the result to
 * the domain. Every variable has a documented default that works locally; see
 * docs/decisions/orders.md for what production should set.
 */
import * as v from 'valibot';
import { readEnv } from '../config';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH32 = /^0x[0-9a-fA-F]{64}$/;

/** Placeholders an onramp URL template may use; each value is URL-encoded when substituted. */
export const ONRAMP_TEMPLATE_PLACEHOLDERS = [
  'orderId',
  'globalAddress',
  'srcChain',
  'srcTokenAddress',
  'srcTokenSymbol',
  'srcAmount',
  'srcAmountDecimal',
  'amountUsd',
  'country',
  'paymentMethod',
  'redirectUrl',
] as const;

/** Chains accepted besides the ingested ones unless ORDER_CHAINS says otherwise (an empty ORDER_CHAINS: none). */
const DEFAULT_CHAINS = '1,10,56,137,8333,8453,42161,1337';
/** The local chain's id when CHAIN_ID is unset (scripts/lib/local-chain.ts). */
const LOCAL_CHAIN_ID = 31337;

/** Illustrative hosted-checkout links; production sets the vendor's real URL and app id. */
const DEFAULT_ONRAMP_VENDORS = JSON.stringify({
  coinbase: {
    urlTemplate:
      'https://pay.coinbase.com/buy/select-asset?destinationWallet={globalAddress}&chainId={srcChain}&asset={srcTokenSymbol}' +
      '&presetCryptoAmount={srcAmountDecimal}&defaultPaymentMethod={paymentMethod}&country={country}&redirectUrl={redirectUrl}&partnerUserRef={orderId}',
  },
  stripe: {
    urlTemplate:
      'https://crypto.link.com/?ref={orderId}&wallet_address={globalAddress}&destination_network={srcChain}' +
      '&destination_currency={srcTokenSymbol}&destination_amount={srcAmountDecimal}&source_amount={amountUsd}&country={country}&redirect_url={redirectUrl}',
  },
});

/** USDC on the main chains: amounts of these tokens can be priced in US cents 1:1. */
const DEFAULT_USD_TOKENS = JSON.stringify({
  '1': ['0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
  '10': ['0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'],
  '137': ['0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'],
  '8453': ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
  '42161': ['0xaf88d065e77c8cC2239327C5EDb3A432268e5831'],
});

const chainIdKey = v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/, 'keys must be chain ids'));
const address = v.pipe(v.string(), v.regex(ADDRESS, 'must be an address (0x + 40 hex digits)'));

const onrampVendorSchema = v.object({
  urlTemplate: v.pipe(
    v.string(),
    v.check((template) => /^https:\/\//.test(template), 'urlTemplate must be an https URL'),
    v.check(
      (template) =>
        [...template.matchAll(/\{([^}]*)\}/g)].every(
          ([, name]) => name !== undefined && (ONRAMP_TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name),
        ),
      `urlTemplate may only use the placeholders ${ONRAMP_TEMPLATE_PLACEHOLDERS.map((name) => `{${name}}`).join(', ')}`,
    ),
  ),
});

const chainList = v.pipe(
  v.string(),
  v.regex(/^\s*([1-9][0-9]*(\s*,\s*[1-9][0-9]*)*)?\s*$/, 'must be a comma-separated list of chain ids'),
  v.transform((list) =>
    list
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '')
      .map(Number),
  ),
);

const orderEnvSchema = v.object({
  /** The chains the stack ingests (set by lib/service-stack.ts on the orders functions; may be empty). */
  INGESTED_CHAIN_IDS: v.optional(chainList),
  /** The chain the local ingest follows (npm start, the ingest CLI); used when INGESTED_CHAIN_IDS is unset. */
  CHAIN_ID: v.optional(v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/, 'must be a chain id'), v.transform(Number)), String(LOCAL_CHAIN_ID)),
  /** Chains accepted in addition to the ingested ones (empty: only those). */
  ORDER_CHAINS: v.optional(chainList, DEFAULT_CHAINS),
  ORDER_EXPIRY_MINUTES: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(24 * 60)), '15'),
  /** Days an unpaid order (after its expiry) or an unused checkout session (after its own) stays in the table (DynamoDB TTL). */
  ORDER_RETENTION_DAYS: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(3650)), '30'),
  ORDER_SERVICE_FEE_BPS: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(0), v.maxValue(10_000)), '80'),
  /** The factory that deploys each order's deposit contract with CREATE2 (default: the CREATE2 deployer anvil ships). */
  ORDER_DEPOSIT_FACTORY: v.optional(address, '0x4e59b44847b379578588920cA78FbF26c0B4956C'),
  /** keccak256 of the deposit contract's init code (default: keccak256 of empty code, a placeholder). */
  ORDER_DEPOSIT_INIT_CODE_HASH: v.optional(
    v.pipe(v.string(), v.regex(HASH32, 'must be a 32-byte hex hash')),
    '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
  ),
  /** JSON object: chain id -> the fee-discount token whose balance gives the whale discount. */
  ORDER_FEE_TOKENS: v.optional(v.pipe(v.string(), v.parseJson(), v.record(chainIdKey, address)), '{}'),
  /** JSON object: vendor name -> { urlTemplate }. */
  ORDER_ONRAMP_VENDORS: v.optional(
    v.pipe(
      v.string(),
      v.parseJson(),
      v.record(v.pipe(v.string(), v.regex(/^[a-z0-9_-]{1,32}$/, 'vendor names are lowercase')), onrampVendorSchema),
    ),
    DEFAULT_ONRAMP_VENDORS,
  ),
  /** JSON object: chain id -> token addresses worth one US dollar per whole token (onramp pricing). */
  ORDER_USD_TOKENS: v.optional(v.pipe(v.string(), v.parseJson(), v.record(chainIdKey, v.array(address))), DEFAULT_USD_TOKENS),
});

export interface OnrampVendorConfig {
  urlTemplate: string;
}

export interface OrderConfig {
  chains: number[];
  expiryMinutes: number;
  /** Retention of unpaid orders and unused checkout sessions past their expiry, in days (retention.ts). */
  retentionDays: number;
  serviceFeeBps: number;
  depositFactory: `0x${string}`;
  depositInitCodeHash: `0x${string}`;
  /** chain id -> fee-discount token (lowercase). */
  feeTokens: Record<number, `0x${string}`>;
  onrampVendors: Record<string, OnrampVendorConfig>;
  /** chain id -> lowercase USD token addresses. */
  usdTokens: Record<number, string[]>;
}

/** How long an idempotency key is remembered. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** Checkout session lifetime bounds and default, in seconds. */
export const CHECKOUT_SESSION_EXPIRY = { min: 300, max: 86_400, default: 1_800 } as const;

export function loadOrderConfig(env: Record<string, string | undefined> = process.env): OrderConfig {
  const raw = readEnv(orderEnvSchema, env);
  const byChain = <T, U>(record: Record<string, T>, map: (value: T) => U): Record<number, U> =>
    Object.fromEntries(Object.entries(record).map(([chainId, value]) => [Number(chainId), map(value)]));
  return {
    chains: [...new Set([...(raw.INGESTED_CHAIN_IDS ?? [raw.CHAIN_ID]), ...raw.ORDER_CHAINS])],
    expiryMinutes: raw.ORDER_EXPIRY_MINUTES,
    retentionDays: raw.ORDER_RETENTION_DAYS,
    serviceFeeBps: raw.ORDER_SERVICE_FEE_BPS,
    depositFactory: raw.ORDER_DEPOSIT_FACTORY as `0x${string}`,
    depositInitCodeHash: raw.ORDER_DEPOSIT_INIT_CODE_HASH as `0x${string}`,
    feeTokens: byChain(raw.ORDER_FEE_TOKENS, (token) => token.toLowerCase() as `0x${string}`),
    onrampVendors: raw.ORDER_ONRAMP_VENDORS,
    usdTokens: byChain(raw.ORDER_USD_TOKENS, (tokens) => tokens.map((token) => token.toLowerCase())),
  };
}
