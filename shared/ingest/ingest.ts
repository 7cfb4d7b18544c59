/**
 * The chain ingest: one code path for the CLI (scripts/ingest.ts), npm start, the tests and the
 * scheduled Lambda (functions/ingest/ingest-chain.ts).
 *
 * For each block past the cursor, in order:
 *   1. fetch the block, receipts and traces (validated, retried: fetch-block.ts);
 *   2. derive records (derive.ts), read the chain state they need AT the block (chain-state.ts);
 *   3. write the block's manifest, then its immutable items (items.ts), then its state changes
 *      (state.ts), then call the block listeners (listeners.ts; order deposit detection,
 *      shared/orders/deposits.ts, is always among them unless `orderDeposits: false`);
 *   4. move the cursor with a conditional update.
 * A block whose parent hash is not the cursor's hash starts the reorg procedure (reorg.ts).
 * Blocks at or below the cursor are skipped, or ingested again on request (`repair`): their
 * immutable items and manifest are rewritten identically, the state items, which hold values of
 * later blocks, are left alone, and the block listeners see the block again (they are idempotent).
 */
import type { ChainClient } from '../chain/client';
import { ContractReader } from '../chain/read';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../chain/retry';
import { logger } from '../http/logger';
import { addressKeys, blockKeys } from '../db/keys';
import { ChainState, type TokenInfo } from './chain-state';
import { deriveBlock, tagTransactions, type DerivedBlock } from './derive';
import { BlockSource, type BlockBundle } from './fetch-block';
import { immutableItems } from './items';
import { orderDepositListeners } from '../orders/deposits';
import { notifyBlockIngested, type BlockIngestedListener, type BlocksOrphanedListener } from './listeners';
import { moveCursor, readCursor, readManifest, writeManifest } from './manifest';
import type { AddressRecord, BalanceRecord, BlockRecord, CursorRecord, IndexedTokenStandard } from './records';
import { Reorg } from './reorg';
import { entity, StateWriter, type AddressUpdate } from './state';
import { forEachLimited, getItem, getItems, keyId, putItems, sleep } from './table-io';

export interface IngestLog {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

export interface IngestOptions {
  chainId: number;
  client: ChainClient;
  retry?: RetryPolicy;
  log?: IngestLog;
  /** Deepest reorg handled automatically (blocks). Default 64. */
  maxReorgDepth?: number;
  /** Blocks fetched ahead of the one being written. Default 4. */
  prefetch?: number;
  /** Called after each block is written (progress bars). */
  onBlock?: (event: { blockNumber: number; mode: 'advance' | 'repair' }) => void;
  /** Listeners for this ingest only, besides those registered with onBlockIngested. */
  listeners?: readonly BlockIngestedListener[];
  /** Orphan listeners for this ingest only, besides those registered with onBlocksOrphaned. */
  orphanListeners?: readonly BlocksOrphanedListener[];
  /** Order deposit detection (shared/orders/deposits.ts) on every block. Default true. */
  orderDeposits?: boolean;
}

export interface IngestResult {
  /** Blocks written that moved the cursor. */
  advanced: number;
  /** Blocks at or below the cursor written again. */
  repaired: number;
  reorgs: number;
  cursor: CursorRecord | undefined;
}

const powertoolsLog: IngestLog = {
  info: (message, details) => logger.info(message, details ?? {}),
  warn: (message, details) => logger.warn(message, details ?? {}),
};

/** Parallel state writes of one block (distinct entities). */
const STATE_CONCURRENCY = 8;

export class ChainIngest {
  readonly chainId: number;
  private readonly source: BlockSource;
  private readonly chainState: ChainState;
  private readonly state: StateWriter;
  private readonly reorg: Reorg;
  private readonly log: IngestLog;
  private readonly options: IngestOptions;
  private readonly blockListeners: readonly BlockIngestedListener[];

