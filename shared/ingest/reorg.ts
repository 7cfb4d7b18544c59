/**
 * Reorgs. When the next block's parent hash is not the cursor's hash (or the cursor's block is no
 * longer canonical), the ingest:
 *   1. walks back from the cursor, comparing the stored block hash with the node's, to the newest
 *      block both agree on: the common ancestor A (in strides, then a binary search: `findAncestor`;
 *      at most `maxDepth` blocks back, else it stops: ReorgTooDeepError, nothing written);
 *   2. tells the listeners (listeners.ts) which blocks it undoes, then
 *      deletes every item listed in the manifests of the blocks above A (including blocks past the
 *      cursor that a crash left half written: up to the cursor's `pendingTo`);
 *   3. recomputes every state entity those manifests touched, from chain state read AT block A
 *      (balances, holder counts, NFT owners and holdings, collections, token supplies); addresses
 *      and NFT instances first seen above A are deleted (with their registered names);
 *   4. deletes those manifests, then moves the cursor back to A (conditional update).
 * Steps 2-4 go newest first, 64 blocks at a time, the cursor moved below each chunk. Before any of
 * it, every block above A must have its manifest, or never have been written: a block whose manifest
 * expired (its TTL, manifest.ts) while its items are stored cannot be undone, and the rollback stops
 * there with nothing written (ManifestExpiredError, handled like a reorg past the window).
 * A crash anywhere in there leaves the cursor on the orphaned block, so the next run detects the
 * same reorg and repeats the procedure; each step is idempotent, and the manifests are deleted only
 * once the state they name is recomputed.
 */
import { inParallel, queryPage, rangeQuery, updateItem, writeItems } from '../db/operations';
import { expandInternalTransaction, expandTransaction } from '../table/compact';
import { addressKeys, blockKey, blockKeys, type TableItem, transactionKeys } from '../table/keys';
import { withAnswers, type ChainState } from './chain-state';
import type { BlockSource } from './fetch-block';
import { notifyBlocksOrphaned, type IngestListener } from './listeners';
import type { IngestLog } from './log';
import {
  DEFAULT_MANIFEST_RETENTION_DAYS,
  deleteManifest,
  hasManifest,
  lastPossiblyWritten,
  manifestsExpired,
  moveCursor,
  readManifest,
  type BlockManifest,
} from './manifest';
import type { AddressRecord, BlockRecord, CursorRecord, IndexedTokenStandard, InternalTransactionRecord } from '../table/records';
import { TOKEN_DETAILS_REFRESH_SECONDS } from './batch';
import { isNativeEntity, undoNativeState } from './native-state';
import { isHeadsEntity, rebuildRangeHeads } from './range-heads';
import { parseEntity, type BalanceEntity, type ParsedEntity, type StateWriter } from './state';
import { getItem, queryRange } from './table-io';

/** A reorg the ingest cannot repair: it stops, nothing written, its status `stopped` with the message (IngestStopped). */
export class ReorgTooDeepError extends Error {
  override name = 'ReorgTooDeepError';
}

/**
 * A block to undo (orphaned, or left half written past the cursor) whose manifest expired while its
 * items are stored: the ingest stops as for a reorg past the window (a ReorgTooDeepError).
 */
export class ManifestExpiredError extends ReorgTooDeepError {
  override name = 'ManifestExpiredError';

  constructor(chainId: number, blocks: readonly number[], retentionDays: number) {
    const shown = blocks.length > 10 ? `${blocks.slice(0, 10).join(', ')} ... (${blocks.length} blocks)` : blocks.join(', ');
    super(
      `chain ${chainId}: manifest of block${blocks.length === 1 ? '' : 's'} ${shown} expired (INGEST_MANIFEST_RETENTION_DAYS=${retentionDays}): cannot undo ${blocks.length === 1 ? 'it' : 'them'}; raise the retention or re-ingest`,
    );
  }
}

const CONCURRENCY = 8;

/** Deepest reorg the ingest repairs by default (IngestOptions.maxReorgDepth, INGEST_MAX_REORG_DEPTH, --max-reorg-depth). */
export const DEFAULT_MAX_REORG_DEPTH = 1_024;

/** Orphaned blocks undone per step of a rollback (a stopped run resumes from the last step). */
export const UNDO_CHUNK_BLOCKS = 64;

