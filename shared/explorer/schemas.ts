/**
 * Request and response schemas of the explorer group (valibot), side by side, compatible with
 * Blockscout's API v2. Requests are strict: an unknown query parameter (including a cursor field of
 * another endpoint) is a 422 naming it. Invalid values get Blockscout's own detail messages.
 * Endpoint ids (E1-E6): see docs/access-patterns.md.
 */
import * as v from 'valibot';
import { getAddress } from 'viem';
import type { TokenStandard } from '../table/keys';

// ---------------------------------------------------------------------------------------------------
// Request values

export const ADDRESS_PATTERN = /^0x([A-Fa-f0-9]{40})$/;
/** Blockscout's (OpenApiSpex) detail for a value that does not match the address pattern. */
export const INVALID_ADDRESS_DETAIL = 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/';
export const INVALID_ENUM_DETAIL = 'Invalid value for enum';
export const INVALID_INTEGER_DETAIL = 'Invalid integer. Got: string';
export const INVALID_NUMBER_DETAIL = 'Invalid number. Got: string';

/** Every token standard a `type` filter may name, in Blockscout's spelling. */
export const TOKEN_TYPE_LABELS: readonly TokenStandard[] = ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404'];

/** An address hash (any case), lowercased for keys. */
const addressValue = v.pipe(
  v.string(),
  v.regex(ADDRESS_PATTERN, INVALID_ADDRESS_DETAIL),
  v.transform((hash) => hash.toLowerCase()),
);

/**
 * E1's `id` tie-breaker: `<exact value>-<token contract>-<token id or empty>` (cursor.ts). Blockscout's
 * `id` is the balance row's id; clients only echo it.
 */
export const BALANCE_ID_PATTERN = /^(0|[1-9][0-9]{0,77})-0x[0-9a-fA-F]{40}-([0-9]{1,78})?$/;
export const INVALID_ID_DETAIL = 'Invalid format. Expected <value>-<token address>-<token id>';

/** A non-negative integer query value (cursor fields). */
const integerValue = v.pipe(v.string(), v.regex(/^[0-9]{1,15}$/, INVALID_INTEGER_DETAIL), v.transform(Number));

/**
 * A non-negative number as JSON prints it (`12`, `1.2e+21`). A client that writes `+` into a URL
 * unencoded sends a space, which is read back as `+`.
 */
const numberValue = v.pipe(
  v.string(),
  v.transform((text) => text.replace(' ', '+')),
  v.regex(/^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/, INVALID_NUMBER_DETAIL),
  v.transform(Number),
  v.check((value) => Number.isFinite(value), INVALID_NUMBER_DETAIL),
);

/**
 * `type`: token standards, comma-separated, case-insensitive, optionally in brackets
 * (`[ERC-20,ERC-721]`). Unknown labels are ignored; no known label at all means no filter.
 */
export function parseTokenTypes(text: string): TokenStandard[] | undefined {
  const inner = text.trim().replace(/^\[(.*)\]$/s, '$1');
  const wanted = new Set(inner.split(',').map((label) => label.trim().toUpperCase()));
  const types = TOKEN_TYPE_LABELS.filter((label) => wanted.has(label));
  return types.length > 0 ? types : undefined;
}

const typeFilter = v.pipe(v.string(), v.transform(parseTokenTypes));
/** A wei amount as a decimal string (E4's value / fee cursors). */
const decimalQueryValue = v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]{0,77})$/, INVALID_INTEGER_DETAIL));
const directionFilter = v.picklist(['to', 'from'], INVALID_ENUM_DETAIL);
const tokenTypeValue = v.picklist(TOKEN_TYPE_LABELS, INVALID_ENUM_DETAIL);

/** Path of every explorer endpoint. */
export const addressPath = v.strictObject({ address_hash: addressValue });

/** What an explorer page is asked for: the address of the path and the endpoint's validated query. */
export interface AddressRequest<Query> {
  address: string;
  query: Query;
}

// ---------------------------------------------------------------------------------------------------
// Query of each endpoint: its filters and the fields of its own next_page_params