  constructor(options: IngestOptions) {
    this.options = options;
    this.chainId = options.chainId;
    this.log = options.log ?? powertoolsLog;
    const policy = options.retry ?? DEFAULT_RETRY_POLICY;
    this.source = new BlockSource(options.client, policy, this.log);
    this.chainState = new ChainState(options.client, new ContractReader(options.client), policy);
    this.state = new StateWriter(this.chainId);
    const deposits = options.orderDeposits === false ? [] : [orderDepositListeners];
    this.blockListeners = [...deposits.map((listeners) => listeners.onBlockIngested), ...(options.listeners ?? [])];
    const orphanListeners = [...deposits.map((listeners) => listeners.onBlocksOrphaned), ...(options.orphanListeners ?? [])];
    this.reorg = new Reorg(this.chainId, this.source, this.chainState, this.state, this.log, options.maxReorgDepth ?? 64, orphanListeners);
  }

  /** The chain's current head block number. */
  head(): Promise<bigint> {
    return this.source.headBlockNumber();
  }

  /**
   * Ingests blocks `from`..`to` (defaults: the block after the cursor, or 0 on an empty table; the
   * head). Blocks at or below the cursor are already complete: they are skipped, or with `repair`
   * written again. A `from` past the cursor + 1 is refused (it would leave a gap). Throws (without
   * moving the cursor past the failed block) when the node keeps failing.
   */
  async ingestRange(range: { from?: number; to?: number; deadline?: number; repair?: boolean } = {}): Promise<IngestResult> {
    const result: IngestResult = { advanced: 0, repaired: 0, reorgs: 0, cursor: await readCursor(this.chainId) };
    const to = range.to ?? Number(await this.head());
    if (result.cursor) {
      // A reorg that made the chain shorter (or replaced the cursor's block) shows here.
      if ((await this.source.blockHashAt(BigInt(result.cursor.blockNumber))) !== result.cursor.blockHash) {
        result.cursor = await this.reorg.rollBack(result.cursor);
        result.reorgs += 1;
      }
    }
    const cursor = result.cursor;
    if (cursor && range.from !== undefined && range.from > cursor.blockNumber + 1) {
      throw new Error(`chain ${this.chainId}: --from-block ${range.from} would leave a gap after the cursor (block ${cursor.blockNumber})`);
    }
    if (cursor && range.repair && range.from !== undefined && range.from <= cursor.blockNumber) {
      const repairTo = Math.min(to, cursor.blockNumber);
      for (let number = range.from; number <= repairTo; number += 1) {
        const bundle = await this.source.fetch(BigInt(number));
        const stored = await getItem<BlockRecord>(blockKeys.block(this.chainId, number));
        if (stored && stored.hash !== bundle.block.hash!.toLowerCase()) {
          // The chain changed below the cursor: roll back, then carry on from the ancestor.
          result.cursor = await this.reorg.rollBack(cursor);
          result.reorgs += 1;
          break;
        }
        await this.writeBlock(bundle, 'repair');
        result.repaired += 1;
        this.options.onBlock?.({ blockNumber: number, mode: 'repair' });
      }
    }
    await this.advance(result, range.from ?? 0, to, range.deadline);
    return result;
  }

  /** Ingests at most `maxBlocks` blocks after the cursor, up to the head (the Lambda's unit of work). */
  async ingestNext(maxBlocks: number, options: { firstBlock?: number; deadline?: number } = {}): Promise<IngestResult> {
    const firstBlock = options.firstBlock ?? 0;
    const cursor = await readCursor(this.chainId);
    const head = Number(await this.head());
    const start = cursor ? cursor.blockNumber + 1 : firstBlock;
    return this.ingestRange({ to: Math.min(head, start + maxBlocks - 1), deadline: options.deadline, ...(cursor ? {} : { from: firstBlock }) });
  }