export class Reorg {
  constructor(
    private readonly chainId: number,
    private readonly source: BlockSource,
    private readonly chainState: ChainState,
    private readonly state: StateWriter,
    private readonly log: IngestLog,
    private readonly maxDepth: number,
    private readonly listeners: readonly IngestListener[],
    /** Of the manifests (manifest.ts), for the message of a ManifestExpiredError. */
    private readonly manifestRetentionDays: number = DEFAULT_MANIFEST_RETENTION_DAYS,
  ) {}

  /**
   * Throws ManifestExpiredError when a block of `numbers` has no (whole) manifest while its block
   * item is stored (`hashes`: of blocks written again identically, which need none). One GetItem per
   * block without a manifest (manifest.ts manifestsExpired).
   */
  async refuseExpired(numbers: readonly number[], hashes?: ReadonlyMap<number, string>): Promise<void> {
    if (numbers.length === 0) return;
    const expired = await manifestsExpired(this.chainId, numbers, hashes);
    if (expired.length > 0) throw new ManifestExpiredError(this.chainId, expired, this.manifestRetentionDays);
  }

  /**
   * The common ancestor of the stored chain and the node's: the newest block whose stored hash is the
   * node's. Hashes agree below a fork and differ above it, so it is searched for with few calls: the
   * blocks 1, 2, 4, 8 ... below the cursor until one agrees (at most `maxDepth` below the cursor),
   * then a binary search between the last that differed and the first that agreed (about
   * 2·log2(depth) probes, each one GetItem beside one eth_getBlockByNumber). Throws ReorgTooDeepError
   * when no block within `maxDepth` agrees, or the fork is below the first indexed block: nothing is
   * written then.
   */
  async findAncestor(cursor: CursorRecord): Promise<BlockRecord> {
    const floor = Math.max(cursor.firstBlock, cursor.blockNumber - this.maxDepth);
    const agreeing = async (number: number): Promise<BlockRecord | undefined> => {
      const [stored, canonical] = await Promise.all([
        getItem<BlockRecord>(blockKeys.block(this.chainId, number)),
        this.source.blockHashAt(BigInt(number)),
      ]);
      return stored && canonical && stored.hash === canonical ? stored : undefined;
    };
    let differs = cursor.blockNumber + 1; // lowest block known to differ (the cursor's own is checked first)
    let agrees: BlockRecord | undefined;
    for (let step = 1; agrees === undefined; step *= 2) {
      const number = Math.max(floor, differs - step);
      agrees = await agreeing(number);
      if (agrees) break;
      differs = number;
      if (number === floor) {
        throw new ReorgTooDeepError(
          floor === cursor.firstBlock && cursor.blockNumber - cursor.firstBlock <= this.maxDepth
            ? `chain ${this.chainId}: the reorg reaches below the first indexed block ${cursor.firstBlock} (cursor at ${cursor.blockNumber})`
            : `chain ${this.chainId}: reorg deeper than ${this.maxDepth} blocks: no common ancestor within ${this.maxDepth} blocks of ${cursor.blockNumber}`,
        );
      }
    }
    while (differs - agrees.number > 1) {
      const middle = Math.floor((agrees.number + differs) / 2);
      const found = await agreeing(middle);
      if (found) agrees = found;
      else differs = middle;
    }
    return agrees;
  }

  /** Rolls the table back to the common ancestor of the stored chain and the node's; returns the new cursor. */
  async rollBack(cursor: CursorRecord): Promise<CursorRecord> {
    return this.undoTo(cursor, await this.findAncestor(cursor));
  }

