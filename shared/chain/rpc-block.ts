/**
 * A node's block, transaction and receipt answers, read from the raw JSON-RPC objects.
 *
 * Not viem's formatters: they read a nonce with `hexToNumber` (which throws above 2^53, and EIP-2681
 * allows nonces up to 2^64 - 2), an EIP-7702 authorization's chain id and nonce with `Number` (which
 * rounds them), drop the type of any transaction they do not know (an OP-stack deposit, 0x7e, comes
 * out untyped) and leave a header field the node omitted as `undefined` for the caller to trip on.
 * Here every quantity is a bigint, exact at any size; a field that real nodes and chains omit
 * (uncles hash, mix hash, difficulty, gas limit, logs bloom, a receipt's `effectiveGasPrice` or
 * `status`) is null; fields of transaction types this code does not know are kept.
 *
 * Only what no block can lack is required (number, hash, parent hash, timestamp, the transactions
 * with their hash, sender and position; a receipt's transaction hash, block hash and gas used): an
 * answer without one is malformed, a fault of the node that the caller retries.
 */
import type { Address, Hex } from 'viem';
import { normalizeAddress } from './address';

/** An answer that lacks what every block, transaction or receipt has: retried like a transport fault. */
export class MalformedAnswerError extends Error {
  override name = 'MalformedAnswerError';
}

export interface ChainWithdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Address;
  /** Gwei. */
  amount: bigint;
}

export interface ChainAuthorization {
  /** The delegate's address. */
  address: Address;
  chainId: bigint;
  nonce: bigint;
  yParity: number | null;
  r: Hex | null;
  s: Hex | null;
}

export interface ChainTransaction {
  hash: Hex;
  /** Position in the block. */
  transactionIndex: number;
  from: Address;
  to: Address | null;
  value: bigint;
  input: Hex;
  nonce: bigint;
  /** Gas limit. */
  gas: bigint;
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  maxFeePerBlobGas: bigint | null;
  blobVersionedHashes: Hex[] | null;
  /** EIP-2718 type (0 for a legacy transaction or a node that does not say). */
  type: number;
  r: Hex | null;
  s: Hex | null;
  v: bigint | null;
  yParity: number | null;
  /** As the node gave it (a list of { address, storageKeys }); null when absent. */
  accessList: unknown[] | null;
  authorizationList: ChainAuthorization[] | null;
  /** OP-stack deposit transactions (type 0x7e): the L1 source, the ETH minted on L2, the system flag. */
  sourceHash: Hex | null;
  mint: bigint | null;
  isSystemTx: boolean | null;
  /** Fields of a type this code does not read (raw, as the node sent them); null when none. */
  otherFields: Record<string, unknown> | null;
}

export interface ChainBlock {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  /** Unix seconds. */
  timestamp: bigint;
  nonce: Hex | null;
  sha3Uncles: Hex | null;
  mixHash: Hex | null;
  miner: Address | null;
  stateRoot: Hex | null;
  transactionsRoot: Hex | null;
  receiptsRoot: Hex | null;
  logsBloom: Hex | null;
  size: bigint | null;
  extraData: Hex | null;
  difficulty: bigint | null;
  totalDifficulty: bigint | null;
  gasLimit: bigint | null;
  gasUsed: bigint | null;
  baseFeePerGas: bigint | null;
  withdrawalsRoot: Hex | null;
  withdrawals: ChainWithdrawal[] | null;
  blobGasUsed: bigint | null;
  excessBlobGas: bigint | null;
  transactions: ChainTransaction[];
}

export interface ChainLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  logIndex: number;
  blockHash: Hex | null;
  transactionHash: Hex | null;
}

/** The OP-stack L1 data fee fields of a receipt (Bedrock, Ecotone, Fjord); all null elsewhere. */
export interface L1FeeFields {
  l1Fee: bigint | null;
  l1GasPrice: bigint | null;
  l1GasUsed: bigint | null;
  /** Bedrock's decimal scalar (`"0.684"`), as the node wrote it. */
  l1FeeScalar: string | null;
  l1BaseFeeScalar: bigint | null;
  l1BlobBaseFee: bigint | null;
  l1BlobBaseFeeScalar: bigint | null;
}

