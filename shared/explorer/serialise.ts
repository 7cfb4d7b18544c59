/**
 * From stored records (shared/table/records.ts) to Blockscout API v2 JSON. Pure functions: the
 * records of a page and the details joined to them (`PageDetails`, page-details.ts) in, the items out.
 * Endpoint and pattern ids (E1, E2, X7, X8): see docs/access-patterns.md.
 * Conventions: hashes of addresses EIP-55 checksummed; wei amounts, values and supplies decimal
 * strings; timestamps ISO 8601 UTC with microseconds and a trailing Z.
 */
import { checksummed } from '../chain/address';
import type {
  AddressRecord,
  BalanceRecord,
  ListedBalanceRecord,
  EmbeddedNftInstance,
  InternalTransactionRecord,
  NftCollectionRecord,
  NftInstanceRecord,
  TokenTransferRecord,
  TransactionRecord,
  WithdrawalRecord,
} from '../table/records';
import type { ProxyFields } from '../table/address-state';
import { DEFAULT_GATEWAYS, type Gateways, resolveMediaUrl } from '../nft-metadata/uri';
import { parseMetadataJson, shownMetadata } from '../nft-metadata/view';
import type { TokenStandard } from '../table/keys';
import { decodeInput, methodName } from './methods';
import type {
  AddressObject,
  BalanceTokenInstance,
  CollectionTokenInstance,
  InternalTransactionItem,
  NftCollectionItem,
  TokenBalanceItem,
  TokenObject,
  TokenTransferItem,
  TransactionItem,
  TransferTokenInstance,
  WithdrawalItem,
} from './schemas';

/** What a page joins to its records with one BatchGetItem (X7, X8). */
export interface PageDetails {
  /** Address items (contracts and tokens) by lowercase address; an address without one is not a contract. */
  addresses: Map<string, AddressRecord>;
  /** NFT instances by `instanceId(contract, tokenId)`. */
  instances: Map<string, NftInstanceRecord>;
  /** Canonical transactions by lowercase hash (for index copies whose input was left out). */
  transactions: Map<string, TransactionRecord>;
  /** The indexed head (the ingest cursor's block), null when the chain has no cursor. */
  head: number | null;
  /** Where ipfs:// and ar:// media URLs are shown through (NFT_METADATA_IPFS_GATEWAY, NFT_METADATA_ARWEAVE_GATEWAY). */
  gateways: Gateways;
}

export const emptyDetails = (gateways: Gateways = DEFAULT_GATEWAYS): PageDetails => ({
  addresses: new Map(),
  instances: new Map(),
  transactions: new Map(),
  head: null,
  gateways,
});

export const instanceId = (contract: string, tokenId: string): string => `${contract.toLowerCase()}|${tokenId}`;

/** Unix seconds as ISO 8601 UTC with microseconds: 2024-01-01T00:00:00.000000Z. */
export function isoTimestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Blockscout v2's `implementations` of an address: the EIP-1967 implementation the ingest read from
 * the proxy's slot (shared/ingest/native-state.ts), named after the implementation's token name when
 * its address item is among `details` (else null); none for any other address.
 */
export function implementationsOf(
  record: (AddressRecord & ProxyFields) | undefined,
  details: PageDetails,
): AddressObject['implementations'] {
  const implementation = record?.implementation;
  if (!implementation) return [];
  return [{ address_hash: checksummed(implementation), name: details.addresses.get(implementation)?.tokenName ?? null }];
}

export function addressObject(address: string, details: PageDetails): AddressObject {
  const record = details.addresses.get(address.toLowerCase());
  // Blockscout v2: a proxy's implementations; `implementation_name` is the first one's name.
  const implementations = implementationsOf(record, details);
  return {
    hash: checksummed(address),
    implementation_name: implementations[0]?.name ?? null,
    implementations,
    name: record?.tokenName ?? null,
    is_contract: record?.isContract === true,
    private_tags: [],
    watchlist_names: [],
    public_tags: [],
    is_verified: false,
    ens_domain_name: null,
    metadata: null,
  };
}

const optionalAddressObject = (address: string | null, details: PageDetails): AddressObject | null =>
  address ? addressObject(address, details) : null;

/**
 * The token object of a token contract, from its address item. `standard` is the record's own
 * standard, used when the address item is missing or carries none.
 */