  /**
   * Undoes every block above `ancestor`, newest first, `UNDO_CHUNK_BLOCKS` blocks at a time: each
   * chunk's items deleted and touched state recomputed AT the ancestor, its manifests deleted, then the
   * cursor moved below the chunk (onto an orphaned block while chunks remain: a run that stops there
   * finds the same reorg and carries on from it), and to the ancestor at the end.
   */
  async undoTo(cursor: CursorRecord, ancestor: BlockRecord): Promise<CursorRecord> {
    let current = cursor;
    let top = lastPossiblyWritten(cursor);
    // Every block to undo has its manifest, or was never written: checked before anything is written.
    for (let high = top; high > ancestor.number; high -= UNDO_CHUNK_BLOCKS) {
      const numbers: number[] = [];
      for (let block = Math.max(ancestor.number + 1, high - UNDO_CHUNK_BLOCKS + 1); block <= high; block += 1) numbers.push(block);
      const present = await Promise.all(numbers.map((block) => hasManifest(this.chainId, block)));
      await this.refuseExpired(numbers.filter((_, position) => !present[position]));
    }
    this.log.warn('reorg: rolling back to the common ancestor', {
      chainId: this.chainId,
      cursor: cursor.blockNumber,
      ancestor: ancestor.number,
      depth: cursor.blockNumber - ancestor.number,
    });
    while (top > ancestor.number) {
      const lowest = Math.max(ancestor.number + 1, top - UNDO_CHUNK_BLOCKS + 1);
      const numbers: number[] = [];
      for (let block = lowest; block <= top; block += 1) numbers.push(block);
      const orphaned: BlockManifest[] = [];
      const read = await Promise.all(numbers.map((block) => readManifest(this.chainId, block)));
      // (Checked above; again here, for a manifest DynamoDB deleted since: the chunks done stay done.)
      await this.refuseExpired(numbers.filter((_, position) => !read[position]?.complete));
      // (An incomplete manifest left is a write a crash cut: of a block none of whose items were written, or
      // of a block written in slices, cut between its parts; either way it lists whatever was written.)
      for (const manifest of read) if (manifest) orphaned.push(manifest);
      this.log.warn('reorg: undoing orphaned blocks', {
        chainId: this.chainId,
        ancestor: ancestor.number,
        orphanedBlocks: orphaned.map((manifest) => ({ number: manifest.blockNumber, hash: manifest.blockHash })),
      });
      await this.undoManifests(orphaned, ancestor.number);
      await inParallel(orphaned, CONCURRENCY, (manifest) => deleteManifest(this.chainId, manifest.blockNumber));
      const below = lowest - 1;
      const next =
        below === ancestor.number
          ? { blockNumber: ancestor.number, blockHash: ancestor.hash, blockTimestamp: ancestor.timestamp }
          : await this.storedBlock(below);
      // (A chunk wholly past the cursor, of blocks it announced, leaves the cursor where it is.)
      if (next.blockNumber < current.blockNumber) current = await moveCursor(this.chainId, current, next, cursor.firstBlock);
      top = below;
    }
    return current;
  }

  /** The cursor fields of a stored (orphaned) block the rollback moves the cursor onto between chunks. */
  private async storedBlock(number: number): Promise<{ blockNumber: number; blockHash: string; blockTimestamp: number }> {
    const stored = await getItem<BlockRecord>(blockKeys.block(this.chainId, number));
    if (!stored) throw new Error(`chain ${this.chainId}: block ${number} below the cursor is not stored`);
    return { blockNumber: stored.number, blockHash: stored.hash, blockTimestamp: stored.timestamp };
  }

  /** Deletes what the manifests' blocks wrote and recomputes what they touched, as of block `ancestor`. */
  async undoManifests(manifests: readonly BlockManifest[], ancestor: number): Promise<void> {
    await notifyBlocksOrphaned(this.listeners, {
      chainId: this.chainId,
      blocks: manifests.map((manifest) => ({ number: manifest.blockNumber, hash: manifest.blockHash })),
    });
    await writeItems({ delete: manifests.flatMap((manifest) => manifest.items) });
    const names = [...new Set(manifests.flatMap((manifest) => manifest.touched))];
    // Range heads (range-heads.ts) again as of the ancestor, from the entries left.
    await rebuildRangeHeads(
      this.chainId,
      names.filter(isHeadsEntity).map((name) => name.slice('HEADS|'.length)),
      ancestor,
    );
    await this.recompute(names.filter((name) => !isNativeEntity(name) && !isHeadsEntity(name)).map(parseEntity), ancestor);
    // After the recompute: the address items of contracts first seen above the ancestor are gone.
    await undoNativeState(this.chainId, names.filter(isNativeEntity), ancestor, this.chainState, this.log);
  }

