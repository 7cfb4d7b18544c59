/**
 * The fields of each insights entity that `aggregate` and `group_by` may name: the names of its API
 * rows, with how they compute (numbers, uint256 decimal strings, text) and which are timestamps.
 * Events also offer topic_0 ... topic_3 (the elements of `topics`).
 */
import type { FieldCatalogue } from './aggregate-parser';

export const BLOCK_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'number' },
  block_number: { kind: 'number' },
  block_timestamp: { kind: 'number', timestamp: true },
  block_hash: { kind: 'string' },
  parent_hash: { kind: 'string' },
  miner: { kind: 'string' },
  size: { kind: 'number' },
  difficulty: { kind: 'uint' },
  transaction_count: { kind: 'number' },
  gas_limit: { kind: 'number' },
  gas_used: { kind: 'number' },
  base_fee_per_gas: { kind: 'number' },
};

export const TRANSACTION_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'string' },
  block_number: { kind: 'number' },
  block_timestamp: { kind: 'number', timestamp: true },
  block_hash: { kind: 'string' },
  hash: { kind: 'string' },
  nonce: { kind: 'number' },
  transaction_index: { kind: 'number' },
  from_address: { kind: 'string' },
  to_address: { kind: 'string' },
  value: { kind: 'uint' },
  gas_price: { kind: 'uint' },
  gas: { kind: 'number' },
  function_selector: { kind: 'string' },
  max_fee_per_gas: { kind: 'uint' },
  max_priority_fee_per_gas: { kind: 'uint' },
  transaction_type: { kind: 'number' },
  contract_address: { kind: 'string' },
  gas_used: { kind: 'number' },
  cumulative_gas_used: { kind: 'number' },
  effective_gas_price: { kind: 'uint' },
  status: { kind: 'number' },
};

export const EVENT_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'string' },
  block_number: { kind: 'number' },
  block_timestamp: { kind: 'number', timestamp: true },
  block_hash: { kind: 'string' },
  transaction_hash: { kind: 'string' },
  transaction_index: { kind: 'number' },
  log_index: { kind: 'number' },
  address: { kind: 'string' },
  data: { kind: 'string' },
  topic_0: { kind: 'string' },
  topic_1: { kind: 'string' },
  topic_2: { kind: 'string' },
  topic_3: { kind: 'string' },
};

export const TOKEN_TRANSFER_FIELDS: FieldCatalogue = {
  chain_id: { kind: 'number' },
  block_number: { kind: 'uint' },
  block_timestamp: { kind: 'uint', timestamp: true },
  block_hash: { kind: 'string' },
  transaction_hash: { kind: 'string' },
  log_index: { kind: 'number' },
  contract_address: { kind: 'string' },
  from_address: { kind: 'string' },
  to_address: { kind: 'string' },
  transfer_type: { kind: 'string' },
  token_type: { kind: 'string' },
  token_id: { kind: 'uint' },
  amount: { kind: 'uint' },
};

/** An event row with its topics also as topic_0 ... topic_3, for aggregation. */
export function withTopicFields<T extends { topics: string[] }>(row: T): T & Record<string, unknown> {
  return {
    ...row,
    topic_0: row.topics[0] ?? null,
    topic_1: row.topics[1] ?? null,
    topic_2: row.topics[2] ?? null,
    topic_3: row.topics[3] ?? null,
  };
}