export function tokenObject(token: string, standard: TokenStandard, details: PageDetails): TokenObject {
  const record = details.addresses.get(token.toLowerCase());
  return {
    circulating_market_cap: null,
    icon_url: null,
    name: record?.tokenName ?? null,
    decimals: record?.tokenDecimals === null || record?.tokenDecimals === undefined ? null : String(record.tokenDecimals),
    symbol: record?.tokenSymbol ?? null,
    address: checksummed(token),
    address_hash: checksummed(token),
    type: record?.tokenType ?? standard,
    holders: String(Math.max(0, record?.holders ?? 0)),
    holders_count: String(Math.max(0, record?.holders ?? 0)),
    exchange_rate: null,
    total_supply: record?.tokenTotalSupply ?? null,
  };
}

// ---------------------------------------------------------------------------------------------------
// NFT instances

interface InstanceMedia {
  image_url: string | null;
  animation_url: string | null;
  external_app_url: string | null;
  metadata: Record<string, unknown> | null;
  /** Blockscout v2's resized images: none (no image is fetched). */
  thumbnails: null;
}

/**
 * The metadata document (the ingest's from a data: URI, or the fetcher's from the web) and the media
 * URLs Blockscout lifts out of it: `image_url` from `image_url` or `image`, `animation_url`, with
 * ipfs:// (and ar://) resolved through the gateway as Blockscout's NFTHelper does (images are not
 * proxied); `external_app_url` from `external_url` as given.
 */
export function instanceMedia(document: string | Record<string, unknown> | null, gateways: Gateways = DEFAULT_GATEWAYS): InstanceMedia {
  const metadata = typeof document === 'string' ? parseMetadataJson(document) : document;
  const text = (key: string): string | null => {
    const value = metadata?.[key];
    return typeof value === 'string' && value.trim() !== '' ? value : null;
  };
  const media = (value: string | null) => (value === null ? null : resolveMediaUrl(value, gateways));
  return {
    image_url: media(text('image_url') ?? text('image')),
    animation_url: media(text('animation_url')),
    external_app_url: text('external_url'),
    metadata,
    thumbnails: null,
  };
}

/**
 * The media of one instance of a page: the instance item's data: document, else the one fetched for
 * it (G7, on the instance); `embedded`: the document a collection entry embeds (E2), used when the
 * instance was not joined.
 */
export function mediaOf(details: PageDetails, contract: string, tokenId: string, embedded?: string | null): InstanceMedia {
  const instance = details.instances.get(instanceId(contract, tokenId));
  const document = instance ? shownMetadata(instance).document : parseMetadataJson(embedded);
  return instanceMedia(document, details.gateways);
}

/** E1: the instance of an ERC-1155 balance (ERC-20 and ERC-721 balances carry none). */
export function balanceTokenInstance(
  listing: Pick<BalanceRecord, 'holder' | 'token' | 'tokenId' | 'tokenStandard' | 'value'>,
  details: PageDetails,
  token: TokenObject,
): BalanceTokenInstance | null {
  if (listing.tokenId === null) return null;
  const instance = details.instances.get(instanceId(listing.token, listing.tokenId));
  return {
    // Only ERC-1155 balances have an id: unique when the id's total supply is 1 (the ingest's per-id supply).
    is_unique: isUniqueSupply(instance?.totalSupply),
    id: listing.tokenId,
    owner: instance?.owner ? addressObject(instance.owner, details) : null,
    holder_address_hash: checksummed(listing.holder),
    ...mediaOf(details, listing.token, listing.tokenId),
    token,
  };
}

/** An ERC-1155 id is unique when its total supply is exactly 1 (unknown supply: not unique). */
export function isUniqueSupply(totalSupply: string | null | undefined): boolean {
  return totalSupply === '1';
}

/**
 * E2: one of the newest instances embedded in a collection (metadata from the instance item when
 * left out). ERC-1155 `is_unique` reads the supply from the instance item when the page joined it,
 * else the supply embedded when the collection entry was last rebuilt.
 */
export function collectionTokenInstance(
  collection: NftCollectionRecord,
  embedded: EmbeddedNftInstance,
  details: PageDetails,
): CollectionTokenInstance {
  const joined = details.instances.get(instanceId(collection.contract, embedded.tokenId));
  const isErc721 = collection.tokenStandard === 'ERC-721';
  return {
    is_unique: isErc721 || isUniqueSupply(joined ? joined.totalSupply : embedded.totalSupply),
    id: embedded.tokenId,
    owner: isErc721 ? addressObject(collection.holder, details) : null,
    holder_address_hash: checksummed(collection.holder),
    ...mediaOf(details, collection.contract, embedded.tokenId, embedded.metadataJson),
    token: null,
    token_type: collection.tokenStandard,
    value: embedded.value,
  };
}