  /**
   * Follows the head: ingests new blocks, then waits `intervalMs` and polls again, until `signal`
   * aborts. Each round handles at most `maxBlocksPerRound` blocks.
   */
  async follow(options: { intervalMs?: number; signal?: AbortSignal; firstBlock?: number; maxBlocksPerRound?: number } = {}): Promise<IngestResult> {
    const interval = options.intervalMs ?? 1_000;
    const total: IngestResult = { advanced: 0, repaired: 0, reorgs: 0, cursor: undefined };
    while (!options.signal?.aborted) {
      const result = await this.ingestNext(options.maxBlocksPerRound ?? 1_000, { firstBlock: options.firstBlock });
      total.advanced += result.advanced;
      total.reorgs += result.reorgs;
      total.cursor = result.cursor;
      if (result.advanced === 0 && result.reorgs === 0) await sleep(interval);
    }
    return total;
  }

  /** Writes blocks after the cursor up to `to`; stops early (between blocks) once past `deadline` (epoch ms). */
  private async advance(result: IngestResult, defaultFrom: number, to: number, deadline?: number): Promise<void> {
    const prefetch = Math.max(1, this.options.prefetch ?? 4);
    const fetched = new Map<number, Promise<BlockBundle>>();
    const fetchAhead = (from: number): void => {
      for (let number = from; number <= Math.min(to, from + prefetch - 1); number += 1) {
        if (fetched.has(number)) continue;
        const promise = this.source.fetch(BigInt(number));
        promise.catch(() => undefined); // awaited below when used; a dropped prefetch must not crash the process
        fetched.set(number, promise);
      }
    };
    let number = result.cursor ? result.cursor.blockNumber + 1 : defaultFrom;
    // Only the block after the cursor a run starts from (or a reorg moved back to) can have been
    // left half written by an earlier run; later blocks of the run follow a cursor this run moved.
    let mayBeHalfWritten = true;
    while (number <= to && (deadline === undefined || Date.now() < deadline)) {
      fetchAhead(number);
      const bundle = await fetched.get(number)!;
      fetched.delete(number);
      const cursor = result.cursor;
      if (cursor && bundle.block.parentHash.toLowerCase() !== cursor.blockHash) {
        fetched.clear();
        result.cursor = await this.reorg.rollBack(cursor);
        result.reorgs += 1;
        number = result.cursor.blockNumber + 1;
        mayBeHalfWritten = true;
        continue;
      }
      await this.writeBlock(bundle, 'advance', mayBeHalfWritten);
      mayBeHalfWritten = false;
      if (!cursor) await this.state.registerChain(number);
      result.cursor = await moveCursor(this.chainId, cursor, { blockNumber: number, blockHash: bundle.block.hash!.toLowerCase() }, number);
      result.advanced += 1;
      this.options.onBlock?.({ blockNumber: number, mode: 'advance' });
      number += 1;
    }
  }

