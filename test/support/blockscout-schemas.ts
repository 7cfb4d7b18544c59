/**
 * JSON Schemas of the explorer's answers, written from the CURRENT Blockscout frontend's own types
 * (github.com/blockscout/frontend, `types/api/*.ts`), so that every explorer response the suite
 * receives is checked against what that frontend reads, beside the route's own (valibot) schema
 * (test/support/contract.ts loads `checkBlockscoutTypes`).
 *
 * Read at these commits (the newest stored version of each file):
 *   types/api/addressParams.ts     e00e132f46dfd642577484fc6ddbcef3490a0bc6  (AddressParam, AddressImplementation)
 *   types/api/address.ts           2478ee259acd3050cf6f4babf24a963b156db9cf  (Address, AddressCounters, AddressTabsCounters,
 *                                                                             AddressTokenBalance, AddressNFT, AddressCollection,
 *                                                                             the address list responses)
 *   types/api/token.ts             ebb68d4582de7212d993b5ebec0a7f30dd2c0361  (TokenInfo, TokenInstance)
 *   types/api/tokenTransfer.ts     ebb68d4582de7212d993b5ebec0a7f30dd2c0361  (TokenTransfer, its totals, TokenTransferPagination)
 *   types/api/transaction.ts       a76c14cac64d12088d72b3f00224c7af3579ebea  (Transaction)
 *   types/api/fee.ts               d55f8cbe9432ee7af6ebb599377daa741a41498d
 *   types/api/decodedInput.ts      5ac765268679be5a570306f3814a2feb83b782ac
 *   types/api/internalTransaction.ts 6a284f14b11babd40342dc20793ebdfd6a50cf5a
 *   types/api/withdrawals.ts       c7232c3d1841cfa63c670f9f150587dba97d46e5  (address withdrawals: address.ts)
 *   types/api/indexingStatus.ts    3d841abce72ff26a012e9fc8c55275b102e5129d
 *
 * Rules: every property the type does not mark optional (`?`) is `required`; `null` is allowed only
 * where the type allows it; extra properties are allowed (the spec's own names, e.g. `address` and
 * `holders` beside `address_hash` and `holders_count`, ride along). Where the spec fixes a type that
 * Blockscout's differs from, the spec wins and the schema says so (`SPEC WINS`); where Blockscout's
 * own backend answers what its frontend type leaves out, the schema says so (`BACKEND`).
 */
import { type LambdaHandler, type LocalResponse, observeResponses, type PreparedRequest } from '../../scripts/lib/dispatch';

// ---------------------------------------------------------------------------------------------------
// A JSON Schema subset and its validator (no validator library is a dependency)

export type JsonSchema = {
  type?: JsonType | JsonType[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
};
type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** Every way `value` breaks `schema` (empty when it matches), each with its JSON path. */
export function validateJson(schema: JsonSchema, value: unknown, path = '$'): string[] {
  const problems: string[] = [];
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) {
      return [`${path}: ${actual} where the type allows ${allowed.join(' | ')}`];
    }
  }
  if (schema.enum && !schema.enum.includes(value))
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (schema.pattern && typeof value === 'string' && !new RegExp(schema.pattern).test(value))
    problems.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum)
    problems.push(`${path}: below ${schema.minimum}`);
  if (schema.maximum !== undefined && typeof value === 'number' && value > schema.maximum)
    problems.push(`${path}: above ${schema.maximum}`);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) problems.push(`${path}.${key}: required, missing`);
    for (const [key, property] of Object.entries(schema.properties ?? {}))
      if (key in record) problems.push(...validateJson(property, record[key], `${path}.${key}`));
  }
  if (Array.isArray(value) && schema.items) {
    for (const [i, item] of value.entries()) problems.push(...validateJson(schema.items, item, `${path}[${i}]`));
  }
  if (schema.anyOf && !schema.anyOf.some((option) => validateJson(option, value, path).length === 0))
    problems.push(`${path}: matches none of anyOf (${schema.anyOf.map((option) => validateJson(option, value, path)[0]).join(' / ')})`);
  if (schema.oneOf && schema.oneOf.filter((option) => validateJson(option, value, path).length === 0).length !== 1)
    problems.push(`${path}: does not match exactly one of oneOf`);
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Builders

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const object = (properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
});
const array = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const string: JsonSchema = { type: 'string' };
const nullableString: JsonSchema = { type: ['string', 'null'] };
const number: JsonSchema = { type: 'number' };
const boolean: JsonSchema = { type: 'boolean' };
const TOKEN_TYPES = ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404'];
/** A response of a paged list: `items` and `next_page_params` (null on the last page). */
const page = (item: JsonSchema, params: JsonSchema, paramsNullable = true): JsonSchema =>
  object({ items: array(item), next_page_params: paramsNullable ? nullable(params) : params });

