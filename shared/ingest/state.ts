/**
 * State items: the current value of an entity (a balance, an NFT instance, a holder's collection, a
 * contract's details), rewritten from values read on chain at a block. Each change is written so that
 * a crash at any point and a second run of the same block leave the same items:
 *  - a balance change is written in ONE TransactWriteItems (with other changes: setBalances): the balance item (conditional on the value and
 *    block it replaces; while positive, an ERC-20 or ERC-1155 per-id balance carries its T1 key on
 *    gsi2, so the token's holder list is kept by DynamoDB, and every balance but the ERC-1155 total
 *    its X1 key on gsi3 (its standard's range, sorted by value): the index is DynamoDB's, kept on the
 *    one item, so no listing item is written and no two writers of a listing can meet),
 *    the ERC-1155 holding, and, when the balance leaves or reaches zero, the counts: the holder's X10
 *    count of its standard (listed balances only: not the ERC-1155 total) and the token's X7 counter
 *    (`holders` for a token-level balance, `idHolders` for an ERC-1155 id), each +1 / -1 in ONE
 *    operation per item (DynamoDB refuses two on one item in a transaction). The condition makes
 *    the counts move exactly once per transition: a second run finds the value already there and
 *    writes nothing;
 *    An ERC-1155 per-id balance change also moves the id's `heldSupply` and `holders` on its NFT
 *    instance item in that transaction (conditional on the `heldSupply` it replaces);
 *  - an ERC-721 owner change is one transaction: the instance and both owners' holdings; the write
 *    that first makes an instance (ERC-721 or ERC-1155) counts it on its contract (`nftInstances`
 *    +1), a reorg's delete of it uncounts it (-1), in the instance's transaction;
 *  - counts are only ever moved, never recomputed: a transition of an item that carries no count
 *    (written before the counts existed) leaves X10 as it is rather than below zero, and a reorg
 *    leaves the counters of a contract whose item it has already deleted alone;
 *  - collections (X2) and token details are recomputed from the items above and put whole, which is
 *    idempotent.
 * Entities are named by strings (`BAL|...`, `NFT|...`, `COL|...`, `ADDR|...`) that the block's
 * manifest lists, so that a reorg can recompute exactly what orphaned blocks touched.
 * Pattern ids (X1, G3 ...): see docs/access-patterns.md.
 */
import { deleteItem, inParallel, transactWrite, updateItem, writeItems, type TransactItem } from '../db/operations';
import { addressKeys, chainKeys, holderKeys, keyId, nftKeys, typeSetsWritten, type ItemKey } from '../table/keys';
import { compactBalance } from '../table/compact';
import { resolveTokenMetadata } from '../chain/decode';
import { MAX_TOKEN_URI_BYTES } from '../chain/token-metadata';
import type { NftState, TokenInfo } from './chain-state';
import { allEnded } from './all-ended';
import { MAX_TRANSACT_ITEMS, planBalanceLanes } from './balance-lanes';
import { countRange, getItem, getItems, queryRange } from './table-io';
import {
  MAX_COPIED_DATA_BYTES,
  type AddressRecord,
  type BalanceCountsRecord,
  type BalanceRecord,
  type EmbeddedNftInstance,
  type IndexedTokenStandard,
  type NftCollectionRecord,
  type NftHoldingRecord,
  type NftInstanceRecord,
  type NftSupplySource,
} from '../table/records';

/** Reads and conditional writes of one state change before giving up (see readThenWrite). */
const MAX_ATTEMPTS = 4;
/**
 * The most bytes of items (as JSON, an over-estimate of DynamoDB's sizes) one transaction of
 * setNewNftInstances carries: DynamoDB takes 4 MB a transaction, an instance up to 400 KB.
 */
const INSTANCES_TRANSACTION_BYTES = 1_000_000;

/**
 * What setBalances left:
 * - `values`: each changed balance's value, by balance key (`keyId(balanceKey(...))`): the change's, or the
 *   stored one when that is newer (a newer stored balance is kept);
 * - `heldSupplies`: the ERC-1155 ids' held supplies (an instance's `heldSupply`, which its transactions
 *   move), by instance key (`keyId(nftKeys.instance(...))`), after the last transaction;
 * - `exact` unless a transaction was refused (or a balance written twice) and written one by one, which
 *   reads and writes on its own: `heldSupplies` may miss its moves then (read the instances again).
 */
export interface BalancesLeft {
  exact: boolean;
  values: Map<string, bigint>;
  heldSupplies: Map<string, string>;
}

/** One NFT instance as the batch read it at `blockNumber` (setNftInstance's arguments but the contract). */
export interface InstanceWrite {
  standard: 'ERC-721' | 'ERC-1155';
  tokenId: bigint;
  state: NftState;
  blockNumber: number;
  /** Recorded on a new item (default `blockNumber`). */
  firstSeenBlock?: number;
}

type Stored<T> = T & ItemKey;

// ---------------------------------------------------------------------------------------------------
// Entity names (the manifest's `touched` list)

export interface BalanceEntity {
  holder: string;
  token: string;
  standard: IndexedTokenStandard;
  /** ERC-1155 id; null for ERC-20, ERC-721 and the ERC-1155 total of a holder. */
  tokenId: bigint | null;
}

export const entity = {
  balance: (b: BalanceEntity): string => `BAL|${b.holder}|${b.token}|${b.standard}|${b.tokenId ?? '-'}`,
  nft: (contract: string, standard: 'ERC-721' | 'ERC-1155', tokenId: bigint): string => `NFT|${contract}|${standard}|${tokenId}`,
  collection: (holder: string, contract: string, standard: 'ERC-721' | 'ERC-1155'): string => `COL|${holder}|${contract}|${standard}`,
  address: (address: string): string => `ADDR|${address}`,
};

export type ParsedEntity =
  | ({ type: 'BAL' } & BalanceEntity)
  | { type: 'NFT'; contract: string; standard: 'ERC-721' | 'ERC-1155'; tokenId: bigint }
  | { type: 'COL'; holder: string; contract: string; standard: 'ERC-721' | 'ERC-1155' }
  | { type: 'ADDR'; address: string };

