/**
 * Request and response schemas of the insights group (valibot), side by side. Compatible with
 * thirdweb's Insight API v1. Queries accept the listed parameters and every `filter_<field>` of the
 * endpoint; any other parameter is a 400 naming the valid filter fields (docs/decisions/insights.md).
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import * as v from 'valibot';
import { BLOCK_FILTERS, EVENT_FILTERS, filterEntries, TRANSACTION_FILTERS, unknownParameterMessage, type FilterCatalogue } from './filters';
import { DEFAULT_LIMIT, MAX_EXPRESSIONS, MAX_LIMIT, MAX_PAGE } from './limits';
import {
  ALL_EVENT_FILTERS,
  ALL_TRANSACTION_FILTERS,
  CONTRACT_ALL_TRANSACTION_FILTERS,
  SIGNATURE_EVENT_FILTERS,
  WALLET_TRANSACTION_FILTERS,
} from './list-filters';
import { refuseInheritedNames } from '../http/inherited-names';

// ---------------------------------------------------------------------------------------------------
// Request parts

/** Repeated parameters reach the schema as arrays; a value may also hold a comma-separated list. */
const chainIdList = v.optional(
  v.pipe(
    v.array(v.string()),
    v.transform((values) => values.flatMap((value) => value.split(',')).map((value) => value.trim())),
    v.check(
      (values) => values.every((value) => /^[1-9][0-9]{0,15}$/.test(value) && Number.isSafeInteger(Number(value))),
      'must be positive integers',
    ),
    v.transform((values) => values.map(Number)),
  ),
);

