/**
 * From a fetched block to records: the block, its transactions (with receipt fields, fees, revert
 * reason), logs, token transfers (ERC-1155 batches flattened), internal transactions, withdrawals,
 * and what the block touched (balances, NFT instances, collections, contracts). Pure: the same
 * bundle always gives the same records. The two facts that need chain state at the block (is the
 * recipient a contract, is a created contract a token) are filled in by `tagTransactions`.
 */
import { byteLength, isZeroAddress, normalizeAddress, selectorOf } from '../chain/address';
import { decodeTokenTransfers } from '../chain/decode';
import { DEPOSIT_TRANSACTION_TYPE, type ChainAuthorization, type ChainReceipt, type ChainTransaction } from '../chain/rpc-block';
import type { TraceCall } from '../chain/trace';
import { transactionStatus, type BlockBundle } from './fetch-block';
import {
  exactInteger,
  type BlockRecord,
  type IndexedTokenStandard,
  type InternalTransactionRecord,
  type LogRecord,
  type TokenTransferRecord,
  type TransactionPosition,
  type TransactionRecord,
  type TransactionTypeTag,
  type WithdrawalRecord,
  MAX_STORED_CHARS,
} from '../table/records';

/** A (holder, token, id) whose balance the block may have changed. tokenId is set for ERC-1155 only. */
export interface BalanceTouch {
  holder: string;
  token: string;
  standard: IndexedTokenStandard;
  tokenId: bigint | null;
}

export interface ContractCreation {
  address: string;
  creator: string;
  transactionHash: string;
}

/** Native currency moved by a transaction or an internal call that took effect (for listeners). */
export interface NativeTransfer {
  transactionHash: string;
  /** Position of the transaction in the block. */
  transactionIndex: number;
  /** null for the transaction itself, else the internal transaction's index. */
  internalIndex: number | null;
  from: string;
  to: string;
  /** Decimal wei. */
  value: string;
}

export interface DerivedBlock {
  chainId: number;
  block: BlockRecord;
  transactions: TransactionRecord[];
  logs: LogRecord[];
  tokenTransfers: TokenTransferRecord[];
  internalTransactions: InternalTransactionRecord[];
  withdrawals: WithdrawalRecord[];
  nativeTransfers: NativeTransfer[];
  /** Contracts created by calls that took effect. */
  creations: ContractCreation[];
  /** Token contracts with transfers in the block, with the standard of their first transfer event. */
  tokens: Map<string, IndexedTokenStandard>;
  balanceTouches: BalanceTouch[];
  /** (contract, token id) of every NFT moved. */
  nftTouches: { contract: string; standard: 'ERC-721' | 'ERC-1155'; tokenId: bigint }[];
  /**
   * Addresses that may be contracts: transaction recipients, both sides of internal transactions,
   * log emitters, both sides of token transfers (but the zero address). Every side of an explorer
   * index copy but a transaction's sender is one, so the copy can record which of its sides are
   * contracts as of its block (items.ts `contractSides`); each found to hold code gets an address item.
   */
  candidateContracts: Set<string>;
  /** Emitted a log or was created: certainly a contract at this block. */
  knownContracts: Set<string>;
}

const dec = (value: bigint | number | null | undefined): string | null =>
  value === null || value === undefined ? null : BigInt(value).toString();
const exactOrNull = (value: bigint | null): ReturnType<typeof exactInteger> | null => (value === null ? null : exactInteger(value));
const lowerOrNull = (value: string | null | undefined): string | null => (value ? value.toLowerCase() : null);
const jsonText = (value: unknown): string => JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? item.toString() : item));

/**
 * An EIP-7702 authorization list as JSON text, chain ids and nonces written as exact JSON numbers
 * at any size (a JS number above 2^53 would round them).
 */