/** E1 GET /explorer/addresses/{address_hash}/tokens */
export const tokenBalancesQuery = v.strictObject({
  type: v.optional(typeFilter),
  value: v.optional(numberValue),
  token_name: v.optional(v.string()),
  token_type: v.optional(tokenTypeValue),
  items_count: v.optional(integerValue),
  /** Blockscout's cursor field (a fiat value: none here); echoed back by clients, ignored. */
  fiat_value: v.optional(v.string()),
  /** The tie-breaker of the cursor (cursor.ts balanceTieBreaker): the last entry's exact value, contract and id. */
  id: v.optional(v.pipe(v.string(), v.regex(BALANCE_ID_PATTERN, INVALID_ID_DETAIL))),
});

/** E2 GET /explorer/addresses/{address_hash}/nft/collections */
export const nftCollectionsQuery = v.strictObject({
  type: v.optional(typeFilter),
  token_contract_address_hash: v.optional(addressValue),
  token_type: v.optional(tokenTypeValue),
});

/** E3 GET /explorer/addresses/{address_hash}/token-transfers */
export const tokenTransfersQuery = v.strictObject({
  type: v.optional(typeFilter),
  filter: v.optional(directionFilter),
  token: v.optional(addressValue),
  block_number: v.optional(integerValue),
  index: v.optional(integerValue),
  items_count: v.optional(integerValue),
});

/** E4 `sort` values (Blockscout's TransactionsSorting). */
export const TRANSACTION_SORTS = ['value', 'fee', 'block_number'] as const;
export type TransactionSort = (typeof TRANSACTION_SORTS)[number];

/** E4 GET /explorer/addresses/{address_hash}/transactions */
export const transactionsQuery = v.strictObject({
  filter: v.optional(directionFilter),
  /** Blockscout's sorting of the address page's Transactions tab (transactions.ts: how each is read). */
  sort: v.optional(v.picklist(TRANSACTION_SORTS, INVALID_ENUM_DETAIL)),
  order: v.optional(v.picklist(['asc', 'desc'], INVALID_ENUM_DETAIL)),
  block_number: v.optional(integerValue),
  index: v.optional(integerValue),
  items_count: v.optional(integerValue),
  /** Cursor fields of `sort=value` / `sort=fee`: the last item's value or fee (wei, decimal). */
  value: v.optional(decimalQueryValue),
  fee: v.optional(decimalQueryValue),
});

/** E5 GET /explorer/addresses/{address_hash}/internal-transactions */
export const internalTransactionsQuery = v.strictObject({
  filter: v.optional(directionFilter),
  block_number: v.optional(integerValue),
  transaction_index: v.optional(integerValue),
  index: v.optional(integerValue),
  items_count: v.optional(integerValue),
});

/** E6 GET /explorer/addresses/{address_hash}/withdrawals */
export const withdrawalsQuery = v.strictObject({
  index: v.optional(integerValue),
  items_count: v.optional(integerValue),
});

/** GET /explorer/addresses/{address_hash}, .../counters, .../tabs-counters: no query. */
export const noQuery = v.strictObject({});

/** GET /explorer/addresses/{address_hash}/nft: the flat NFT list (Blockscout's AddressNFTsResponse paging). */
export const addressNftsQuery = v.strictObject({
  type: v.optional(typeFilter),
  items_count: v.optional(integerValue),
  token_id: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(0|[1-9][0-9]{0,77})$/, INVALID_INTEGER_DETAIL),
      v.check((id) => BigInt(id) < 2n ** 256n, 'must be a token id (at most 2^256 - 1)'),
    ),
  ),
  token_type: v.optional(tokenTypeValue),
  token_contract_address_hash: v.optional(addressValue),
});

export type AddressPath = v.InferOutput<typeof addressPath>;
export type NoQuery = v.InferOutput<typeof noQuery>;
export type AddressNftsQuery = v.InferOutput<typeof addressNftsQuery>;
export type TokenBalancesQuery = v.InferOutput<typeof tokenBalancesQuery>;
export type NftCollectionsQuery = v.InferOutput<typeof nftCollectionsQuery>;
export type TokenTransfersQuery = v.InferOutput<typeof tokenTransfersQuery>;
export type TransactionsQuery = v.InferOutput<typeof transactionsQuery>;
export type InternalTransactionsQuery = v.InferOutput<typeof internalTransactionsQuery>;
export type WithdrawalsQuery = v.InferOutput<typeof withdrawalsQuery>;

// ---------------------------------------------------------------------------------------------------
// Response values

