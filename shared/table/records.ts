/**
 * The records the chain ingest writes: one documented shape per record type. These are raw chain
 * values, not API shapes; the explorer and insights serialisers turn them into Blockscout / Insights
 * JSON. Conventions for every record:
 *  - `kind` names the record type; `chainId` is the chain it belongs to (a number);
 *  - addresses, hashes, selectors, topics and other hex data are lowercase 0x-hex strings;
 *  - quantities that may exceed 2^53 (wei values, gas prices, token amounts, token ids, supplies,
 *    difficulty) are DECIMAL strings; counts, indexes, gas amounts, timestamps are numbers;
 *  - timestamps are Unix seconds (numbers); absent optional fields are null (never undefined);
 *  - index copies (the same record under another key, see keys.ts) carry the same fields as the
 *    canonical item, except as noted on `TransactionRecord.input` and `LogRecord.data`;
 *  - items store transactions, logs, token transfers and blocks compacted for their key (fields the
 *    key, a default or other fields give back are left out: shared/table/compact.ts); readers expand
 *    an item to the record described here.
 * Every item also has its key attributes (pk, sk, and gsi1pk/gsi1sk on blocks), not listed here.
 * Pattern ids (X1, N2, G3 ...) are defined in docs/access-patterns.md, with the key range of each
 * pattern and when the ingest writes its items.
 */
import type { TokenStandard } from './keys';

/** Index copies of a transaction (input) or log (data) leave out hex payloads larger than this. */
export const MAX_COPIED_DATA_BYTES = 1024;

/**
 * Most characters a field the chain controls keeps on a record, so that no item can exceed
 * DynamoDB's 400 KB whatever a transaction carries (calldata and log data reach megabytes; access
 * and authorization lists hundreds of KB). Hex payloads (calldata, log data, raw revert data) are
 * cut to a whole number of bytes, JSON texts (which a cut would leave unreadable) are stored null;
 * either way the record's `truncated` lists the field. Together they stay under 360,000 characters.
 */
export const MAX_STORED_CHARS = {
  input: 2 + 2 * 96 * 1024,
  data: 2 + 2 * 96 * 1024,
  revertReason: 4096,
  accessListJson: 64 * 1024,
  authorizationListJson: 64 * 1024,
  otherFieldsJson: 16 * 1024,
} as const;

export type IndexedTokenStandard = Exclude<TokenStandard, 'ERC-404'>;

/** blockKeys.block (N1, with the GSI1 time key) and its copy blockKeys.blockByHash (N2). */
export interface BlockRecord {
  kind: 'block';
  chainId: number;
  number: number;
  hash: string;
  parentHash: string;
  /** Unix seconds. */
  timestamp: number;
  /**
   * Header fields below are null when the node's answer lacks them (some clients and chains omit the
   * uncles hash, mix hash, difficulty or gas limit): the block is indexed all the same.
   */
  /** 8-byte hex nonce (0x0000000000000000 after the merge). */
  nonce: string | null;
  sha3Uncles: string | null;
  mixHash: string | null;
  /** Fee recipient. */
  miner: string | null;
  stateRoot: string | null;
  transactionsRoot: string | null;
  receiptsRoot: string | null;
  logsBloom: string | null;
  /** Bytes. */
  size: ExactInteger | null;
  extraData: string | null;
  /** Decimal. */
  difficulty: string | null;
  /** Decimal; null when the node does not report it. */
  totalDifficulty: string | null;
  transactionCount: number;
  gasLimit: ExactInteger | null;
  gasUsed: ExactInteger | null;
  /** Decimal wei; null before London. */
  baseFeePerGas: string | null;
  /** null before Shanghai. */
  withdrawalsRoot: string | null;
  /** Number of EIP-4895 withdrawals in the block. */
  withdrawalCount: number;
  /** null before Cancun. */
  blobGasUsed: ExactInteger | null;
  excessBlobGas: ExactInteger | null;
}

/**
 * A whole number the chain controls (a nonce, a gas amount), exact at any size: a JS number up to
 * 2^53 - 1, the decimal string above it (EIP-2681 nonces reach 2^64 - 2). See `exactInteger`.
 */
export type ExactInteger = number | string;

/** The stored form of a chain integer: a number while it is safe, else its decimal string. */
export function exactInteger(value: bigint): ExactInteger {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}

/** Values of Blockscout's `transaction_types`, in the order the ingest lists them. */
export type TransactionTypeTag = 'token_transfer' | 'contract_creation' | 'contract_call' | 'token_creation' | 'coin_transfer';

/**
 * transactionKeys.transaction (N2, canonical) and its index copies: addressKeys.transactions
 * (X4 / N7: all / from / to of the sender, the recipient and the created contract),
 * transactionKeys.callsToContract (N3, with and without the sender) and callsWithSelector (N6).
 */