function authorizationListText(list: readonly ChainAuthorization[]): string {
  const entries = list.map(
    (entry) =>
      `{"address":${JSON.stringify(entry.address)},"chainId":${entry.chainId.toString()},"nonce":${entry.nonce.toString()},` +
      `"r":${JSON.stringify(entry.r)},"s":${JSON.stringify(entry.s)},"yParity":${JSON.stringify(entry.yParity)}}`,
  );
  return `[${entries.join(',')}]`;
}

/** A hex payload cut to MAX_STORED_CHARS[field] characters (a whole number of bytes), noting the cut in `cut`. */
function boundedHex(value: string, field: 'input' | 'data', cut: string[]): string {
  const limit = MAX_STORED_CHARS[field];
  if (value.length <= limit) return value;
  cut.push(field);
  return value.slice(0, limit - ((limit - 2) % 2));
}

/** Text cut to its limit (revert reasons), or JSON text left out past it (a cut would not parse). */
function boundedText(value: string | null, field: 'revertReason' | JsonField, cut: string[]): string | null {
  if (value === null || value.length <= MAX_STORED_CHARS[field]) return value;
  cut.push(field);
  return field === 'revertReason' ? value.slice(0, MAX_STORED_CHARS[field]) : null;
}

type JsonField = 'accessListJson' | 'authorizationListJson' | 'otherFieldsJson';

/**
 * The fields only some chains' transactions have (OP-stack deposits and L1 fees, fields of unknown
 * types): on the record only when the node gave them, so items of every other chain stay as they were.
 */
function chainSpecificFields(tx: ChainTransaction, receipt: ChainReceipt, isDeposit: boolean, cut: string[]): Partial<TransactionRecord> {
  const fields: Partial<TransactionRecord> = {};
  const set = <K extends keyof TransactionRecord>(name: K, value: TransactionRecord[K] | null) => {
    if (value !== null) fields[name] = value;
  };
  set('sourceHash', tx.sourceHash);
  set('mint', dec(tx.mint));
  set('isSystemTx', tx.isSystemTx);
  set('otherFieldsJson', boundedText(tx.otherFields ? jsonText(tx.otherFields) : null, 'otherFieldsJson', cut));
  if (!isDeposit) {
    set('l1Fee', dec(receipt.l1Fee));
    set('l1GasPrice', dec(receipt.l1GasPrice));
    set('l1GasUsed', dec(receipt.l1GasUsed));
    set('l1FeeScalar', receipt.l1FeeScalar);
    set('l1BaseFeeScalar', dec(receipt.l1BaseFeeScalar));
    set('l1BlobBaseFee', dec(receipt.l1BlobBaseFee));
    set('l1BlobBaseFeeScalar', dec(receipt.l1BlobBaseFeeScalar));
  }
  return fields;
}

