/**
 * Stored records (shared/ingest/records.ts) to Insight API v1 rows. Like the reference (ClickHouse
 * columns without NULL), an absent value is the column's zero: "" for hex and text, 0 for numbers,
 * "0" for decimal strings, "[]" for the access list. Hex is lowercase as stored.
 */
import { exactInteger, type BlockRecord, type LogRecord, type TokenTransferRecord, type TransactionRecord } from '../table/records';
import type { InsightsBlock, InsightsEvent, InsightsTokenTransfer, InsightsTransaction } from './schemas';

/** A uint256 held as 0x-hex (r, s) as a decimal string, the reference's UInt256 form. */
const hexToDecimal = (value: string | null): string => (value ? BigInt(value).toString() : '0');

export function serialiseBlock(block: BlockRecord): InsightsBlock {
  return {
    chain_id: block.chainId,
    block_number: block.number,
    block_hash: block.hash,
    parent_hash: block.parentHash,
    block_timestamp: block.timestamp,
    nonce: block.nonce ?? '',
    sha3_uncles: block.sha3Uncles ?? '',
    mix_hash: block.mixHash ?? '',
    miner: block.miner ?? '',
    state_root: block.stateRoot ?? '',
    transactions_root: block.transactionsRoot ?? '',
    receipts_root: block.receiptsRoot ?? '',
    logs_bloom: block.logsBloom ?? '',
    size: block.size ?? 0,
    extra_data: block.extraData ?? '',
    difficulty: block.difficulty ?? '0',
    total_difficulty: block.totalDifficulty ?? '0',
    transaction_count: block.transactionCount,
    gas_limit: block.gasLimit ?? 0,
    gas_used: block.gasUsed ?? 0,
    withdrawals_root: block.withdrawalsRoot ?? '',
    // (Absent: a row of an aggregation that does not read it, list.ts RowOf.)
    base_fee_per_gas: (block.baseFeePerGas ?? null) === null ? 0 : exactInteger(BigInt(block.baseFeePerGas as string)),
  };
}

/** `input` is the full calldata (index copies may leave it out: the caller fetches the canonical item). */
export function serialiseTransaction(tx: TransactionRecord, input: string | null = tx.input): InsightsTransaction {
  return {
    chain_id: String(tx.chainId),
    block_number: tx.blockNumber,
    block_hash: tx.blockHash,
    block_timestamp: tx.blockTimestamp,
    hash: tx.hash,
    nonce: tx.nonce,
    transaction_index: tx.transactionIndex,
    from_address: tx.from,
    to_address: tx.to ?? '',
    value: tx.value,
    gas_price: tx.gasPrice ?? '0',
    gas: tx.gas,
    function_selector: tx.methodSelector ?? '',
    data: input ?? '0x',
    max_fee_per_gas: tx.maxFeePerGas ?? '0',
    max_priority_fee_per_gas: tx.maxPriorityFeePerGas ?? '0',
    transaction_type: tx.type,
    r: hexToDecimal(tx.r),
    s: hexToDecimal(tx.s),
    v: tx.v ?? '0',
    access_list_json: tx.accessListJson ?? '[]',
    authorization_list_json: tx.authorizationListJson ?? '[]',
    contract_address: tx.contractAddress ?? '',
    gas_used: tx.gasUsed,
    cumulative_gas_used: tx.cumulativeGasUsed ?? 0,
    effective_gas_price: tx.effectiveGasPrice,
    blob_gas_used: tx.blobGasUsed ?? 0,
    blob_gas_price: tx.blobGasPrice ?? '0',
    logs_bloom: tx.logsBloom ?? '',
    status: tx.status,
    ...(tx.sourceHash ? { source_hash: tx.sourceHash } : {}),
    ...(tx.mint !== null && tx.mint !== undefined ? { mint: tx.mint } : {}),
    ...(tx.isSystemTx !== null && tx.isSystemTx !== undefined ? { is_system_tx: tx.isSystemTx } : {}),
  };
}

/** `data` is the full log data (index copies may leave it out: the caller fetches the canonical item). */
export function serialiseEvent(log: LogRecord, data: string | null = log.data): InsightsEvent {
  return {
    chain_id: String(log.chainId),
    block_number: log.blockNumber,
    block_hash: log.blockHash,
    block_timestamp: log.blockTimestamp,
    transaction_hash: log.transactionHash,
    transaction_index: log.transactionIndex,
    log_index: log.logIndex,
    address: log.address,
    data: data ?? '0x',
    topics: log.topics,
  };
}

const TOKEN_TYPE = { 'ERC-20': 'erc20', 'ERC-721': 'erc721', 'ERC-1155': 'erc1155' } as const;

export function serialiseTokenTransfer(transfer: TokenTransferRecord): InsightsTokenTransfer {
  const row: InsightsTokenTransfer = {
    chain_id: transfer.chainId,
    block_number: String(transfer.blockNumber),
    block_hash: transfer.blockHash,
    block_timestamp: String(transfer.blockTimestamp),
    transaction_hash: transfer.transactionHash,
    log_index: transfer.logIndex,
    contract_address: transfer.token,
    from_address: transfer.from,
    to_address: transfer.to,
    transfer_type: transfer.transferType,
    token_type: TOKEN_TYPE[transfer.tokenStandard],
    amount: transfer.amount,
  };
  if (transfer.tokenId !== null) row.token_id = transfer.tokenId;
  return row;
}