export interface TransactionRecord {
  kind: 'transaction';
  chainId: number;
  hash: string;
  blockNumber: number;
  blockHash: string;
  blockTimestamp: number;
  /** Position in the block (Blockscout `position`). */
  transactionIndex: number;
  from: string;
  /** null for a contract creation. */
  to: string | null;
  /** Decimal wei. */
  value: string;
  /**
   * Calldata (or init code for a creation). Index copies leave it out (null, `inputOmitted` true)
   * when it is larger than MAX_COPIED_DATA_BYTES; the canonical item always has it.
   */
  input: string | null;
  inputOmitted: boolean;
  /** Calldata size in bytes. */
  inputSize: number;
  /** First 4 bytes of the calldata, or null (creation, plain transfer, shorter data). */
  methodSelector: string | null;
  nonce: ExactInteger;
  /** Gas limit. */
  gas: ExactInteger;
  /** Decimal wei; for EIP-1559 transactions the effective price. */
  gasPrice: string | null;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  /** EIP-2718 type number (0 legacy, 1, 2, 3, 4; 126 (0x7e) an OP-stack deposit; any other a chain's own). */
  type: number;
  r: string | null;
  s: string | null;
  /** Decimal. */
  v: string | null;
  yParity: number | null;
  /** JSON text of the access list ([] when none); null for legacy transactions. */
  accessListJson: string | null;
  /**
   * JSON text of the EIP-7702 authorization list ([{ address, chainId, nonce, r, s, yParity }]); null
   * when none. Chain ids and nonces are JSON numbers written exactly, whatever their size.
   */
  authorizationListJson: string | null;
  /** OP-stack deposit (type 0x7e): the L1 source hash; null otherwise. */
  sourceHash?: string | null;
  /** OP-stack deposit: decimal wei minted on L2; null otherwise. */
  mint?: string | null;
  /** OP-stack deposit: the system transaction flag; null otherwise. */
  isSystemTx?: boolean | null;
  /** JSON text of the fields of a transaction type the ingest does not read, as the node sent them; null when none. */
  otherFieldsJson?: string | null;
  // ----- receipt
  /** 1 success, 0 failure; null when unknown (a pre-Byzantium receipt, and no trace to tell). */
  status: 0 | 1 | null;
  gasUsed: ExactInteger;
  /** null when the receipt lacks it. */
  cumulativeGasUsed: ExactInteger | null;
  /** Decimal wei; the transaction's gas price when the receipt lacks it. */
  effectiveGasPrice: string;
  /** Address of the contract a top-level creation made; null otherwise. */
  contractAddress: string | null;
  /** null when the receipt lacks it. */
  logsBloom: string | null;
  blobGasUsed: ExactInteger | null;
  blobGasPrice: string | null;
  logCount: number;
  // ----- derived
  /** Decimal wei of the block's base fee (copied from the block), null before London. */
  baseFeePerGas: string | null;
  /**
   * gasUsed * effectiveGasPrice, plus the L1 data fee (`l1Fee`) on OP-stack chains, decimal wei
   * (Blockscout `fee` of type `actual`); "0" for an OP-stack deposit, which pays no fee.
   */
  fee: string;
  /** gasUsed * baseFeePerGas, decimal wei; null without a base fee (before London) and for deposits. */
  burntFee: string | null;
  /** gasUsed * (effectiveGasPrice - baseFeePerGas), decimal wei; null for deposits. */
  priorityFee: string | null;
  /**
   * OP-stack L1 data fee fields, as the receipt carries them (null on other chains and for
   * deposits): the fee in wei, the L1 gas price and gas used, Bedrock's decimal fee scalar, and
   * Ecotone/Fjord's base fee scalar, blob base fee and blob base fee scalar. Decimal strings.
   */
  l1Fee?: string | null;
  l1GasPrice?: string | null;
  l1GasUsed?: string | null;
  l1FeeScalar?: string | null;
  l1BaseFeeScalar?: string | null;
  l1BlobBaseFee?: string | null;
  l1BlobBaseFeeScalar?: string | null;
  /** Decoded revert reason (Error(string) text, `panic: ...`), raw revert data hex, or null. */
  revertReason: string | null;
  transactionTypes: TransactionTypeTag[];
  /**
   * The tracer's error of the top-level call (trace frame 0): `execution reverted`, `out of gas`,
   * `invalid opcode: ...`, as the node words it (geth callTracer `error`; parity `trace_block` `error`
   * of the entry with an empty trace address, e.g. `Reverted`, `Out of gas`). null when the
   * transaction succeeded, and when the node serves no traces (`tracesAvailable` false).
   */
  error: string | null;
  /** True when the call trace has a failed internal call (false when the node gives no traces). */
  hasErrorInInternalTransactions: boolean;
  /** Token transfer entries (batch positions flattened) this transaction produced. */
  tokenTransferCount: number;
  /** False when the node serves no call traces, so internal transactions are unknown. */
  tracesAvailable: boolean;
  /** Fields cut or left out for size (MAX_STORED_CHARS); absent when none was. */
  truncated?: string[];
}

/** Where a record stands in its chain: the block and the transaction it belongs to. */
export interface TransactionPosition {
  chainId: number;
  blockNumber: number;
  blockHash: string;
  blockTimestamp: number;
  transactionHash: string;
  transactionIndex: number;
}

/**
 * transactionKeys.transactionLog (canonical, in the transaction's partition) and its copies
 * logKeys.contractLogs (N4), contractLogsWithTopic0 (N4 + topic0) and logsWithTopic0 (N5).
 */