export function deriveBlock(chainId: number, bundle: BlockBundle): DerivedBlock {
  const { block: rawBlock, receipts, traces, revertReasons } = bundle;
  const blockNumber = Number(rawBlock.number);
  const blockHash = rawBlock.hash;
  const blockTimestamp = Number(rawBlock.timestamp);
  const baseFee = rawBlock.baseFeePerGas ?? null;
  const at = { chainId, blockNumber, blockHash, blockTimestamp };

  const block: BlockRecord = {
    kind: 'block',
    chainId,
    number: blockNumber,
    hash: blockHash,
    parentHash: rawBlock.parentHash,
    timestamp: blockTimestamp,
    nonce: rawBlock.nonce,
    sha3Uncles: rawBlock.sha3Uncles,
    mixHash: rawBlock.mixHash,
    miner: rawBlock.miner,
    stateRoot: rawBlock.stateRoot,
    transactionsRoot: rawBlock.transactionsRoot,
    receiptsRoot: rawBlock.receiptsRoot,
    logsBloom: rawBlock.logsBloom,
    size: exactOrNull(rawBlock.size),
    extraData: rawBlock.extraData,
    difficulty: dec(rawBlock.difficulty),
    totalDifficulty: dec(rawBlock.totalDifficulty),
    transactionCount: rawBlock.transactions.length,
    gasLimit: exactOrNull(rawBlock.gasLimit),
    gasUsed: exactOrNull(rawBlock.gasUsed),
    baseFeePerGas: dec(baseFee),
    withdrawalsRoot: lowerOrNull(rawBlock.withdrawalsRoot),
    withdrawalCount: rawBlock.withdrawals?.length ?? 0,
    blobGasUsed: exactOrNull(rawBlock.blobGasUsed),
    excessBlobGas: exactOrNull(rawBlock.excessBlobGas),
  };

  const derived: DerivedBlock = {
    chainId,
    block,
    transactions: [],
    logs: [],
    tokenTransfers: [],
    internalTransactions: [],
    withdrawals: [],
    nativeTransfers: [],
    creations: [],
    tokens: new Map(),
    balanceTouches: [],
    nftTouches: [],
    candidateContracts: new Set(),
    knownContracts: new Set(),
  };
  const balanceKeys = new Set<string>();
  const nftKeys = new Set<string>();

  rawBlock.transactions.forEach((tx, position) => {
    const receipt = receipts[position];
    if (receipt === undefined) throw new Error(`block ${blockNumber}: no receipt for transaction ${position}`);
    const hash = tx.hash;
    const txAt = { ...at, transactionHash: hash, transactionIndex: position };
    const from = tx.from;
    const to = tx.to;
    const trace = traces?.[position] ?? null;
    const status = transactionStatus(receipt, trace);
    // An unknown status (pre-Byzantium without a trace) is not a failure; its effects are taken as
    // the receipt shows them (logs, created contract), as Blockscout does.
    const succeeded = status !== 0;
    const selector = selectorOf(tx.input);
    const isDeposit = tx.type === DEPOSIT_TRANSACTION_TYPE;
    const effectiveGasPrice = receipt.effectiveGasPrice ?? tx.gasPrice ?? 0n;
    const gasUsed = receipt.gasUsed;
    const internalCalls = trace ? trace.calls.slice(1) : [];
    const effective = effectiveSuccess(trace?.calls ?? [], succeeded);

    // logs and token transfers
    let transferCount = 0;
    for (const log of receipt.logs) {
      const emitter = normalizeAddress(log.address);
      derived.knownContracts.add(emitter);
      derived.candidateContracts.add(emitter);
      const logCut: string[] = [];
      derived.logs.push({
        kind: 'log',
        ...txAt,
        logIndex: log.logIndex,
        address: emitter,
        data: boundedHex(log.data, 'data', logCut),
        dataOmitted: false,
        topics: log.topics,
        ...(logCut.length > 0 ? { truncated: logCut } : {}),
      });
      for (const transfer of decodeTokenTransfers(log)) {
        transferCount += 1;
        const tokenId = transfer.tokenId;
        derived.tokenTransfers.push({
          kind: 'tokenTransfer',
          ...txAt,
          logIndex: log.logIndex,
          batchIndex: transfer.batchIndex,
          token: transfer.token,
          tokenStandard: transfer.standard,
          from: transfer.from,
          to: transfer.to,
          amount: transfer.amount.toString(),
          tokenId: tokenId === null ? null : tokenId.toString(),
          transferType: isZeroAddress(transfer.from) ? 'mint' : isZeroAddress(transfer.to) ? 'burn' : 'transfer',
          operator: transfer.operator,
          methodSelector: selector,
        });
        if (!derived.tokens.has(transfer.token)) derived.tokens.set(transfer.token, transfer.standard);
        for (const holder of [transfer.from, transfer.to]) {
          if (isZeroAddress(holder)) continue;
          // A side of the transfer's copies: whether it is a contract is recorded on them (items.ts).
          derived.candidateContracts.add(holder);
          const id = transfer.standard === 'ERC-1155' ? tokenId : null;
          const key = `${holder}|${transfer.token}|${id ?? '-'}`;
          if (!balanceKeys.has(key)) {
            balanceKeys.add(key);
            derived.balanceTouches.push({ holder, token: transfer.token, standard: transfer.standard, tokenId: id });
          }
        }
        if (transfer.standard !== 'ERC-20' && tokenId !== null) {
          const key = `${transfer.token}|${tokenId}`;
          if (!nftKeys.has(key)) {
            nftKeys.add(key);
            derived.nftTouches.push({ contract: transfer.token, standard: transfer.standard, tokenId });
          }
        }
      }
    }

    // internal transactions
    for (const call of internalCalls) {
      derived.internalTransactions.push(internalRecord(txAt, call, effective.get(call.index) ?? false));
      // Both sides of an internal transaction's copies (a selfdestruct's beneficiary too): whether
      // each is a contract is recorded on them (items.ts).
      derived.candidateContracts.add(call.from);
      if (call.to) derived.candidateContracts.add(call.to);
      if (call.createdContract && effective.get(call.index)) {
        derived.creations.push({ address: call.createdContract, creator: call.from, transactionHash: hash });
        derived.knownContracts.add(call.createdContract);
      }
      if (call.value > 0n && effective.get(call.index) && call.callType !== 'delegatecall' && call.callType !== 'callcode') {
        const target = call.to ?? call.createdContract;
        if (target)
          derived.nativeTransfers.push({
            transactionHash: hash,
            transactionIndex: position,
            internalIndex: call.index,
            from: call.from,
            to: target,
            value: call.value.toString(),
          });
      }
    }

    const contractAddress = receipt.contractAddress;
    if (contractAddress && succeeded) {
      derived.creations.unshift({ address: contractAddress, creator: from, transactionHash: hash });
      derived.knownContracts.add(contractAddress);
    }
    if (to) derived.candidateContracts.add(to);
    // Only a transfer known to have happened is one for the listeners (deposit detection must not
    // credit a pre-Byzantium transaction whose status no trace told).
    if (tx.value > 0n && status === 1) {
      const target = to ?? contractAddress;
      if (target)
        derived.nativeTransfers.push({
          transactionHash: hash,
          transactionIndex: position,
          internalIndex: null,
          from,
          to: target,
          value: tx.value.toString(),
        });
    }

    const inputSize = byteLength(tx.input);
    const cut: string[] = [];
    derived.transactions.push({
      kind: 'transaction',
      chainId,
      hash,
      blockNumber,
      blockHash,
      blockTimestamp,
      transactionIndex: position,
      from,
      to,
      value: tx.value.toString(),
      input: boundedHex(tx.input, 'input', cut),
      inputOmitted: false,
      inputSize,
      methodSelector: selector,
      nonce: exactInteger(tx.nonce),
      gas: exactInteger(tx.gas),
      gasPrice: dec(tx.gasPrice ?? effectiveGasPrice),
      maxFeePerGas: dec(tx.maxFeePerGas),
      maxPriorityFeePerGas: dec(tx.maxPriorityFeePerGas),
      type: tx.type,
      r: tx.r,
      s: tx.s,
      v: dec(tx.v),
      yParity: tx.yParity,
      accessListJson: boundedText(tx.accessList ? jsonText(tx.accessList) : null, 'accessListJson', cut),
      authorizationListJson: boundedText(
        tx.authorizationList ? authorizationListText(tx.authorizationList) : null,
        'authorizationListJson',
        cut,
      ),
      status,
      gasUsed: exactInteger(gasUsed),
      cumulativeGasUsed: exactOrNull(receipt.cumulativeGasUsed),
      effectiveGasPrice: effectiveGasPrice.toString(),
      contractAddress,
      logsBloom: receipt.logsBloom,
      blobGasUsed: exactOrNull(receipt.blobGasUsed),
      blobGasPrice: dec(receipt.blobGasPrice),
      logCount: receipt.logs.length,
      baseFeePerGas: dec(baseFee),
      // A deposit pays no fee on L2 (its gas is bought on L1); every other OP-stack transaction
      // pays the L1 data fee on top of its execution fee (Blockscout's OP-stack `fee`).
      fee: isDeposit ? '0' : (gasUsed * effectiveGasPrice + (receipt.l1Fee ?? 0n)).toString(),
      burntFee: isDeposit || baseFee === null ? null : (gasUsed * baseFee).toString(),
      priorityFee: isDeposit ? null : (gasUsed * maxBig(0n, effectiveGasPrice - (baseFee ?? 0n))).toString(),
      ...chainSpecificFields(tx, receipt, isDeposit, cut),
      revertReason: boundedText(status === 0 ? (revertReasons.get(hash) ?? null) : null, 'revertReason', cut),
      transactionTypes: [],
      error: trace?.calls[0]?.error ?? null,
      hasErrorInInternalTransactions: internalCalls.some((call) => call.error !== null),
      tokenTransferCount: transferCount,
      tracesAvailable: traces !== null,
      ...(cut.length > 0 ? { truncated: cut } : {}),
    });
  });

  for (const withdrawal of rawBlock.withdrawals ?? []) {
    const amountGwei = withdrawal.amount;
    derived.withdrawals.push({
      kind: 'withdrawal',
      chainId,
      index: Number(withdrawal.index),
      validatorIndex: Number(withdrawal.validatorIndex),
      address: withdrawal.address,
      amountGwei: amountGwei.toString(),
      amount: (amountGwei * 1_000_000_000n).toString(),
      blockNumber,
      blockHash,
      blockTimestamp,
    });
  }
  return derived;
}