  private async recompute(touched: ParsedEntity[], ancestor: number): Promise<void> {
    const at = BigInt(ancestor);
    const balances = touched.filter((e): e is Extract<ParsedEntity, { type: 'BAL' }> => e.type === 'BAL');
    const nfts = touched.filter((e): e is Extract<ParsedEntity, { type: 'NFT' }> => e.type === 'NFT');
    const collections = touched.filter((e): e is Extract<ParsedEntity, { type: 'COL' }> => e.type === 'COL');
    const addresses = [
      ...new Set([
        ...touched.flatMap((e) => (e.type === 'ADDR' ? [e.address] : [])),
        ...balances.map((e) => e.token),
        ...nfts.map((e) => e.contract),
      ]),
    ];
    const items = await this.state.getAddresses(addresses);
    const withCode = await this.chainState.contractsAmong(addresses, at);
    const orphan = (address: string): boolean => {
      const item = items.get(address);
      return (item !== undefined && item.firstSeenBlock > ancestor) || !withCode.has(address);
    };
    const tokenName = (token: string): string => items.get(token)?.tokenName ?? '';
    // A contract's counters (holders, idHolders, nftInstances) move only while its item is there: a
    // newer chunk of this rollback (or an interrupted run of it) may have deleted it already, and an
    // ADD would create a bare item. (Its balances and instances are all above the ancestor, so all go.)
    const hasItem = (address: string): boolean => items.has(address);

    // Balances: per-id and token-level first, then ERC-1155 totals from the holdings.
    const direct = balances.filter((e) => !(e.standard === 'ERC-1155' && e.tokenId === null));
    const readable = direct.filter((e) => !orphan(e.token));
    const values = await this.chainState.balances(readable, at);
    const valueByEntry = new Map(readable.map((e, position) => [e, values[position] ?? 0n]));
    await inParallel(byToken(direct), CONCURRENCY, async (group) => {
      for (const balance of group)
        await this.state.setBalance(balance, valueByEntry.get(balance) ?? 0n, ancestor, tokenName(balance.token), {
          force: true,
          tokenItemExists: hasItem(balance.token),
        });
    });
    const totals = balances.filter((e) => e.standard === 'ERC-1155' && e.tokenId === null);
    await inParallel(byToken(totals), CONCURRENCY, async (group) => {
      for (const total of group) {
        await this.state.setBalance(
          total,
          await this.state.sumErc1155Holdings(total.holder, total.token),
          ancestor,
          tokenName(total.token),
          { force: true, tokenItemExists: hasItem(total.token) },
        );
      }
    });

    // NFT instances.
    const instances = await Promise.all(nfts.map((nft) => this.state.getNftInstance(nft.contract, nft.tokenId)));
    const keep = nfts.filter(
      (nft, position) => instances[position] && instances[position]!.firstSeenBlock <= ancestor && !orphan(nft.contract),
    );
    const drop = nfts.filter((nft, position) => instances[position] && !keep.includes(nft));
    const states = await this.chainState.nfts(keep, at);
    // One contract's deletes in sequence: each moves the contract's instance count (one item).
    await inParallel(byContract(drop), CONCURRENCY, async (group) => {
      for (const nft of group) await this.state.deleteNftInstance(nft.contract, nft.tokenId, { contractItemExists: hasItem(nft.contract) });
    });
    await inParallel(
      withAnswers(keep, states).map(([nft, state]) => ({ nft, state })),
      CONCURRENCY,
      ({ nft, state }) => this.state.setNftInstance(nft.contract, nft.standard, nft.tokenId, state, ancestor, { force: true }),
    );

    // Collections, from the recomputed balances and holdings.
    await this.state.refreshCollections(collections.map((c) => ({ ...c, blockNumber: ancestor })));

    // Contracts: delete those first seen above the ancestor; of the others, restore what an undone
    // block set (a creation, token details read at a creation or a refresh) as of the ancestor, and
    // refresh the supply of the tokens.
    const kept = [...items.values()].filter((item) => item.firstSeenBlock <= ancestor);
    const { creations, reread } = await this.undoneDetails(kept, ancestor, withCode);
    const details = await this.chainState.probeTokens(new Map([...reread.values()].map(({ item, hint }) => [item.address, hint])), at);
    const tokens = kept.filter((item) => (reread.has(item.address) ? details.get(item.address) : item.tokenType) && !orphan(item.address));
    const supplies = await this.chainState.totalSupplies(
      tokens.map((item) => item.address),
      at,
    );
    await inParallel([...items.values()], CONCURRENCY, async (item: AddressRecord) => {
      if (item.firstSeenBlock > ancestor) {
        if (item.tokenSymbol) await this.state.unregisterName(item.tokenSymbol, item.address);
        await this.state.deleteAddress(item.address);
        return;
      }
      if (creations.has(item.address)) await this.setCreation(item.address, creations.get(item.address) ?? null);
      const again = reread.get(item.address);
      if (again) {
        const info = details.get(item.address) ?? null;
        const token = info && {
          ...info,
          totalSupply: supplies.has(item.address) ? (supplies.get(item.address) ?? null) : info.totalSupply,
          readAt: again.readAt,
          readAtBlock: again.readAtBlock,
        };
        await this.state.updateAddress({ address: item.address, token }, ancestor);
        if (token?.symbol) await this.state.registerName(token.symbol, item.address);
      } else if (supplies.has(item.address)) {
        await this.state.updateAddress({ address: item.address, totalSupply: supplies.get(item.address) ?? null }, ancestor);
      }
    });
  }