const checksummedAddress = v.pipe(
  v.string(),
  v.regex(ADDRESS_PATTERN),
  v.check((hash) => hash === getAddress(hash), 'must be EIP-55 checksummed'),
);
const hash32 = v.pipe(v.string(), v.regex(/^0x[0-9a-f]{64}$/));
const decimalString = v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]*)$/));
const timestamp = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/));
const integer = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
/**
 * A whole number the chain controls (a nonce, a gas limit): a JSON number up to 2^53 - 1, its decimal
 * string above (EIP-2681 nonces reach 2^64 - 2; a JSON number there is rounded by every JavaScript client).
 */
const chainInteger = v.union([integer, v.pipe(v.string(), v.regex(/^[1-9][0-9]{15,}$/))]);

const addressTag = v.strictObject({ address_hash: v.string(), display_name: v.string(), label: v.string() });
const watchlistName = v.strictObject({ display_name: v.string(), label: v.string() });
const tagMetadata = v.strictObject({
  slug: v.string(),
  name: v.string(),
  tagType: v.string(),
  ordinal: v.number(),
  meta: v.record(v.string(), v.unknown()),
});

/** A proxy's implementation (Blockscout v2's AddressImplementation). */
const addressImplementation = v.strictObject({ address_hash: checksummedAddress, name: v.nullable(v.string()) });

/**
 * Address object: every embedded address (`from`, `to`, `owner`, `created_contract`). The spec's
 * `implementation_name` and Blockscout v2's `implementations` (a proxy's EIP-1967 implementation: see
 * decisions/explorer.md).
 */
export const addressObject = v.strictObject({
  hash: checksummedAddress,
  implementation_name: v.nullable(v.string()),
  implementations: v.array(addressImplementation),
  name: v.nullable(v.string()),
  is_contract: v.boolean(),
  private_tags: v.array(addressTag),
  watchlist_names: v.array(watchlistName),
  public_tags: v.array(addressTag),
  is_verified: v.boolean(),
  ens_domain_name: v.nullable(v.string()),
  metadata: v.nullable(v.strictObject({ tags: v.array(tagMetadata) })),
});

export const tokenObject = v.strictObject({
  circulating_market_cap: v.nullable(v.string()),
  icon_url: v.nullable(v.string()),
  name: v.nullable(v.string()),
  decimals: v.nullable(decimalString),
  symbol: v.nullable(v.string()),
  address: checksummedAddress,
  /** Blockscout v2 (since frontend v2.0.0) names `address` so: both are given. */
  address_hash: checksummedAddress,
  type: v.picklist(TOKEN_TYPE_LABELS),
  holders: decimalString,
  /** Blockscout v2's name of `holders`: both are given. */
  holders_count: decimalString,
  exchange_rate: v.nullable(v.string()),
  total_supply: v.nullable(decimalString),
});

const tokenInstanceFields = {
  is_unique: v.boolean(),
  id: decimalString,
  owner: v.nullable(addressObject),
  holder_address_hash: v.nullable(checksummedAddress),
  image_url: v.nullable(v.string()),
  animation_url: v.nullable(v.string()),
  external_app_url: v.nullable(v.string()),
  /** Free-form token metadata (name, description, image, attributes ...), null when not resolved. */
  metadata: v.nullable(v.record(v.string(), v.unknown())),
  /** Blockscout v2's resized images: none here (no image is fetched). */
  thumbnails: v.null(),
};

/** A token instance as Blockscout v2 embeds it in a token transfer's `total` (no `token`). */
export const transferTokenInstance = v.strictObject(tokenInstanceFields);

/** A token instance inside a token balance item (E1): carries its token. */
export const balanceTokenInstance = v.strictObject({ ...tokenInstanceFields, token: tokenObject });

/** A token instance inside an NFT collection item (E2): `token` null, with `token_type` and `value`. */
export const collectionTokenInstance = v.strictObject({
  ...tokenInstanceFields,
  token: v.null(),
  token_type: v.picklist(['ERC-721', 'ERC-1155', 'ERC-404']),
  value: decimalString,
});

export const tokenBalanceItem = v.strictObject({
  value: decimalString,
  token_id: v.nullable(decimalString),
  token: tokenObject,
  token_instance: v.nullable(balanceTokenInstance),
});

export const nftCollectionItem = v.strictObject({
  token: tokenObject,
  amount: decimalString,
  token_instances: v.array(collectionTokenInstance),
});