  /**
   * Writes everything one block produces; `repair` leaves state items alone. `mayBeHalfWritten`
   * false skips looking for a manifest an earlier run left at this number (see advance).
   */
  private async writeBlock(bundle: BlockBundle, mode: 'advance' | 'repair', mayBeHalfWritten = true): Promise<void> {
    const derived = deriveBlock(this.chainId, bundle);
    const number = derived.block.number;
    const blockNumber = BigInt(number);

    // What the table already knows, from blocks before this one.
    const candidates = [...new Set([...derived.candidateContracts, ...derived.creations.map((c) => c.address), ...derived.tokens.keys()])];
    // One BatchGetItem for both: the stored address items and (advance) the balance items the
    // block's transitions start from (nothing below writes a balance before they are used, except
    // undoing a half-written block, after which they are read again).
    const balanceKeys = mode === 'advance' ? derived.balanceTouches.map((touch) => this.state.balanceKey(touch)) : [];
    const found = await getItems<AddressRecord | BalanceRecord>([...candidates.map((address) => addressKeys.address(this.chainId, address)), ...balanceKeys]);
    const stored = new Map<string, AddressRecord>();
    for (const address of candidates) {
      const item = found.get(keyId(addressKeys.address(this.chainId, address)));
      if (item) stored.set(address, item as AddressRecord);
    }
    let prefetched = new Map<string, BalanceRecord>();
    for (const key of balanceKeys) {
      const item = found.get(keyId(key));
      if (item) prefetched.set(keyId(key), item as BalanceRecord);
    }
    const knownBefore = (address: string): AddressRecord | undefined => {
      const item = stored.get(address);
      return item && item.firstSeenBlock < number ? item : undefined;
    };

    // Chain state at the block.
    const withCode = await this.chainState.contractsAmong(
      candidates.filter((address) => !derived.knownContracts.has(address) && !knownBefore(address)),
      blockNumber,
    );
    const isContract = (address: string): boolean => derived.knownContracts.has(address) || Boolean(knownBefore(address)) || withCode.has(address);
    const toProbe = new Map<string, IndexedTokenStandard | null>();
    for (const [token, standard] of derived.tokens) if (!knownBefore(token)?.tokenType) toProbe.set(token, standard);
    for (const creation of derived.creations) if (!knownBefore(creation.address) && !toProbe.has(creation.address)) toProbe.set(creation.address, null);
    const probed = await this.chainState.probeTokens(toProbe, blockNumber);
    const tokenInfo = (address: string): TokenInfo | null => {
      if (probed.has(address)) return probed.get(address) ?? null;
      const item = knownBefore(address);
      return item?.tokenType
        ? { type: item.tokenType, name: item.tokenName, symbol: item.tokenSymbol, decimals: item.tokenDecimals, totalSupply: item.tokenTotalSupply }
        : null;
    };
    tagTransactions(derived, isContract, (address) => tokenInfo(address) !== null);
    const items = immutableItems(derived);

    // The address items this block writes: new contracts, creations, tokens it moved.
    const creations = new Map(derived.creations.map((creation) => [creation.address, creation]));
    const addressUpdates: AddressUpdate[] = candidates
      .filter((address) => isContract(address) && (!knownBefore(address) || creations.has(address) || derived.tokens.has(address)))
      .map((address) => ({ address, creation: creations.get(address) ?? null }));
    const touched = [
      ...addressUpdates.map((update) => entity.address(update.address)),
      ...derived.balanceTouches.map((touch) => entity.balance(touch)),
      ...erc1155Totals(derived).map((total) => entity.balance(total)),
      ...derived.nftTouches.map((nft) => entity.nft(nft.contract, nft.standard, nft.tokenId)),
      ...collectionsTouched(derived).map((c) => entity.collection(c.holder, c.contract, c.standard)),
    ];

    // State read at the block, before anything is written (advance only).
    const knownTokens = [...derived.tokens.keys()].filter((token) => !probed.has(token));
    const [supplies, balances, nfts] =
      mode === 'advance'
        ? await Promise.all([
            this.chainState.totalSupplies(knownTokens, blockNumber),
            this.chainState.balances(derived.balanceTouches, blockNumber),
            this.chainState.nfts(derived.nftTouches, blockNumber),
          ])
        : [new Map<string, string | null>(), [], []];

    // A manifest of this number with another hash is a block orphaned while half written.
    const previous = mayBeHalfWritten ? await readManifest(this.chainId, number) : undefined;
    if (previous && previous.blockHash !== derived.block.hash) {
      if (mode === 'repair') throw new Error(`block ${number}: stored manifest is of another block hash; run a normal ingest first`);
      await this.reorg.undoManifests([previous], number - 1);
      prefetched = await this.state.getBalances(derived.balanceTouches);
    }
    await writeManifest(this.chainId, { blockNumber: number, blockHash: derived.block.hash, items, touched }, previous?.chunkCount ?? 0);
    await putItems(items);
    if (mode === 'repair') {
      await this.notifyListeners(derived, mode);
      return;
    }

    // Contracts and tokens first: balance transitions count holders on the token's item.
    await forEachLimited(addressUpdates, STATE_CONCURRENCY, async (update) => {
      const address = update.address;
      if (probed.has(address)) update.token = probed.get(address) ?? null;
      else if (supplies.has(address)) update.totalSupply = supplies.get(address) ?? null;
      await this.state.updateAddress(update, number);
      const info = probed.get(address);
      if (info?.symbol) await this.state.registerName(info.symbol, address);
    });
    const tokenName = (token: string): string => tokenInfo(token)?.name ?? '';
    await forEachLimited(groupByToken(derived.balanceTouches.map((touch, position) => ({ touch, value: balances[position] }))), STATE_CONCURRENCY, async (group) => {
      for (const { touch, value } of group) {
        if (value === null) {
          this.log.warn('balanceOf did not answer: balance left as is', { chainId: this.chainId, block: number, token: touch.token, holder: touch.holder });
          continue;
        }
        await this.state.setBalance(touch, value, number, tokenName(touch.token), { prefetched });
      }
    });
    await forEachLimited(groupByToken(erc1155Totals(derived).map((touch) => ({ touch }))), STATE_CONCURRENCY, async (group) => {
      for (const { touch } of group) {
        await this.state.setBalance(touch, await this.state.sumErc1155Holdings(touch.holder, touch.token), number, tokenName(touch.token));
      }
    });
    await forEachLimited(
      derived.nftTouches.map((nft, position) => ({ nft, state: nfts[position] })),
      STATE_CONCURRENCY,
      async ({ nft, state }) => this.state.setNftInstance(nft.contract, nft.standard, nft.tokenId, state, number),
    );
    await forEachLimited(collectionsTouched(derived), STATE_CONCURRENCY, (c) => this.state.refreshCollection(c.holder, c.contract, c.standard, number));

    await this.notifyListeners(derived, mode);
  }

