/**
 * The benchmark dataset's shape at a scale (1 = the figures):
 *  - 2 busy chains (31337, the explorer's chain, and 31338): 100,000 transactions and about 200,000
 *    token transfers across 20,000 addresses and 500 tokens;
 *  - on 31337 one whale with about 10,000 transactions and 30,000 token transfers, and one token
 *    (symbol BUSY) with about 100,000 transfers over 30 days of timestamps;
 *  - 3 small chains (31339-31341), so that an insights request can name 5 chains;
 *  - 10,000 collections and 10,000 orders, through the domain write functions.
 * Counts below the scale's are kept at a floor so that a tiny scale still has every shape.
 */
import type { ChainSpec } from './chain';

export const EXPLORER_CHAIN = 31337;
export const SECOND_CHAIN = 31338;
export const SMALL_CHAINS = [31339, 31340, 31341];
const DAY = 86_400;
/** 2025-10-01T00:00:00Z: the first block of every chain. */
export const FIRST_TIMESTAMP = 1_759_276_800;

export interface DatasetSpec {
  scale: number;
  chains: ChainSpec[];
  collections: number;
  orders: number;
}

const atLeast = (floor: number, value: number): number => Math.max(floor, Math.round(value));

export function datasetSpec(scale: number): DatasetSpec {
  if (!(scale > 0 && scale <= 1)) throw new Error(`--scale must be in (0, 1], got ${scale}`);
  const big = (chainId: number, seed: number, transactions: number, tokens: number, shape: Partial<ChainSpec>): ChainSpec => ({
    chainId,
    seed,
    transactions,
    blocks: atLeast(20, transactions / 10),
    spanSeconds: 30 * DAY,
    firstTimestamp: FIRST_TIMESTAMP,
    mix: { native: 0.1, swap: 0.3, nft: 0.12 },
    swapTransfers: 5,
    erc20Tokens: atLeast(6, tokens * 0.9),
    erc721Tokens: atLeast(2, tokens * 0.075),
    erc1155Tokens: atLeast(2, tokens * 0.025),
    busyTokenShare: 0,
    addresses: atLeast(200, 20_000 * scale),
    whaleTxShare: 0,
    whaleReceiveShare: 0,
    withdrawalsPerBlock: 2,
    ...shape,
  });
  const chains: ChainSpec[] = [
    // 80,000 transactions, ~169,000 transfers: 100,000 of them of BUSY (63% of the ERC-20 slots);
    // the whale sends or receives 12.5% of the transactions (~1.2 transfers each) and receives
    // 54% of the other ERC-20 transfers: ~30,000 transfers.
    big(EXPLORER_CHAIN, 1, atLeast(400, 80_000 * scale), atLeast(12, 400 * scale), {
      busyTokenShare: 0.63,
      whaleTxShare: 0.125,
      whaleReceiveShare: 0.54,
    }),
    // 20,000 transactions, ~29,000 transfers, no whale.
    big(SECOND_CHAIN, 2, atLeast(100, 20_000 * scale), atLeast(8, 100 * scale), {
      mix: { native: 0.27, swap: 0.18, nft: 0.05 },
      busyTokenShare: 0.2,
    }),
    ...SMALL_CHAINS.map(
      (chainId, index): ChainSpec => ({
        ...big(chainId, 10 + index, 20, 4, {}),
        blocks: 10,
        addresses: 50,
        erc20Tokens: 2,
        erc721Tokens: 1,
        erc1155Tokens: 1,
        withdrawalsPerBlock: 0,
      }),
    ),
  ];
  return { scale, chains, collections: atLeast(60, 10_000 * scale), orders: atLeast(60, 10_000 * scale) };
}

// ---------------------------------------------------------------------------------------------------
// The Base-like chain profile (issue 27), a dataset of its own (profile.ts). Where each figure comes
// from: docs/decisions/bench-profiles.md.

/** The profile chain's id: a local one, so that nothing keyed on Base's own id (8453) applies to it. */
export const BASE_PROFILE_CHAIN = 38_453;

export interface BaseProfileSize {
  blocks: number;
  transactionsPerBlock: number;
  /** One block of a peak (a burst) holding this many transactions instead (the Lambda harness's Base mode). */
  burst?: { block: number; transactions: number };
}

/**
 * The default size: 12,000 transactions, which build in about 13 minutes on a 2-core machine (75 blocks took 16
 * minutes under other sessions' load, 20 blocks gave the same figures within 1 %).
 */
export const BASE_PROFILE_DEFAULT_SIZE: BaseProfileSize = { blocks: 60, transactionsPerBlock: 200 };

/**
 * Base's shape: ~200 transactions a block every 2 s; user transactions half DEX swaps and three tenths
 * ERC-20 transfers; tokens, pools, routers, contracts and holders Zipf-distributed (exponent 1);
 * the L1 attributes deposit at the top of every block and user deposits in each epoch's first block.
 * The counts of tokens, pools and holders are those a few minutes of Base touch (they do not scale
 * with the size: a smaller build is a shorter window of the same chain); `overrides` shrink them for tests.
 */
export function baseProfileSpec(size: BaseProfileSize = BASE_PROFILE_DEFAULT_SIZE, overrides: Partial<ChainSpec> = {}): ChainSpec {
  if (!(Number.isInteger(size.blocks) && size.blocks >= 1)) throw new Error(`blocks must be a whole number >= 1, got ${size.blocks}`);
  if (!(Number.isInteger(size.transactionsPerBlock) && size.transactionsPerBlock >= 2))
    throw new Error(`transactions per block must be a whole number >= 2, got ${size.transactionsPerBlock}`);
  const blockSeconds = 2;
  return {
    chainId: BASE_PROFILE_CHAIN,
    seed: 8453,
    transactions: size.blocks * size.transactionsPerBlock + (size.burst ? size.burst.transactions - size.transactionsPerBlock : 0),
    blocks: size.blocks,
    spanSeconds: size.blocks * blockSeconds,
    firstTimestamp: FIRST_TIMESTAMP,
    // The dataset's own fields, unused by the profile's generator (base-profile.ts reads `base`).
    mix: { native: 0.05, swap: 0.5, nft: 0.04 },
    swapTransfers: 0,
    erc20Tokens: 2000,
    erc721Tokens: 60,
    erc1155Tokens: 20,
    busyTokenShare: 0,
    addresses: 50_000,
    whaleTxShare: 0,
    whaleReceiveShare: 0,
    withdrawalsPerBlock: 0,
    // Base has Multicall3 at its canonical address (the ingest reads contract state and coin balances through it).
    multicall3: true,
    base: {
      transactionsPerBlock: size.transactionsPerBlock,
      ...(size.burst ? { burst: size.burst } : {}),
      blockSeconds,
      epochBlocks: 6,
      userDepositsPerEpoch: 2,
      mix: { swap: 0.5, erc20: 0.3, native: 0.05, approve: 0.04, nft: 0.04, other: 0.07 },
      zipfExponent: 1,
      pools: 400,
      routers: 8,
      apps: 300,
      hubTokens: 3,
      proxyTokenShare: 0.2,
    },
    ...overrides,
  };
}