export interface LogRecord extends TransactionPosition {
  kind: 'log';
  /** Position of the log in the block. */
  logIndex: number;
  /** Emitting contract. */
  address: string;
  /** Non-indexed data; copies leave it out (null, `dataOmitted` true) above MAX_COPIED_DATA_BYTES. */
  data: string | null;
  dataOmitted: boolean;
  /** topic0..topic3 as emitted. */
  topics: string[];
  /** ['data'] when the data was cut for size (MAX_STORED_CHARS); absent otherwise. */
  truncated?: string[];
}

/** Insights `transfer_type`. Blockscout's `type` maps mint -> token_minting, burn -> token_burning. */
export type TransferType = 'mint' | 'transfer' | 'burn';

/**
 * transactionKeys.transactionTokenTransfer (N10, canonical), tokenTransferKeys.byToken (N8),
 * tokenTransferKeys.byAddress (X3 / N9, per direction x type set) and byAddressAndToken.
 * ERC-1155 TransferBatch logs are flattened: one record per (log, batch position).
 */
export interface TokenTransferRecord extends TransactionPosition {
  kind: 'tokenTransfer';
  logIndex: number;
  /** Position in a TransferBatch; 0 for every other event. */
  batchIndex: number;
  /** Token contract. */
  token: string;
  /** From the event shape: Transfer with 3 topics ERC-20, 4 topics ERC-721; TransferSingle/Batch ERC-1155. */
  tokenStandard: IndexedTokenStandard;
  from: string;
  to: string;
  /** Decimal: ERC-20 / ERC-1155 value, "1" for ERC-721. */
  amount: string;
  /** Decimal token id; null for ERC-20. */
  tokenId: string | null;
  /** mint: from the zero address; burn: to the zero address; otherwise transfer. */
  transferType: TransferType;
  /** ERC-1155 operator; null otherwise. */
  operator: string | null;
  /** Selector of the transaction's calldata (Blockscout `method`), null when none. */
  methodSelector: string | null;
}

/**
 * One call of a transaction's trace other than the top-level call (Blockscout internal
 * transaction): transactionKeys.transactionInternalTransaction (canonical) and
 * addressKeys.internalTransactions (X5: all / from / to of the caller, the callee and the created contract).
 */
export interface InternalTransactionRecord extends TransactionPosition {
  kind: 'internalTransaction';
  /** Blockscout index: depth-first position in the trace; the top-level call (0) is not stored. */
  index: number;
  /** call | create | create2 | selfdestruct. */
  type: 'call' | 'create' | 'create2' | 'selfdestruct';
  /** For calls: call | delegatecall | staticcall | callcode (Blockscout shows it as the type); null otherwise. */
  callType: 'call' | 'delegatecall' | 'staticcall' | 'callcode' | null;
  from: string;
  /** Callee or selfdestruct beneficiary; null for a creation. */
  to: string | null;
  /** Created contract of a successful create / create2; null otherwise. */
  createdContract: string | null;
  /** Decimal wei. */
  value: string;
  /** Decimal gas given to the call. */
  gasLimit: string;
  /** Decimal gas used. */
  gasUsed: string;
  success: boolean;
  /** The tracer's error text (e.g. "execution reverted"), null on success. */
  error: string | null;
  /** Path of child positions from the top-level call. */
  traceAddress: number[];
  /**
   * On a creation (`createdContract` set): whether it took effect, it and every call above it and the
   * transaction having succeeded (the reorg's creation lookup reads it). Absent on other calls, and on
   * creations written before issue 27's lever 10, for which the transaction's canonical internal
   * transactions (`ITX#` items, no longer written) tell.
   */
  tookEffect?: boolean;
}

/** addressKeys.withdrawals (X6): one EIP-4895 withdrawal, in the receiver's range. */
export interface WithdrawalRecord {
  kind: 'withdrawal';
  chainId: number;
  /** Global withdrawal index (number: below 2^53 on every chain). */
  index: number;
  validatorIndex: number;
  /** Receiver. */
  address: string;
  /** Decimal Gwei, as the block carries it. */
  amountGwei: string;
  /** Decimal wei (amountGwei * 10^9): Blockscout's `amount`. */
  amount: string;
  blockNumber: number;
  blockHash: string;
  blockTimestamp: number;
}

// ---------------------------------------------------------------------------------------------------
// State records: the current value of an entity, rewritten when a block changes it. Each carries the
// block it was last written at (`updatedAtBlock`).

/**
 * addressKeys.address (X7 / G3): what the ingest knows of a contract address. Written for every
 * contract the ingest meets (created, emitting logs, called by a transaction); an address without an
 * item is an externally owned account (or a contract never seen). Token fields are null for
 * non-tokens. A proxy's item also carries its EIP-1967 implementation (address-state.ts ProxyFields);
 * every address's native coin balance is its own item (address-state.ts CoinBalanceRecord, X9).
 */
