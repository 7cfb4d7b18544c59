/**
 * Native coin balances and EIP-1967 proxy implementations, as Blockscout's indexer keeps them (its
 * coin balance fetcher reads, for every block, the balance of each address the block touched; its
 * proxy detection reads the implementation slot):
 *  - coin balances (X9, shared/table/address-state.ts): for each address a batch touched, its balance
 *    at the LAST block of the batch that touched it (Multicall3's getEthBalance, one aggregate3 per
 *    block, where the chain has Multicall3; else one eth_getBalance: ChainState.coinBalances), written
 *    with that block number, conditionally (an older read never replaces a newer one). One
 *    conditional PutItem per distinct touched address per batch. Switched off by IngestOptions.coinBalances
 *    (INGEST_COIN_BALANCES=off).
 *  - implementations: for each contract created, and each `Upgraded(address)` emitter, of a batch,
 *    one eth_getStorageAt of the EIP-1967 slot at the last such block, set on its X7 item
 *    (conditional on the item existing and on the block the slot was last read at).
 * A node that refuses or fails these reads never stops the ingest: what is stored stays, and it is
 * logged. The block's manifest names what it touched (`COIN|address`, `IMPL|address`); a reorg reads
 * them again at the common ancestor (undoNativeState), so an orphaned block's value never survives.
 */
import { UPGRADED_TOPIC, implementationFromSlot } from '../chain/eip1967';
import { deleteItem, inParallel, updateItem, writeItems } from '../db/operations';
import { coinBalanceKey, type CoinBalanceRecord, type ProxyFields } from '../table/address-state';
import type { AddressRecord } from '../table/records';
import { addressKeys, keyId } from '../table/keys';
import type { ChainState, NativeQuery } from './chain-state';
import type { DerivedBlock } from './derive';
import type { IngestLog } from './log';
import { getItems } from './table-io';

/** Parallel conditional writes of one batch's native state. */
const WRITE_CONCURRENCY = 16;
/** BatchWriteItem requests of coin balances in flight at once (as the batch's reads: table-io.ts). */
const COIN_WRITE_CONCURRENCY = 64;

export const nativeEntity = {
  coinBalance: (address: string): string => `COIN|${address}`,
  implementation: (address: string): string => `IMPL|${address}`,
};

/** Whether a manifest's touched entry is one of this module's (state.ts parseEntity knows the others). */
export const isNativeEntity = (name: string): boolean => name.startsWith('COIN|') || name.startsWith('IMPL|');

/**
 * Every address whose native balance the block may have changed: transaction senders and
 * recipients (OP-stack deposits included), created contracts, the fee recipient, both sides of
 * internal transactions (when the node serves traces), withdrawal recipients. Lowercase, distinct.
 */
export function coinTouches(derived: DerivedBlock): string[] {
  const touched = new Set<string>();
  const add = (address: string | null | undefined): void => {
    if (address) touched.add(address.toLowerCase());
  };
  add(derived.block.miner);
  for (const tx of derived.transactions) {
    add(tx.from);
    add(tx.to);
    add(tx.contractAddress);
  }
  for (const internal of derived.internalTransactions) {
    add(internal.from);
    add(internal.to);
    add(internal.createdContract);
  }
  for (const creation of derived.creations) add(creation.address);
  for (const withdrawal of derived.withdrawals) add(withdrawal.address);
  return [...touched];
}

/** Contracts whose implementation slot the block asks for: created, or emitted `Upgraded(address)`. */
export function implementationTouches(derived: DerivedBlock): string[] {
  const touched = new Set<string>(derived.creations.map((creation) => creation.address));
  for (const log of derived.logs) if (log.topics[0]?.toLowerCase() === UPGRADED_TOPIC) touched.add(log.address);
  return [...touched];
}

/** The manifest entries of a block's native state. */
export function nativeEntitiesOf(derived: DerivedBlock, coinBalances: boolean): string[] {
  return [
    ...(coinBalances ? coinTouches(derived).map(nativeEntity.coinBalance) : []),
    ...implementationTouches(derived).map(nativeEntity.implementation),
  ];
}

/**
 * Each address with the last block (of `blocks`, in order) that touched it, where it is read, and the
 * first (`firstBlock`).
 */
function lastTouches(
  blocks: readonly DerivedBlock[],
  touches: (derived: DerivedBlock) => string[],
): (NativeQuery & { firstBlock: number })[] {
  const at = new Map<string, { first: number; last: number }>();
  for (const derived of blocks)
    for (const address of touches(derived)) {
      const seen = at.get(address);
      if (seen) seen.last = derived.block.number;
      else at.set(address, { first: derived.block.number, last: derived.block.number });
    }
  return [...at].map(([address, { first, last }]) => ({ address, blockNumber: BigInt(last), firstBlock: first }));
}

/** The reads of a batch's native state (made while its items are written). */
export interface NativeReads {
  balances: (NativeQuery & { firstBlock: number })[];
  balanceValues: (bigint | null)[];
  implementations: NativeQuery[];
  slots: (string | null)[];
}

