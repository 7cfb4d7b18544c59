/**
 * Filter catalogues of the Insight v1 lists served beside I1 and I2 (I10a to I10e, see
 * docs/access-patterns.md): the fields thirdweb's client types list for each route. Which range each
 * filter picks, and which are bounded checks: transaction-lists.ts and event-lists.ts.
 */
import { EVENT_FILTERS, TRANSACTION_FILTERS, type FilterCatalogue } from './filters';

/** I10a GET /v1/transactions/{contractAddress}: I1's filters (function_selector is its own parameter). */
export const CONTRACT_ALL_TRANSACTION_FILTERS = TRANSACTION_FILTERS;

/** I10b GET /v1/transactions: I1's filters and the recipient. */
export const ALL_TRANSACTION_FILTERS = { ...TRANSACTION_FILTERS, to_address: 'address' } as const satisfies FilterCatalogue;

/** I10c GET /v1/wallets/{wallet_address}/transactions: I1's filters but the sender (the path names the wallet). */
export const WALLET_TRANSACTION_FILTERS = {
  block_number: 'integer',
  block_timestamp: 'integer',
  transaction_index: 'integer',
  value: 'uint256',
  gas_price: 'uint256',
  gas: 'integer',
  block_hash: 'hash',
  hash: 'hash',
} as const satisfies FilterCatalogue;

/** I10d GET /v1/events: I2's filters and the emitting contract. */
export const ALL_EVENT_FILTERS = { ...EVENT_FILTERS, address: 'address' } as const satisfies FilterCatalogue;

/** I10e GET /v1/events/{contractAddress}/{signature}: I2's filters but topic 0 (the signature is). */
export const SIGNATURE_EVENT_FILTERS = {
  block_number: 'integer',
  block_timestamp: 'integer',
  transaction_index: 'integer',
  log_index: 'integer',
  block_hash: 'hash',
  transaction_hash: 'hash',
  topic_1: 'topics',
  topic_2: 'topics',
  topic_3: 'topics',
} as const satisfies FilterCatalogue;