export const integerQuery = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,10}$/, `must be an integer from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `must be an integer from ${min} to ${max}`),
    v.maxValue(max, `must be an integer from ${min} to ${max}`),
  );

const booleanQuery = v.pipe(
  v.picklist(['true', 'false'], 'must be true or false'),
  v.transform((value) => value === 'true'),
);

const sortOrder = v.picklist(['asc', 'desc'], 'must be asc or desc');

/** Repeatable expression parameters (their grammar is checked by aggregate-parser.ts). */
const expressionList = v.optional(v.pipe(v.array(v.string()), v.maxLength(MAX_EXPRESSIONS, `at most ${MAX_EXPRESSIONS} values`)), []);

/** Parameters every insights endpoint takes: the chains. */
export const chainEntries = { chain_id: chainIdList, chain: chainIdList };

/** Paging shared by every list endpoint: any page (range-seek.ts). */
const pagingEntries = {
  limit: v.optional(integerQuery(1, MAX_LIMIT), String(DEFAULT_LIMIT)),
  page: v.optional(integerQuery(0, MAX_PAGE), '0'),
};

/** I1 to I3: sorting, grouping, aggregation. sort_by names block_number or an aggregate alias. */
const listEntries = {
  ...chainEntries,
  ...pagingEntries,
  // An output column's name: a field, an alias, or an unaliased expression as it names its column
  // (`sum(value)`, `count(distinct from_address)`); only ever compared with the columns' names.
  sort_by: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^[A-Za-z_][A-Za-z0-9_]{0,63}(\([A-Za-z0-9_*, ()]{0,160}\))?$/,
        'must be block_number or an output column (an alias, or an expression as written)',
      ),
    ),
  ),
  sort_order: v.optional(sortOrder),
  group_by: expressionList,
  aggregate: expressionList,
};

/** Query parameters that repeat (declared as `repeatable` in every insights handler). */
export const REPEATABLE_PARAMETERS = ['chain_id', 'chain', 'group_by', 'aggregate', 'token_types', 'contract_address'] as const;

/** A query object of known entries that rejects any other parameter with the endpoint's filter list. */
function listQuery<E extends v.ObjectEntries>(entries: E, filters: FilterCatalogue) {
  const unknown = unknownParameterMessage(filters, Object.keys(entries));
  const schema = v.pipe(
    v.unknown(),
    refuseInheritedNames(unknown),
    v.objectWithRest({ ...filterEntries(filters), ...entries }, v.never(unknown)),
  );
  // The filter values are read by name (filters.ts collectFilters); the other entries keep their types.
  return schema as unknown as v.GenericSchema<
    Record<string, unknown>,
    v.InferOutput<v.ObjectSchema<E, undefined>> & Record<string, unknown>
  >;
}

/**
 * Signatures and resolve inputs hold `(`, `)`, `,` and spaces, which clients percent-encode; a value
 * that still carries %XX escapes (a gateway that passes path parameters undecoded) is decoded once.
 * Neither a signature nor a resolvable input ever contains a literal `%`.
 */
const decodedPathText = v.transform((text: string) => {
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
});

/** A contract or owner: a 0x address or a registered name (resolved by names.ts). */
const addressOrName = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty('must be a 0x address or a registered name'),
  v.maxLength(64, 'must be at most 64 characters'),
);

// ---------------------------------------------------------------------------------------------------
// Resources

const hex = v.string();
/**
 * A whole number the chain controls (nonce, gas): a JSON number up to 2^53 - 1, its decimal string
 * above (EIP-2681 nonces reach 2^64 - 2; a JSON number there is rounded by every JavaScript client).
 */
const chainNumber = v.union([v.number(), v.pipe(v.string(), v.regex(/^[1-9][0-9]{15,}$/))]);

/**
 * Each chain a list read: its indexed head (the last block whose data is all served) and its state
 * (`following`, `catching_up`, `repairing`, `stopped`: GET /insights/v1/chains/{chainId}/status says why).
 * Not in thirdweb Insight's meta: an extra field, which its published client's types leave alone.
 */
const indexedHeadsSchema = v.optional(
  v.array(
    v.strictObject({
      chain_id: v.number(),
      block_number: v.nullable(v.number()),
      block_timestamp: v.nullable(v.number()),
      state: v.picklist(['following', 'catching_up', 'repairing', 'stopped']),
      lag_blocks: v.nullable(v.number()),
    }),
  ),
);

export const insightsMetaSchema = v.strictObject({
  chain_ids: v.array(v.number()),
  address: v.string(),
  signature: v.string(),
  page: v.number(),
  limit_per_chain: v.number(),
  total_items: v.number(),
  total_pages: v.number(),
  indexed_heads: indexedHeadsSchema,
});
export type InsightsMeta = v.InferOutput<typeof insightsMetaSchema>;

export const tokenTransferMetaSchema = v.strictObject({
  chain_id: v.number(),
  chain_ids: v.array(v.number()),
  address: v.string(),
  signature: v.string(),
  page: v.number(),
  limit: v.number(),
  total_items: v.number(),
  total_pages: v.number(),
  indexed_heads: indexedHeadsSchema,
});
export type TokenTransferMeta = v.InferOutput<typeof tokenTransferMetaSchema>;

export const blockSchema = v.strictObject({
  chain_id: v.number(),
  block_number: v.number(),
  block_hash: hex,
  parent_hash: hex,
  block_timestamp: v.number(),
  nonce: hex,
  sha3_uncles: hex,
  mix_hash: hex,
  miner: hex,
  state_root: hex,
  transactions_root: hex,
  receipts_root: hex,
  logs_bloom: hex,
  size: chainNumber,
  extra_data: hex,
  difficulty: v.string(),
  total_difficulty: v.string(),
  transaction_count: v.number(),
  gas_limit: chainNumber,
  gas_used: chainNumber,
  withdrawals_root: hex,
  base_fee_per_gas: chainNumber,
});
export type InsightsBlock = v.InferOutput<typeof blockSchema>;

export const transactionSchema = v.strictObject({
  chain_id: v.string(),
  block_number: v.number(),
  block_hash: hex,
  block_timestamp: v.number(),
  hash: hex,
  nonce: chainNumber,
  transaction_index: v.number(),
  from_address: hex,
  to_address: hex,
  value: v.string(),
  gas_price: v.string(),
  gas: chainNumber,
  function_selector: hex,
  data: hex,
  max_fee_per_gas: v.string(),
  max_priority_fee_per_gas: v.string(),
  transaction_type: v.number(),
  r: v.string(),
  s: v.string(),
  v: v.string(),
  access_list_json: v.string(),
  authorization_list_json: v.string(),
  contract_address: hex,
  gas_used: chainNumber,
  cumulative_gas_used: chainNumber,
  effective_gas_price: v.string(),
  blob_gas_used: chainNumber,
  blob_gas_price: v.string(),
  logs_bloom: hex,
  /** 1 success, 0 failure; null when the chain does not say (a pre-Byzantium receipt without a trace). */
  status: v.nullable(v.number()),
  /** OP-stack deposit transactions (type 126) only: the L1 source hash, the wei minted on L2, the system flag. */
  source_hash: v.optional(hex),
  mint: v.optional(v.string()),
  is_system_tx: v.optional(v.boolean()),
});
export type InsightsTransaction = v.InferOutput<typeof transactionSchema>;

/** Decoded values: numbers, decimal strings (uint256 and wider integers), hex, booleans, arrays, tuples. */
const decodedValues = v.record(v.string(), v.unknown());

export const decodedCallSchema = v.strictObject({ name: v.string(), signature: v.string(), inputs: decodedValues });
export const decodedTransactionSchema = v.strictObject({ ...transactionSchema.entries, decoded: v.nullable(decodedCallSchema) });

export const eventSchema = v.strictObject({
  chain_id: v.string(),
  block_number: v.number(),
  block_hash: hex,
  block_timestamp: v.number(),
  transaction_hash: hex,
  transaction_index: v.number(),
  log_index: v.number(),
  address: hex,
  data: hex,
  topics: v.array(hex),
});
export type InsightsEvent = v.InferOutput<typeof eventSchema>;

export const decodedEventLogSchema = v.strictObject({
  name: v.string(),
  signature: v.string(),
  indexed_params: decodedValues,
  non_indexed_params: decodedValues,
});
export const decodedEventSchema = v.strictObject({ ...eventSchema.entries, decoded: v.nullable(decodedEventLogSchema) });

export const tokenMetadataSchema = v.strictObject({
  name: v.nullable(v.string()),
  symbol: v.nullable(v.string()),
  decimals: v.nullable(v.number()),
});

export const tokenTransferSchema = v.strictObject({
  chain_id: v.number(),
  block_number: v.string(),
  block_hash: hex,
  block_timestamp: v.string(),
  transaction_hash: hex,
  log_index: v.number(),
  contract_address: hex,
  from_address: hex,
  to_address: hex,
  transfer_type: v.picklist(['mint', 'transfer', 'burn']),
  token_type: v.picklist(['erc20', 'erc721', 'erc1155']),
  /** Decimal token id (ERC-721 and ERC-1155); absent for ERC-20. */
  token_id: v.optional(v.string()),
  amount: v.string(),
  /** Present when `metadata=true`. */
  token_metadata: v.optional(tokenMetadataSchema),
  /** The NFT routes (I6h-k) with `metadata=true`: the NFT's on-chain metadata and its contract. */
  nft_metadata: v.optional(v.record(v.string(), v.unknown())),
});
export type InsightsTokenTransfer = v.InferOutput<typeof tokenTransferSchema>;

/** One aggregation row: the group_by values and each aggregate. */
const aggregationRow = v.record(v.string(), v.unknown());
/** One array of rows per chain, in chain_ids order; null when the request asks for none. */
const aggregations = v.nullable(v.array(v.array(aggregationRow)));

function envelope<D extends v.GenericSchema>(item: D) {
  return v.strictObject({ meta: insightsMetaSchema, data: v.array(item), aggregations });
}

// ---------------------------------------------------------------------------------------------------
// I1. GET /insights/v1/transactions/{contractAddress}/{signature}

export const contractTransactionsPath = v.strictObject({
  contractAddress: addressOrName,
  signature: v.pipe(
    v.string(),
    decodedPathText,
    v.trim(),
    v.nonEmpty('must be a function signature or a 4-byte selector'),
    v.maxLength(1024, 'must be at most 1024 characters'),
  ),
});
export const contractTransactionsQuery = listQuery({ ...listEntries, decode: v.optional(booleanQuery) }, TRANSACTION_FILTERS);
export type ContractTransactionsQuery = v.InferOutput<typeof contractTransactionsQuery>;
export const contractTransactionsResponse = envelope(decodedTransactionSchema);
export type ContractTransactionsResponse = v.InferOutput<typeof contractTransactionsResponse>;

// ---------------------------------------------------------------------------------------------------
// I2. GET /insights/v1/events/{contractAddress}

export const contractEventsPath = v.strictObject({ contractAddress: addressOrName });
export const contractEventsQuery = listQuery({ ...listEntries, decode: v.optional(booleanQuery) }, EVENT_FILTERS);
export type ContractEventsQuery = v.InferOutput<typeof contractEventsQuery>;
export const contractEventsResponse = envelope(decodedEventSchema);
export type ContractEventsResponse = v.InferOutput<typeof contractEventsResponse>;

// ---------------------------------------------------------------------------------------------------
// I3. GET /insights/v1/blocks

export const blocksQuery = listQuery(listEntries, BLOCK_FILTERS);
export type BlocksQuery = v.InferOutput<typeof blocksQuery>;
export const blocksResponse = envelope(blockSchema);
export type BlocksResponse = v.InferOutput<typeof blocksResponse>;

// ---------------------------------------------------------------------------------------------------
// I4. GET /insights/v1/resolve/{input}

/** The route without an input segment answers the same 400 as a blank input. */
export const resolvePath = v.strictObject({
  input: v.optional(
    v.pipe(v.string(), decodedPathText, v.trim(), v.nonEmpty('must not be empty'), v.maxLength(1024, 'must be at most 1024 characters')),
    '',
  ),
});
export const resolveQuery = v.strictObject(chainEntries);
export type ResolveQuery = v.InferOutput<typeof resolveQuery>;

export const RESOLVE_TYPES = ['block', 'transaction', 'event_signature', 'function_signature', 'contract', 'address', 'unknown'] as const;
export type ResolveType = (typeof RESOLVE_TYPES)[number];

export const resolveResponse = v.strictObject({
  meta: insightsMetaSchema,
  data: v.strictObject({
    type: v.picklist(RESOLVE_TYPES),
    blocks: v.array(blockSchema),
    transactions: v.array(transactionSchema),
    events: v.array(eventSchema),
    address: v.string(),
  }),
  aggregations: v.null(),
});
export type ResolveResponse = v.InferOutput<typeof resolveResponse>;

// ---------------------------------------------------------------------------------------------------
// I5. Token transfers

const TOKEN_TYPES = ['erc20', 'erc721', 'erc1155'] as const;
export type TokenTypeName = (typeof TOKEN_TYPES)[number];

/** The values of a repeatable parameter, each one possibly comma-separated, trimmed, empty ones left out. */
const commaSeparated = v.transform((values: string[]) =>
  values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean),
);

/** `token_types` repeated or comma-separated; an empty list means every type. */
const tokenTypes = v.optional(
  v.pipe(
    v.array(v.string()),
    commaSeparated,
    v.transform((values) => values.map((value) => value.toLowerCase())),
    v.check((values) => values.every((value) => (TOKEN_TYPES as readonly string[]).includes(value)), 'must be erc20, erc721 or erc1155'),
    v.transform((values) => [...new Set(values)] as TokenTypeName[]),
  ),
  [],
);

const blockNumberQuery = v.pipe(v.string(), v.regex(/^[0-9]{1,15}$/, 'must be a non-negative integer'), v.transform(Number));
const timestampQuery = v.pipe(
  v.string(),
  v.regex(/^[0-9]{1,15}$/, 'must be an integer greater than 0'),
  v.transform(Number),
  v.minValue(1, 'must be an integer greater than 0'),
);

const transferEntries = {
  ...chainEntries,
  ...pagingEntries,
  metadata: v.optional(booleanQuery, 'false'),
  include_owners: v.optional(booleanQuery, 'false'),
  sort_by: listEntries.sort_by,
  group_by: expressionList,
  aggregate: expressionList,
};

/** Block and time bounds, order and transfer type: I5a (spec) and I5c (accepted as an extension). */
const transferRangeEntries = {
  block_number_from: v.optional(blockNumberQuery),
  block_number_to: v.optional(blockNumberQuery),
  block_timestamp_from: v.optional(timestampQuery),
  block_timestamp_to: v.optional(timestampQuery),
  sort_order: v.optional(sortOrder, 'desc'),
  transfer_type: v.optional(v.picklist(['mint', 'transfer', 'burn'], 'must be mint, transfer or burn')),
  token_types: tokenTypes,
};

export function transferQuery<E extends v.ObjectEntries>(entries: E) {
  const unknown = unknownParameterMessage({}, Object.keys(entries));
  const schema = v.pipe(v.unknown(), refuseInheritedNames(unknown), v.objectWithRest(entries, v.never(unknown)));
  return schema as unknown as v.GenericSchema<Record<string, unknown>, v.InferOutput<v.ObjectSchema<E, undefined>>>;
}

/** Most token contracts one request may name: each one is a key range read in parallel and merged. */
export const MAX_CONTRACT_ADDRESSES = 10;

/** `contract_address` repeated or comma-separated, as thirdweb accepts it: one or more tokens. */
const contractAddresses = v.optional(
  v.pipe(
    v.array(v.string()),
    commaSeparated,
    v.minLength(1, 'must be a 0x address or a registered name'),
    v.maxLength(MAX_CONTRACT_ADDRESSES, `at most ${MAX_CONTRACT_ADDRESSES} contracts per request`),
    v.check((values) => values.every((value) => value.length <= 64), 'each value must be at most 64 characters'),
  ),
);

export const tokenTransfersQuery = transferQuery({
  ...transferEntries,
  ...transferRangeEntries,
  owner_address: v.optional(addressOrName),
  contract_address: contractAddresses,
});
export type TokenTransfersQuery = v.InferOutput<typeof tokenTransfersQuery>;

export const transactionTokenTransfersPath = v.strictObject({
  transaction_hash: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits'), v.toLowerCase()),
});
export const transactionTokenTransfersQuery = transferQuery({
  ...transferEntries,
  sort_order: v.optional(sortOrder, 'asc'),
  token_types: tokenTypes,
});
export type TransactionTokenTransfersQuery = v.InferOutput<typeof transactionTokenTransfersQuery>;

export const contractTokenTransfersPath = v.strictObject({ contract_address: addressOrName });
export const contractTokenTransfersQuery = transferQuery({ ...transferEntries, ...transferRangeEntries });
export type ContractTokenTransfersQuery = v.InferOutput<typeof contractTokenTransfersQuery>;

export const tokenTransfersResponse = v.strictObject({ meta: tokenTransferMetaSchema, data: v.array(tokenTransferSchema), aggregations });
export type TokenTransfersResponse = v.InferOutput<typeof tokenTransfersResponse>;

// ---------------------------------------------------------------------------------------------------
// I10a to I10e: the rest of Insight v1's transaction and event lists (shared/insights/transaction-lists.ts,
// event-lists.ts). Responses: I1's and I2's envelopes.

/** `filter_function_selector`: a 4-byte selector (thirdweb's client types list it on I10a to I10c). */
const functionSelectorFilter = v.optional(
  v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{8}$/, 'must be 0x followed by 8 hex digits'), v.toLowerCase()),
);

/** I10a. GET /insights/v1/transactions/{contractAddress}: every transaction sent to a contract. */
export const contractAllTransactionsPath = v.strictObject({ contractAddress: addressOrName });
export const contractAllTransactionsQuery = listQuery(
  { ...listEntries, decode: v.optional(booleanQuery), filter_function_selector: functionSelectorFilter },
  CONTRACT_ALL_TRANSACTION_FILTERS,
);
export type ContractAllTransactionsQuery = v.InferOutput<typeof contractAllTransactionsQuery>;

/** I10b. GET /insights/v1/transactions: transactions of a chain by sender, recipient or selector. */
export const transactionsQuery = listQuery(
  { ...listEntries, decode: v.optional(booleanQuery), filter_function_selector: functionSelectorFilter },
  ALL_TRANSACTION_FILTERS,
);
export type TransactionsQuery = v.InferOutput<typeof transactionsQuery>;

/** I10c. GET /insights/v1/wallets/{wallet_address}/transactions: transactions from or to a wallet. */
export const walletTransactionsPath = v.strictObject({ wallet_address: addressOrName });
export const walletTransactionsQuery = listQuery(
  { ...listEntries, decode: v.optional(booleanQuery), filter_function_selector: functionSelectorFilter },
  WALLET_TRANSACTION_FILTERS,
);
export type WalletTransactionsQuery = v.InferOutput<typeof walletTransactionsQuery>;

/** I10a to I10c answer I1's envelope (`decoded` null without a function ABI). */
export const transactionsResponse = contractTransactionsResponse;
export type TransactionsResponse = ContractTransactionsResponse;

/** I10d. GET /insights/v1/events: events of a chain by contract, topic 0 or transaction. */
export const eventsQuery = listQuery({ ...listEntries, decode: v.optional(booleanQuery) }, ALL_EVENT_FILTERS);
export type EventsQuery = v.InferOutput<typeof eventsQuery>;

/** I10e. GET /insights/v1/events/{contractAddress}/{signature}: a contract's events of one signature. */
export const signatureEventsPath = v.strictObject({
  contractAddress: addressOrName,
  signature: v.pipe(
    v.string(),
    decodedPathText,
    v.trim(),
    v.nonEmpty('must be an event signature or a 32-byte topic'),
    v.maxLength(1024, 'must be at most 1024 characters'),
  ),
});
export const signatureEventsQuery = listQuery({ ...listEntries, decode: v.optional(booleanQuery) }, SIGNATURE_EVENT_FILTERS);
export type SignatureEventsQuery = v.InferOutput<typeof signatureEventsQuery>;

/** I10d and I10e answer I2's envelope. */
export const eventsResponse = contractEventsResponse;
export type EventsResponse = ContractEventsResponse;

// ---------------------------------------------------------------------------------------------------
// I6. Tokens and NFTs (balances from the explorer's state items; NFT transfers from the I5 ranges)

/**
 * Accepted as Insight documents them. `resolve_metadata_links=true` shows the NFT metadata's ipfs:// and
 * ar:// links through the gateways; `include_spam` has no effect (no spam list).
 */
const acceptedFlags = {
  resolve_metadata_links: v.optional(booleanQuery, 'false'),
  include_spam: v.optional(booleanQuery, 'false'),
};

export const ownerPath = v.strictObject({ ownerAddress: addressOrName });

const ownerTokensEntries = {
  ...chainEntries,
  ...pagingEntries,
  metadata: v.optional(booleanQuery, 'false'),
  ...acceptedFlags,
};

/** I6a–c: GET /insights/v1/tokens/erc20|erc721|erc1155/{ownerAddress}. */
export const ownerTokensQuery = transferQuery(ownerTokensEntries);
export type OwnerTokensQuery = v.InferOutput<typeof ownerTokensQuery>;

const NFT_TOKEN_TYPES = ['erc721', 'erc1155'] as const;
export type NftTypeName = (typeof NFT_TOKEN_TYPES)[number];

/** `token_types` of the NFT routes: erc721 and / or erc1155 (an empty list: both). */
const nftTokenTypes = v.optional(
  v.pipe(
    v.array(v.string()),
    commaSeparated,
    v.transform((values) => values.map((value) => value.toLowerCase())),
    v.check((values) => values.every((value) => (NFT_TOKEN_TYPES as readonly string[]).includes(value)), 'must be erc721 or erc1155'),
    v.transform((values) => [...new Set(values)] as NftTypeName[]),
  ),
  [],
);

/** I6d: GET /insights/v1/nfts/balance/{ownerAddress}. */
export const ownerNftsQuery = transferQuery({ ...ownerTokensEntries, token_types: nftTokenTypes });
export type OwnerNftsQuery = v.InferOutput<typeof ownerNftsQuery>;

const SORTABLE_BALANCE_FIELDS = ['balance', 'token_address', 'token_price', 'usd_value'] as const;

/** I6e: GET /insights/v1/tokens (ERC-20 balances of one or more owners). */
export const tokensQuery = transferQuery({
  ...chainEntries,
  ...pagingEntries,
  metadata: v.optional(booleanQuery, 'false'),
  ...acceptedFlags,
  owner_address: v.pipe(
    v.array(v.string()),
    commaSeparated,
    v.minLength(1, 'is required: a 0x address or a registered name'),
    v.maxLength(MAX_CONTRACT_ADDRESSES, `at most ${MAX_CONTRACT_ADDRESSES} owners per request`),
    v.check((values) => values.every((value) => value.length <= 64), 'each value must be at most 64 characters'),
  ),
  token_address: contractAddresses,
  include_native: v.optional(booleanQuery, 'false'),
  include_without_price: v.optional(booleanQuery, 'true'),
  sort_by: v.optional(v.picklist(SORTABLE_BALANCE_FIELDS, 'must be balance, token_address, token_price or usd_value'), 'balance'),
  sort_order: v.optional(sortOrder, 'desc'),
});
export type TokensQuery = v.InferOutput<typeof tokensQuery>;

/** I6f: GET /insights/v1/nfts/{contract_address}; I6g: .../{token_id}. */
export const contractNftsPath = v.strictObject({ contract_address: addressOrName });
export const nftPath = v.strictObject({
  contract_address: addressOrName,
  token_id: v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,78}$/, 'must be a decimal token id'),
    v.transform((id) => BigInt(id).toString()),
  ),
});
export const contractNftsQuery = transferQuery({
  ...chainEntries,
  ...pagingEntries,
  include_owners: v.optional(booleanQuery, 'false'),
  resolve_metadata_links: acceptedFlags.resolve_metadata_links,
});
export type ContractNftsQuery = v.InferOutput<typeof contractNftsQuery>;
export const nftQuery = transferQuery({
  ...chainEntries,
  include_owners: v.optional(booleanQuery, 'false'),
  resolve_metadata_links: acceptedFlags.resolve_metadata_links,
});
export type NftQuery = v.InferOutput<typeof nftQuery>;

export const erc20BalanceSchema = v.strictObject({
  chain_id: v.number(),
  token_address: hex,
  balance: v.string(),
  /** With `metadata=true` (the token contract's address item; null when the contract does not say). */
  name: v.optional(v.nullable(v.string())),
  symbol: v.optional(v.nullable(v.string())),
  decimals: v.optional(v.nullable(v.number())),
});
export type InsightsErc20Balance = v.InferOutput<typeof erc20BalanceSchema>;

const nftContractSchema = v.strictObject({
  chain_id: v.number(),
  address: hex,
  name: v.optional(v.string()),
  symbol: v.optional(v.string()),
  type: v.optional(v.picklist(NFT_TOKEN_TYPES)),
});

/** The metadata fields of an NFT: from its data: token URI, or fetched from the web (shared/nft-metadata/). */
const nftMetadataEntries = {
  name: v.optional(v.nullable(v.string())),
  description: v.optional(v.nullable(v.string())),
  image_url: v.optional(v.nullable(v.string())),
  video_url: v.optional(v.nullable(v.string())),
  animation_url: v.optional(v.nullable(v.string())),
  background_color: v.optional(v.nullable(v.string())),
  external_url: v.optional(v.nullable(v.string())),
  status: v.optional(v.nullable(v.string())),
  /** Not Insight's: why fetching the metadata from the web failed (status `failed`). */
  metadata_error: v.optional(v.string()),
  metadata_url: v.optional(v.nullable(v.string())),
  owner_addresses: v.optional(v.array(hex)),
  extra_metadata: v.optional(v.record(v.string(), v.unknown())),
  contract: v.optional(nftContractSchema),
};
export type NftMetadataFields = v.InferOutput<v.ObjectSchema<typeof nftMetadataEntries, undefined>>;

export const nftBalanceSchema = v.strictObject({
  chain_id: v.number(),
  token_address: hex,
  token_id: v.string(),
  balance: v.string(),
  token_type: v.picklist(NFT_TOKEN_TYPES),
  ...nftMetadataEntries,
});
export type InsightsNftBalance = v.InferOutput<typeof nftBalanceSchema>;

export const nftTokenSchema = v.strictObject({
  chain_id: v.number(),
  contract_address: hex,
  token_id: v.string(),
  token_type: v.picklist(NFT_TOKEN_TYPES),
  last_updated_block_number: v.string(),
  balance: v.string(),
  ...nftMetadataEntries,
});
export type InsightsNftToken = v.InferOutput<typeof nftTokenSchema>;

export const erc20BalancesResponse = envelope(erc20BalanceSchema);
export type Erc20BalancesResponse = v.InferOutput<typeof erc20BalancesResponse>;
export const nftBalancesResponse = envelope(nftBalanceSchema);
export type NftBalancesResponse = v.InferOutput<typeof nftBalancesResponse>;
export const nftTokensResponse = envelope(nftTokenSchema);
export type NftTokensResponse = v.InferOutput<typeof nftTokensResponse>;

/** I6h–k: the NFT transfer routes take I5's parameters; `transfer_type=sale` needs marketplace decoding (none here). */
const nftTransferType = v.optional(
  v.pipe(
    v.picklist(['mint', 'transfer', 'burn', 'sale'], 'must be mint, transfer, burn or sale'),
    v.check((type) => type !== 'sale', 'sale: marketplace sales are not decoded by this service (mint, transfer or burn)'),
  ),
) as unknown as v.OptionalSchema<v.PicklistSchema<['mint', 'transfer', 'burn'], string>, undefined>;
const nftTransferEntries = {
  ...transferEntries,
  ...transferRangeEntries,
  transfer_type: nftTransferType,
  token_types: nftTokenTypes,
  sales: v.optional(booleanQuery, 'false'),
  resolve_metadata_links: acceptedFlags.resolve_metadata_links,
};
/** I6h: GET /insights/v1/nfts/transfers. */
export const nftTransfersQuery = transferQuery({
  ...nftTransferEntries,
  owner_address: v.optional(addressOrName),
  contract_address: contractAddresses,
});
export type NftTransfersQuery = v.InferOutput<typeof nftTransfersQuery>;
/** I6i: GET /insights/v1/nfts/transfers/transaction/{transaction_hash}. */
export const nftTransactionTransfersQuery = transferQuery({
  ...transferEntries,
  sort_order: v.optional(sortOrder, 'asc'),
  token_types: nftTokenTypes,
});
/** I6j: GET /insights/v1/nfts/transfers/{contract_address}. */
export const nftContractTransfersQuery = transferQuery(nftTransferEntries);
/** I6k: GET /insights/v1/nfts/transfers/{contract_address}/{token_id}. */
export const nftTokenTransfersQuery = transferQuery({ ...nftTransferEntries, owner_address: v.optional(addressOrName) });
export type NftTokenTransfersQuery = v.InferOutput<typeof nftTokenTransfersQuery>;

/** I6l: GET /insights/v1/tokens/owners; I6m/n: GET /insights/v1/nfts/owners/{contract_address}[/{token_id}]. */
export const tokenOwnersQuery = transferQuery({ ...chainEntries, ...pagingEntries, contract_address: addressOrName });
export const nftOwnersQuery = transferQuery({ ...chainEntries, ...pagingEntries, include_balances: v.optional(booleanQuery, 'false') });
const ownerRowSchema = v.strictObject({
  chain_id: v.string(),
  token_address: hex,
  owner_address: hex,
  token_id: v.optional(v.string()),
  balance: v.string(),
});
const ownerAddressesRowSchema = v.strictObject({ chain_id: v.string(), owner_addresses: v.array(hex) });
export const ownersResponse = v.strictObject({
  meta: insightsMetaSchema,
  data: v.array(v.union([ownerRowSchema, ownerAddressesRowSchema])),
  aggregations: v.null(),
});

/** I6o: GET /insights/v1/nfts (the NFTs of one or more owners, optionally of some contracts). */
export const nftsQuery = transferQuery({
  ...chainEntries,
  ...pagingEntries,
  resolve_metadata_links: acceptedFlags.resolve_metadata_links,
  owner_address: v.pipe(
    v.array(v.string()),
    commaSeparated,
    v.minLength(1, 'is required: a 0x address or a registered name'),
    v.maxLength(MAX_CONTRACT_ADDRESSES, `at most ${MAX_CONTRACT_ADDRESSES} owners per request`),
    v.check((values) => values.every((value) => value.length <= 64), 'each value must be at most 64 characters'),
  ),
  contract_address: contractAddresses,
});
export type NftsQuery = v.InferOutput<typeof nftsQuery>;

/** I6q, I6r: GET /insights/v1/nfts/metadata/refresh/{contract_address}[/{token_id}]: the chains only. */
export const nftRefreshQuery = transferQuery({ ...chainEntries });
export type NftRefreshQuery = v.InferOutput<typeof nftRefreshQuery>;
/** Insight's answer to a refresh: queued (`success`), and what was queued where (`message`). */
export const nftRefreshResponse = v.strictObject({ data: v.strictObject({ success: v.boolean(), message: v.string() }) });
export type NftRefreshResponse = v.InferOutput<typeof nftRefreshResponse>;

/** I6p: GET /insights/v1/nfts/collections/{contract_address}. */
export const nftCollectionQuery = transferQuery({
  ...chainEntries,
  include_stats: v.optional(booleanQuery, 'false'),
  resolve_metadata_links: acceptedFlags.resolve_metadata_links,
});
export type NftCollectionQuery = v.InferOutput<typeof nftCollectionQuery>;
export const nftCollectionSchema = v.strictObject({
  chain_id: v.number(),
  contract_address: hex,
  /** The contract's name() and symbol() as the ingest read them (the web metadata of a collection is not fetched). */
  name: v.optional(v.string()),
  symbol: v.optional(v.string()),
  token_type: v.optional(v.picklist(NFT_TOKEN_TYPES)),
  stats: v.optional(
    v.strictObject({ owner_count: v.number(), token_count: v.number(), mint_count: v.number(), total_quantity: v.number() }),
  ),
});
export type InsightsNftCollection = v.InferOutput<typeof nftCollectionSchema>;
export const nftCollectionResponse = envelope(nftCollectionSchema);
export type NftCollectionResponse = v.InferOutput<typeof nftCollectionResponse>;