/** Reads what a batch's native state needs from the chain; never throws (failures are logged, values null). */
export async function readNativeState(
  chainId: number,
  blocks: readonly DerivedBlock[],
  chainState: ChainState,
  log: IngestLog,
  options: { coinBalances: boolean },
): Promise<NativeReads> {
  const balances = options.coinBalances ? lastTouches(blocks, coinTouches) : [];
  const implementations = lastTouches(blocks, implementationTouches);
  const [coin, slots] = await Promise.all([chainState.coinBalances(balances), chainState.implementationSlots(implementations)]);
  if (coin.failure !== null)
    log.warn('eth_getBalance did not answer: coin balances left as they are', {
      chainId,
      addresses: balances.length,
      error: coin.failure,
    });
  if (slots.failure !== null)
    log.warn('eth_getStorageAt did not answer: proxy implementations left as they are', {
      chainId,
      contracts: implementations.length,
      error: slots.failure,
    });
  return { balances, balanceValues: coin.values, implementations, slots: slots.values };
}

export class NativeStateWriter {
  constructor(private readonly chainId: number) {}

  /**
   * Puts an address's coin balance as read at `blockNumber`, unless the item holds a read of a later
   * block (`force`: a reorg's rollback, which replaces whatever is there). Returns whether it wrote.
   */
  async setCoinBalance(
    address: string,
    value: bigint,
    blockNumber: number,
    options: { force?: boolean; firstSeenBlock?: number } = {},
  ): Promise<boolean> {
    const fields: Omit<CoinBalanceRecord, 'firstSeenBlock'> = {
      kind: 'coinBalance',
      chainId: this.chainId,
      address,
      value: value.toString(),
      updatedAtBlock: blockNumber,
    };
    const outcome = await updateItem({
      Key: coinBalanceKey(this.chainId, address),
      UpdateExpression:
        'SET #kind = :kind, chainId = :chainId, #address = :address, #value = :value, updatedAtBlock = :block, firstSeenBlock = if_not_exists(firstSeenBlock, :first)',
      ExpressionAttributeNames: { '#kind': 'kind', '#address': 'address', '#value': 'value' },
      ExpressionAttributeValues: {
        ':kind': fields.kind,
        ':chainId': fields.chainId,
        ':address': fields.address,
        ':value': fields.value,
        ':block': blockNumber,
        ':first': options.firstSeenBlock ?? blockNumber,
      },
      ...(options.force ? {} : { ConditionExpression: 'attribute_not_exists(updatedAtBlock) OR updatedAtBlock <= :block' }),
    });
    return outcome.applied;
  }

  /**
   * A batch's coin balances: the stored items read in one consistent BatchGetItem round, then every
   * balance whose item holds no read of a later block put in BatchWriteItems of 25 (its first block
   * kept), instead of one conditional UpdateItem per address (issue 34: 2.4 DynamoDB calls a
   * transaction on the Base-like profile). One writer per chain (the lease) writes them, as it writes
   * the batch's items.
   */
  private async putCoinBalances(balances: readonly { query: NativeQuery & { firstBlock: number }; value: bigint }[]): Promise<void> {
    if (balances.length === 0) return;
    const keys = balances.map(({ query }) => coinBalanceKey(this.chainId, query.address));
    const stored = await getItems<CoinBalanceRecord>(keys);
    const puts = balances.flatMap(({ query, value }, position) => {
      const key = keys[position]!;
      const item = stored.get(keyId(key));
      const block = Number(query.blockNumber);
      if (item && item.updatedAtBlock > block) return [];
      const record: CoinBalanceRecord = {
        kind: 'coinBalance',
        chainId: this.chainId,
        address: query.address,
        value: value.toString(),
        updatedAtBlock: block,
        firstSeenBlock: item?.firstSeenBlock ?? query.firstBlock,
      };
      return [{ ...key, ...record }];
    });
    // A Base block's few hundred balances in one wave of requests.
    await writeItems({ put: puts }, { concurrency: COIN_WRITE_CONCURRENCY });
  }

  async deleteCoinBalance(address: string): Promise<void> {
    await deleteItem({ Key: coinBalanceKey(this.chainId, address) });
  }

  /**
   * Sets the implementation a contract's EIP-1967 slot held at `blockNumber` on its X7 item, when the
   * item exists and (unless `force`) holds no read of a later block. Returns whether it wrote.
   */
  async setImplementation(address: string, implementation: string | null, blockNumber: number, options: { force?: boolean } = {}) {
    const outcome = await updateItem({
      Key: addressKeys.address(this.chainId, address),
      UpdateExpression: 'SET implementation = :implementation, implementationAt = :block',
      ConditionExpression: options.force
        ? 'attribute_exists(pk)'
        : 'attribute_exists(pk) AND (attribute_not_exists(implementationAt) OR implementationAt <= :block)',
      ExpressionAttributeValues: { ':implementation': implementation, ':block': blockNumber },
    });
    return outcome.applied;
  }