export const tokenTransferItem = v.strictObject({
  block_hash: hash32,
  /** Blockscout v2 gives the block number of a transfer too. */
  block_number: integer,
  from: addressObject,
  to: addressObject,
  log_index: integer,
  token: tokenObject,
  /**
   * ERC-20: decimals and value; ERC-721 / ERC-1155 also the token id and (Blockscout v2) its
   * `token_instance`, null when the ingest has no instance item for it.
   */
  total: v.strictObject({
    decimals: v.nullable(decimalString),
    value: decimalString,
    token_id: v.optional(decimalString),
    token_instance: v.optional(v.nullable(transferTokenInstance)),
  }),
  transaction_hash: hash32,
  type: v.picklist(['token_transfer', 'token_minting', 'token_burning']),
  method: v.nullable(v.string()),
  timestamp,
});

export const decodedInput = v.strictObject({
  method_call: v.string(),
  method_id: v.pipe(v.string(), v.regex(/^[0-9a-f]{8}$/)),
  parameters: v.array(v.strictObject({ name: v.string(), type: v.string(), value: v.string() })),
});

export const transactionItem = v.strictObject({
  timestamp,
  fee: v.strictObject({ type: v.picklist(['maximum', 'actual']), value: decimalString }),
  gas_limit: chainInteger,
  block_number: integer,
  /** null when the chain does not say (a pre-Byzantium receipt without a trace), as Blockscout. */
  status: v.nullable(v.picklist(['ok', 'error'])),
  method: v.nullable(v.string()),
  confirmations: integer,
  type: integer,
  exchange_rate: v.nullable(v.string()),
  to: v.nullable(addressObject),
  from: addressObject,
  created_contract: v.nullable(addressObject),
  /** null without a base fee (before London) and for OP-stack deposits, as Blockscout. */
  transaction_burnt_fee: v.nullable(decimalString),
  max_fee_per_gas: v.nullable(decimalString),
  max_priority_fee_per_gas: v.nullable(decimalString),
  result: v.string(),
  hash: hash32,
  gas_price: v.nullable(decimalString),
  priority_fee: v.nullable(decimalString),
  base_fee_per_gas: v.nullable(decimalString),
  /** null in lists, as Blockscout's own list endpoints give it. */
  token_transfers: v.null(),
  token_transfers_overflow: v.null(),
  transaction_types: v.array(v.picklist(['token_transfer', 'contract_creation', 'contract_call', 'token_creation', 'coin_transfer'])),
  gas_used: decimalString,
  position: integer,
  nonce: chainInteger,
  has_error_in_internal_transactions: v.nullable(v.boolean()),
  actions: v.array(v.strictObject({ protocol: v.string(), type: v.string(), data: v.record(v.string(), v.unknown()) })),
  decoded_input: v.nullable(decodedInput),
  raw_input: v.pipe(v.string(), v.regex(/^0x([0-9a-f]{2})*$/)),
  value: decimalString,
  revert_reason: v.nullable(v.string()),
  confirmation_duration: v.array(v.number()),
  transaction_tag: v.nullable(v.string()),
  /**
   * OP-stack chains (Blockscout's OP-stack explorer): the L1 data fee, included in `fee`, with the
   * L1 gas used and price and the fee scalar (Bedrock) or its Ecotone/Fjord successors; present when
   * the receipt carries them.
   */
  l1_fee: v.optional(decimalString),
  l1_gas_used: v.optional(decimalString),
  l1_gas_price: v.optional(decimalString),
  l1_fee_scalar: v.optional(v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/))),
  l1_base_fee_scalar: v.optional(decimalString),
  l1_blob_base_fee: v.optional(decimalString),
  l1_blob_base_fee_scalar: v.optional(decimalString),
  /** OP-stack deposit transactions (type 126): the L1 source hash, the wei minted on L2, the system flag. */
  source_hash: v.optional(hash32),
  mint: v.optional(decimalString),
  is_system_tx: v.optional(v.boolean()),
});

export const internalTransactionItem = v.strictObject({
  block_number: integer,
  created_contract: v.nullable(addressObject),
  error: v.nullable(v.string()),
  from: addressObject,
  gas_limit: decimalString,
  index: integer,
  success: v.boolean(),
  timestamp,
  to: v.nullable(addressObject),
  transaction_hash: hash32,
  type: v.picklist(['call', 'delegatecall', 'staticcall', 'callcode', 'create', 'create2', 'selfdestruct']),
  value: decimalString,
});