  private notifyListeners(derived: DerivedBlock, mode: 'advance' | 'repair'): Promise<void> {
    return notifyBlockIngested(
      {
        chainId: this.chainId,
        block: derived.block,
        mode,
        nativeTransfers: derived.nativeTransfers,
        erc20Transfers: derived.tokenTransfers.filter((transfer) => transfer.tokenStandard === 'ERC-20'),
      },
      this.blockListeners,
    );
  }
}

/** The (holder, ERC-1155 token) totals a block's per-id balance changes affect. */
function erc1155Totals(derived: DerivedBlock) {
  const seen = new Map<string, { holder: string; token: string; standard: 'ERC-1155'; tokenId: null }>();
  for (const touch of derived.balanceTouches) {
    if (touch.standard === 'ERC-1155') seen.set(`${touch.holder}|${touch.token}`, { holder: touch.holder, token: touch.token, standard: 'ERC-1155', tokenId: null });
  }
  return [...seen.values()];
}

/** The (holder, NFT contract) collections a block's transfers affect. */
function collectionsTouched(derived: DerivedBlock) {
  const seen = new Map<string, { holder: string; contract: string; standard: 'ERC-721' | 'ERC-1155' }>();
  for (const touch of derived.balanceTouches) {
    if (touch.standard === 'ERC-20') continue;
    seen.set(`${touch.holder}|${touch.token}`, { holder: touch.holder, contract: touch.token, standard: touch.standard });
  }
  return [...seen.values()];
}

/** Balance changes grouped by token: one token's holder count is updated by one writer at a time. */
function groupByToken<T extends { touch: { token: string } }>(entries: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const entry of entries) {
    const group = groups.get(entry.touch.token) ?? [];
    group.push(entry);
    groups.set(entry.touch.token, group);
  }
  return [...groups.values()];
}

// ---------------------------------------------------------------------------------------------------
// Functions for callers that do not keep an ingest object.

/** Ingests a block range into the configured table (see ChainIngest.ingestRange). */
export function ingestRange(options: IngestOptions & { from?: number; to?: number; repair?: boolean }): Promise<IngestResult> {
  return new ChainIngest(options).ingestRange({ from: options.from, to: options.to, repair: options.repair });
}

/** Follows a chain's head until `signal` aborts (see ChainIngest.follow). */
export function followChain(options: IngestOptions & { intervalMs?: number; signal?: AbortSignal; firstBlock?: number }): Promise<IngestResult> {
  return new ChainIngest(options).follow(options);
}

/** Writes the chain's registry entry (insights lists only registered chains). Idempotent. */
export async function registerChain(chainId: number, firstBlock: number): Promise<void> {
  await new StateWriter(chainId).registerChain(firstBlock);
}