  /**
   * Of address items kept by a rollback to `ancestor`, what undone blocks set:
   *  - `creations`: the items whose creation is in an undone block (the contract destroyed and created
   *    again there), with the creation as of the ancestor: the newest the table holds at or below it
   *    (`creationAt`), or null when there is none;
   *  - `reread`: the items whose token details were read in an undone block (a creation's probe, a
   *    refresh or a first transfer: `tokenDetailsAt` at or after the ancestor's time, or a creation
   *    above it), to be read again at the ancestor (those without code there keep theirs). Their time
   *    is that of the creation as of the ancestor when it is within the refresh period of the
   *    ancestor (the last read a clean ingest made is that creation's), else the ancestor's.
   */
  private async undoneDetails(
    kept: readonly AddressRecord[],
    ancestor: number,
    withCode: ReadonlySet<string>,
  ): Promise<{
    creations: Map<string, Creation | null>;
    reread: Map<string, { item: AddressRecord; hint: IndexedTokenStandard | null; readAt: number; readAtBlock: number }>;
  }> {
    const creations = new Map<string, Creation | null>();
    const reread = new Map<string, { item: AddressRecord; hint: IndexedTokenStandard | null; readAt: number; readAtBlock: number }>();
    const recreated = kept.filter((item) => item.creationBlockNumber !== null && item.creationBlockNumber > ancestor);
    const timed = kept.filter((item) => typeof item.tokenDetailsAt === 'number');
    if (recreated.length === 0 && timed.length === 0) return { creations, reread };
    const ancestorTime = (await getItem<BlockRecord>(blockKeys.block(this.chainId, ancestor)))?.timestamp;
    const found = await Promise.all(recreated.map((item) => this.creationAt(item.address, ancestor)));
    for (const [position, item] of recreated.entries()) creations.set(item.address, found[position] ?? null);
    const blockTime = new Map<number, number | undefined>();
    await inParallel(kept, CONCURRENCY, async (item) => {
      // Read in an undone block: by its number where the item records it, else by time (blocks that
      // share the ancestor's time may be at or below it).
      const detailsBlock = typeof item.tokenDetailsBlock === 'number' ? item.tokenDetailsBlock : undefined;
      const readAfter =
        detailsBlock !== undefined
          ? detailsBlock > ancestor
          : ancestorTime === undefined || (typeof item.tokenDetailsAt === 'number' && item.tokenDetailsAt >= ancestorTime);
      if (!creations.has(item.address) && !(typeof item.tokenDetailsAt === 'number' && readAfter)) return;
      if (!withCode.has(item.address) || ancestorTime === undefined) return;
      const creation = creations.has(item.address) ? creations.get(item.address) : creationOf(item);
      let readAt = ancestorTime;
      let readAtBlock = ancestor;
      // (Read at the ancestor's time: maybe at or below it, a time kept as it is.)
      if (creation && (creations.has(item.address) || detailsBlock !== undefined || item.tokenDetailsAt !== ancestorTime)) {
        if (!blockTime.has(creation.blockNumber))
          blockTime.set(creation.blockNumber, (await getItem<BlockRecord>(blockKeys.block(this.chainId, creation.blockNumber)))?.timestamp);
        const createdAt = blockTime.get(creation.blockNumber);
        if (createdAt !== undefined && ancestorTime - createdAt < TOKEN_DETAILS_REFRESH_SECONDS) {
          readAt = createdAt;
          readAtBlock = creation.blockNumber;
        }
      }
      // A contract created again above the ancestor is another one: its type is not a hint.
      reread.set(item.address, { item, hint: creations.has(item.address) ? null : item.tokenType, readAt, readAtBlock });
    });
    return { creations, reread };
  }