export interface AddressRecord {
  kind: 'address';
  chainId: number;
  address: string;
  isContract: true;
  /** Sender of the creating transaction, or the factory contract of an internal creation; null if unknown. */
  creator: string | null;
  creationTransactionHash: string | null;
  creationBlockNumber: number | null;
  /** First block at which the ingest wrote this item (a reorg below it deletes the item). */
  firstSeenBlock: number;
  updatedAtBlock: number;
  /** ERC-165 answer if positive, else the shape of its first transfer event / the ERC-20 probe. */
  tokenType: IndexedTokenStandard | null;
  tokenName: string | null;
  tokenSymbol: string | null;
  /** ERC-20 decimals (number); null when not a token or the call reverts. */
  tokenDecimals: number | null;
  /** Decimal, read at `updatedAtBlock`; null when totalSupply() reverts. */
  tokenTotalSupply: string | null;
  /**
   * The contract's name / symbol was longer than 255 UTF-8 bytes: the stored one is its beginning
   * (docs/decisions/ingest.md "Untrusted contract answers"). Absent on items written before.
   */
  tokenNameTruncated?: boolean;
  tokenSymbolTruncated?: boolean;
  /** Unix seconds of the block the token details were read at (read again two days later). */
  tokenDetailsAt?: number | null;
  /** The number of the block `tokenDetailsAt` is the time of (absent on items written before it was kept). */
  tokenDetailsBlock?: number | null;
  /**
   * Holders with a positive balance among those the ingest has seen (from its first block on);
   * maintained transactionally as balances go to or from zero. Present on token items only.
   */
  holders?: number;
  /**
   * NFT contracts: how many instance items (G3) the contract has (ids seen, burned ones included), ADD
   * +1 with the write that creates an instance and -1 with a reorg's delete (I6f's total).
   */
  nftInstances?: number;
  /**
   * ERC-1155 contracts: (holder, id) pairs with a positive balance (the size of its T1 partition, I6m's
   * total), moved with the per-id balance transitions as `holders` is with the totals.
   */
  idHolders?: number;
}

/**
 * addressKeys.balance (G3 / O6): the balance of one holder in one token, as balanceOf returned at
 * `updatedAtBlock` (never summed from transfers). For ERC-1155 there is one item per token id plus a
 * token-level item (tokenId null) whose value is the sum over the ids. Deleted when the value is 0.
 */
export interface BalanceRecord {
  kind: 'balance';
  chainId: number;
  holder: string;
  token: string;
  tokenStandard: IndexedTokenStandard;
  /** Decimal token id (ERC-1155 per-id items); null for ERC-20, ERC-721 and the ERC-1155 total. */
  tokenId: string | null;
  /** Decimal, > 0. For ERC-721 the number of tokens held. */
  value: string;
  /** Token name the X1 sort key was built with ('' when the token has none). */
  tokenName: string;
  updatedAtBlock: number;
  /**
   * T1 (holderKeys.listing): set while the balance is positive, except on the ERC-721 balance (owners
   * are the instances') and the ERC-1155 total of a holder; the item is deleted at zero.
   */
  gsi2pk?: string;
  gsi2sk?: string;
  /**
   * X1 (addressKeys.balanceListing): its standard's range of the holder and its sort key by value, on
   * gsi3; set while the balance is positive, except on the ERC-1155 total of a holder (its ids are
   * listed one by one). Tables ingested before gsi3 have none (and separate listing items): re-ingest.
   */
  gsi3pk?: string;
  gsi3sk?: string;
}

/**
 * A balance as X1 lists it: a positive balance item on gsi3. The index projects only keys
 * (definition.ts), so `updatedAtBlock` is not known from it (compact.ts balanceOfIndexEntry).
 */
export type ListedBalanceRecord = Omit<BalanceRecord, 'updatedAtBlock'> & { gsi3pk: string; gsi3sk: string; updatedAtBlock?: number };

/** A balance as T1 lists it (a token's holders, on gsi2: keys only, as X1). */
export type HolderBalanceRecord = Omit<BalanceRecord, 'updatedAtBlock'> & { updatedAtBlock?: number };

/** X10 (addressKeys.balanceCounts): the sizes of an address's X1 ranges, per standard (absent = 0). */
export interface BalanceCountsRecord {
  kind: 'balanceCounts';
  chainId: number;
  holder: string;
  'ERC-20'?: number;
  'ERC-721'?: number;
  'ERC-1155'?: number;
  'ERC-404'?: number;
}

/**
 * Where `NftInstanceRecord.totalSupply` of an ERC-1155 id comes from: `totalSupply` = the contract's
 * own `totalSupply(uint256 id)` (ERC1155Supply) read by eth_call at `updatedAtBlock`; `holders` = the
 * contract has no such function (the call reverts or does not decode), so the supply is `heldSupply`,
 * the sum of the positive balances of the id that the ingest holds.
 */
export type NftSupplySource = 'totalSupply' | 'holders';

/**
 * nftKeys.instance (G3): one ERC-721 / ERC-1155 token instance. Written whole by the NFT instance
 * step (an update that leaves the two ERC-1155 counters and `fetched` alone); `holders` and
 * `heldSupply` are kept by the ERC-1155 balance transitions, in the same transaction as the balance
 * they follow; `fetched` by the NFT metadata fetcher alone.
 */
