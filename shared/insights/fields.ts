/**
 * The fields of each insights entity that `aggregate` and `group_by` may name: the names of its API
 * rows, with how they compute (numbers, uint256 decimal strings, text), which are timestamps, and the
 * stored record's field each is serialised from (serialise.ts; fields.test.ts checks each against it).
 * Events also offer topic_0 ... topic_3 (the elements of `topics`).
 */
import type { FieldCatalogue } from './aggregate-parser';

export const BLOCK_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'number', record: ['chainId'] },
  block_number: { kind: 'number', record: ['number'] },
  block_timestamp: { kind: 'number', timestamp: true, record: ['timestamp'] },
  block_hash: { kind: 'string', record: ['hash'] },
  parent_hash: { kind: 'string', record: ['parentHash'] },
  miner: { kind: 'string', record: ['miner'] },
  size: { kind: 'number', record: ['size'] },
  difficulty: { kind: 'uint', record: ['difficulty'] },
  transaction_count: { kind: 'number', record: ['transactionCount'] },
  gas_limit: { kind: 'number', record: ['gasLimit'] },
  gas_used: { kind: 'number', record: ['gasUsed'] },
  base_fee_per_gas: { kind: 'number', record: ['baseFeePerGas'] },
};

export const TRANSACTION_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'string', record: ['chainId'] },
  block_number: { kind: 'number', record: ['blockNumber'] },
  block_timestamp: { kind: 'number', timestamp: true, record: ['blockTimestamp'] },
  block_hash: { kind: 'string', record: ['blockHash'] },
  hash: { kind: 'string', record: ['hash'] },
  nonce: { kind: 'number', record: ['nonce'] },
  transaction_index: { kind: 'number', record: ['transactionIndex'] },
  from_address: { kind: 'string', record: ['from'] },
  to_address: { kind: 'string', record: ['to'] },
  value: { kind: 'uint', record: ['value'] },
  gas_price: { kind: 'uint', record: ['gasPrice'] },
  gas: { kind: 'number', record: ['gas'] },
  function_selector: { kind: 'string', record: ['methodSelector'] },
  max_fee_per_gas: { kind: 'uint', record: ['maxFeePerGas'] },
  max_priority_fee_per_gas: { kind: 'uint', record: ['maxPriorityFeePerGas'] },
  transaction_type: { kind: 'number', record: ['type'] },
  contract_address: { kind: 'string', record: ['contractAddress'] },
  gas_used: { kind: 'number', record: ['gasUsed'] },
  cumulative_gas_used: { kind: 'number', record: ['cumulativeGasUsed'] },
  effective_gas_price: { kind: 'uint', record: ['effectiveGasPrice'] },
  status: { kind: 'number', record: ['status'] },
};

export const EVENT_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'string', record: ['chainId'] },
  block_number: { kind: 'number', record: ['blockNumber'] },
  block_timestamp: { kind: 'number', timestamp: true, record: ['blockTimestamp'] },
  block_hash: { kind: 'string', record: ['blockHash'] },
  transaction_hash: { kind: 'string', record: ['transactionHash'] },
  transaction_index: { kind: 'number', record: ['transactionIndex'] },
  log_index: { kind: 'number', record: ['logIndex'] },
  address: { kind: 'string', record: ['address'] },
  data: { kind: 'string', record: ['data'] },
  topic_0: { kind: 'string', record: ['topics'] },
  topic_1: { kind: 'string', record: ['topics'] },
  topic_2: { kind: 'string', record: ['topics'] },
  topic_3: { kind: 'string', record: ['topics'] },
};

export const TOKEN_TRANSFER_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'number', record: ['chainId'] },
  block_number: { kind: 'uint', record: ['blockNumber'] },
  block_timestamp: { kind: 'uint', timestamp: true, record: ['blockTimestamp'] },
  block_hash: { kind: 'string', record: ['blockHash'] },
  transaction_hash: { kind: 'string', record: ['transactionHash'] },
  log_index: { kind: 'number', record: ['logIndex'] },
  contract_address: { kind: 'string', record: ['token'] },
  from_address: { kind: 'string', record: ['from'] },
  to_address: { kind: 'string', record: ['to'] },
  transfer_type: { kind: 'string', record: ['transferType'] },
  token_type: { kind: 'string', record: ['tokenStandard'] },
  token_id: { kind: 'uint', record: ['tokenId'] },
  amount: { kind: 'uint', record: ['amount'] },
};

/** An event row with its topics also as topic_0 ... topic_3, for aggregation. */
export function withTopicFields<T extends { topics: string[] }>(row: T): T & Record<string, unknown> {
  // (No topics: a row of an aggregation that reads none, list.ts RowOf.)
  const topics: readonly string[] = row.topics ?? [];
  return {
    ...row,
    topic_0: topics[0] ?? null,
    topic_1: topics[1] ?? null,
    topic_2: topics[2] ?? null,
    topic_3: topics[3] ?? null,
  };
}