export function parseEntity(name: string): ParsedEntity {
  const [type, ...parts] = name.split('|');
  const field = (position: number): string => {
    const value = parts[position];
    if (value === undefined) throw new Error(`malformed state entity ${name}`);
    return value;
  };
  switch (type) {
    case 'BAL':
      return {
        type,
        holder: field(0),
        token: field(1),
        standard: field(2) as IndexedTokenStandard,
        tokenId: field(3) === '-' ? null : BigInt(field(3)),
      };
    case 'NFT':
      return { type, contract: field(0), standard: field(1) as 'ERC-721' | 'ERC-1155', tokenId: BigInt(field(2)) };
    case 'COL':
      return { type, holder: field(0), contract: field(1), standard: field(2) as 'ERC-721' | 'ERC-1155' };
    case 'ADDR':
      return { type, address: field(0) };
    default:
      throw new Error(`unknown state entity ${name}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Address items (X7 / G3) and names (N11)

export interface AddressUpdate {
  address: string;
  /** The creation, at `blockNumber` (default: the block of the update). */
  creation?: { creator: string; transactionHash: string; blockNumber?: number } | null;
  /** Set all token fields (a token seen for the first time, or probed again). */
  token?: TokenInfo | null;
  /** Refresh only the total supply of a known token. */
  totalSupply?: string | null;
}

export class StateWriter {
  constructor(private readonly chainId: number) {}

  /**
   * Creates or updates the address item of a contract, first seen at `blockNumber` (kept when the
   * item exists) and updated at `updatedAtBlock` (default: the same block).
   */
  async updateAddress(update: AddressUpdate, blockNumber: number, updatedAtBlock = blockNumber): Promise<void> {
    const names: Record<string, string> = { '#kind': 'kind', '#chainId': 'chainId', '#address': 'address' };
    const values: Record<string, unknown> = {
      ':kind': 'address',
      ':chainId': this.chainId,
      ':address': update.address,
      ':true': true,
      ':block': blockNumber,
      ':updated': updatedAtBlock,
      ':null': null,
    };
    const sets = [
      '#kind = :kind',
      '#chainId = :chainId',
      '#address = :address',
      'isContract = :true',
      'firstSeenBlock = if_not_exists(firstSeenBlock, :block)',
      'updatedAtBlock = :updated',
      'creator = if_not_exists(creator, :null)',
      'creationTransactionHash = if_not_exists(creationTransactionHash, :null)',
      'creationBlockNumber = if_not_exists(creationBlockNumber, :null)',
    ];
    if (update.creation) {
      sets.splice(6, 3, 'creator = :creator', 'creationTransactionHash = :creationTx', 'creationBlockNumber = :creationBlock');
      values[':creator'] = update.creation.creator;
      values[':creationTx'] = update.creation.transactionHash;
      values[':creationBlock'] = update.creation.blockNumber ?? blockNumber;
    }
    if (update.token !== undefined) {
      const token = update.token;
      sets.push(
        'tokenType = :tokenType',
        'tokenName = :tokenName',
        'tokenSymbol = :tokenSymbol',
        'tokenDecimals = :tokenDecimals',
        'tokenTotalSupply = :totalSupply',
        'tokenNameTruncated = :nameTruncated',
        'tokenSymbolTruncated = :symbolTruncated',
        'tokenDetailsAt = :detailsAt',
        'tokenDetailsBlock = :detailsBlock',
      );
      Object.assign(values, {
        ':tokenType': token?.type ?? null,
        ':tokenName': token?.name ?? null,
        ':tokenSymbol': token?.symbol ?? null,
        ':tokenDecimals': token?.decimals ?? null,
        ':totalSupply': token?.totalSupply ?? null,
        ':nameTruncated': token?.nameTruncated ?? false,
        ':symbolTruncated': token?.symbolTruncated ?? false,
        ':detailsAt': token?.readAt ?? null,
        ':detailsBlock': token?.readAtBlock ?? null,
      });
      if (token) {
        // The counters the transitions move (ADD), present from the start, so that a token's item is
        // the same whether or not a reorg moved them there and back.
        sets.push('holders = if_not_exists(holders, :zero)');
        if (token.type === 'ERC-721' || token.type === 'ERC-1155') sets.push('nftInstances = if_not_exists(nftInstances, :zero)');
        if (token.type === 'ERC-1155') sets.push('idHolders = if_not_exists(idHolders, :zero)');
        values[':zero'] = 0;
      }
    } else {
      sets.push(
        'tokenType = if_not_exists(tokenType, :null)',
        'tokenName = if_not_exists(tokenName, :null)',
        'tokenSymbol = if_not_exists(tokenSymbol, :null)',
        'tokenDecimals = if_not_exists(tokenDecimals, :null)',
      );
      if (update.totalSupply !== undefined) {
        sets.push('tokenTotalSupply = :totalSupply');
        values[':totalSupply'] = update.totalSupply;
      } else {
        sets.push('tokenTotalSupply = if_not_exists(tokenTotalSupply, :null)');
      }
    }
    const outcome = await updateItem<Pick<AddressRecord, 'tokenSymbol'>>({
      Key: addressKeys.address(this.chainId, update.address),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeNames: names,
      // DynamoDB refuses values the expression does not use.
      ExpressionAttributeValues: Object.fromEntries(Object.entries(values).filter(([name]) => sets.some((set) => set.includes(name)))),
      ...(update.token !== undefined ? { ReturnValues: 'UPDATED_OLD' as const } : {}),
    });
    // Details read again under another symbol (a renamed or re-created token): the old name no longer
    // resolves to it (the caller registers the new one).
    const oldSymbol = outcome.applied ? outcome.attributes?.tokenSymbol : undefined;
    if (update.token !== undefined && oldSymbol && normalName(oldSymbol) !== normalName(update.token?.symbol ?? '')) {
      await this.unregisterName(oldSymbol, update.address);
    }
  }

  /** Registers a token symbol (idempotent: a string set). Two tokens with one symbol make it ambiguous. */
  async registerName(symbol: string, token: string): Promise<void> {
    const name = normalName(symbol);
    if (!name) return;
    await Promise.all([
      updateItem({
        Key: addressKeys.name(this.chainId, name),
        UpdateExpression: 'SET #kind = :kind, chainId = :chainId, #name = :name ADD addresses :token',
        ExpressionAttributeNames: { '#kind': 'kind', '#name': 'name' },
        ExpressionAttributeValues: { ':kind': 'name', ':chainId': this.chainId, ':name': name, ':token': new Set([token]) },
      }),
      // The same name across chains (N11): one key for a request naming it on several chains.
      updateItem({
        Key: addressKeys.nameOnChains(name),
        UpdateExpression: 'SET #kind = :kind, #name = :name ADD entries :entry',
        ExpressionAttributeNames: { '#kind': 'kind', '#name': 'name' },
        ExpressionAttributeValues: { ':kind': 'nameOnChains', ':name': name, ':entry': new Set([`${this.chainId}:${token}`]) },
      }),
    ]);
  }

  async unregisterName(symbol: string, token: string): Promise<void> {
    const name = normalName(symbol);
    if (!name) return;
    const key = addressKeys.name(this.chainId, name);
    await updateItem({ Key: key, UpdateExpression: 'DELETE addresses :token', ExpressionAttributeValues: { ':token': new Set([token]) } });
    const item = await getItem<{ addresses?: Set<string> }>(key);
    if (item && (!item.addresses || item.addresses.size === 0)) await deleteItem({ Key: key });
    const across = addressKeys.nameOnChains(name);
    await updateItem({
      Key: across,
      UpdateExpression: 'DELETE entries :entry',
      ExpressionAttributeValues: { ':entry': new Set([`${this.chainId}:${token}`]) },
    });
    const entries = await getItem<{ entries?: Set<string> }>(across);
    // Every chain's ingest writes this item: delete it only if it is still empty (DynamoDB drops an
    // emptied set), so that another chain's entry added meanwhile stays.
    if (entries && (!entries.entries || entries.entries.size === 0)) {
      await deleteItem({ Key: across, ConditionExpression: 'attribute_not_exists(entries)' });
    }
  }

  async deleteAddress(address: string): Promise<void> {
    await deleteItem({ Key: addressKeys.address(this.chainId, address) });
  }

  // -------------------------------------------------------------------------------------------------
  // Balances (G3, X1) and holder counts

  /**
   * Moves one balance to `value` (read on chain at the end of the batch that touched it last at
   * `blockNumber`): see the file comment. `value` 0 deletes the balance (and so its index entries).
   * Nothing is written when the stored item already holds `value` at `blockNumber`, or (unless
   * `force`, used by reorgs) when it is from a later block. An unchanged value touched again is
   * written with the new block, so `updatedAtBlock` is the last block that touched the balance
   * whatever the batch boundaries.
   */
  async setBalance(
    balance: BalanceEntity,
    value: bigint,
    blockNumber: number,
    tokenName: string,
    options: { force?: boolean; prefetched?: Map<string, BalanceRecord>; tokenItemExists?: boolean } = {},
  ): Promise<void> {
    const force = options.force ?? false;
    const key = this.balanceKey(balance);
    await readThenWrite(`balance ${key.pk} ${key.sk}`, async (attempt) => {
      const stored =
        attempt === 0 && options.prefetched
          ? (options.prefetched.get(keyId(key)) as Stored<BalanceRecord> | undefined)
          : await getItem<Stored<BalanceRecord>>(key);
      if (stored && !force && stored.updatedAtBlock > blockNumber) return undefined;
      const old = stored ? BigInt(stored.value) : 0n;
      // Unchanged (and, for a stored balance, already recorded at this block): nothing to write.
      if (old === value && (value === 0n || (stored?.tokenName === tokenName && stored.updatedAtBlock === blockNumber))) return undefined;
      const perId = isPerId(balance);
      // A listed balance reaching zero: the holder's counts decide whether X10 is decremented or deleted.
      const [instance, counts] = await Promise.all([
        perId && old !== value
          ? getItem<Stored<NftInstanceRecord>>(nftKeys.instance(this.chainId, balance.token, balance.tokenId!))
          : undefined,
        isListed(balance) && old !== 0n && value === 0n
          ? getItem<BalanceCountsRecord>(addressKeys.balanceCounts(this.chainId, balance.holder))
          : undefined,
      ]);
      return this.balanceTransition(balance, key, stored, value, blockNumber, tokenName, {
        instance,
        counts,
        tokenItemExists: options.tokenItemExists ?? true,
      });
    });
  }

  balanceKey(balance: BalanceEntity): ItemKey {
    return addressKeys.balance(this.chainId, balance.holder, balance.token, balance.tokenId ?? undefined);
  }

  /** The stored balance items of many entities in one BatchGetItem, by keyId. */
  async getBalances(balances: readonly BalanceEntity[]): Promise<Map<string, BalanceRecord>> {
    return getItems<BalanceRecord>(balances.map((balance) => this.balanceKey(balance)));
  }

  /**
   * The batch's balance transitions (token-level balances, ERC-1155 per-id balances and totals), each
   * as setBalance writes it, grouped into TransactWriteItems of up to 100 operations
   * (balance-lanes.ts): the counters a transaction's transitions move are merged into one operation
   * per item: `holders` / `idHolders` by the sum of their +1 / -1, an ERC-1155 id's held supply and
   * holders by the sum of the balances' moves (conditional on the held supply read), and the holder's
   * X10 counts by the counts read and moved in order, conditional on the counts read. Transactions
   * that share a counter run in sequence, the others in parallel (`concurrency`). A transaction
   * refused by a condition (another writer moved an item since it was read) writes nothing, and its
   * transitions and the rest of its lane are written again one by one by setBalance, which reads them
   * again.
   */
  async setBalances(
    changes: readonly BalanceChange[],
    options: {
      prefetched: Map<string, BalanceRecord>;
      concurrency: number;
      /** Writes the transactions wait for (the batch's address items: the counters ADD to them); the reads do not. */
      after?: Promise<unknown>;
    },
  ): Promise<BalancesLeft> {
    const pending: PendingTransition[] = [];
    const values = new Map<string, bigint>();
    // Two changes of one balance item (one token moved as ERC-20 in one block and as ERC-721 in another:
    // the item's key has no standard) cannot share a transaction: the later ones go one by one after.
    const keys = new Set<string>();
    const later: BalanceChange[] = [];
    for (const change of changes) {
      const { balance, value, blockNumber, tokenName } = change;
      const key = this.balanceKey(balance);
      const stored = options.prefetched.get(keyId(key)) as Stored<BalanceRecord> | undefined;
      const newerStored = stored !== undefined && stored.updatedAtBlock > blockNumber;
      values.set(keyId(key), newerStored ? BigInt(stored.value) : value);
      if (keys.has(keyId(key))) {
        later.push(change);
        continue;
      }
      keys.add(keyId(key));
      if (newerStored) continue;
      const old = stored ? BigInt(stored.value) : 0n;
      if (old === value && (value === 0n || (stored?.tokenName === tokenName && stored.updatedAtBlock === blockNumber))) continue;
      const crossing = (old === 0n) !== (value === 0n);
      const perId = isPerId(balance);
      const movesSupply = perId && old !== value;
      const shared = [
        ...(crossing ? [`token|${balance.token}`, ...(isListed(balance) ? [`holder|${balance.holder}`] : [])] : []),
        ...(movesSupply ? [supplyId(balance)] : []),
      ];
      pending.push({
        change,
        key,
        stored,
        delta: value === 0n ? -1 : 1,
        crossing,
        movesCounts: crossing && isListed(balance),
        movesSupply,
        shared,
        operations: perId ? 2 : 1,
      });
    }
    let after = { exact: true, heldSupplies: new Map<string, string>() };
    if (pending.length > 0) after = await this.writeLanes(pending, options.concurrency, options.after);
    else await options.after;
    for (const change of later) await this.setBalance(change.balance, change.value, change.blockNumber, change.tokenName);
    return { exact: after.exact && !later.some((change) => isPerId(change.balance)), values, heldSupplies: after.heldSupplies };
  }

  /** setBalances' transactions: the holders' counts and the ids' held supplies read once, then the lanes (balance-lanes.ts). */
  private async writeLanes(
    pending: readonly PendingTransition[],
    concurrency: number,
    after?: Promise<unknown>,
  ): Promise<Omit<BalancesLeft, 'values'>> {
    // The X10 counts of the holders a transition takes a count from, read once (the others only add),
    // and the instances whose held supply moves, in one BatchGetItem.
    const decrementing = new Set(pending.filter((p) => p.delta === -1 && p.movesCounts).map((p) => p.change.balance.holder));
    const supplies = new Map<string, { token: string; tokenId: bigint }>();
    for (const { change, movesSupply } of pending)
      if (movesSupply) supplies.set(supplyId(change.balance), { token: change.balance.token, tokenId: change.balance.tokenId! });
    const [read] = await allEnded([
      getItems<BalanceCountsRecord | Stored<NftInstanceRecord>>([
        ...[...decrementing].map((holder) => addressKeys.balanceCounts(this.chainId, holder)),
        ...[...supplies.values()].map(({ token, tokenId }) => nftKeys.instance(this.chainId, token, tokenId)),
      ]),
      after,
    ]);
    const counts = new Map<string, BalanceCountsRecord | undefined>(
      [...decrementing].map((holder) => [
        holder,
        read.get(keyId(addressKeys.balanceCounts(this.chainId, holder))) as BalanceCountsRecord | undefined,
      ]),
    );
    const heldSupplies = new Map<string, string | undefined>(
      [...supplies].map(([id, { token, tokenId }]) => [
        id,
        (read.get(keyId(nftKeys.instance(this.chainId, token, tokenId))) as Stored<NftInstanceRecord> | undefined)?.heldSupply,
      ]),
    );

    const lanes = planBalanceLanes(pending);
    let exact = true;
    await inParallel(lanes, concurrency, async (lane) => {
      for (const [position, chunk] of lane.entries()) {
        const transitions = chunk.flatMap((index) => pending[index] ?? []);
        const written = await this.writeTransitions(transitions, counts, heldSupplies);
        if (written) continue;
        exact = false;
        // Refused: this transaction and the rest of the lane, one by one, read again.
        for (const { change } of lane
          .slice(position)
          .flat()
          .flatMap((index) => pending[index] ?? [])) {
          await this.setBalance(change.balance, change.value, change.blockNumber, change.tokenName);
        }
        return;
      }
    });
    // The held supplies as the transactions left them, by instance key (exact unless one fell back).
    const byInstance = new Map<string, string>();
    for (const [id, { token, tokenId }] of supplies) {
      const held = heldSupplies.get(id);
      if (held !== undefined) byInstance.set(keyId(nftKeys.instance(this.chainId, token, tokenId)), held);
    }
    return { exact, heldSupplies: byInstance };
  }

  /** One transaction of setBalances: whether it committed (`counts` and `heldSupplies` then follow what it wrote). */
  private async writeTransitions(
    transitions: readonly PendingTransition[],
    counts: Map<string, BalanceCountsRecord | undefined>,
    heldSupplies: Map<string, string | undefined>,
  ): Promise<boolean> {
    const items: TransactItem[] = [];
    const counterDeltas = new Map<string, { holders: number; idHolders: number; idCrossings: number }>();
    const countMoves = new Map<string, { standard: IndexedTokenStandard; delta: 1 | -1 }[]>();
    const supplyMoves = new Map<string, { token: string; tokenId: bigint; moved: bigint; holders: number; crossings: number }>();
    for (const { change, key, stored, delta, crossing, movesCounts, movesSupply } of transitions) {
      items.push(
        ...this.balanceTransition(
          change.balance,
          key,
          stored,
          change.value,
          change.blockNumber,
          change.tokenName,
          { instance: undefined, counts: undefined, tokenItemExists: true },
          false,
        ),
      );
      const { token, holder, standard, tokenId } = change.balance;
      if (movesSupply) {
        const id = supplyId(change.balance);
        const move = supplyMoves.get(id) ?? { token, tokenId: tokenId!, moved: 0n, holders: 0, crossings: 0 };
        move.moved += change.value - (stored ? BigInt(stored.value) : 0n);
        if (crossing) {
          move.holders += delta;
          move.crossings += 1;
        }
        supplyMoves.set(id, move);
      }
      if (!crossing) continue;
      const deltas = counterDeltas.get(token) ?? { holders: 0, idHolders: 0, idCrossings: 0 };
      if (isPerId(change.balance)) {
        deltas.idHolders += delta;
        deltas.idCrossings += 1;
      } else deltas.holders += delta;
      counterDeltas.set(token, deltas);
      if (movesCounts) {
        const moves = countMoves.get(holder);
        if (moves) moves.push({ standard, delta });
        else countMoves.set(holder, [{ standard, delta }]);
      }
    }
    // A token's counters: `holders` when it moves; `idHolders` whenever an id's holder came or went (an ADD
    // of 0 too, as one by one's +1 then -1 leave the attribute).
    for (const [token, { holders, idHolders, idCrossings }] of counterDeltas) {
      const moved: Partial<Record<ContractCounter, number>> = {};
      if (holders !== 0) moved.holders = holders;
      if (idCrossings > 0) moved.idHolders = idHolders;
      if (Object.keys(moved).length > 0) items.push(this.contractCounterMove(token, moved));
    }
    const suppliesAfter = new Map<string, string>();
    for (const [id, { token, tokenId, moved, holders, crossings }] of supplyMoves) {
      const before = heldSupplies.get(id);
      items.push(this.heldSupplyUpdate(token, tokenId, before, BigInt(before ?? '0') + moved, crossings > 0 ? holders : undefined));
      suppliesAfter.set(id, (BigInt(before ?? '0') + moved).toString());
    }
    const after = new Map<string, BalanceCountsRecord | undefined>();
    for (const [holder, moves] of countMoves) {
      const move = this.mergedCountMove(holder, moves, counts);
      if (move.item) items.push(move.item);
      if (counts.has(holder)) after.set(holder, move.after);
    }
    const outcome = await transactWrite(items);
    if (!outcome.committed) return false;
    for (const [holder, record] of after) counts.set(holder, record);
    for (const [id, held] of suppliesAfter) heldSupplies.set(id, held);
    return true;
  }

  /**
   * A holder's X10 counts moved by several transitions in one operation, as balanceCountMove would
   * move them one by one: +1 adds (creating the item), -1 takes one from a positive count only, a
   * count that reaches zero is removed and the item goes with its last count. A holder whose counts
   * were not read (no transition takes from them) gets ADDs; one whose counts were read gets the
   * counts it ends with, conditional on those it read.
   */
  private mergedCountMove(
    holder: string,
    moves: readonly { standard: IndexedTokenStandard; delta: 1 | -1 }[],
    counts: Map<string, BalanceCountsRecord | undefined>,
  ): { item: TransactItem | undefined; after: BalanceCountsRecord | undefined } {
    const Key = addressKeys.balanceCounts(this.chainId, holder);
    const kind: BalanceCountsRecord['kind'] = 'balanceCounts';
    const touched = [...new Set(moves.map((move) => move.standard))];
    const names: Record<string, string> = { '#kind': 'kind', '#holder': 'holder' };
    for (const [position, standard] of touched.entries()) names[`#s${position}`] = standard;
    if (!counts.has(holder)) {
      const added = touched.map((standard) => moves.filter((move) => move.standard === standard).length);
      return {
        item: {
          Update: {
            Key,
            UpdateExpression: `SET #kind = :kind, chainId = :chainId, #holder = :holder ADD ${touched.map((_, position) => `#s${position} :a${position}`).join(', ')}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ':kind': kind,
              ':chainId': this.chainId,
              ':holder': holder,
              ...Object.fromEntries(added.map((count, position) => [`:a${position}`, count])),
            },
          },
        },
        after: undefined,
      };
    }
    const read = counts.get(holder);
    const result: Partial<Record<IndexedTokenStandard, number>> = {};
    for (const standard of COUNTED_STANDARDS) if ((read?.[standard] ?? 0) > 0) result[standard] = read![standard];
    for (const { standard, delta } of moves) {
      const count = result[standard] ?? 0;
      if (delta === 1) result[standard] = count + 1;
      else if (count > 1) result[standard] = count - 1;
      else delete result[standard];
    }
    const unchanged = touched.every((standard) => (result[standard] ?? 0) === ((read?.[standard] ?? 0) > 0 ? read![standard] : 0));
    if (unchanged) return { item: undefined, after: read };
    // Conditional on every count read (an item read absent: on its absence): a concurrent move of any
    // of them refuses the transaction.
    const conditionNames: Record<string, string> = {};
    const conditionValues: Record<string, unknown> = {};
    const conditions = COUNTED_STANDARDS.map((standard, position) => {
      conditionNames[`#c${position}`] = standard;
      const value = read?.[standard];
      if (value === undefined) return `attribute_not_exists(#c${position})`;
      conditionValues[`:c${position}`] = value;
      return `#c${position} = :c${position}`;
    });
    const condition = read
      ? { ConditionExpression: conditions.join(' AND '), names: conditionNames, values: conditionValues }
      : { ConditionExpression: 'attribute_not_exists(pk)', names: {}, values: {} };
    if (Object.keys(result).length === 0) {
      // (Only a read item can end with no counts: one read absent that ends so is unchanged.)
      return {
        item: {
          Delete: {
            Key,
            ConditionExpression: condition.ConditionExpression,
            ExpressionAttributeNames: condition.names,
            ...(Object.keys(condition.values).length > 0 ? { ExpressionAttributeValues: condition.values } : {}),
          },
        },
        after: undefined,
      };
    }
    const values: Record<string, unknown> = { ':kind': kind, ':chainId': this.chainId, ':holder': holder };
    const sets = ['#kind = :kind', 'chainId = :chainId', '#holder = :holder'];
    const removes: string[] = [];
    for (const [position, standard] of touched.entries()) {
      const count = result[standard];
      if (count === undefined) removes.push(`#s${position}`);
      else {
        sets.push(`#s${position} = :s${position}`);
        values[`:s${position}`] = count;
      }
    }
    return {
      item: {
        Update: {
          Key,
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeNames: { ...names, ...condition.names },
          ExpressionAttributeValues: { ...values, ...condition.values },
        },
      },
      after: { kind, chainId: this.chainId, holder, ...result },
    };
  }

  private balanceTransition(
    balance: BalanceEntity,
    key: ItemKey,
    stored: Stored<BalanceRecord> | undefined,
    value: bigint,
    blockNumber: number,
    tokenName: string,
    read: { instance: Stored<NftInstanceRecord> | undefined; counts: BalanceCountsRecord | undefined; tokenItemExists: boolean },
    /** Without the counters (X10, X7, an ERC-1155 id's held supply): setBalances writes them merged, once per transaction. */
    counters = true,
  ): TransactItem[] {
    const old = stored ? BigInt(stored.value) : 0n;
    const condition = stored
      ? {
          ConditionExpression: '#value = :oldValue AND updatedAtBlock = :oldBlock',
          ExpressionAttributeNames: { '#value': 'value' },
          ExpressionAttributeValues: { ':oldValue': stored.value, ':oldBlock': stored.updatedAtBlock },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    const record: BalanceRecord = {
      kind: 'balance',
      chainId: this.chainId,
      holder: balance.holder,
      token: balance.token,
      tokenStandard: balance.standard,
      tokenId: balance.tokenId === null ? null : balance.tokenId.toString(),
      value: value.toString(),
      tokenName,
      updatedAtBlock: blockNumber,
    };
    // T1: the token's holders are the positive balance items themselves, on gsi2; X1: the holder's
    // balances by value are the same items, on gsi3 (a Put without the attributes, or the Delete at
    // zero, takes the item out of an index; a changed value or name moves its entry).
    const holderIndex =
      value > 0n && isOnHolderIndex(balance) ? holderKeys.listing(this.chainId, balance.token, balance.tokenId, value, balance.holder) : {};
    const listing =
      value > 0n && isListed(balance)
        ? addressKeys.balanceListing(this.chainId, balance.holder, balance.standard, value, tokenName, balance.token, balance.tokenId)
        : {};
    const items: TransactItem[] = [
      value === 0n
        ? { Delete: { Key: key, ...condition } }
        : { Put: { Item: { ...compactBalance({ ...record, ...holderIndex, ...listing }, key), ...key }, ...condition } },
    ];
    const crossing = (old === 0n) !== (value === 0n);
    const delta = value === 0n ? -1 : 1;
    if (isListed(balance) && counters) {
      // X10: the one operation of this transaction on the holder's counts.
      if (crossing) items.push(...this.balanceCountMove(balance.holder, balance.standard, delta, read.counts));
    }
    const perId = isPerId(balance);
    if (perId) {
      const holdingKey = {
        pk: addressKeys.nftHoldings(this.chainId, balance.holder).pk,
        sk: addressKeys.nftHoldingSortKey('ERC-1155', balance.token, balance.tokenId!),
      };
      if (value === 0n) items.push({ Delete: { Key: holdingKey } });
      else
        items.push({
          Put: { Item: { ...holding(this.chainId, balance.holder, balance.token, 'ERC-1155', balance.tokenId!, value), ...holdingKey } },
        });
      // (setBalances moves the id's held supply once per transaction, for all its holders.)
      if (old !== value && counters) items.push(this.heldSupplyMove(balance.token, balance.tokenId!, old, value, read.instance));
    }
    // The token's counters (X7), in ONE update (a transaction may not touch an item twice): `holders`
    // for a token-level balance (ERC-20, ERC-721, the ERC-1155 total), `idHolders` for an ERC-1155 id.
    // Not when the token's item is gone (a reorg deleted it): an ADD would create a bare item.
    if (crossing && read.tokenItemExists && counters)
      items.push(this.contractCounterMove(balance.token, { [perId ? 'idHolders' : 'holders']: delta }));
    return items;
  }

  /**
   * The holder's X10 counts follow one listed balance of `standard` leaving (+1) or reaching (-1)
   * zero. A count is stored only while it is positive, and the item only while one is: a count that
   * reaches zero is removed and the last one deletes the item. So the item is the same whatever the
   * batch boundaries, and a reorg that orphans every balance of a holder leaves no trace of it, as a
   * fresh ingest of the chain would (tests compare both item for item). A decrement depends on the
   * counts read (`counts`), so it is conditional on them still leading where it goes: a concurrent
   * transition of another of the holder's tokens fails the condition and the change is read again. A
   * balance the counts do not hold (written before they existed) is not subtracted.
   */
  private balanceCountMove(
    holder: string,
    standard: IndexedTokenStandard,
    delta: 1 | -1,
    counts: BalanceCountsRecord | undefined,
  ): TransactItem[] {
    const Key = addressKeys.balanceCounts(this.chainId, holder);
    if (delta === 1) {
      // (Created, or created again after its last count went: its fields are set each time.)
      const kind: BalanceCountsRecord['kind'] = 'balanceCounts';
      return [
        {
          Update: {
            Key,
            UpdateExpression: 'SET #kind = :kind, chainId = :chainId, #holder = :holder ADD #std :one',
            ExpressionAttributeNames: { '#kind': 'kind', '#holder': 'holder', '#std': standard },
            ExpressionAttributeValues: { ':kind': kind, ':chainId': this.chainId, ':holder': holder, ':one': 1 },
          },
        },
      ];
    }
    const count = counts?.[standard] ?? 0;
    if (count <= 0) return [];
    if (count > 1) {
      return [
        {
          Update: {
            Key,
            UpdateExpression: 'ADD #std :minusOne',
            ConditionExpression: '#std > :one',
            ExpressionAttributeNames: { '#std': standard },
            ExpressionAttributeValues: { ':minusOne': -1, ':one': 1 },
          },
        },
      ];
    }
    const others = COUNTED_STANDARDS.filter((other) => other !== standard);
    const names: Record<string, string> = { '#std': standard };
    for (const [position, other] of others.entries()) names[`#o${position}`] = other;
    const othersPositive = others.map((_, position) => `#o${position} > :zero`).join(' OR ');
    const values = { ':one': 1, ':zero': 0 };
    return [
      others.some((other) => (counts?.[other] ?? 0) > 0)
        ? {
            Update: {
              Key,
              UpdateExpression: 'REMOVE #std',
              ConditionExpression: `#std = :one AND (${othersPositive})`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          }
        : {
            Delete: {
              Key,
              ConditionExpression: `#std = :one AND NOT (${othersPositive})`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          },
    ];
  }

  /** ADDs to counters on a contract's address item (X7): one Update, whatever the counters. */
  private contractCounterMove(contract: string, deltas: Partial<Record<ContractCounter, number>>): TransactItem {
    const entries = Object.entries(deltas);
    return {
      Update: {
        Key: addressKeys.address(this.chainId, contract),
        UpdateExpression: `ADD ${entries.map((_, position) => `#c${position} :c${position}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], position) => [`#c${position}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, delta], position) => [`:c${position}`, delta])),
      },
    };
  }

  /**
   * The id's held supply and holder count follow one holder's balance of the id from `old` to
   * `value`: heldSupply += value - old (conditional on the stored heldSupply, so it moves once per
   * transition), holders +1 / -1 when the balance leaves / reaches zero. Creates the instance item
   * (these two attributes only) when the NFT instance step has not written it yet.
   */
  private heldSupplyMove(
    token: string,
    tokenId: bigint,
    old: bigint,
    value: bigint,
    instance: Stored<NftInstanceRecord> | undefined,
  ): TransactItem {
    const before = instance?.heldSupply;
    const crossing = (old === 0n) !== (value === 0n);
    return this.heldSupplyUpdate(
      token,
      tokenId,
      before,
      BigInt(before ?? '0') + value - old,
      crossing ? (value === 0n ? -1 : 1) : undefined,
    );
  }

  /**
   * The id's held supply set from `before` (as read: the condition) to `held`, and its `holders` moved
   * by `holdersDelta` when holders came or went (undefined: none did).
   */
  private heldSupplyUpdate(
    token: string,
    tokenId: bigint,
    before: string | undefined,
    held: bigint,
    holdersDelta: number | undefined,
  ): TransactItem {
    const values: Record<string, unknown> = { ':held': held.toString() };
    if (before !== undefined) values[':before'] = before;
    if (holdersDelta !== undefined) values[':delta'] = holdersDelta;
    return {
      Update: {
        Key: nftKeys.instance(this.chainId, token, tokenId),
        UpdateExpression: `SET heldSupply = :held${holdersDelta !== undefined ? ' ADD holders :delta' : ''}`,
        ConditionExpression: before === undefined ? 'attribute_not_exists(heldSupply)' : 'heldSupply = :before',
        ExpressionAttributeValues: values,
      },
    };
  }

  /** The ERC-1155 total of a holder in a token: the sum of its holdings (per-id balances). */
  async sumErc1155Holdings(holder: string, token: string): Promise<bigint> {
    let sum = 0n;
    for (const value of (await this.erc1155Holdings(holder, token)).values()) sum += value;
    return sum;
  }

  /** A holder's ERC-1155 holdings of a token, as stored: token id (decimal) -> value. */
  async erc1155Holdings(holder: string, token: string): Promise<Map<string, bigint>> {
    const holdings = await queryRange<NftHoldingRecord>(addressKeys.nftHoldingsOf(this.chainId, holder, 'ERC-1155', token));
    return new Map(holdings.map((item) => [item.tokenId, BigInt(item.value)]));
  }

  // -------------------------------------------------------------------------------------------------
  // NFT instances (G3) and ERC-721 holdings

  /**
   * Writes an NFT instance as read at `blockNumber`. For ERC-721 an owner change also moves the
   * holding from the previous owner to the new one, in the same transaction. For ERC-1155 the total
   * supply is `state.totalSupply` (the contract's totalSupply(id)) when it answered, else the id's
   * `heldSupply` as the balance transitions left it (they run before this step). The item is
   * updated attribute by attribute so that the counters the balance transitions keep stay. A new
   * item records `options.firstSeenBlock` (default `blockNumber`) as the block it was first seen at.
   */
  async setNftInstance(
    contract: string,
    standard: 'ERC-721' | 'ERC-1155',
    tokenId: bigint,
    state: NftState,
    blockNumber: number,
    options: { force?: boolean; firstSeenBlock?: number; prefetched?: Map<string, NftInstanceRecord> } = {},
  ): Promise<void> {
    const key = nftKeys.instance(this.chainId, contract, tokenId);
    await readThenWrite(`NFT instance ${key.pk} ${key.sk}`, async (attempt) => {
      const stored =
        attempt === 0 && options.prefetched
          ? (options.prefetched.get(keyId(key)) as Stored<NftInstanceRecord> | undefined)
          : await getItem<Stored<NftInstanceRecord>>(key);
      const write = this.instanceWrite(
        { contract, standard, tokenId, state, blockNumber, firstSeenBlock: options.firstSeenBlock },
        stored,
        {
          force: options.force ?? false,
        },
      );
      if (!write) return undefined;
      // The instance's condition makes this move once. The contract's item exists: the batch writes
      // it (the contract emitted the transfer) before any state of its tokens.
      return write.counts ? [...write.items, this.contractCounterMove(contract, { nftInstances: 1 })] : write.items;
    });
  }

  /**
   * Writes instances of ONE contract that this step has not written before (each counts on the
   * contract's `nftInstances`: a batch's mints) in as few transactions as DynamoDB takes (at most
   * MAX_TRANSACT_ITEMS operations and INSTANCES_TRANSACTION_BYTES of items each), each counting its
   * instances with one ADD to the contract's item; they run in sequence (they share that item), not one
   * transaction per instance: a block that mints a thousand tokens of one contract waits on ten round
   * trips, not a thousand. A transaction refused by a condition (an instance written since `prefetched`
   * was read) writes nothing: its instances and the rest are written one by one by setNftInstance,
   * which reads them again.
   */
  async setNewNftInstances(contract: string, writes: readonly InstanceWrite[], prefetched: Map<string, NftInstanceRecord>): Promise<void> {
    const chunks: { writes: InstanceWrite[]; items: TransactItem[]; bytes: number; counted: number }[] = [];
    for (const write of writes) {
      const stored = prefetched.get(keyId(nftKeys.instance(this.chainId, contract, write.tokenId))) as
        | Stored<NftInstanceRecord>
        | undefined;
      const planned = this.instanceWrite({ ...write, contract }, stored, { force: false });
      if (!planned) continue;
      const bytes = Buffer.byteLength(JSON.stringify(planned.items));
      let chunk = chunks.at(-1);
      // (+1: the contract's counter.)
      if (
        !chunk ||
        chunk.items.length + planned.items.length + 1 > MAX_TRANSACT_ITEMS ||
        chunk.bytes + bytes > INSTANCES_TRANSACTION_BYTES
      ) {
        chunk = { writes: [], items: [], bytes: 0, counted: 0 };
        chunks.push(chunk);
      }
      chunk.writes.push(write);
      chunk.items.push(...planned.items);
      chunk.bytes += bytes;
      if (planned.counts) chunk.counted += 1;
    }
    for (const [position, chunk] of chunks.entries()) {
      const items = chunk.counted > 0 ? [...chunk.items, this.contractCounterMove(contract, { nftInstances: chunk.counted })] : chunk.items;
      if ((await transactWrite(items)).committed) continue;
      for (const write of chunks.slice(position).flatMap((rest) => rest.writes))
        await this.setNftInstance(contract, write.standard, write.tokenId, write.state, write.blockNumber, {
          firstSeenBlock: write.firstSeenBlock,
        });
      return;
    }
  }

  /**
   * The operations that write one instance as read at `blockNumber` over `stored` (undefined: nothing
   * to write), without the contract's counter: `counts` says whether the write makes it an instance
   * (the contract counts it then). Conditional on the instance being as read.
   */
  private instanceWrite(
    write: InstanceWrite & { contract: string },
    stored: Stored<NftInstanceRecord> | undefined,
    options: { force: boolean },
  ): { items: TransactItem[]; counts: boolean } | undefined {
    const { contract, standard, tokenId, state, blockNumber } = write;
    const key = nftKeys.instance(this.chainId, contract, tokenId);
    // Written by this step before (an item the ERC-1155 balance transitions created holds only their
    // counters): the contract counts the instance from the write that first makes it one.
    const written = stored?.updatedAtBlock !== undefined;
    if (written && !options.force && stored!.updatedAtBlock > blockNumber) return undefined;
    // Token URIs over 128 KB of UTF-8 (on-chain SVGs) are not stored: the item must stay under 400 KB.
    const tokenUri = state.tokenUri !== null && Buffer.byteLength(state.tokenUri) > MAX_TOKEN_URI_BYTES ? null : state.tokenUri;
    const supply = instanceSupply(standard, state.totalSupply, stored?.heldSupply);
    if (
      written &&
      stored!.updatedAtBlock === blockNumber &&
      stored!.owner === state.owner &&
      stored!.tokenUri === tokenUri &&
      stored!.totalSupply === supply.totalSupply &&
      stored!.totalSupplySource === supply.totalSupplySource
    ) {
      return undefined;
    }
    const metadata = resolveTokenMetadata(state.tokenUri);
    const record: NftInstanceRecord = {
      kind: 'nftInstance',
      chainId: this.chainId,
      contract,
      tokenStandard: standard,
      tokenId: tokenId.toString(),
      owner: state.owner,
      tokenUri,
      metadataStatus: metadata.status,
      metadataJson: metadata.metadataJson,
      totalSupply: supply.totalSupply,
      totalSupplySource: supply.totalSupplySource,
      firstSeenBlock: stored?.firstSeenBlock ?? write.firstSeenBlock ?? blockNumber,
      updatedAtBlock: blockNumber,
    };
    const condition = this.instanceCondition(stored, supply.totalSupplySource === 'holders');
    const names: Record<string, string> = { ...condition.names };
    const values: Record<string, unknown> = { ...condition.values };
    const sets = Object.entries(record).map(([name, value], position) => {
      names[`#f${position}`] = name;
      values[`:f${position}`] = value;
      return `#f${position} = :f${position}`;
    });
    const items: TransactItem[] = [
      {
        Update: {
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ];
    if (standard === 'ERC-721') items.push(...this.ownerMove(contract, tokenId, stored?.owner ?? null, state.owner));
    return { items, counts: !written };
  }

  /** The stored instance items of many NFTs in one BatchGetItem, by keyId. */
  async getNftInstances(nfts: readonly { contract: string; tokenId: bigint }[]): Promise<Map<string, NftInstanceRecord>> {
    return getItems<NftInstanceRecord>(nfts.map((nft) => nftKeys.instance(this.chainId, nft.contract, nft.tokenId)));
  }

  /**
   * Deletes an instance first seen in an orphaned block, with the holding of its recorded owner, and
   * uncounts it on the contract's item unless `contractItemExists` is false (a reorg that deleted the
   * contract's item with a newer chunk of orphaned blocks: an ADD would create a bare item).
   */
  async deleteNftInstance(contract: string, tokenId: bigint, options: { contractItemExists?: boolean } = {}): Promise<void> {
    const key = nftKeys.instance(this.chainId, contract, tokenId);
    const stored = await getItem<Stored<NftInstanceRecord>>(key);
    if (!stored) return;
    const condition = this.instanceCondition(stored, false);
    const items: TransactItem[] = [
      {
        Delete: {
          Key: key,
          ConditionExpression: condition.expression,
          ...(Object.keys(condition.names).length > 0 ? { ExpressionAttributeNames: condition.names } : {}),
          ...(Object.keys(condition.values).length > 0 ? { ExpressionAttributeValues: condition.values } : {}),
        },
      },
    ];
    if (stored.tokenStandard === 'ERC-721') items.push(...this.ownerMove(contract, tokenId, stored.owner, null));
    // Counted when setNftInstance wrote it (not an item holding only the ERC-1155 counters).
    if (stored.updatedAtBlock !== undefined && (options.contractItemExists ?? true))
      items.push(this.contractCounterMove(contract, { nftInstances: -1 }));
    if (!(await transactWrite(items)).committed) throw new StateChangedError(`NFT instance ${key.pk} ${key.sk} changed since it was read`);
  }

  async getNftInstance(contract: string, tokenId: bigint): Promise<NftInstanceRecord | undefined> {
    return getItem<NftInstanceRecord>(nftKeys.instance(this.chainId, contract, tokenId));
  }

  /**
   * The instance must still be as read: the same `updatedAtBlock` (or, for an item only the balance
   * transitions have written so far, still none; or no item at all) and, when the supply was taken
   * from it, the same `heldSupply`.
   */
  private instanceCondition(stored: Stored<NftInstanceRecord> | undefined, onHeldSupply: boolean) {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    if (!stored) return { expression: 'attribute_not_exists(pk)', names, values };
    const parts: string[] = [];
    if (stored.updatedAtBlock === undefined) parts.push('attribute_not_exists(updatedAtBlock)');
    else {
      parts.push('updatedAtBlock = :oldBlock');
      values[':oldBlock'] = stored.updatedAtBlock;
    }
    if (onHeldSupply) {
      if (stored.heldSupply === undefined) parts.push('attribute_not_exists(heldSupply)');
      else {
        parts.push('heldSupply = :oldHeld');
        values[':oldHeld'] = stored.heldSupply;
      }
    }
    return { expression: parts.join(' AND '), names, values };
  }

  private ownerMove(contract: string, tokenId: bigint, from: string | null, to: string | null): TransactItem[] {
    if (from === to) return [];
    const sk = addressKeys.nftHoldingSortKey('ERC-721', contract, tokenId);
    const items: TransactItem[] = [];
    if (from) items.push({ Delete: { Key: { pk: addressKeys.nftHoldings(this.chainId, from).pk, sk } } });
    if (to) {
      const pk = addressKeys.nftHoldings(this.chainId, to).pk;
      items.push({ Put: { Item: { ...holding(this.chainId, to, contract, 'ERC-721', tokenId, 1n), pk, sk } } });
    }
    return items;
  }

  // -------------------------------------------------------------------------------------------------
  // NFT collections (X2)

  /**
   * The token ids of the first `limit` holdings of each collection (in G4 order, id descending), by
   * collectionId: read before a batch writes, they name the instances a refresh after it may embed
   * (with the ids the batch moves: `CollectionRefresh.candidates`), so that it reads those with the rest.
   */
  async readCollectionPrefixes(
    collections: readonly { holder: string; contract: string; standard: 'ERC-721' | 'ERC-1155'; limit: number }[],
  ): Promise<Map<string, string[]>> {
    const holdings = await this.collectionHoldings(collections);
    return new Map([...holdings].map(([id, entries]) => [id, entries.map((holding) => holding.tokenId)]));
  }

  /** Each collection's first `limit` holdings (G4 order, id descending), by collectionId: Queries, 64 at once. */
  private async collectionHoldings(
    collections: readonly { holder: string; contract: string; standard: 'ERC-721' | 'ERC-1155'; limit: number }[],
  ): Promise<Map<string, NftHoldingRecord[]>> {
    const read = new Map<string, NftHoldingRecord[]>();
    await inParallel(collections, COLLECTION_QUERIES_IN_PARALLEL, async ({ holder, contract, standard, limit }) => {
      read.set(
        collectionId(holder, contract, standard),
        await queryRange<NftHoldingRecord>(addressKeys.nftHoldingsOf(this.chainId, holder, standard, contract), { limit }),
      );
    });
    return read;
  }

  /**
   * Rebuilds holders' collection entries (X2) from the stored state, after the batch's (or a rollback's)
   * state writes: each one's amount (ERC-721 balance item, ERC-1155 total item) and the 9 highest token
   * ids held (holdings range) with their instances; the entries are deleted when the holder holds
   * nothing of the collection. For all at once: one round of reads
   * (each collection's first 9 holdings, Queries; one BatchGetItem of the amounts' balance items, the
   * ERC-721 holders' address items and the instances the entries may embed, `candidates`), then one
   * write for all. An entry's instance not among the candidates (or with none given) is read in a
   * second round, as is the size of an ERC-1155 holdings range of 9 or more.
   */
  async refreshCollections(collections: readonly CollectionRefresh[]): Promise<void> {
    if (collections.length === 0) return;
    const instanceKey = (contract: string, tokenId: string | bigint) => nftKeys.instance(this.chainId, contract, BigInt(tokenId));
    const candidateKeys = new Map<string, ItemKey>();
    for (const { contract, candidates } of collections)
      for (const tokenId of candidates ?? []) {
        const key = instanceKey(contract, tokenId);
        candidateKeys.set(keyId(key), key);
      }
    const [holdingsRead, found] = await Promise.all([
      this.collectionHoldings(collections.map((c) => ({ ...c, limit: 9 }))),
      getItems<BalanceRecord | AddressRecord | NftInstanceRecord>([
        ...collections.map(({ holder, contract }) => addressKeys.balance(this.chainId, holder, contract)),
        ...collections.filter(({ standard }) => standard === 'ERC-721').map(({ holder }) => addressKeys.address(this.chainId, holder)),
        ...candidateKeys.values(),
      ]),
    ]);
    // Instances the candidates did not name: one more read.
    const missed = new Map<string, ItemKey>();
    const holdingsOf = ({ holder, contract, standard }: CollectionRefresh) =>
      holdingsRead.get(collectionId(holder, contract, standard)) ?? [];
    for (const collection of collections)
      for (const entry of holdingsOf(collection)) {
        const key = instanceKey(collection.contract, entry.tokenId);
        if (!candidateKeys.has(keyId(key))) missed.set(keyId(key), key);
      }
    if (missed.size > 0) for (const [id, item] of await getItems<NftInstanceRecord>([...missed.values()])) found.set(id, item);

    const puts: (ItemKey & Record<string, unknown>)[] = [];
    const deletes: ItemKey[] = [];
    await inParallel(collections, 8, async (collection) => {
      const { holder, contract, standard, blockNumber } = collection;
      const holdings = holdingsOf(collection);
      // Its standard's range and ALL only (keys.ts typeSetsWritten).
      const keys = typeSetsWritten(standard).map((typeSet) => ({
        pk: addressKeys.nftCollections(this.chainId, holder, typeSet).pk,
        sk: addressKeys.nftCollectionSortKey(standard, contract),
      }));
      const balance = found.get(keyId(addressKeys.balance(this.chainId, holder, contract))) as BalanceRecord | undefined;
      const amount = balance ? BigInt(balance.value) : 0n;
      if (amount === 0n && holdings.length === 0) {
        deletes.push(...keys);
        return;
      }
      // ERC-721 entries show the holder as each instance's owner: whether it has an address item as of
      // the entry's block is recorded on the entry (`holderIsContract`).
      const holderItem = found.get(keyId(addressKeys.address(this.chainId, holder))) as AddressRecord | undefined;
      const embedded: EmbeddedNftInstance[] = holdings.map((entry) => {
        const instance = found.get(keyId(instanceKey(contract, entry.tokenId))) as NftInstanceRecord | undefined;
        const json = instance?.metadataJson ?? null;
        const uri = instance?.tokenUri ?? null;
        const fits = (text: string | null) => text === null || Buffer.byteLength(text) <= MAX_COPIED_DATA_BYTES;
        // The URI and metadata status are not embedded: E2 shows neither. `omitted` still says whether
        // either was too large, so E2 joins the same instances as before.
        return {
          tokenId: entry.tokenId,
          value: entry.value,
          metadataJson: fits(json) ? json : null,
          omitted: !fits(uri) || !fits(json),
          totalSupply: instance?.totalSupply ?? null,
        };
      });
      const held = amount > 0n ? amount : BigInt(holdings.length);
      // ERC-1155: the size of the holdings range; counted only when the 9 read do not already tell.
      const distinctTokenIds =
        standard === 'ERC-721'
          ? Number(held)
          : holdings.length < 9
            ? holdings.length
            : await countRange(addressKeys.nftHoldingsOf(this.chainId, holder, standard, contract));
      const record: NftCollectionRecord = {
        kind: 'nftCollection',
        chainId: this.chainId,
        holder,
        contract,
        tokenStandard: standard,
        amount: held.toString(),
        distinctTokenIds,
        instances: embedded,
        // An item first seen after the entry's block (a reorg deletes it with that block) does not count.
        ...(standard === 'ERC-721' ? { holderIsContract: holderItem !== undefined && holderItem.firstSeenBlock <= blockNumber } : {}),
        updatedAtBlock: blockNumber,
      };
      puts.push(...keys.map((key) => ({ ...record, ...key })));
    });
    await writeItems({ put: puts, delete: deletes });
  }

  // -------------------------------------------------------------------------------------------------

  async getAddress(address: string): Promise<AddressRecord | undefined> {
    return getItem<AddressRecord>(addressKeys.address(this.chainId, address));
  }

  async getAddresses(addresses: readonly string[]): Promise<Map<string, AddressRecord>> {
    const found = await getItems<AddressRecord>(addresses.map((address) => addressKeys.address(this.chainId, address)));
    return new Map([...found.values()].map((item) => [item.address, item]));
  }

  /**
   * The ingest's own chain registry entry; written once, with the chain's first batch. `namesOnChains`:
   * every name this chain registers is also in its item across chains (registerName), so readers may
   * take a chain missing from that item as not having the name (a chain registered before has no flag).
   */
  async registerChain(firstBlock: number): Promise<void> {
    await updateItem({
      Key: chainKeys.registry(this.chainId),
      UpdateExpression:
        'SET #kind = :kind, chainId = :chainId, firstBlock = if_not_exists(firstBlock, :firstBlock), namesOnChains = if_not_exists(namesOnChains, :true)',
      ExpressionAttributeNames: { '#kind': 'kind' },
      ExpressionAttributeValues: { ':kind': 'chain', ':chainId': this.chainId, ':firstBlock': firstBlock, ':true': true },
    });
  }
}

/** A holder's collection to rebuild (refreshCollections) as of `blockNumber`. */
export interface CollectionRefresh {
  holder: string;
  contract: string;
  standard: 'ERC-721' | 'ERC-1155';
  blockNumber: number;
  /** Token ids whose instances the entries may embed, read with the rest (readCollectionPrefixes). */
  candidates?: Iterable<string>;
}

/** Holdings Queries of the collections' refresh sent at once (as the position lookups). */
const COLLECTION_QUERIES_IN_PARALLEL = 64;

/** A collection's id in refreshCollections' maps. */
export const collectionId = (holder: string, contract: string, standard: string): string => `${holder}|${contract}|${standard}`;

/** A balance moved to `value`, as recorded at `blockNumber` with its token's name (setBalances). */
export interface BalanceChange {
  balance: BalanceEntity;
  value: bigint;
  blockNumber: number;
  tokenName: string;
}

interface PendingTransition {
  change: BalanceChange;
  key: ItemKey;
  stored: Stored<BalanceRecord> | undefined;
  delta: 1 | -1;
  /** The balance leaves or reaches zero. */
  crossing: boolean;
  /** It moves its holder's X10 counts (a listed balance crossing zero). */
  movesCounts: boolean;
  /** It moves its ERC-1155 id's held supply (a per-id balance that changes). */
  movesSupply: boolean;
  /**
   * The counter items it moves (balance-lanes.ts): its token's and (listed) its holder's when it crosses
   * zero, its id's instance when it moves the held supply.
   */
  shared: string[];
  /** Its own operations: the balance item, and a per-id balance's holding item. */
  operations: number;
}

/** The standards a holder's X10 item counts (nothing is indexed as ERC-404). */
const COUNTED_STANDARDS: readonly IndexedTokenStandard[] = ['ERC-20', 'ERC-721', 'ERC-1155'];

/** The counters the ingest keeps on a contract's address item (X7). */
type ContractCounter = Extract<keyof AddressRecord, 'holders' | 'idHolders' | 'nftInstances'>;

/**
 * Whether a positive balance is listed on X1 (its gsi3 key), and so counts in the holder's X10 item:
 * every balance but the ERC-1155 total of a holder (its ids are listed one by one).
 */
function isListed(balance: BalanceEntity): boolean {
  return !(balance.standard === 'ERC-1155' && balance.tokenId === null);
}

/** An ERC-1155 id's balance (not the holder's total in the token). */
function isPerId(balance: BalanceEntity): boolean {
  return balance.standard === 'ERC-1155' && balance.tokenId !== null;
}

/** The shared item (balance-lanes.ts) an ERC-1155 id's balance moves: its instance's held supply. */
const supplyId = (balance: BalanceEntity): string => `instance|${balance.token}|${balance.tokenId}`;

/**
 * Whether a positive balance is one of its token's holders on T1 (gsi2): ERC-20 balances and ERC-1155
 * per-id balances. ERC-721 owners are the instances' (G3); the ERC-1155 total is not listed.
 */
function isOnHolderIndex(balance: BalanceEntity): boolean {
  return balance.standard === 'ERC-20' || isPerId(balance);
}

/** A token symbol as a name (N11) registers it. */
function normalName(symbol: string): string {
  return symbol.trim().toLowerCase();
}

/** Thrown when a state item kept changing between this writer's read and its conditional write. */
export class StateChangedError extends Error {
  override name = 'StateChangedError';
}

/**
 * One state change: `attempt` reads the stored items and returns the transaction that moves them on,
 * conditional on what it read (undefined: nothing to write). When a condition fails (someone changed
 * an item in between) the change is read and tried again, at most MAX_ATTEMPTS times.
 */
async function readThenWrite(what: string, attempt: (attempt: number) => Promise<TransactItem[] | undefined>): Promise<void> {
  for (let round = 0; round < MAX_ATTEMPTS; round += 1) {
    const items = await attempt(round);
    if (!items || (await transactWrite(items)).committed) return;
  }
  throw new StateChangedError(`${what} changed under this writer ${MAX_ATTEMPTS} times`);
}

/** The total supply an instance records (see NftInstanceRecord.totalSupply). */
function instanceSupply(
  standard: 'ERC-721' | 'ERC-1155',
  read: string | null,
  heldSupply: string | undefined,
): { totalSupply: string | null; totalSupplySource: NftSupplySource | null } {
  if (standard === 'ERC-721') return { totalSupply: null, totalSupplySource: null };
  return read !== null
    ? { totalSupply: read, totalSupplySource: 'totalSupply' }
    : { totalSupply: heldSupply ?? '0', totalSupplySource: 'holders' };
}

function holding(
  chainId: number,
  holder: string,
  contract: string,
  standard: 'ERC-721' | 'ERC-1155',
  tokenId: bigint,
  value: bigint,
): NftHoldingRecord {
  return { kind: 'nftHolding', chainId, holder, contract, tokenStandard: standard, tokenId: tokenId.toString(), value: value.toString() };
}
