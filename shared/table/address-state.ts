/**
 * What the ingest keeps of an address beyond its X7 item (records.ts AddressRecord): its native coin
 * balance (any address, contract or not) and, on a contract's X7 item, the EIP-1967 implementation
 * it points to. Kept apart from keys.ts and records.ts so that the X7 item stays what it says: an
 * address with an X7 item is a contract (batch.ts, the explorer's `cs` flags), so an externally owned
 * account's balance cannot live on it.
 * Pattern ids: docs/access-patterns.md (X9).
 */
import { addressKeys, type ItemKey } from './keys';

/**
 * X9: the native coin balance of an address, in the X7 item's partition (sk `COIN`), so the explorer
 * reads both with one BatchGetItem. GetItem.
 */
export const coinBalanceKey = (chainId: number, address: string): ItemKey => ({
  pk: addressKeys.address(chainId, address).pk,
  sk: 'COIN',
});

/**
 * coinBalanceKey (X9): eth_getBalance of the address at `updatedAtBlock`, the newest block the ingest
 * read it at (the last block of a batch that touched it: sent, received, created, fee recipient,
 * internal call, withdrawal). Written conditionally on `updatedAtBlock` (an older read never replaces a
 * newer one); a reorg reads it again at the common ancestor, or deletes it when the address was first
 * touched above the ancestor or the node does not answer. Absent: never touched, the node never
 * answered, or coin balances are switched off.
 */
export interface CoinBalanceRecord {
  kind: 'coinBalance';
  chainId: number;
  address: string;
  /** Decimal wei. */
  value: string;
  /** The block the balance was read at (Blockscout `block_number_balance_updated_at`). */
  updatedAtBlock: number;
  /** The first block that touched the address (a reorg below it deletes the item). */
  firstSeenBlock: number;
}

/**
 * Fields the ingest sets on a contract's X7 item (AddressRecord) when it reads the EIP-1967
 * implementation slot: at the contract's creation and at each `Upgraded(address)` it emits. Absent
 * until a read found a non-empty slot (or an upgrade emptied it: then null).
 */
export interface ProxyFields {
  /** The implementation address the slot held at `implementationAt`; null when empty. */
  implementation?: string | null;
  /** The block the slot was read at. */
  implementationAt?: number;
}
