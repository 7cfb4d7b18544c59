/**
 * The steps of writing blocks that the ingest (ingest.ts) and a backfill worker (backfill.ts) must do
 * identically, so that what a worker stages is exactly what the ingest would compute:
 *  - a block's immutable items, from its derived records and the chain facts as of the block;
 *  - the chain state a batch's last block is read at (balances, total supplies, NFT instances).
 */
import { candidatesOf, type BatchFacts } from './batch';
import type { ChainState } from './chain-state';
import { tagTransactions, type BalanceTouch, type DerivedBlock } from './derive';
import { immutableItems, slicesOf, type BlockSlice, type ItemOptions } from './items';
import { entity } from './state';
import type { TableItem } from '../table/keys';

/**
 * Tags the block's transactions with the facts as of the block, then returns its immutable items,
 * whose explorer copies record which of their sides are contracts (items.ts). Only the block's own
 * candidates are asked (derive.ts `candidateContracts`: every side but a transaction's sender): for
 * them `isContract` is the chain's answer at the block, whatever batch the block is in (a backfill
 * worker's segment or the ingest's batch), and each that is a contract gets an address item from
 * the batch (ingest.ts), so every flagged address has one.
 */
export function itemsOfBlock(derived: DerivedBlock, facts: BatchFacts, options: ItemOptions = {}): TableItem[] {
  return slicedItemsOfBlock(derived, facts, options).itemsOf();
}

/**
 * As itemsOfBlock, slice by slice (items.ts slicesOf): the transactions are tagged once, then each
 * call builds the items of one slice (default: the whole block). The slices' items together are the
 * block's, but for the block buckets, which never span two slices.
 */
export function slicedItemsOfBlock(
  derived: DerivedBlock,
  facts: BatchFacts,
  options: ItemOptions = {},
): { slices: BlockSlice[]; itemsOf: (slice?: BlockSlice) => TableItem[] } {
  const number = derived.block.number;
  const isContract = (address: string): boolean => facts.isContract(address, derived);
  tagTransactions(derived, isContract, (address) => facts.tokenInfo(address, number) !== null);
  const candidates = new Set(candidatesOf(derived));
  const flagged = (address: string): boolean => candidates.has(address) && isContract(address);
  return { slices: slicesOf(derived, options.sliceTransactions), itemsOf: (slice) => immutableItems(derived, flagged, options, slice) };
}

/** The balances a batch touches, one per entity, in first-touched order. */
export const balanceTouchesOf = (blocks: readonly DerivedBlock[]): BalanceTouch[] =>
  distinct(
    blocks.flatMap((derived) => derived.balanceTouches),
    entity.balance,
  );

/** The chain state of the entities a batch touched, read at its last block. */
export async function readStateAt(blocks: readonly DerivedBlock[], facts: BatchFacts, chainState: ChainState) {
  const lastBlock = blocks.at(-1);
  if (lastBlock === undefined) throw new Error('readStateAt: a batch has at least one block');
  const last = lastBlock.block.number;
  const at = BigInt(last);
  const tokens = [...new Set(blocks.flatMap((derived) => [...derived.tokens.keys()]))].filter(
    (token) => facts.tokenInfo(token, last) !== null,
  );
  const balanceTouches = balanceTouchesOf(blocks);
  const nftTouches = distinct(
    blocks.flatMap((derived) => derived.nftTouches.map((nft) => ({ ...nft, firstBlock: derived.block.number }))),
    (nft) => entity.nft(nft.contract, nft.standard, nft.tokenId),
  );
  const [supplies, balances, nfts] = await Promise.all([
    chainState.totalSupplies(tokens, at),
    chainState.balances(balanceTouches, at),
    chainState.nfts(nftTouches, at),
  ]);
  return { blocks, last, tokens, balanceTouches, nftTouches, supplies, balances, nfts };
}

/** One of each, by key, in first-seen order. */
export function distinct<T>(values: readonly T[], key: (value: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const value of values) if (!seen.has(key(value))) seen.set(key(value), value);
  return [...seen.values()];
}