/** Withdrawal as the withdrawals endpoint gives it: without `receiver`. */
export const withdrawalItem = v.strictObject({
  index: integer,
  amount: decimalString,
  validator_index: integer,
  block_number: integer,
  timestamp,
});

// ---------------------------------------------------------------------------------------------------
// Responses: items and the endpoint's next_page_params (null on the last page)

const directionEcho = { filter: v.optional(v.picklist(['to', 'from'])) };

function page<TItem extends v.GenericSchema, TCursor extends v.GenericSchema>(item: TItem, cursor: TCursor) {
  return v.strictObject({ items: v.array(item), next_page_params: v.nullable(cursor) });
}

export const tokenBalancesPageParams = v.strictObject({
  items_count: integer,
  token_name: v.nullable(v.string()),
  token_type: v.picklist(TOKEN_TYPE_LABELS),
  value: v.pipe(v.number(), v.minValue(0)),
  /** Blockscout's fiat value of the last balance: no prices here. */
  fiat_value: v.null(),
  /** The tie-breaker (Blockscout's `id`): the last entry's exact value, contract and token id. */
  id: v.pipe(v.string(), v.regex(BALANCE_ID_PATTERN)),
});
export const nftCollectionsPageParams = v.strictObject({
  token_contract_address_hash: checksummedAddress,
  token_type: v.picklist(TOKEN_TYPE_LABELS),
});
export const tokenTransfersPageParams = v.strictObject({
  block_number: integer,
  index: integer,
  items_count: integer,
  ...directionEcho,
  token: v.optional(v.string()),
});
export const transactionsPageParams = v.strictObject({
  block_number: integer,
  index: integer,
  items_count: integer,
  ...directionEcho,
  sort: v.optional(v.picklist(TRANSACTION_SORTS)),
  order: v.optional(v.picklist(['asc', 'desc'])),
  value: v.optional(decimalString),
  fee: v.optional(decimalString),
});
export const internalTransactionsPageParams = v.strictObject({
  block_number: integer,
  index: integer,
  items_count: integer,
  transaction_index: integer,
  ...directionEcho,
});
export const withdrawalsPageParams = v.strictObject({ index: integer, items_count: integer });

export const tokenBalancesResponse = page(tokenBalanceItem, tokenBalancesPageParams);
export const nftCollectionsResponse = page(nftCollectionItem, nftCollectionsPageParams);
export const tokenTransfersResponse = page(tokenTransferItem, tokenTransfersPageParams);
export const transactionsResponse = page(transactionItem, transactionsPageParams);
export const internalTransactionsResponse = page(internalTransactionItem, internalTransactionsPageParams);
export const withdrawalsResponse = page(withdrawalItem, withdrawalsPageParams);

// ---------------------------------------------------------------------------------------------------
// The address page's other calls (Blockscout v2: Address, AddressCounters, AddressTabsCounters, AddressNFTsResponse)

/** GET /explorer/addresses/{address_hash}: the address object of Blockscout v2's address page. */
export const addressDetailsResponse = v.strictObject({
  hash: checksummedAddress,
  is_contract: v.boolean(),
  is_verified: v.boolean(),
  name: v.nullable(v.string()),
  implementation_name: v.nullable(v.string()),
  implementations: v.array(addressImplementation),
  /** `eip1967` when the ingest read an implementation from the EIP-1967 slot, else null. */
  proxy_type: v.nullable(v.picklist(['eip1967'])),
  /**
   * Native balance in wei, decimal, as the ingest read it (eth_getBalance) at the last block that
   * touched the address, that block's number beside it; null when none was read (decisions/explorer.md).
   */
  coin_balance: v.nullable(v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]*)$/))),
  block_number_balance_updated_at: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  exchange_rate: v.null(),
  creator_address_hash: v.nullable(checksummedAddress),
  creation_transaction_hash: v.nullable(hash32),
  /** Blockscout before v2's name of `creation_transaction_hash`. */
  creation_tx_hash: v.nullable(hash32),
  ens_domain_name: v.null(),
  metadata: v.null(),
  token: v.nullable(tokenObject),
  has_tokens: v.boolean(),
  has_token_transfers: v.boolean(),
  has_logs: v.boolean(),
  has_validated_blocks: v.boolean(),
  has_beacon_chain_withdrawals: v.boolean(),
  watchlist_address_id: v.null(),
  private_tags: v.array(addressTag),
  watchlist_names: v.array(watchlistName),
  public_tags: v.array(addressTag),
});