export interface ChainReceipt extends L1FeeFields {
  transactionHash: Hex;
  transactionIndex: number;
  blockHash: Hex;
  blockNumber: bigint;
  /** 1 success, 0 failure; null before Byzantium (the receipt has a state `root` instead). */
  status: 0 | 1 | null;
  /** Pre-Byzantium intermediate state root. */
  root: Hex | null;
  gasUsed: bigint;
  cumulativeGasUsed: bigint | null;
  effectiveGasPrice: bigint | null;
  contractAddress: Address | null;
  logsBloom: Hex | null;
  blobGasUsed: bigint | null;
  blobGasPrice: bigint | null;
  logs: ChainLog[];
  /** OP-stack deposit receipts. */
  depositNonce: bigint | null;
  depositReceiptVersion: bigint | null;
}

type Json = Record<string, unknown>;

const HEX = /^0x[0-9a-fA-F]*$/;
const DECIMAL = /^\d+$/;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A quantity (hex, or a decimal string or safe integer as some nodes send), exact; null when absent or unreadable. */
export function quantityOrNull(value: unknown): bigint | null {
  if (typeof value === 'string') {
    if (value === '0x') return 0n;
    if (HEX.test(value)) return BigInt(value);
    if (DECIMAL.test(value)) return BigInt(value);
    return null;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n) return value;
  return null;
}

function quantity(object: Json, field: string, what: string): bigint {
  const value = quantityOrNull(object[field]);
  if (value === null) throw new MalformedAnswerError(`${what}: ${field} is ${describe(object[field])}`);
  return value;
}

/** Hex data (lowercase), or null when absent or not hex. */
function dataOrNull(value: unknown): Hex | null {
  return typeof value === 'string' && HEX.test(value) ? (value.toLowerCase() as Hex) : null;
}

/** A 32-byte hash, lowercase. */
function hash(object: Json, field: string, what: string): Hex {
  const value = dataOrNull(object[field]);
  if (value === null || value.length !== 66) throw new MalformedAnswerError(`${what}: ${field} is ${describe(object[field])}`);
  return value;
}

function addressOrNull(value: unknown): Address | null {
  if (typeof value !== 'string' || value === '' || value === '0x') return null;
  try {
    return normalizeAddress(value);
  } catch {
    return null;
  }
}

function smallNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new MalformedAnswerError(`${what}: ${value} is out of range`);
  return Number(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

/** The fields of a transaction this code reads; any other field is kept in `otherFields`. */
const TRANSACTION_FIELDS = new Set([
  'hash',
  'transactionIndex',
  'blockHash',
  'blockNumber',
  'blockTimestamp',
  'from',
  'to',
  'value',
  'input',
  'data',
  'nonce',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'maxFeePerBlobGas',
  'blobVersionedHashes',
  'type',
  'r',
  's',
  'v',
  'yParity',
  'accessList',
  'authorizationList',
  'chainId',
  'sourceHash',
  'mint',
  'isSystemTx',
  'depositReceiptVersion',
]);

/** Parses one full transaction object of a block answer. */
export function parseTransaction(raw: unknown, position: number): ChainTransaction {
  const what = `transaction ${position}`;
  if (!isObject(raw)) throw new MalformedAnswerError(`${what}: not an object (${describe(raw)})`);
  const txHash = hash(raw, 'hash', what);
  const from = addressOrNull(raw.from);
  if (from === null) throw new MalformedAnswerError(`${what} (${txHash}): from is ${describe(raw.from)}`);
  const index = quantityOrNull(raw.transactionIndex);
  const type = quantityOrNull(raw.type) ?? 0n;
  const otherFields: Json = {};
  for (const [name, value] of Object.entries(raw)) if (!TRANSACTION_FIELDS.has(name)) otherFields[name] = value;
  if (type > 0xffn) otherFields.type = raw.type;
  const yParity = quantityOrNull(raw.yParity);
  return {
    hash: txHash,
    transactionIndex: index === null ? position : smallNumber(index, what),
    from,
    to: addressOrNull(raw.to),
    value: quantityOrNull(raw.value) ?? 0n,
    input: dataOrNull(raw.input) ?? dataOrNull(raw.data) ?? '0x',
    nonce: quantityOrNull(raw.nonce) ?? 0n,
    gas: quantityOrNull(raw.gas) ?? 0n,
    gasPrice: quantityOrNull(raw.gasPrice),
    maxFeePerGas: quantityOrNull(raw.maxFeePerGas),
    maxPriorityFeePerGas: quantityOrNull(raw.maxPriorityFeePerGas),
    maxFeePerBlobGas: quantityOrNull(raw.maxFeePerBlobGas),
    blobVersionedHashes: Array.isArray(raw.blobVersionedHashes)
      ? raw.blobVersionedHashes.map(dataOrNull).filter((value): value is Hex => value !== null)
      : null,
    // EIP-2718 types are one byte: anything else is read as 0 and kept raw in otherFields.
    type: type <= 0xffn ? Number(type) : 0,
    r: dataOrNull(raw.r),
    s: dataOrNull(raw.s),
    v: quantityOrNull(raw.v),
    yParity: yParity === null || yParity > 1n ? null : Number(yParity),
    accessList: Array.isArray(raw.accessList) ? raw.accessList : null,
    authorizationList: Array.isArray(raw.authorizationList) ? raw.authorizationList.map(parseAuthorization) : null,
    sourceHash: dataOrNull(raw.sourceHash),
    mint: quantityOrNull(raw.mint),
    isSystemTx: typeof raw.isSystemTx === 'boolean' ? raw.isSystemTx : null,
    otherFields: Object.keys(otherFields).length > 0 ? otherFields : null,
  };
}

function parseAuthorization(raw: unknown): ChainAuthorization {
  const entry = isObject(raw) ? raw : {};
  const yParity = quantityOrNull(entry.yParity ?? entry.v);
  return {
    address: addressOrNull(entry.address) ?? ('0x0000000000000000000000000000000000000000' as Address),
    chainId: quantityOrNull(entry.chainId) ?? 0n,
    nonce: quantityOrNull(entry.nonce) ?? 0n,
    yParity: yParity === null || yParity > 1n ? null : Number(yParity),
    r: dataOrNull(entry.r),
    s: dataOrNull(entry.s),
  };
}

function parseWithdrawal(raw: unknown, position: number): ChainWithdrawal {
  const what = `withdrawal ${position}`;
  if (!isObject(raw)) throw new MalformedAnswerError(`${what}: not an object`);
  const address = addressOrNull(raw.address);
  if (address === null) throw new MalformedAnswerError(`${what}: address is ${describe(raw.address)}`);
  return {
    index: quantity(raw, 'index', what),
    validatorIndex: quantity(raw, 'validatorIndex', what),
    address,
    amount: quantity(raw, 'amount', what),
  };
}

/** Parses an eth_getBlockByNumber(n, true) answer; null when the node has no such block. */
export function parseBlock(raw: unknown): ChainBlock | null {
  if (raw === null || raw === undefined) return null;
  if (!isObject(raw)) throw new MalformedAnswerError(`block: not an object (${describe(raw)})`);
  const what = `block ${describe(raw.number)}`;
  if (!Array.isArray(raw.transactions)) throw new MalformedAnswerError(`${what}: transactions is ${describe(raw.transactions)}`);
  return {
    number: quantity(raw, 'number', what),
    hash: hash(raw, 'hash', what),
    parentHash: hash(raw, 'parentHash', what),
    timestamp: quantity(raw, 'timestamp', what),
    nonce: dataOrNull(raw.nonce),
    sha3Uncles: dataOrNull(raw.sha3Uncles),
    mixHash: dataOrNull(raw.mixHash),
    miner: addressOrNull(raw.miner),
    stateRoot: dataOrNull(raw.stateRoot),
    transactionsRoot: dataOrNull(raw.transactionsRoot),
    receiptsRoot: dataOrNull(raw.receiptsRoot),
    logsBloom: dataOrNull(raw.logsBloom),
    size: quantityOrNull(raw.size),
    extraData: dataOrNull(raw.extraData),
    difficulty: quantityOrNull(raw.difficulty),
    totalDifficulty: quantityOrNull(raw.totalDifficulty),
    gasLimit: quantityOrNull(raw.gasLimit),
    gasUsed: quantityOrNull(raw.gasUsed),
    baseFeePerGas: quantityOrNull(raw.baseFeePerGas),
    withdrawalsRoot: dataOrNull(raw.withdrawalsRoot),
    withdrawals: Array.isArray(raw.withdrawals) ? raw.withdrawals.map(parseWithdrawal) : null,
    blobGasUsed: quantityOrNull(raw.blobGasUsed),
    excessBlobGas: quantityOrNull(raw.excessBlobGas),
    transactions: raw.transactions.map(parseTransaction),
  };
}

function parseLog(raw: unknown, position: number, what: string): ChainLog {
  if (!isObject(raw)) throw new MalformedAnswerError(`${what}: log ${position} is not an object`);
  const address = addressOrNull(raw.address);
  if (address === null) throw new MalformedAnswerError(`${what}: log ${position} address is ${describe(raw.address)}`);
  const index = quantityOrNull(raw.logIndex);
  if (index === null) throw new MalformedAnswerError(`${what}: log ${position} logIndex is ${describe(raw.logIndex)}`);
  if (!Array.isArray(raw.topics)) throw new MalformedAnswerError(`${what}: log ${position} topics is ${describe(raw.topics)}`);
  return {
    address,
    topics: raw.topics.map((topic) => {
      const value = dataOrNull(topic);
      if (value === null) throw new MalformedAnswerError(`${what}: log ${position} topic ${describe(topic)}`);
      return value;
    }),
    data: dataOrNull(raw.data) ?? '0x',
    logIndex: smallNumber(index, what),
    blockHash: dataOrNull(raw.blockHash),
    transactionHash: dataOrNull(raw.transactionHash),
  };
}

/** Parses one receipt (eth_getTransactionReceipt, or an entry of eth_getBlockReceipts). */
export function parseReceipt(raw: unknown): ChainReceipt {
  if (!isObject(raw)) throw new MalformedAnswerError(`receipt: not an object (${describe(raw)})`);
  const txHash = hash(raw, 'transactionHash', 'receipt');
  const what = `receipt of ${txHash}`;
  const index = quantity(raw, 'transactionIndex', what);
  const status = quantityOrNull(raw.status);
  if (!Array.isArray(raw.logs)) throw new MalformedAnswerError(`${what}: logs is ${describe(raw.logs)}`);
  return {
    transactionHash: txHash,
    transactionIndex: smallNumber(index, what),
    blockHash: hash(raw, 'blockHash', what),
    blockNumber: quantity(raw, 'blockNumber', what),
    status: status === 1n ? 1 : status === 0n ? 0 : null,
    root: dataOrNull(raw.root),
    gasUsed: quantity(raw, 'gasUsed', what),
    cumulativeGasUsed: quantityOrNull(raw.cumulativeGasUsed),
    effectiveGasPrice: quantityOrNull(raw.effectiveGasPrice),
    contractAddress: addressOrNull(raw.contractAddress),
    logsBloom: dataOrNull(raw.logsBloom),
    blobGasUsed: quantityOrNull(raw.blobGasUsed),
    blobGasPrice: quantityOrNull(raw.blobGasPrice),
    logs: raw.logs.map((log, position) => parseLog(log, position, what)),
    depositNonce: quantityOrNull(raw.depositNonce),
    depositReceiptVersion: quantityOrNull(raw.depositReceiptVersion),
    l1Fee: quantityOrNull(raw.l1Fee),
    l1GasPrice: quantityOrNull(raw.l1GasPrice),
    l1GasUsed: quantityOrNull(raw.l1GasUsed),
    l1FeeScalar: typeof raw.l1FeeScalar === 'string' && /^\d+(\.\d+)?$/.test(raw.l1FeeScalar) ? raw.l1FeeScalar : null,
    l1BaseFeeScalar: quantityOrNull(raw.l1BaseFeeScalar),
    l1BlobBaseFee: quantityOrNull(raw.l1BlobBaseFee),
    l1BlobBaseFeeScalar: quantityOrNull(raw.l1BlobBaseFeeScalar),
  };
}

/** The OP-stack deposit transaction type (0x7e). */
export const DEPOSIT_TRANSACTION_TYPE = 0x7e;