  /**
   * The newest creation of `address` at or below block `ancestor` the table holds: a contract-creating
   * transaction that succeeded (its copy in the address's incoming transactions) or an internal
   * creation that took effect (in its incoming internal transactions), newest first.
   */
  async creationAt(address: string, ancestor: number): Promise<Creation | null> {
    const below = blockKey(ancestor + 1);
    // (No FilterExpression: both ranges are bucketed, table/buckets.ts; `accept` checks the entries.)
    const newest = async <T extends TableItem>(pk: string, accept: (item: T) => boolean | Promise<boolean>): Promise<T | undefined> => {
      const base = rangeQuery({ pk, skPrefix: '0' });
      let start: Record<string, unknown> | undefined;
      do {
        const page = await queryPage<T>({
          ...base,
          KeyConditionExpression: '#pk = :pk AND #sk < :below',
          ExpressionAttributeValues: { ':pk': pk, ':below': below },
          ScanIndexForward: false,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        });
        for (const item of page.items) if (await accept(item)) return item;
        start = page.lastKey;
      } while (start);
      return undefined;
    };
    const [top, internal] = await Promise.all([
      newest<TableItem>(addressKeys.transactions(this.chainId, address, 'to').pk, (item) => {
        const transaction = expandTransaction(item);
        return transaction.contractAddress === address && transaction.status !== 0;
      }),
      newest<TableItem & InternalTransactionRecord>(addressKeys.internalTransactions(this.chainId, address, 'to').pk, async (item) => {
        const internal = expandInternalTransaction(item);
        return internal.createdContract === address && (await this.tookEffect(internal));
      }),
    ]);
    const fromTop = top && expandTransaction(top);
    const candidates: { at: [number, number, number]; creation: Creation }[] = [];
    if (fromTop)
      candidates.push({
        at: [fromTop.blockNumber, fromTop.transactionIndex, -1],
        creation: { creator: fromTop.from, transactionHash: fromTop.hash, blockNumber: fromTop.blockNumber },
      });
    const fromInternal = internal && expandInternalTransaction(internal);
    if (fromInternal)
      candidates.push({
        at: [fromInternal.blockNumber, fromInternal.transactionIndex, fromInternal.index],
        creation: { creator: fromInternal.from, transactionHash: fromInternal.transactionHash, blockNumber: fromInternal.blockNumber },
      });
    candidates.sort((a, b) => b.at[0] - a.at[0] || b.at[1] - a.at[1] || b.at[2] - a.at[2]);
    return candidates[0]?.creation ?? null;
  }

  /**
   * An internal creation took effect: its transaction and every call above it succeeded. Its X5 copy
   * says so; one written before issue 27's lever 10 does not, and its transaction's canonical calls tell.
   */
  private async tookEffect(internal: InternalTransactionRecord): Promise<boolean> {
    if (!internal.success) return false;
    if (internal.tookEffect !== undefined) return internal.tookEffect;
    const [tx, calls] = await Promise.all([
      getItem<TableItem>(transactionKeys.transaction(this.chainId, internal.transactionHash)),
      queryRange<InternalTransactionRecord>(transactionKeys.transactionInternalTransactionsRange(this.chainId, internal.transactionHash)),
    ]);
    if (!tx || expandTransaction(tx).status === 0) return false;
    const byPath = new Map(calls.map((call) => expandInternalTransaction(call)).map((call) => [call.traceAddress.join('.'), call.success]));
    for (let depth = 0; depth < internal.traceAddress.length; depth += 1) {
      if (byPath.get(internal.traceAddress.slice(0, depth).join('.')) === false) return false;
    }
    return true;
  }

  /** Sets the creation fields of an address item (null: none known). */
  private async setCreation(address: string, creation: Creation | null): Promise<void> {
    await updateItem({
      Key: addressKeys.address(this.chainId, address),
      UpdateExpression: 'SET creator = :creator, creationTransactionHash = :hash, creationBlockNumber = :block',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':creator': creation?.creator ?? null,
        ':hash': creation?.transactionHash ?? null,
        ':block': creation?.blockNumber ?? null,
      },
    });
  }
}

/** A contract's creation as the address item records it. */
interface Creation {
  creator: string;
  transactionHash: string;
  blockNumber: number;
}

function creationOf(item: AddressRecord): Creation | null {
  return item.creator !== null && item.creationTransactionHash !== null && item.creationBlockNumber !== null
    ? { creator: item.creator, transactionHash: item.creationTransactionHash, blockNumber: item.creationBlockNumber }
    : null;
}

function byToken<T extends BalanceEntity>(entities: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const e of entities) groups.set(e.token, [...(groups.get(e.token) ?? []), e]);
  return [...groups.values()];
}

function byContract<T extends { contract: string }>(entities: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const e of entities) groups.set(e.contract, [...(groups.get(e.contract) ?? []), e]);
  return [...groups.values()];
}