/** GET .../counters: Blockscout's AddressCounters (decimal strings). */
export const addressCountersResponse = v.strictObject({
  transactions_count: decimalString,
  token_transfers_count: decimalString,
  gas_usage_count: v.nullable(decimalString),
  validations_count: v.nullable(decimalString),
});

/** GET .../tabs-counters: Blockscout's AddressTabsCounters, each capped at 51 (null: not indexed). */
const tabCount = v.nullable(v.pipe(integer, v.maxValue(51)));
export const addressTabsCountersResponse = v.strictObject({
  internal_transactions_count: tabCount,
  logs_count: tabCount,
  token_balances_count: tabCount,
  token_transfers_count: tabCount,
  transactions_count: tabCount,
  validations_count: tabCount,
  withdrawals_count: tabCount,
});

/** An item of GET .../nft: one NFT instance the address holds, with its token, standard and amount. */
export const addressNftItem = v.strictObject({
  ...tokenInstanceFields,
  token: tokenObject,
  token_type: v.picklist(['ERC-721', 'ERC-1155', 'ERC-404']),
  value: decimalString,
});
export const addressNftsPageParams = v.strictObject({
  items_count: integer,
  token_id: decimalString,
  token_type: v.picklist(TOKEN_TYPE_LABELS),
  token_contract_address_hash: checksummedAddress,
});
export const addressNftsResponse = page(addressNftItem, addressNftsPageParams);

export type AddressDetailsResponse = v.InferOutput<typeof addressDetailsResponse>;
export type AddressCountersResponse = v.InferOutput<typeof addressCountersResponse>;
export type AddressTabsCountersResponse = v.InferOutput<typeof addressTabsCountersResponse>;
export type AddressNftItem = v.InferOutput<typeof addressNftItem>;
export type AddressNftsResponse = v.InferOutput<typeof addressNftsResponse>;
export type TransferTokenInstance = v.InferOutput<typeof transferTokenInstance>;

export type AddressObject = v.InferOutput<typeof addressObject>;
export type TokenObject = v.InferOutput<typeof tokenObject>;
export type BalanceTokenInstance = v.InferOutput<typeof balanceTokenInstance>;
export type CollectionTokenInstance = v.InferOutput<typeof collectionTokenInstance>;
export type TokenBalanceItem = v.InferOutput<typeof tokenBalanceItem>;
export type NftCollectionItem = v.InferOutput<typeof nftCollectionItem>;
export type TokenTransferItem = v.InferOutput<typeof tokenTransferItem>;
export type DecodedInput = v.InferOutput<typeof decodedInput>;
export type TransactionItem = v.InferOutput<typeof transactionItem>;
export type InternalTransactionItem = v.InferOutput<typeof internalTransactionItem>;
export type WithdrawalItem = v.InferOutput<typeof withdrawalItem>;
export type TokenBalancesPageParams = v.InferOutput<typeof tokenBalancesPageParams>;
export type NftCollectionsPageParams = v.InferOutput<typeof nftCollectionsPageParams>;
export type TokenTransfersPageParams = v.InferOutput<typeof tokenTransfersPageParams>;
export type TransactionsPageParams = v.InferOutput<typeof transactionsPageParams>;
export type InternalTransactionsPageParams = v.InferOutput<typeof internalTransactionsPageParams>;
export type WithdrawalsPageParams = v.InferOutput<typeof withdrawalsPageParams>;
export type TokenBalancesResponse = v.InferOutput<typeof tokenBalancesResponse>;
export type NftCollectionsResponse = v.InferOutput<typeof nftCollectionsResponse>;
export type TokenTransfersResponse = v.InferOutput<typeof tokenTransfersResponse>;
export type TransactionsResponse = v.InferOutput<typeof transactionsResponse>;
export type InternalTransactionsResponse = v.InferOutput<typeof internalTransactionsResponse>;
export type WithdrawalsResponse = v.InferOutput<typeof withdrawalsResponse>;