export interface NftInstanceRecord {
  kind: 'nftInstance';
  chainId: number;
  contract: string;
  tokenStandard: 'ERC-721' | 'ERC-1155';
  /** Decimal. */
  tokenId: string;
  /** ERC-721 ownerOf at `updatedAtBlock` (null once burned); always null for ERC-1155. */
  owner: string | null;
  /** tokenURI / uri (ERC-1155 `{id}` expanded); null when the call reverts or the URI is over 128 KB. */
  tokenUri: string | null;
  /** resolved (data: URI parsed), unresolved (ipfs/http/...: never fetched), invalid, none (no URI). */
  metadataStatus: 'resolved' | 'unresolved' | 'invalid' | 'none';
  /** The metadata document as JSON text, when resolved. */
  metadataJson: string | null;
  /**
   * ERC-1155: the id's total supply at `updatedAtBlock`, decimal: `totalSupply(id)` when the contract
   * answers it, else `heldSupply` (see `totalSupplySource`); never summed from transfer amounts.
   * Always null for ERC-721 (an ERC-721 instance is unique by definition).
   * The explorer's `is_unique` of an ERC-1155 instance is `totalSupply === "1"`.
   */
  totalSupply: string | null;
  /** ERC-1155: where `totalSupply` comes from; null for ERC-721. */
  totalSupplySource: NftSupplySource | null;
  /**
   * ERC-1155 only: holders of this id with a positive balance among those the ingest has seen, and
   * the sum of their balances (decimal; each balance read with balanceOf(holder, id) at its block).
   * Moved by the balance transitions (conditional on the previous `heldSupply`), so a re-run of a
   * block never counts twice. Absent on ERC-721 instances.
   */
  holders?: number;
  heldSupply?: string;
  firstSeenBlock: number;
  updatedAtBlock: number;
  /**
   * What the NFT metadata fetcher (shared/nft-metadata/) last did for this instance's web token URI
   * (G7, on the instance item so that a page reads one key an NFT): written only by the fetcher, an
   * UpdateItem of this attribute alone, never by the ingest; absent until its first attempt. A reorg
   * that deletes the instance deletes it with it (the re-ingested instance is fetched again).
   */
  fetched?: FetchedNftMetadata;
}

/**
 * The details pages join to their rows that change rarely, which a container may keep a while
 * (shared/db/kept-items.ts): address items (X7: token details, contract flags) and NFT instances (G3,
 * with the metadata fetched for them). Never balances, transactions, the cursor or a page's own rows.
 */
export const isJoinedDetail = (item: { kind?: unknown }): boolean => item.kind === 'address' || item.kind === 'nftInstance';

/**
 * G7: what the NFT metadata fetcher (shared/nft-metadata/) last did for one instance whose token URI
 * is on the web (ipfs://, ar://, https://): the instance item's `fetched`. Written only by the fetcher
 * (the queue consumer, or `npm start`'s in-process worker), never by the ingest; absent means never
 * tried yet.
 */
export interface FetchedNftMetadata {
  /** The instance's token URI this state is about (a new URI is fetched again). */
  tokenUri: string;
  /**
   * pending: an attempt failed in a way worth retrying, the next one is queued (`attempts` so far);
   * fetched: `metadataJson` holds the document; failed: given up (`error` says why).
   */
  status: 'pending' | 'fetched' | 'failed';
  /** The document as JSON text (fetched; at most 64 KiB). */
  metadataJson: string | null;
  /** Why the last attempt failed (pending after a failure, failed). */
  error: string | null;
  /** Attempts at `tokenUri` since it was first queued or last refreshed. */
  attempts: number;
  /** When the last attempt ended (ms since the epoch). */
  attemptedAt: number;
  /** When the document was fetched (ms since the epoch); null before a success. */
  fetchedAt: number | null;
  /** Where the document came from: the URL fetched last (after the gateway and redirects). */
  sourceUrl: string | null;
}

/**
 * nftKeys.legacyMetadata: G7 as tables written before 2026-11-30 hold it, an item of its own per
 * instance. Read only by the migration that moves it onto the instance (scripts/migrate-nft-metadata.ts).
 */
export interface LegacyNftMetadataRecord extends FetchedNftMetadata {
  kind: 'nftMetadata';
  chainId: number;
  contract: string;
  /** Decimal. */
  tokenId: string;
}

/** addressKeys.nftHoldings (G4): one token id a holder has, in the flat NFT list's order (type, contract, token id desc). */
export interface NftHoldingRecord {
  kind: 'nftHolding';
  chainId: number;
  holder: string;
  contract: string;
  tokenStandard: 'ERC-721' | 'ERC-1155';
  tokenId: string;
  /** Decimal: 1 for ERC-721, the balance for ERC-1155. */
  value: string;
}

/**
 * One of the (at most 9) newest instances embedded in a collection item: what E2 shows of it (its
 * metadata, amount and supply). The token URI and metadata status are not embedded (E2 shows neither;
 * entries written before this carry them, and they are ignored).
 */