// ---------------------------------------------------------------------------------------------------
// Items

export function tokenBalanceItem(listing: ListedBalanceRecord, details: PageDetails): TokenBalanceItem {
  const token = tokenObject(listing.token, listing.tokenStandard, details);
  return { value: listing.value, token_id: listing.tokenId, token, token_instance: balanceTokenInstance(listing, details, token) };
}

/** `amount`: see docs/decisions/explorer.md (the ingest's ERC-1155 amount is a sum of balances). */
export function nftCollectionItem(collection: NftCollectionRecord, details: PageDetails): NftCollectionItem {
  return {
    token: tokenObject(collection.contract, collection.tokenStandard, details),
    amount: collectionAmount(collection),
    token_instances: collection.instances.map((embedded) => collectionTokenInstance(collection, embedded, details)),
  };
}

/**
 * ERC-721: the number of tokens held. ERC-1155: the number of distinct token ids held. The ingest's
 * ERC-1155 `amount` is the SUM of the balances, so the count is its `distinctTokenIds`; an entry
 * written before that field existed falls back to the embedded ids (exact below 9, a lower bound at 9).
 */
export function collectionAmount(collection: NftCollectionRecord): string {
  if (collection.tokenStandard === 'ERC-721') return collection.amount;
  if (typeof collection.distinctTokenIds === 'number') return String(collection.distinctTokenIds);
  return String(collection.instances.length);
}

/**
 * Blockscout v2's `total.token_instance` of an NFT transfer: the instance as the ingest last read it
 * (owner, metadata), joined by the page's BatchGetItem; null when the ingest has no instance item.
 */
export function transferTokenInstance(
  contract: string,
  tokenId: string,
  standard: TokenStandard,
  details: PageDetails,
): TransferTokenInstance | null {
  const instance = details.instances.get(instanceId(contract, tokenId));
  if (!instance) return null;
  return {
    is_unique: standard === 'ERC-721' || isUniqueSupply(instance.totalSupply),
    id: tokenId,
    owner: instance.owner ? addressObject(instance.owner, details) : null,
    holder_address_hash: instance.owner ? checksummed(instance.owner) : null,
    ...mediaOf(details, contract, tokenId),
  };
}

const TRANSFER_TYPE = { mint: 'token_minting', burn: 'token_burning', transfer: 'token_transfer' } as const;

export function tokenTransferItem(transfer: TokenTransferRecord, details: PageDetails): TokenTransferItem {
  const token = tokenObject(transfer.token, transfer.tokenStandard, details);
  return {
    block_hash: transfer.blockHash,
    block_number: transfer.blockNumber,
    from: addressObject(transfer.from, details),
    to: addressObject(transfer.to, details),
    log_index: transfer.logIndex,
    token,
    total: {
      decimals: token.decimals,
      value: transfer.amount,
      ...(transfer.tokenId === null
        ? {}
        : {
            token_id: transfer.tokenId,
            token_instance: transferTokenInstance(transfer.token, transfer.tokenId, transfer.tokenStandard, details),
          }),
    },
    transaction_hash: transfer.transactionHash,
    type: TRANSFER_TYPE[transfer.transferType],
    method: methodName(transfer.methodSelector),
    timestamp: isoTimestamp(transfer.blockTimestamp),
  };
}

/**
 * Blockscout's `result`: `success`, or the failure: the top-level call's tracer error as the ingest
 * stored it (`execution reverted`, `out of gas`, ...). Without it (the node served no traces, or an
 * item written before the field existed) a failure reads `execution reverted` when there is revert
 * data and `error` otherwise.
 */
export function transactionResult(tx: Pick<TransactionRecord, 'status' | 'revertReason'> & { error?: string | null }): string {
  if (tx.status === 1) return 'success';
  // Blockscout's word for a status not known yet (before Byzantium it comes from the traces).
  if (tx.status === null) return 'awaiting_internal_transactions';
  if (tx.error) return tx.error;
  return tx.revertReason !== null ? 'execution reverted' : 'error';
}