// ---------------------------------------------------------------------------------------------------
// addressParams.ts

const addressTag = object({ label: string, display_name: string, address_hash: string });
const watchlistName = object({ label: string, display_name: string });
const addressImplementation = object({ address_hash: string, filecoin_robust_address: nullableString, name: nullableString }, [
  'filecoin_robust_address',
  'name',
]);
/** UserTags: arrays or null. */
const userTags = {
  private_tags: nullable(array(addressTag)),
  watchlist_names: nullable(array(watchlistName)),
  public_tags: nullable(array(addressTag)),
};
/** AddressParam = UserTags & AddressParamBasic (`metadata`, `filecoin`, `proxy_type` optional). */
export const addressParam = object(
  {
    ...userTags,
    hash: string,
    implementations: nullable(array(addressImplementation)),
    name: nullableString,
    is_contract: boolean,
    is_verified: { type: ['boolean', 'null'] },
    ens_domain_name: nullableString,
    metadata: nullable(object({ reputation: { type: ['number', 'null'] }, tags: array({ type: 'object' }) })),
    proxy_type: nullableString,
  },
  ['metadata', 'proxy_type'],
);

// ---------------------------------------------------------------------------------------------------
// token.ts

export const tokenInfo = object(
  {
    address_hash: string,
    type: { enum: TOKEN_TYPES },
    symbol: nullableString,
    name: nullableString,
    decimals: nullableString,
    holders_count: nullableString,
    exchange_rate: nullableString,
    total_supply: nullableString,
    icon_url: nullableString,
    circulating_market_cap: nullableString,
    is_bridged: { type: ['boolean', 'null'] },
  },
  ['is_bridged'],
);

const tokenInstanceProperties = {
  is_unique: boolean,
  id: string,
  holder_address_hash: nullableString,
  image_url: nullableString,
  animation_url: nullableString,
  media_url: nullableString,
  media_type: nullableString,
  external_app_url: nullableString,
  metadata: { type: ['object', 'null'] } as JsonSchema,
  owner: nullable(addressParam),
  thumbnails: nullable(object({ original: string })),
};
export const tokenInstance = object(tokenInstanceProperties, ['media_url', 'media_type']);

// ---------------------------------------------------------------------------------------------------
// tokenTransfer.ts

const erc20Total = object({ decimals: nullableString, value: string });
const erc721Total = object({ token_id: nullableString, token_instance: nullable(tokenInstance) });
const erc1155Total = object({ decimals: nullableString, value: string, token_id: nullableString, token_instance: nullable(tokenInstance) });
const erc404Total: JsonSchema = {
  anyOf: [
    object({ decimals: string, value: string, token_id: { type: 'null' }, token_instance: nullable(tokenInstance) }),
    object({ token_id: string, token_instance: nullable(tokenInstance) }),
  ],
};
const tokenTransferBase = {
  type: { enum: ['token_transfer', 'token_burning', 'token_spawning', 'token_minting'] },
  transaction_hash: string,
  from: addressParam,
  to: addressParam,
  timestamp: string,
  block_number: {
    type: ['string', 'integer'],
    description: "The type says string; Blockscout's backend sends an integer, as the spec's log_index: SPEC WINS (integer)",
  } as JsonSchema,
  block_hash: string,
  log_index: { type: ['string', 'integer'], description: 'The type says string; SPEC WINS: log_index is an integer' } as JsonSchema,
  method: {
    type: ['string', 'null'],
    description: "`method?: string`; BACKEND: Blockscout answers null when it cannot name the method (the spec's method string, null)",
  } as JsonSchema,
};
/** TokenTransfer: one variant per token type, `token: TokenInfo<T> | null` and that type's `total` or null. */
export const tokenTransfer: JsonSchema = {
  anyOf: (
    [
      ['ERC-20', erc20Total],
      ['ERC-721', erc721Total],
      ['ERC-1155', erc1155Total],
      ['ERC-404', erc404Total],
    ] as const
  ).map(([type, total]) =>
    object(
      {
        ...tokenTransferBase,
        token: nullable({ ...tokenInfo, properties: { ...tokenInfo.properties, type: { enum: [type] } } }),
        total: nullable(total),
      },
      ['method'],
    ),
  ),
};
const tokenTransferPagination = object({ block_number: number, index: number, items_count: number });

// ---------------------------------------------------------------------------------------------------
// transaction.ts, fee.ts, decodedInput.ts