/**
 * Fills `transactionTypes` once the chain state at the block is known: which recipients are
 * contracts and which created contracts are tokens.
 */
export function tagTransactions(
  derived: DerivedBlock,
  isContract: (address: string) => boolean,
  isToken: (address: string) => boolean,
): void {
  for (const tx of derived.transactions) {
    const tags: TransactionTypeTag[] = [];
    if (tx.tokenTransferCount > 0) tags.push('token_transfer');
    if (tx.to === null) tags.push('contract_creation');
    if (tx.to !== null && isContract(tx.to)) tags.push('contract_call');
    if (tx.contractAddress && isToken(tx.contractAddress)) tags.push('token_creation');
    if (BigInt(tx.value) > 0n) tags.push('coin_transfer');
    tx.transactionTypes = tags;
  }
}

function internalRecord(txAt: TransactionPosition, call: TraceCall, tookEffect: boolean): InternalTransactionRecord {
  return {
    kind: 'internalTransaction',
    ...txAt,
    index: call.index,
    type: call.type,
    callType: call.callType,
    from: call.from,
    to: call.to,
    createdContract: call.createdContract,
    value: call.value.toString(),
    gasLimit: call.gas.toString(),
    gasUsed: call.gasUsed.toString(),
    success: call.error === null,
    error: call.error,
    traceAddress: call.traceAddress,
    ...(call.createdContract ? { tookEffect } : {}),
  };
}

/** A call took effect when it and every call above it succeeded (and so did the transaction). */
function effectiveSuccess(calls: readonly TraceCall[], transactionSucceeded: boolean): Map<number, boolean> {
  const byPath = new Map<string, boolean>();
  const result = new Map<number, boolean>();
  for (const call of calls) {
    const parentPath = call.traceAddress.slice(0, -1).join('.');
    const parentOk = call.traceAddress.length === 0 ? transactionSucceeded : (byPath.get(parentPath) ?? false);
    const ok = parentOk && call.error === null;
    byPath.set(call.traceAddress.join('.'), ok);
    result.set(call.index, ok);
  }
  return result;
}

const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);