/** Blockscout's confirmations: blocks from the transaction's to the indexed head, counting both; at least 1. */
export function confirmations(blockNumber: number, head: number | null): number {
  return head === null ? 1 : Math.max(1, head - blockNumber + 1);
}

export function transactionItem(copy: TransactionRecord, details: PageDetails): TransactionItem {
  const input = copy.inputOmitted ? (details.transactions.get(copy.hash)?.input ?? null) : copy.input;
  return {
    timestamp: isoTimestamp(copy.blockTimestamp),
    fee: { type: 'actual', value: copy.fee },
    gas_limit: copy.gas,
    block_number: copy.blockNumber,
    status: copy.status === null ? null : copy.status === 1 ? 'ok' : 'error',
    method: copy.to === null ? null : methodName(copy.methodSelector),
    confirmations: confirmations(copy.blockNumber, details.head),
    type: copy.type,
    exchange_rate: null,
    to: optionalAddressObject(copy.to, details),
    from: addressObject(copy.from, details),
    created_contract: optionalAddressObject(copy.contractAddress, details),
    transaction_burnt_fee: copy.burntFee,
    max_fee_per_gas: copy.maxFeePerGas,
    max_priority_fee_per_gas: copy.maxPriorityFeePerGas,
    result: transactionResult(copy),
    hash: copy.hash,
    gas_price: copy.gasPrice,
    priority_fee: copy.priorityFee,
    base_fee_per_gas: copy.baseFeePerGas,
    token_transfers: null,
    token_transfers_overflow: null,
    transaction_types: copy.transactionTypes,
    gas_used: String(copy.gasUsed),
    position: copy.transactionIndex,
    nonce: copy.nonce,
    has_error_in_internal_transactions: copy.tracesAvailable ? copy.hasErrorInInternalTransactions : null,
    actions: [],
    decoded_input: copy.to === null ? null : decodeInput(input),
    raw_input: input ?? '0x',
    value: copy.value,
    revert_reason: copy.status === 1 ? null : copy.revertReason,
    confirmation_duration: [],
    transaction_tag: null,
    ...opStackFields(copy),
  };
}

/** The OP-stack fields of a transaction (transactionItem's schema): only those the chain gave. */
function opStackFields(tx: TransactionRecord) {
  const fields: Partial<Pick<TransactionItem, OpStackField>> = {};
  const set = (name: OpStackField, value: string | boolean | null | undefined) => {
    if (value !== null && value !== undefined) (fields as Record<string, unknown>)[name] = value;
  };
  set('l1_fee', tx.l1Fee);
  set('l1_gas_used', tx.l1GasUsed);
  set('l1_gas_price', tx.l1GasPrice);
  set('l1_fee_scalar', tx.l1FeeScalar);
  set('l1_base_fee_scalar', tx.l1BaseFeeScalar);
  set('l1_blob_base_fee', tx.l1BlobBaseFee);
  set('l1_blob_base_fee_scalar', tx.l1BlobBaseFeeScalar);
  set('source_hash', tx.sourceHash);
  set('mint', tx.mint);
  set('is_system_tx', tx.isSystemTx);
  return fields;
}

type OpStackField =
  | 'l1_fee'
  | 'l1_gas_used'
  | 'l1_gas_price'
  | 'l1_fee_scalar'
  | 'l1_base_fee_scalar'
  | 'l1_blob_base_fee'
  | 'l1_blob_base_fee_scalar'
  | 'source_hash'
  | 'mint'
  | 'is_system_tx';

export function internalTransactionItem(internal: InternalTransactionRecord, details: PageDetails): InternalTransactionItem {
  return {
    block_number: internal.blockNumber,
    created_contract: optionalAddressObject(internal.createdContract, details),
    error: internal.error,
    from: addressObject(internal.from, details),
    gas_limit: internal.gasLimit,
    index: internal.index,
    success: internal.success,
    timestamp: isoTimestamp(internal.blockTimestamp),
    to: optionalAddressObject(internal.to, details),
    transaction_hash: internal.transactionHash,
    type: internal.type === 'call' ? (internal.callType ?? 'call') : internal.type,
    value: internal.value,
  };
}

export function withdrawalItem(withdrawal: WithdrawalRecord): WithdrawalItem {
  return {
    index: withdrawal.index,
    amount: withdrawal.amount,
    validator_index: withdrawal.validatorIndex,
    block_number: withdrawal.blockNumber,
    timestamp: isoTimestamp(withdrawal.blockTimestamp),
  };
}