  /** Drops what a slot read set (a reorg below the read, the node not answering at the ancestor). */
  async clearImplementation(address: string): Promise<void> {
    await updateItem({
      Key: addressKeys.address(this.chainId, address),
      UpdateExpression: 'REMOVE implementation, implementationAt',
      ConditionExpression: 'attribute_exists(pk)',
    });
  }

  /**
   * Writes a batch's coin balances. Balances the node did not answer are left as stored. They share no
   * item with the rest of the batch's state: written beside it.
   */
  async applyBalances(reads: NativeReads): Promise<void> {
    const balances = reads.balances.flatMap((query, position) => {
      const value = reads.balanceValues[position];
      return value === null || value === undefined ? [] : [{ query, value }];
    });
    await this.putCoinBalances(balances);
  }

  /**
   * Writes a batch's proxy implementations. An implementation slot found empty at a creation is written
   * only when the contract emitted `Upgraded` in the batch or its item already names one (a contract
   * created again): otherwise no write for plain contracts. Runs after the batch's address items are
   * written (the implementation goes on them).
   */
  async applyImplementations(reads: NativeReads, upgraded: ReadonlySet<string>, knownProxies: ReadonlySet<string>): Promise<void> {
    const implementations = reads.implementations.flatMap((query, position) => {
      const slot = reads.slots[position];
      if (slot === null || slot === undefined) return [];
      const implementation = implementationFromSlot(slot);
      if (implementation === null && !upgraded.has(query.address) && !knownProxies.has(query.address)) return [];
      return [{ query, implementation }];
    });
    await inParallel(implementations, WRITE_CONCURRENCY, async ({ query, implementation }) => {
      await this.setImplementation(query.address, implementation, Number(query.blockNumber));
    });
  }
}

/** Stored contracts whose X7 item names an implementation. */
export function knownProxies(stored: ReadonlyMap<string, AddressRecord & ProxyFields>): Set<string> {
  return new Set([...stored.values()].filter((item) => item.implementation).map((item) => item.address));
}

/** The contracts of a batch that emitted `Upgraded(address)`. */
export function upgradedIn(blocks: readonly DerivedBlock[]): Set<string> {
  const found = new Set<string>();
  for (const derived of blocks) for (const log of derived.logs) if (log.topics[0]?.toLowerCase() === UPGRADED_TOPIC) found.add(log.address);
  return found;
}

/**
 * A reorg's part: the native state orphaned blocks touched (their manifests' `COIN|` and `IMPL|`
 * entries), read again at the common ancestor and written whatever is stored. A balance or slot the
 * node does not answer at the ancestor is deleted (never left at an orphaned block's value). Runs
 * after the address items of contracts first seen above the ancestor are deleted: their
 * implementation goes with them (the conditional update does not bring the item back).
 */
export async function undoNativeState(
  chainId: number,
  touched: readonly string[],
  ancestor: number,
  chainState: ChainState,
  log: IngestLog,
): Promise<void> {
  const writer = new NativeStateWriter(chainId);
  const at = BigInt(ancestor);
  const addressesOf = (prefix: string): NativeQuery[] =>
    [...new Set(touched.filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length)))].map((address) => ({
      address,
      blockNumber: at,
    }));
  const balances = addressesOf('COIN|');
  const implementations = addressesOf('IMPL|');
  const stored = await getItems<CoinBalanceRecord>(balances.map((query) => coinBalanceKey(chainId, query.address)));
  const firstSeen = new Map([...stored.values()].map((item) => [item.address, item.firstSeenBlock]));
  // First touched above the ancestor: the item goes (a fresh ingest of the canonical chain has none).
  const gone = balances.filter((query) => (firstSeen.get(query.address) ?? Number.POSITIVE_INFINITY) > ancestor);
  const kept = balances.filter((query) => !gone.includes(query));
  const [coin, slots] = await Promise.all([chainState.coinBalances(kept), chainState.implementationSlots(implementations)]);
  if (coin.failure !== null || slots.failure !== null)
    log.warn('reorg: native state not readable at the ancestor: orphaned values deleted', {
      chainId,
      ancestor,
      error: coin.failure ?? slots.failure,
    });
  await Promise.all([
    inParallel(gone, WRITE_CONCURRENCY, (query) => writer.deleteCoinBalance(query.address)),
    inParallel([...kept.entries()], WRITE_CONCURRENCY, async ([position, query]) => {
      const value = coin.values[position];
      if (value === null || value === undefined) await writer.deleteCoinBalance(query.address);
      else await writer.setCoinBalance(query.address, value, ancestor, { force: true });
    }),
    inParallel([...implementations.entries()], WRITE_CONCURRENCY, async ([position, query]) => {
      // Empty (or unknown) at the ancestor: no implementation, as a creation with an empty slot leaves it.
      const implementation = implementationFromSlot(slots.values[position]);
      if (implementation === null) await writer.clearImplementation(query.address);
      else await writer.setImplementation(query.address, implementation, ancestor, { force: true });
    }),
  ]);
}