export interface EmbeddedNftInstance {
  tokenId: string;
  /** Decimal amount held. */
  value: string;
  /** Entries written before the URI was left out: null when absent or too long. */
  tokenUri?: string | null;
  /** Entries written before the status was left out. */
  metadataStatus?: NftInstanceRecord['metadataStatus'];
  /** Metadata JSON text when resolved and at most MAX_COPIED_DATA_BYTES; otherwise null. */
  metadataJson: string | null;
  /** True when tokenUri or metadataJson was too large to embed: GetItem the instance (nftKeys.instance). */
  omitted: boolean;
  /**
   * The instance's `totalSupply` when the collection entry was last rebuilt (null for ERC-721). A
   * change of the id's supply by another holder's transfer does not rebuild this holder's entry, so
   * it may lag; the instance item (nftKeys.instance) has the current value. Absent on entries written
   * before the field existed.
   */
  totalSupply?: string | null;
}

/** addressKeys.nftCollections (X2): a collection a holder owns, in its standard's range and the ALL range. */
export interface NftCollectionRecord {
  kind: 'nftCollection';
  chainId: number;
  holder: string;
  contract: string;
  tokenStandard: 'ERC-721' | 'ERC-1155';
  /** Decimal: ERC-721 balanceOf; ERC-1155 sum of the holder's balances over ids. */
  amount: string;
  /**
   * Number of distinct token ids the holder has in the collection: ERC-721 = `amount` (balanceOf);
   * ERC-1155 = the size of the holder's nftHoldings range (ids with a positive balance). Written with
   * the entry every time it is rebuilt; typed optional only because entries written before the field
   * existed lack it (readers then fall back to counting `instances`).
   */
  distinctTokenIds?: number;
  /** Newest (highest) token ids first, at most 9. */
  instances: EmbeddedNftInstance[];
  /**
   * ERC-721 only: whether the holder had an address item (X7: a contract the ingest met, first seen
   * at or before `updatedAtBlock`) when the entry was rebuilt. E2 shows the holder as each instance's
   * `owner` and asks for its address item only when this is true, so it never asks for a missing key.
   * Absent on ERC-1155 entries (no owner shown) and on entries written before the field (then E2
   * asks, as it did).
   */
  holderIsContract?: boolean;
  updatedAtBlock: number;
}

/**
 * addressKeys.name (N11): a token symbol registered on a chain. `addresses` is a DynamoDB string set
 * (a JS Set<string> through the document client): exactly one member resolves, several mean the
 * symbol is ambiguous and resolves to nothing.
 */
export interface NameRecord {
  kind: 'name';
  chainId: number;
  /** Lowercased symbol. */
  name: string;
  addresses: Set<string>;
}

/**
 * addressKeys.nameOnChains (N11 across chains): every chain's addresses registered under a name, as a
 * DynamoDB string set of `<chainId>:<address>`; kept with each chain's NameRecord (registerName /
 * unregisterName), deleted when empty.
 */
export interface NameOnChainsRecord {
  kind: 'nameOnChains';
  name: string;
  entries: Set<string>;
}

/** chainKeys.cursor (G1 / X8): the last block whose items are all written. */
export interface CursorRecord {
  kind: 'cursor';
  chainId: number;
  blockNumber: number;
  blockHash: string;
  /** First block this table holds for the chain. */
  firstBlock: number;
  /**
   * Set while a batch of blocks past `blockNumber` is being written (its last block): blocks up to it
   * may have been left half written by a crash. Removed when the cursor moves.
   */
  pendingTo?: number;
  /** Unix seconds of the cursor's block (absent on cursors written before it was recorded). */
  blockTimestamp?: number;
  /**
   * Set when the cursor was created (the chain's first batch): every batch of this chain writes its range
   * heads (shared/ingest/range-heads.ts), so an address without a heads item has no counted entries.
   * Absent on chains ingested before range heads: their heads say only what they list.
   */
  rangeHeads?: boolean;
}

/** What a chain's ingest is doing (chainKeys.status): shared/ingest/status.ts. */
export type IngestState = 'following' | 'catching_up' | 'repairing' | 'stopped';

/**
 * chainKeys.status (G7): the chain's ingest status, written by the ingest at most once per batch (and
 * only every few seconds, or when the state changes), read by the status endpoints and the indexed-head
 * header / meta. The indexed head itself is the cursor's (always exact); this item holds what the
 * cursor cannot: the state, why it stopped, the node's head as last seen and the chain's capabilities.
 */
