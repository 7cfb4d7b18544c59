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
 * Steps 2-4 go newest first, 64 blocks at a time, the cursor moved below each chunk.
 * A crash anywhere in there leaves the cursor on the orphaned block, so the next run detects the
 * same reorg and repeats the procedure; each step is idempotent, and the manifests are deleted only
 * once the state they name is recomputed.
 */
import { inParallel, writeItems } from '../db/operations';
import { blockKeys } from '../table/keys';
import { withAnswers, type ChainState } from './chain-state';
import type { BlockSource } from './fetch-block';
import { notifyBlocksOrphaned, type IngestListener } from './listeners';
import type { IngestLog } from './log';
import { deleteManifest, lastPossiblyWritten, moveCursor, readManifest, type BlockManifest } from './manifest';
import type { AddressRecord, BlockRecord, CursorRecord } from '../table/records';
import { parseEntity, type BalanceEntity, type ParsedEntity, type StateWriter } from './state';
import { getItem } from './table-io';

export class ReorgTooDeepError extends Error {
  override name = 'ReorgTooDeepError';
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
  ) {}

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
      for (const manifest of await Promise.all(numbers.map((block) => readManifest(this.chainId, block)))) {
        if (manifest) orphaned.push(manifest);
      }
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
    const touched = [...new Set(manifests.flatMap((manifest) => manifest.touched))].map(parseEntity);
    await this.recompute(touched, ancestor);
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

    // Balances: per-id and token-level first, then ERC-1155 totals from the holdings.
    const direct = balances.filter((e) => !(e.standard === 'ERC-1155' && e.tokenId === null));
    const readable = direct.filter((e) => !orphan(e.token));
    const values = await this.chainState.balances(readable, at);
    const valueByEntry = new Map(readable.map((e, position) => [e, values[position] ?? 0n]));
    await inParallel(byToken(direct), CONCURRENCY, async (group) => {
      for (const balance of group)
        await this.state.setBalance(balance, valueByEntry.get(balance) ?? 0n, ancestor, tokenName(balance.token), { force: true });
    });
    const totals = balances.filter((e) => e.standard === 'ERC-1155' && e.tokenId === null);
    await inParallel(byToken(totals), CONCURRENCY, async (group) => {
      for (const total of group) {
        await this.state.setBalance(
          total,
          await this.state.sumErc1155Holdings(total.holder, total.token),
          ancestor,
          tokenName(total.token),
          { force: true },
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
    await inParallel(drop, CONCURRENCY, (nft) => this.state.deleteNftInstance(nft.contract, nft.tokenId));
    await inParallel(
      withAnswers(keep, states).map(([nft, state]) => ({ nft, state })),
      CONCURRENCY,
      ({ nft, state }) => this.state.setNftInstance(nft.contract, nft.standard, nft.tokenId, state, ancestor, { force: true }),
    );

    // Collections, from the recomputed balances and holdings.
    await inParallel(collections, CONCURRENCY, (c) => this.state.refreshCollection(c.holder, c.contract, c.standard, ancestor));

    // Contracts: delete those first seen above the ancestor, refresh the supply of the others.
    const tokens = [...items.values()].filter((item) => item.tokenType && !orphan(item.address));
    const supplies = await this.chainState.totalSupplies(
      tokens.map((item) => item.address),
      at,
    );
    await inParallel([...items.values()], CONCURRENCY, async (item: AddressRecord) => {
      if (item.firstSeenBlock > ancestor) {
        if (item.tokenSymbol) await this.state.unregisterName(item.tokenSymbol, item.address);
        await this.state.deleteAddress(item.address);
      } else if (supplies.has(item.address)) {
        await this.state.updateAddress({ address: item.address, totalSupply: supplies.get(item.address) ?? null }, ancestor);
      }
    });
  }
}

function byToken<T extends BalanceEntity>(entities: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const e of entities) groups.set(e.token, [...(groups.get(e.token) ?? []), e]);
  return [...groups.values()];
}