const decodedInput = object({
  method_call: string,
  method_id: string,
  parameters: array(object({ name: string, type: string, value: { type: ['string', 'array', 'object'] }, indexed: boolean }, ['indexed'])),
});
/** A whole number the spec gives as a JSON number, and as a decimal string above 2^53 (SPEC WINS). */
const chainInteger = (field: string): JsonSchema => ({
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^[1-9][0-9]{15,}$' },
  ],
  description: `SPEC WINS: ${field} is a number (a decimal string above 2^53)`,
});
export const transaction = object(
  {
    to: nullable(addressParam),
    created_contract: nullable(addressParam),
    hash: string,
    result: string,
    confirmations: number,
    status: { enum: ['ok', 'error', null] },
    block_number: { type: ['number', 'null'] },
    timestamp: nullableString,
    confirmation_duration: nullable(array(number)),
    from: addressParam,
    value: string,
    fee: object({ type: string, value: nullableString }),
    gas_price: nullableString,
    type: { type: ['number', 'null'] },
    gas_used: nullableString,
    gas_limit: {
      ...chainInteger('gas_limit'),
      description: 'The type says string; SPEC WINS: gas_limit is a number (a decimal string above 2^53)',
    },
    max_fee_per_gas: nullableString,
    max_priority_fee_per_gas: nullableString,
    priority_fee: nullableString,
    base_fee_per_gas: nullableString,
    transaction_burnt_fee: nullableString,
    nonce: chainInteger('nonce'),
    position: { type: ['number', 'null'] },
    revert_reason: {
      type: ['string', 'null'],
      description: 'The type says {raw} | DecodedInput | null; SPEC WINS: revert_reason is a string (null on success)',
    },
    raw_input: string,
    decoded_input: nullable(decodedInput),
    token_transfers: nullable(array(tokenTransfer)),
    token_transfers_overflow: {
      type: ['boolean', 'null'],
      description:
        "The type says boolean; BACKEND: Blockscout's list endpoints answer null (token_transfers not loaded), as the spec's seed does",
    },
    exchange_rate: nullableString,
    method: nullableString,
    transaction_types: array({
      enum: [
        'rootstock_remasc',
        'rootstock_bridge',
        'token_transfer',
        'contract_creation',
        'contract_call',
        'token_creation',
        'coin_transfer',
        'blob_transaction',
      ],
    }),
    transaction_tag: nullableString,
    actions: array(object({ protocol: string, type: string, data: { type: 'object' } })),
    has_error_in_internal_transactions: { type: ['boolean', 'null'] },
    l1_fee: string,
    l1_fee_scalar: string,
    l1_gas_price: string,
    l1_gas_used: string,
  },
  ['l1_fee', 'l1_fee_scalar', 'l1_gas_price', 'l1_gas_used'],
);
const transactionsPagination = object({ block_number: number, index: number, items_count: number });

// ---------------------------------------------------------------------------------------------------
// internalTransaction.ts

const internalTransactionBase = {
  error: nullableString,
  success: boolean,
  type: {
    enum: ['call', 'delegatecall', 'staticcall', 'create', 'create2', 'selfdestruct', 'reward', 'callcode'],
    description: "TxInternalsType lacks callcode, which Blockscout's backend gives for CALLCODE frames (BACKEND)",
  },
  transaction_hash: string,
  from: addressParam,
  value: string,
  index: number,
  block_number: number,
  timestamp: string,
  gas_limit: string,
};
export const internalTransaction: JsonSchema = {
  anyOf: [
    object({ ...internalTransactionBase, to: addressParam, created_contract: { type: 'null' } }),
    object({ ...internalTransactionBase, to: { type: 'null' }, created_contract: addressParam }),
  ],
};

// ---------------------------------------------------------------------------------------------------
// address.ts

const addressTokenBalance = object({ token: tokenInfo, token_id: nullableString, value: string, token_instance: nullable(tokenInstance) });
/** AddressNFT = TokenInstance & { token, token_type, value }. */
const addressNft = object({ ...tokenInstanceProperties, token: tokenInfo, token_type: { enum: TOKEN_TYPES.slice(1) }, value: string }, [
  'media_url',
  'media_type',
]);
/** AddressCollection's instances: Omit<AddressNFT, 'token'>. */
const collectionInstance = object({ ...tokenInstanceProperties, token_type: { enum: TOKEN_TYPES.slice(1) }, value: string }, [
  'media_url',
  'media_type',
]);
const tabCount: JsonSchema = { type: ['number', 'null'] };

export const address = object(
  {
    ...userTags,
    block_number_balance_updated_at: { type: ['number', 'null'] },
    coin_balance: nullableString,
    creator_address_hash: nullableString,
    creation_transaction_hash: nullableString,
    exchange_rate: nullableString,
    ens_domain_name: nullableString,
    has_beacon_chain_withdrawals: boolean,
    has_logs: boolean,
    has_token_transfers: boolean,
    has_tokens: boolean,
    has_validated_blocks: boolean,
    hash: string,
    implementations: nullable(array(addressImplementation)),
    is_contract: boolean,
    is_verified: boolean,
    name: nullableString,
    token: nullable(tokenInfo),
    watchlist_address_id: { type: ['number', 'null'] },
    proxy_type: nullableString,
  },
  ['has_beacon_chain_withdrawals', 'proxy_type'],
);