export interface ChainStatusRecord {
  kind: 'chainStatus';
  chainId: number;
  state: IngestState;
  /** Why the ingest stopped (state `stopped`) or what it repairs (`repairing`); null otherwise. */
  reason: string | null;
  /** The node's head block as last seen (number, Unix seconds), and when it was seen (epoch ms). */
  nodeHeadNumber: number | null;
  nodeHeadTimestamp: number | null;
  nodeHeadSeenAt: number | null;
  /** When the status was written (epoch ms): a status older than the readers' setting means `stopped`. */
  updatedAt: number;
  /** How traces are read: `callTracer`, `parity` (trace_block), `none`; null until a block with transactions was read. */
  traceMethod: 'callTracer' | 'parity' | 'none' | null;
  /** How receipts are read: `eth_getBlockReceipts` or `per_transaction`; null until known. */
  blockReceipts: 'eth_getBlockReceipts' | 'per_transaction' | null;
  /** Multicall3: `present` (from `multicall3FromBlock`, the first block it was looked for at), `absent`, or null until looked for. */
  multicall3: 'present' | 'absent' | null;
  multicall3FromBlock: number | null;
  /**
   * With the cold tier on (docs/decisions/cold-history.md): the seconds past a block's time after which its
   * history items expire from the table (the window and the margin, COLD_AFTER_DAYS + COLD_MARGIN_DAYS);
   * absent with the tier off. Readers compare it with the cold cursor: a block past it and not compacted
   * may have lost its history (the job fell behind), and the status says so.
   */
  historyExpirySeconds?: number;
}

/**
 * chainKeys.lease (G8): the right to ingest a chain, held by one invocation at a time
 * (shared/ingest/lease.ts). Taken when free, expired or released; renewed while its holder follows the
 * head; released (`releasedAt` set) when the holder's deadline nears. A crashed holder's lease runs out
 * at `expiresAt`, a few seconds after its last renewal. Times are epoch ms.
 */
export interface IngestLeaseRecord {
  kind: 'ingestLease';
  chainId: number;
  /** The holding invocation (its request id, or any unique string). */
  holder: string;
  /** Epoch ms: the lease is free from then on unless renewed. */
  expiresAt: number;
  /** Epoch ms: when the holder means to release it (its deadline less its margin): a waiter's cue. */
  handoverAt: number;
  /**
   * Epoch ms: when the holder's invocation ends, so its last batch ends at the latest (a waiter waits
   * until then); absent on a lease written before it was stored.
   */
  deadline?: number;
  /** Epoch ms: when the holder took it. */
  takenAt: number;
  /** Epoch ms: when the holder released it; absent while held. */
  releasedAt?: number;
  /** The cursor's block number when the lease was last written (for the operator). */
  blockNumber?: number | null;
  /**
   * The one invocation waiting to take over at `handoverAt`, and until when it waits (epoch ms): a
   * third invocation that finds a waiter exits, so at most two run per chain. Cleared by the next take.
   */
  waiter?: string;
  waiterUntil?: number;
}

/** backfillKeys.plan (G5): a parallel backfill in progress. */
export interface BackfillPlanRecord {
  kind: 'backfillPlan';
  chainId: number;
  from: number;
  to: number;
  segmentBlocks: number;
  /** Set when a reorg inside the plan ended it: workers refuse it, the ingest sweeps it (backfill.ts). */
  ended?: true;
}

/** backfillKeys.staged DONE (G6): a segment's chain reads are staged in `chunkCount` chunks. */
export interface StagedSegmentRecord {
  kind: 'stagedSegment';
  chainId: number;
  from: number;
  to: number;
  /** The worker run whose chunks count. */
  attempt: string;
  chunkCount: number;
}

/** backfillKeys.staged chunk (G6): part of a segment's packed chain reads. */
export interface StagedChunkRecord {
  kind: 'stagedChunk';
  chunk: number;
  packed: Uint8Array;
}

/** chainKeys.registry (N13): a chain indexed into this table. */
export interface ChainRecord {
  kind: 'chain';
  chainId: number;
  firstBlock: number;
  /**
   * True when the chain's ingest has kept its names in the items across chains (NameOnChainsRecord)
   * from its first batch on; absent on chains registered before those items existed.
   */
  namesOnChains?: boolean;
}

/**
 * chainKeys.manifest (G2): what one block wrote, in chunks of at most 500 entries, written before
 * the block's items. Its entries: keys of the block's own items (deleted when the block is orphaned)
 * and state entities it may have changed (recomputed when the block is orphaned), encoded as
 * `BAL|holder|token|standard|tokenId or -`, `NFT|contract|standard|tokenId`,
 * `COL|holder|contract|standard` and `ADDR|address` (see state.ts), and `COIN|address` (a native coin
 * balance, X9) and `IMPL|address` (an EIP-1967 implementation) (see native-state.ts). Stored
 * `packed`: the raw DEFLATE of `{"i": [[pk, sk], ...], "t": [touched, ...]}`
 * (shared/ingest/manifest.ts); chunks written before packing hold `items` and `touched` as lists
 * instead.
 */
export interface ManifestRecord {
  kind: 'manifest';
  chainId: number;
  blockNumber: number;
  blockHash: string;
  chunk: number;
  chunkCount: number;
  /**
   * The table's TTL attribute (epoch seconds): when DynamoDB may delete the chunk, the block's
   * timestamp + the manifest retention (shared/ingest/manifest.ts); absent with retention 0 (kept forever).
   */
  ttl?: number;
  /** The entries, packed (binary). */
  packed?: Uint8Array;
  /** Chunks written before packing: the entries as lists. */
  items?: { pk: string; sk: string }[];
  touched?: string[];
}