export const addressCounters = object({
  transactions_count: string,
  token_transfers_count: string,
  gas_usage_count: nullableString,
  validations_count: nullableString,
});

export const addressTabsCounters = object({
  internal_transactions_count: tabCount,
  logs_count: tabCount,
  token_balances_count: tabCount,
  token_transfers_count: tabCount,
  transactions_count: tabCount,
  validations_count: tabCount,
  withdrawals_count: tabCount,
});

const withdrawalItem = object({ amount: string, block_number: number, index: number, timestamp: string, validator_index: number });

const indexingStatus = object({
  finished_indexing: boolean,
  finished_indexing_blocks: boolean,
  indexed_blocks_ratio: string,
  indexed_internal_transactions_ratio: {
    type: ['string', 'null'],
    description: 'The type says string; null when the node serves no traces (nothing to index: decisions/explorer.md)',
  },
});

/** The response schema of each explorer route, by the route's path (after `/explorer`). */
export const BLOCKSCOUT_RESPONSES: Record<string, JsonSchema> = {
  '/addresses/{address_hash}/tokens': page(
    addressTokenBalance,
    object({
      items_count: number,
      token_name: nullableString,
      token_type: { enum: TOKEN_TYPES },
      value: number,
      fiat_value: nullableString,
    }),
  ),
  '/addresses/{address_hash}/nft/collections': page(
    object({ token: tokenInfo, amount: string, token_instances: array(collectionInstance) }),
    object({ token_contract_address_hash: string, token_type: { enum: TOKEN_TYPES } }),
  ),
  '/addresses/{address_hash}/nft': page(
    addressNft,
    object({ items_count: number, token_id: string, token_type: { enum: TOKEN_TYPES }, token_contract_address_hash: string }),
  ),
  '/addresses/{address_hash}/token-transfers': page(tokenTransfer, tokenTransferPagination),
  '/addresses/{address_hash}/transactions': page(transaction, transactionsPagination),
  '/addresses/{address_hash}/internal-transactions': page(
    internalTransaction,
    object({ block_number: number, index: number, items_count: number, transaction_index: number }),
  ),
  // AddressWithdrawalsResponse's next_page_params has no `| null`; BACKEND: Blockscout sends null on the last page.
  '/addresses/{address_hash}/withdrawals': page(withdrawalItem, object({ index: number, items_count: number })),
  '/addresses/{address_hash}': address,
  '/addresses/{address_hash}/counters': addressCounters,
  '/addresses/{address_hash}/tabs-counters': addressTabsCounters,
  '/main-page/indexing-status': indexingStatus,
};

/** The schema of an explorer path as requested (`/explorer/addresses/0x.../tokens`), if any. */
export function blockscoutSchemaOf(rawPath: string): JsonSchema | undefined {
  const path = rawPath.replace(/^\/+/, '/');
  if (!path.startsWith('/explorer/')) return undefined;
  const rest = path.slice('/explorer'.length).replace(/^\/addresses\/[^/]+/, '/addresses/{address_hash}');
  return BLOCKSCOUT_RESPONSES[rest];
}

export class BlockscoutTypeViolation extends Error {}

/** Why a 200 answer of an explorer route breaks the frontend's types, or undefined. */
export function blockscoutViolation(prepared: PreparedRequest, response: LocalResponse): string | undefined {
  if (response.statusCode !== 200) return undefined;
  const schema = blockscoutSchemaOf(prepared.event.rawPath);
  if (!schema) return undefined;
  const body = JSON.parse(response.isBase64Encoded ? Buffer.from(response.body, 'base64').toString('utf8') : response.body);
  const problems = validateJson(schema, body);
  return problems.length > 0 ? problems.slice(0, 5).join('; ') : undefined;
}

/** Checks every explorer answer the suite receives against these schemas (BLOCKSCOUT_CHECK=0 turns it off). */
export function checkBlockscoutTypes(): void {
  if (process.env.BLOCKSCOUT_CHECK === '0') return;
  observeResponses((prepared: PreparedRequest, _handler: LambdaHandler, response: LocalResponse) => {
    const problem = blockscoutViolation(prepared, response);
    if (problem) {
      throw new BlockscoutTypeViolation(
        `${prepared.event.rawPath} answered outside Blockscout's frontend types: ${problem}\n${response.body.slice(0, 1500)}`,
      );
    }
  });
}