/**
 * N17 (keys.ts coldKeys.part): where one cold part of a range is. The part holds the range's items
 * from the pointer's sort key to its last sort key, as the table layer reads them (packed fields spread)
 * with bucket entries as plain MessagePack: a MessagePack list, Brotli-compressed, at a byte range of one
 * object of the cold store (shared/ingest/cold-history.ts). Stored as one MessagePack list, `p`
 * (table/cold-parts.ts: `coldPointerItem` writes it, `coldPointerOf` reads it as a ColdPointer).
 */
export interface ColdPartRecord {
  p: Uint8Array;
}

/** The chain's cold history cursor (keys.ts coldKeys.cursor): every block up to `compactedTo` is compacted. */
export interface ColdCursorRecord {
  kind: 'cold-cursor';
  chainId: number;
  compactedTo: number;
}

/**
 * N15: a seek chunk of a counted range (keys.ts rangeKeys.seekChunk): the sort keys of the entries at
 * positions `chunk * SEEK_CHUNK_ENTRIES + 1` onwards, in order. Written with the block whose entry
 * completes it and listed in that block's manifest, so a reorg deletes it with the block.
 *
 * The keys are stored packed (`packedKeys`: raw DEFLATE of the keys joined by newlines; sort keys never
 * hold one): they are zero-padded numbers with long common prefixes, so 32 keys of about 24 B take
 * about 115 B instead of about 800 (issue 27: bytes stored a transaction). A chunk written before
 * (16 keys as a list, `keys`) belongs to another chunk size: readers treat it as missing
 * (seek-chunk.ts `seekChunkKeys`), and read the range's entries instead, under their read bound.
 */
export interface SeekChunkRecord {
  kind: 'seekChunk';
  packedKeys?: Uint8Array;
  /** Chunks of 16 entries written before packing. */
  keys?: string[];
}

/**
 * Running totals: each entry of a counted range whose rows carry a summable value also holds the total
 * of that value over the range's entries up to and including itself (range-positions.ts), an exact
 * unsigned integer. Insights answers count / sum / avg over any block or time range, and by time bucket,
 * from the entries at the boundaries alone (shared/insights/prefix-aggregate.ts).
 *
 * Stored compactly (issue 27: an entry of X4 holds four totals, about 18 totals are written a
 * transaction): a short attribute name (`tv`, `tg`, `ta`; `runningTotalAttribute`) holding the total as
 * big-endian bytes, no leading zero byte (`encodeTotal`; zero is one 0 byte), about 12 B instead of
 * about 30 for a name like `valueTotal` and a decimal string. Entries written before hold
 * `<field>Total` as a decimal string; `runningTotalOf` reads both.
 * The summed fields, by the kind of record the range holds:
 */
export const SUMMED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  block: ['gasUsed'],
  transaction: ['value', 'gasUsed'],
  tokenTransfer: ['amount'],
};

/** Short names of the running totals' attributes, by summed field. */
const RUNNING_TOTAL_ATTRIBUTES: Readonly<Record<string, string>> = { value: 'tv', gasUsed: 'tg', amount: 'ta' };

/** The attribute holding an entry's running total of `field`. */
export const runningTotalAttribute = (field: string): string => RUNNING_TOTAL_ATTRIBUTES[field] ?? `t_${field}`;

/** The attribute that held an entry's running total of `field` (a decimal string) before totals were packed. */
export const legacyRunningTotalAttribute = (field: string): string => `${field}Total`;

/** A running total as stored: its big-endian bytes without leading zero bytes (zero: one 0 byte). */
export function encodeTotal(total: bigint): Uint8Array {
  if (total < 0n) throw new Error(`a running total is never negative: ${total}`);
  let hex = total.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** A stored running total (bytes, or a decimal string written before packing); undefined when not one. */
export function decodeTotal(value: unknown): bigint | undefined {
  if (value instanceof Uint8Array) return value.length === 0 ? 0n : BigInt(`0x${Buffer.from(value).toString('hex')}`);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  return undefined;
}

/** An item's running total of `field` (packed, or a decimal string under its legacy name), or undefined. */
export function runningTotalOf(item: Record<string, unknown>, field: string): bigint | undefined {
  return decodeTotal(item[runningTotalAttribute(field)] ?? item[legacyRunningTotalAttribute(field)]);
}

/**
 * Which address sides of an explorer index copy (X3 token transfers, X4 transactions, X5 internal
 * transactions) were contracts as of the copy's block: a bitmask in the item attribute `cs`, written on
 * every such copy (0 included, so a copy written before the attribute existed, which lacks it, is told
 * apart). A side is flagged when the ingest found code at it as of the block (the block's own chain
 * facts, shared/ingest/batch.ts), and every flagged address has an address item (X7) written with the
 * block's batch, so the explorer asks BatchGetItem only for the flagged sides (and the token of a
 * transfer, which always has one: it emitted the log): no key it asks for is missing. A transaction's
 * sender is never flagged (an externally owned account by protocol). Not part of the record: readers
 * take it from the item (see docs/decisions/explorer.md "Address details").
 */
export const CONTRACT_SIDES_ATTRIBUTE = 'cs';

/** The bits of `cs`: the record's `from`, `to`, and its created contract (`contractAddress` / `createdContract`). */
export const CONTRACT_SIDE = { from: 1, to: 2, created: 4 } as const;
