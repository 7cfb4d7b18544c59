/**
 * A synthetic EVM chain for the benchmark dataset: blocks, receipts, call traces and contract state
 * generated from a seed, served through a viem client (custom transport) that answers exactly the
 * JSON-RPC the ingest sends (eth_blockNumber, eth_getBlockByNumber, eth_getBlockReceipts,
 * debug_traceBlockByNumber, eth_getCode, eth_call for the token functions). The real ingest
 * (shared/ingest ChainIngest: derive, immutable items, range positions, state items, manifests) runs
 * on it unchanged, so the dataset is the ingest's own output for a chain of busy shape, without anvil
 * having to execute 100,000 transactions.
 *
 * The chain is consistent: every Transfer log moves a balance that balanceOf reports at later blocks;
 * ERC-721 transfers start from the current owner; ERC-1155 balances and supplies add up. ERC-20
 * balances start at a hidden allowance (BASE) so that no balance goes negative.
 */
import { createHash } from 'node:crypto';
import {
  createPublicClient,
  custom,
  decodeFunctionData,
  encodeFunctionResult,
  keccak256,
  toFunctionSelector,
  type Hex,
  type PublicClient,
} from 'viem';
import { MULTICALL3_ADDRESS, multicall3Abi, TOPIC } from '../../../shared/chain/abis';
import { CODE_SIZES_PROGRAM } from '../../../shared/chain/code-sizes';

export type TokenKind = 'ERC-20' | 'ERC-721' | 'ERC-1155';

export interface TokenSpec {
  address: string;
  kind: TokenKind;
  name: string;
  symbol: string;
}

/** What a chain of the dataset holds, by count (see spec.ts for the shapes at a scale). */
export interface ChainSpec {
  chainId: number;
  seed: number;
  transactions: number;
  blocks: number;
  /** Seconds covered by the blocks (block time = span / blocks). */
  spanSeconds: number;
  firstTimestamp: number;
  /** Share of transactions by kind (the rest are ERC-20 transfers). */
  mix: { native: number; swap: number; nft: number };
  /** Token transfers per swap transaction (3 to 5). */
  swapTransfers: number;
  erc20Tokens: number;
  erc721Tokens: number;
  erc1155Tokens: number;
  /** The ERC-20 token most transfers use (the busy token), its share of ERC-20 transfer slots. */
  busyTokenShare: number;
  /** Holders (EOAs) taking part, drawn from the shared address pool. */
  addresses: number;
  /** The whale (an EOA with a large history): share of transactions it sends or receives. */
  whaleTxShare: number;
  /** Share of the other ERC-20 transfers that go to the whale. */
  whaleReceiveShare: number;
  /** Beacon withdrawals per block (one to the whale every 4th block). */
  withdrawalsPerBlock: number;
  /**
   * Multicall3 deployed at its canonical address from block 0 (aggregate3 and getEthBalance answered
   * as the contract answers them), as on Base; absent (no code there) when not set.
   */
  multicall3?: boolean;
  /**
   * A chain profile with a generator of its own (base-profile.ts: OP-stack deposits, a Zipf-like mix
   * of swaps and transfers); absent for the dataset's chains of spec.ts, which this file generates.
   */
  base?: BaseShape;
}

/** The shape of a Base-like chain (base-profile.ts generates it; spec.ts baseProfileSpec says where the figures come from). */
export interface BaseShape {
  /** Transactions in every block, its deposits included. */
  transactionsPerBlock: number;
  /** One block with this many transactions instead (a peak). */
  burst?: { block: number; transactions: number };
  blockSeconds: number;
  /** L2 blocks per L1 block (an epoch): user deposits come in the first block of an epoch. */
  epochBlocks: number;
  /** Mean user deposits in an epoch's first block. */
  userDepositsPerEpoch: number;
  /** Share of the user (non-deposit) transactions by kind; sums to 1. */
  mix: { swap: number; erc20: number; native: number; approve: number; nft: number; other: number };
  /** Exponent of the Zipf-like choice of tokens, pools, routers, called contracts, senders and recipients. */
  zipfExponent: number;
  /** Liquidity pools (a pair of tokens each), routers, and other contracts users call (apps). */
  pools: number;
  routers: number;
  apps: number;
  /** The first ERC-20 tokens by rank are the hubs most pools pair with (WETH, USDC, ...). */
  hubTokens: number;
  /** Share of ERC-20 tokens behind a proxy: each call to one has a DELEGATECALL frame beneath it. */
  proxyTokenShare: number;
}

export interface GeneratedCounts {
  blocks: number;
  transactions: number;
  tokenTransfers: number;
  logs: number;
  internalCalls: number;
  withdrawals: number;
  byKind: Record<string, number>;
  whaleTransactions: number;
  whaleTokenTransfers: number;
  whaleWithdrawals: number;
  busyTokenTransfers: number;
  busyTokenFirstTimestamp: number;
  busyTokenLastTimestamp: number;
}

/** Facts the requests of the benchmark need (addresses, hashes, selectors). */
export interface ChainFacts {
  chainId: number;
  head: number;
  whale: string;
  busyToken: string;
  router: string;
  swapSignature: string;
  tokens: TokenSpec[];
  /** A transaction with several token transfers (a swap). */
  swapTransactionHash: string;
  /** An ordinary holder with some history. */
  holder: string;
  /** NFTs at the head, for the NFT routes (empty strings on a chain without them). */
  nft: NftFacts;
  counts: GeneratedCounts;
}

/** The NFT holder of the dataset (the whale) and what it holds at the head. */
export interface NftFacts {
  holder: string;
  /** The ERC-721 collection in which the holder has the most ids, how many, and its highest id. */
  erc721: string;
  erc721Held: number;
  erc721TokenId: string;
  /** The ERC-1155 collection in which the holder has the most distinct ids, how many, and one of them. */
  erc1155: string;
  erc1155Held: number;
  erc1155TokenId: string;
  /** A transaction with several NFT transfers (an ERC-1155 batch mint). */
  batchTransferHash: string;
}

export const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
const CODE = '0x6080604052348015600f57600080fd5b50';
export const BASE = 10n ** 24n;
/** Every address's hidden native coin allowance (wei), so that no coin balance goes negative. */
export const COIN_BASE = 10n ** 22n;
export const GWEI = 1_000_000_000n;

export const SWAP_SIGNATURE = 'swap(address tokenIn,address tokenOut,uint256 amountIn,address recipient)';
const SELECTOR = {
  transfer: toFunctionSelector('transfer(address,uint256)'),
  mint: toFunctionSelector('mint(address,uint256)'),
  safeTransferFrom: toFunctionSelector('safeTransferFrom(address,address,uint256)'),
  mint1155: toFunctionSelector('mint(address,uint256,uint256)'),
  mintBatch: toFunctionSelector('mintBatch(address,uint256[],uint256[])'),
  swap: toFunctionSelector('swap(address,address,uint256,address)'),
  poolSwap: toFunctionSelector('swap(uint256,address)'),
  // answered by eth_call
  name: toFunctionSelector('name()'),
  symbol: toFunctionSelector('symbol()'),
  decimals: toFunctionSelector('decimals()'),
  totalSupply: toFunctionSelector('totalSupply()'),
  totalSupplyOf: toFunctionSelector('totalSupply(uint256)'),
  balanceOf: toFunctionSelector('balanceOf(address)'),
  balanceOf1155: toFunctionSelector('balanceOf(address,uint256)'),
  ownerOf: toFunctionSelector('ownerOf(uint256)'),
  tokenURI: toFunctionSelector('tokenURI(uint256)'),
  uri: toFunctionSelector('uri(uint256)'),
  supportsInterface: toFunctionSelector('supportsInterface(bytes4)'),
};
const INTERFACE_721 = '80ac58cd';
const INTERFACE_1155 = 'd9b67a26';

// ---------------------------------------------------------------------------------------------------
// Encoding helpers

export const hex = (value: number | bigint): string => `0x${value.toString(16)}`;
export const word = (value: number | bigint): string => value.toString(16).padStart(64, '0');
export const addressWord = (address: string): string => address.slice(2).padStart(64, '0');
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
export const hash32 = (text: string): string => `0x${sha(text)}`;
export const addressOf = (text: string): string => `0x${sha(text).slice(0, 40)}`;

function encodeString(text: string): string {
  const bytes = Buffer.from(text, 'utf8').toString('hex');
  const padded = bytes.padEnd(Math.ceil(bytes.length / 64) * 64 || 64, '0');
  return `0x${word(32)}${word(bytes.length / 2)}${padded}`;
}

/** A seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The shared pool of holder addresses and the named actors. */
export const ACTORS = {
  whale: addressOf('bench:whale'),
  feeCollector: addressOf('bench:fee-collector'),
  holder: (index: number) => addressOf(`bench:holder:${index}`),
};

// ---------------------------------------------------------------------------------------------------
// The generated chain, kept compact: per block its transactions as plain descriptions.

export interface LogSpec {
  address: string;
  topics: string[];
  data: string;
}

/** The three bloom bits of each value a log adds (its address, each topic), by value: most repeat. */
const bloomBitsOf = new Map<string, readonly number[]>();

/**
 * The logs bloom of logs, as a node computes it (the Yellow Paper's M3:2048): for the address and each
 * topic, keccak-256 of its bytes; each of the hash's first three pairs of bytes, taken mod 2048, sets
 * that bit, counted from the low end of the 256-byte value. A block's bloom is the OR of its receipts'.
 */
export function bloomOf(logs: readonly LogSpec[]): string {
  const bloom = Buffer.alloc(256);
  for (const log of logs) {
    for (const value of [log.address, ...log.topics]) {
      let bits = bloomBitsOf.get(value);
      if (!bits) {
        const hash = Buffer.from(keccak256(value as Hex).slice(2), 'hex');
        bits = [0, 2, 4].map((offset) => ((hash[offset] as number) * 256 + (hash[offset + 1] as number)) & 2047);
        bloomBitsOf.set(value, bits);
      }
      for (const bit of bits) bloom[255 - (bit >> 3)] = (bloom[255 - (bit >> 3)] as number) | (1 << (bit & 7));
    }
  }
  return `0x${bloom.toString('hex')}`;
}

export interface CallFrame {
  type: 'CALL' | 'STATICCALL' | 'DELEGATECALL';
  from: string;
  to: string;
  value: bigint;
  input: string;
  calls?: CallFrame[];
}

export interface TxSpec {
  hash: string;
  from: string;
  to: string;
  value: bigint;
  input: string;
  nonce: number;
  gas: number;
  gasUsed: number;
  logs: LogSpec[];
  calls: CallFrame[];
  /** What the generator made it (base-profile.ts), for the profile's shape figures. */
  kind?: string;
  /** An OP-stack deposit (type 0x7e). */
  deposit?: { sourceHash: string; mint: bigint; isSystemTx: boolean };
  /** An OP-stack transaction's fees: its priority fee per gas and L1 data fee fields. */
  opFees?: { priorityFee: bigint; l1GasUsed: bigint; l1Fee: bigint };
}

export interface BlockSpec {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  txs: TxSpec[];
  withdrawals: { index: number; validatorIndex: number; address: string; amountGwei: bigint }[];
  /** Base fee per gas (wei); 1 gwei when absent. */
  baseFee?: bigint;
  /** An OP-stack block's L1 origin (the L1 attributes its deposit carries). */
  l1?: { number: number; baseFee: bigint; blobBaseFee: bigint };
}

/** Value history of one entity: blocks ascending, value at and after each. */
export class History<T> {
  readonly blocks: number[] = [];
  readonly values: T[] = [];
  set(block: number, value: T): void {
    if (this.blocks.length > 0 && this.blocks[this.blocks.length - 1] === block) this.values[this.values.length - 1] = value;
    else {
      this.blocks.push(block);
      this.values.push(value);
    }
  }
  latest(): T | undefined {
    return this.values[this.values.length - 1];
  }
  at(block: number): T | undefined {
    let low = 0;
    let high = this.blocks.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.blocks[middle] <= block) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found === -1 ? undefined : this.values[found];
  }
}

export class SyntheticChain {
  readonly spec: ChainSpec;
  readonly tokens: TokenSpec[];
  readonly router: string;
  readonly pools: string[];
  readonly blocks: BlockSpec[] = [];
  readonly counts: GeneratedCounts;
  protected readonly contracts = new Set<string>();
  protected readonly tokenByAddress = new Map<string, TokenSpec>();
  /** ERC-20 and ERC-721 balanceOf(holder): key token|holder. */
  protected readonly balances = new Map<string, History<bigint>>();
  /** ERC-1155 balanceOf(holder, id): key token|holder|id. */
  protected readonly balances1155 = new Map<string, History<bigint>>();
  /** ERC-1155 supply of an id and ERC-20 / ERC-721 totalSupply: key token or token|id. */
  protected readonly supplies = new Map<string, History<bigint>>();
  /** ERC-721 owner: key token|id. */
  protected readonly owners = new Map<string, History<string>>();
  /** Native coin balance (eth_getBalance): key address. Values, fees, internal values, withdrawals. */
  protected readonly coins = new Map<string, History<bigint>>();
  protected readonly nonces = new Map<string, number>();
  protected swapHash = '';
  protected nftBatchHash = '';

  /** Whether the chain has code at `address` (every contract it ever made, as eth_getCode at its head answers). */
  isContract(address: string): boolean {
    return this.contracts.has(address.toLowerCase());
  }

  constructor(spec: ChainSpec) {
    this.spec = spec;
    const tokens: TokenSpec[] = [];
    const add = (kind: TokenKind, count: number, prefix: string) => {
      for (let index = 0; index < count; index += 1) {
        const { address, name, symbol } = this.tokenIdentity(kind, index, prefix);
        tokens.push({ address: address ?? addressOf(`bench:${spec.chainId}:token:${kind}:${index}`), kind, name, symbol });
      }
    };
    add('ERC-20', spec.erc20Tokens, 'T');
    add('ERC-721', spec.erc721Tokens, 'N');
    add('ERC-1155', spec.erc1155Tokens, 'M');
    this.tokens = tokens;
    for (const token of tokens) {
      this.contracts.add(token.address);
      this.tokenByAddress.set(token.address, token);
    }
    this.router = addressOf(`bench:${spec.chainId}:router`);
    this.pools = Array.from({ length: 8 }, (_, index) => addressOf(`bench:${spec.chainId}:pool:${index}`));
    for (const address of [this.router, ...this.pools]) this.contracts.add(address);
    this.counts = {
      blocks: spec.blocks,
      transactions: 0,
      tokenTransfers: 0,
      logs: 0,
      internalCalls: 0,
      withdrawals: 0,
      byKind: {},
      whaleTransactions: 0,
      whaleTokenTransfers: 0,
      whaleWithdrawals: 0,
      busyTokenTransfers: 0,
      busyTokenFirstTimestamp: 0,
      busyTokenLastTimestamp: 0,
    };
    this.generate();
  }

  /** A token's name and symbol: the first ERC-20 is the busy token (BUSY). */
  protected tokenIdentity(kind: TokenKind, index: number, prefix: string): { address?: string; name: string; symbol: string } {
    const busy = kind === 'ERC-20' && index === 0;
    return {
      name: busy ? 'Busy Token' : `${kind} token ${index}`,
      symbol: busy ? 'BUSY' : `${prefix}${this.spec.chainId % 1000}x${index}`,
    };
  }

  get head(): number {
    return this.blocks.length - 1;
  }

  facts(): ChainFacts {
    return {
      chainId: this.spec.chainId,
      head: this.head,
      whale: ACTORS.whale,
      busyToken: this.tokens[0].address,
      router: this.router,
      swapSignature: SWAP_SIGNATURE,
      tokens: this.tokens,
      swapTransactionHash: this.swapHash,
      holder: ACTORS.holder(7),
      nft: this.nftFacts(ACTORS.whale),
      counts: this.counts,
    };
  }

  /** The collections where `holder` holds the most ids at the head (ties: the first token). */
  private nftFacts(holder: string): NftFacts {
    const held721 = new Map<string, bigint[]>();
    for (const [key, history] of this.owners) {
      if (history.latest() !== holder) continue;
      const [token, id] = key.split('|');
      held721.set(token, [...(held721.get(token) ?? []), BigInt(id)]);
    }
    const held1155 = new Map<string, bigint[]>();
    for (const [key, history] of this.balances1155) {
      const [token, owner, id] = key.split('|');
      if (owner !== holder || !((history.latest() ?? 0n) > 0n)) continue;
      held1155.set(token, [...(held1155.get(token) ?? []), BigInt(id)]);
    }
    const most = (held: Map<string, bigint[]>, kind: TokenKind): [string, bigint[]] => {
      let best: [string, bigint[]] = [this.tokens.find((token) => token.kind === kind)?.address ?? '', []];
      for (const token of this.tokens)
        if (token.kind === kind && (held.get(token.address)?.length ?? 0) > best[1].length)
          best = [token.address, held.get(token.address)!];
      return best;
    };
    const highest = (ids: bigint[]): string => [...ids].sort((a, b) => (a < b ? 1 : -1))[0]?.toString() ?? '1';
    const [erc721, ids721] = most(held721, 'ERC-721');
    const [erc1155, ids1155] = most(held1155, 'ERC-1155');
    return {
      holder,
      erc721,
      erc721Held: ids721.length,
      erc721TokenId: highest(ids721),
      erc1155,
      erc1155Held: ids1155.length,
      erc1155TokenId: highest(ids1155),
      batchTransferHash: this.nftBatchHash,
    };
  }

  /** A viem client answering the ingest's JSON-RPC from this chain. */
  client(): PublicClient {
    return createPublicClient({
      transport: custom({ request: ({ method, params }) => this.request(method, params as unknown[]) }, { retryCount: 0 }),
    }) as PublicClient;
  }

  // -------------------------------------------------------------------------------------------------
  // Generation

  protected generate(): void {
    const { spec } = this;
    const random = prng(spec.seed);
    const erc20 = this.tokens.filter((token) => token.kind === 'ERC-20');
    const erc721 = this.tokens.filter((token) => token.kind === 'ERC-721');
    const erc1155 = this.tokens.filter((token) => token.kind === 'ERC-1155');
    const busy = erc20[0];
    const others = erc20.length > 1 ? erc20.slice(1) : erc20;
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
    // A skewed choice of holders: a few busy addresses, a long tail.
    const holder = (): string => ACTORS.holder(Math.floor(spec.addresses * random() ** 2));
    const blockTime = Math.max(1, Math.floor(spec.spanSeconds / spec.blocks));
    const erc20Token = (): TokenSpec => (random() < spec.busyTokenShare ? busy : pick(others));
    const nextTokenId = new Map<string, number>();

    let withdrawalIndex = 0;
    let parentHash = hash32(`bench:${spec.chainId}:genesis-parent`);
    const genesis: BlockSpec = {
      number: 0,
      hash: hash32(`bench:${spec.chainId}:block:0`),
      parentHash,
      timestamp: spec.firstTimestamp - blockTime,
      txs: [],
      withdrawals: [],
    };
    this.blocks.push(genesis);
    parentHash = genesis.hash;

    let txLeft = spec.transactions;
    for (let number = 1; number <= spec.blocks; number += 1) {
      const blocksLeft = spec.blocks - number + 1;
      const txCount = Math.round(txLeft / blocksLeft);
      txLeft -= txCount;
      const block: BlockSpec = {
        number,
        hash: hash32(`bench:${spec.chainId}:block:${number}`),
        parentHash,
        timestamp: spec.firstTimestamp + (number - 1) * blockTime,
        txs: [],
        withdrawals: [],
      };
      parentHash = block.hash;
      for (let w = 0; w < spec.withdrawalsPerBlock; w += 1) {
        const toWhale = w === 0 && number % 4 === 0;
        const withdrawal = {
          index: withdrawalIndex,
          validatorIndex: 1000 + (withdrawalIndex % 5000),
          address: toWhale ? ACTORS.whale : holder(),
          amountGwei: 1_000_000n + BigInt(withdrawalIndex % 1000),
        };
        block.withdrawals.push(withdrawal);
        this.moveCoin(withdrawal.address, withdrawal.amountGwei * GWEI, number);
        withdrawalIndex += 1;
        if (toWhale) this.counts.whaleWithdrawals += 1;
      }
      for (let position = 0; position < txCount; position += 1) {
        const hash = hash32(`bench:${spec.chainId}:tx:${number}:${position}`);
        const whaleTx = random() < spec.whaleTxShare;
        const roll = random();
        const kind =
          roll < spec.mix.native
            ? 'native'
            : roll < spec.mix.native + spec.mix.swap
              ? 'swap'
              : roll < spec.mix.native + spec.mix.swap + spec.mix.nft
                ? 'nft'
                : 'erc20';
        const logs: LogSpec[] = [];
        const calls: CallFrame[] = [];
        let from = whaleTx ? ACTORS.whale : holder();
        let to: string;
        let value = 0n;
        let input = '0x';
        let gasUsed = 21_000;
        const transfer20 = (token: TokenSpec, sender: string, recipient: string, amount: bigint) => {
          logs.push({ address: token.address, topics: [TOPIC.transfer, topicOf(sender), topicOf(recipient)], data: `0x${word(amount)}` });
          this.moveBalance(token.address, sender, recipient, amount, number);
          this.countTransfer(token, sender, recipient, block.timestamp);
        };
        switch (kind) {
          case 'native': {
            // The whale sends half of its native transfers and receives the other half.
            if (whaleTx && random() < 0.5) {
              from = holder();
              to = ACTORS.whale;
            } else to = holder();
            value = BigInt(1 + Math.floor(random() * 1000)) * 10n ** 15n;
            break;
          }
          case 'erc20': {
            const token = erc20Token();
            const recipient = whaleTx ? holder() : random() < spec.whaleReceiveShare ? ACTORS.whale : holder();
            const amount = BigInt(1 + Math.floor(random() * 1_000_000)) * 10n ** 12n;
            to = token.address;
            input = `${SELECTOR.transfer}${addressWord(recipient)}${word(amount)}`;
            transfer20(token, from, recipient, amount);
            gasUsed = 52_000;
            break;
          }
          case 'swap': {
            const tokenIn = erc20Token();
            const tokenOut = erc20Token();
            const poolA = pick(this.pools);
            const poolB = this.pools[(this.pools.indexOf(poolA) + 1) % this.pools.length];
            const amountIn = BigInt(1 + Math.floor(random() * 1_000_000)) * 10n ** 12n;
            const amountOut = (amountIn * 97n) / 100n;
            const recipient = from;
            to = this.router;
            input = `${SELECTOR.swap}${addressWord(tokenIn.address)}${addressWord(tokenOut.address)}${word(amountIn)}${addressWord(recipient)}`;
            transfer20(tokenIn, from, poolA, amountIn);
            const middle = erc20Token();
            transfer20(middle, poolA, poolB, amountIn / 2n);
            transfer20(tokenOut, poolB, recipient, amountOut);
            if (spec.swapTransfers >= 4) transfer20(tokenIn, poolA, ACTORS.feeCollector, amountIn / 1000n);
            if (spec.swapTransfers >= 5) transfer20(tokenOut, poolB, ACTORS.feeCollector, amountOut / 1000n);
            const inner: CallFrame[] = [
              {
                type: 'CALL',
                from: this.router,
                to: poolA,
                value: 0n,
                input: `${SELECTOR.poolSwap}${word(amountIn)}${addressWord(poolB)}`,
              },
              {
                type: 'CALL',
                from: poolA,
                to: poolB,
                value: 0n,
                input: `${SELECTOR.poolSwap}${word(amountIn / 2n)}${addressWord(recipient)}`,
              },
            ];
            // A third of the swaps pay out in the native coin: an internal value transfer to the recipient.
            if (random() < 1 / 3) inner.push({ type: 'CALL', from: poolB, to: recipient, value: amountOut / 1000n, input: '0x' });
            calls.push(...inner);
            gasUsed = 180_000;
            if (!this.swapHash && spec.swapTransfers >= 3) this.swapHash = hash;
            break;
          }
          default: {
            // NFTs: ERC-721 mints and transfers, ERC-1155 single and batch mints.
            const recipient = whaleTx ? ACTORS.whale : holder();
            if (erc1155.length > 0 && (erc721.length === 0 || random() < 0.25)) {
              const token = pick(erc1155);
              const batch = random() < 0.25;
              const ids = batch ? [1, 2, 3].map(() => 1 + Math.floor(random() * 20)) : [1 + Math.floor(random() * 20)];
              const unique = [...new Set(ids)];
              const amounts = unique.map(() => BigInt(1 + Math.floor(random() * 5)));
              to = token.address;
              if (unique.length > 1) {
                if (!this.nftBatchHash) this.nftBatchHash = hash;
                input = `${SELECTOR.mintBatch}${addressWord(recipient)}${word(0x60)}${word(0x60 + 32 * (1 + unique.length))}${word(unique.length)}${unique.map(word).join('')}${word(unique.length)}${amounts.map(word).join('')}`;
                logs.push({
                  address: token.address,
                  topics: [TOPIC.transferBatch, topicOf(from), topicOf(ZERO_ADDRESS), topicOf(recipient)],
                  data: `0x${word(0x40)}${word(0x40 + 32 * (1 + unique.length))}${word(unique.length)}${unique.map(word).join('')}${word(unique.length)}${amounts.map(word).join('')}`,
                });
              } else {
                input = `${SELECTOR.mint1155}${addressWord(recipient)}${word(unique[0])}${word(amounts[0])}`;
                logs.push({
                  address: token.address,
                  topics: [TOPIC.transferSingle, topicOf(from), topicOf(ZERO_ADDRESS), topicOf(recipient)],
                  data: `0x${word(unique[0])}${word(amounts[0])}`,
                });
              }
              unique.forEach((id, index) => {
                this.mint1155(token.address, recipient, BigInt(id), amounts[index], number);
                this.countTransfer(token, ZERO_ADDRESS, recipient, block.timestamp);
              });
              gasUsed = 90_000;
            } else {
              const token = pick(erc721);
              const minted = nextTokenId.get(token.address) ?? 0;
              const mint = minted === 0 || random() < 0.5;
              let id: number;
              let sender: string;
              if (mint) {
                id = minted + 1;
                nextTokenId.set(token.address, id);
                sender = ZERO_ADDRESS;
                input = `${SELECTOR.mint}${addressWord(recipient)}${word(id)}`;
              } else {
                id = 1 + Math.floor(random() * minted);
                sender = this.owners.get(`${token.address}|${id}`)!.latest()!;
                from = sender;
                input = `${SELECTOR.safeTransferFrom}${addressWord(sender)}${addressWord(recipient)}${word(id)}`;
              }
              to = token.address;
              logs.push({
                address: token.address,
                topics: [TOPIC.transfer, topicOf(sender), topicOf(recipient), `0x${word(id)}`],
                data: '0x',
              });
              this.move721(token.address, sender, recipient, BigInt(id), number);
              this.countTransfer(token, sender, recipient, block.timestamp);
              gasUsed = 80_000;
            }
          }
        }
        const nonce = this.nonces.get(from) ?? 0;
        this.nonces.set(from, nonce + 1);
        block.txs.push({ hash, from, to, value, input, nonce, gas: gasUsed + 30_000, gasUsed, logs, calls });
        // Coins: the value and the fee (gas used x 2 gwei: 1 burnt, 1 to the block's miner), internal values.
        this.moveCoin(from, -(value + BigInt(gasUsed) * 2n * GWEI), number);
        this.moveCoin(to, value, number);
        this.moveCoin(this.minerOf(number), BigInt(gasUsed) * GWEI, number);
        for (const call of calls) {
          this.moveCoin(call.from, -call.value, number);
          this.moveCoin(call.to, call.value, number);
        }
        this.counts.transactions += 1;
        this.counts.byKind[kind] = (this.counts.byKind[kind] ?? 0) + 1;
        this.counts.logs += logs.length;
        this.counts.internalCalls += calls.length;
        if (from === ACTORS.whale || to === ACTORS.whale) this.counts.whaleTransactions += 1;
      }
      this.counts.withdrawals += block.withdrawals.length;
      this.blocks.push(block);
    }
  }

  protected countTransfer(token: TokenSpec, from: string, to: string, timestamp: number): void {
    this.counts.tokenTransfers += 1;
    if (from === ACTORS.whale || to === ACTORS.whale) this.counts.whaleTokenTransfers += 1;
    if (token === this.tokens[0]) {
      if (this.counts.busyTokenTransfers === 0) this.counts.busyTokenFirstTimestamp = timestamp;
      this.counts.busyTokenTransfers += 1;
      this.counts.busyTokenLastTimestamp = timestamp;
    }
  }

  protected history<T>(map: Map<string, History<T>>, key: string): History<T> {
    let history = map.get(key);
    if (!history) {
      history = new History<T>();
      map.set(key, history);
    }
    return history;
  }

  protected moveBalance(token: string, from: string, to: string, amount: bigint, block: number): void {
    for (const [holder, delta] of [
      [from, -amount],
      [to, amount],
    ] as const) {
      if (holder === ZERO_ADDRESS) continue;
      const history = this.history(this.balances, `${token}|${holder}`);
      const before = history.latest() ?? BASE;
      history.set(block, before + delta);
    }
  }

  protected minerOf(block: number): string {
    return addressOf(`bench:${this.spec.chainId}:miner:${block % 16}`);
  }

  protected moveCoin(address: string, delta: bigint, block: number): void {
    if (delta === 0n) return;
    const history = this.history(this.coins, address);
    history.set(block, (history.latest() ?? COIN_BASE) + delta);
  }

  protected move721(token: string, from: string, to: string, id: bigint, block: number): void {
    if (from !== ZERO_ADDRESS) {
      const history = this.history(this.balances, `${token}|${from}`);
      history.set(block, (history.latest() ?? 0n) - 1n);
    } else {
      const supply = this.history(this.supplies, token);
      supply.set(block, (supply.latest() ?? 0n) + 1n);
    }
    const history = this.history(this.balances, `${token}|${to}`);
    history.set(block, (history.latest() ?? 0n) + 1n);
    this.history(this.owners, `${token}|${id}`).set(block, to);
  }

  protected mint1155(token: string, to: string, id: bigint, amount: bigint, block: number): void {
    const history = this.history(this.balances1155, `${token}|${to}|${id}`);
    history.set(block, (history.latest() ?? 0n) + amount);
    const supply = this.history(this.supplies, `${token}|${id}`);
    supply.set(block, (supply.latest() ?? 0n) + amount);
  }

  // -------------------------------------------------------------------------------------------------
  // JSON-RPC

  private blockAt(tag: unknown): BlockSpec | undefined {
    const number = tag === 'latest' || tag === undefined ? this.head : Number(BigInt(tag as string));
    return this.blocks[number];
  }

  async request(method: string, params: unknown[] = []): Promise<unknown> {
    switch (method) {
      case 'eth_chainId':
        return hex(this.spec.chainId);
      case 'eth_blockNumber':
        return hex(this.head);
      case 'eth_getBlockByNumber': {
        const block = this.blockAt(params[0]);
        return block ? this.blockJson(block, params[1] === true) : null;
      }
      case 'eth_getBlockReceipts': {
        const block = this.blockAt(params[0]);
        return block ? block.txs.map((tx, position) => this.receiptJson(block, tx, position)) : null;
      }
      case 'debug_traceBlockByNumber': {
        const block = this.blockAt(params[0]);
        if (!block) throw Object.assign(new Error('block not found'), { code: -32000 });
        return block.txs.map((tx) => ({ txHash: tx.hash, result: this.traceJson(tx) }));
      }
      case 'eth_getCode':
        return this.hasCode(String(params[0]).toLowerCase()) ? CODE : '0x';
      case 'eth_getBalance': {
        const address = String(params[0]).toLowerCase();
        const block = params[1] === 'latest' || params[1] === undefined ? this.head : Number(BigInt(params[1] as string));
        return hex(this.coinBalance(address, block));
      }
      case 'eth_getStorageAt':
        // No proxies: every storage slot is zero.
        return `0x${word(0)}`;
      case 'eth_call': {
        const call = params[0] as { to?: string; data?: string; input?: string };
        const tag = params[1] as string | undefined;
        const block = tag === undefined || tag === 'latest' ? this.head : Number(BigInt(tag));
        const to = String(call.to).toLowerCase();
        const data = String(call.data ?? call.input ?? '0x').toLowerCase();
        // A program put at `to` for the call (a state override): the ingest's code-sizes program is run as the EVM would.
        const override = (params[2] as Record<string, { code?: string }> | undefined)?.[String(call.to)] ?? undefined;
        if (override?.code !== undefined) {
          if (override.code.toLowerCase() !== CODE_SIZES_PROGRAM) throw Object.assign(new Error('execution reverted'), { code: 3 });
          const words = (data.length - 2) / 64;
          return `0x${Array.from({ length: words }, (_, index) => word(this.hasCode(`0x${data.slice(2 + index * 64 + 24, 2 + (index + 1) * 64)}`) ? (CODE.length - 2) / 2 : 0)).join('')}`;
        }
        if (this.spec.multicall3 === true && to === MULTICALL3_ADDRESS) return this.multicall(data, block);
        return this.call(to, data, block);
      }
      default:
        throw Object.assign(new Error(`the method ${method} does not exist/is not available`), { code: -32601 });
    }
  }

  /** Multicall3 at `block`: aggregate3 (each call answered as its own eth_call would be; none reverts) and getEthBalance. */
  private multicall(data: string, block: number): string {
    const decoded = decodeFunctionData({ abi: multicall3Abi, data: data as Hex });
    if (decoded.functionName === 'getEthBalance') {
      const address = String(decoded.args[0]).toLowerCase();
      return encodeFunctionResult({ abi: multicall3Abi, functionName: 'getEthBalance', result: this.coinBalance(address, block) });
    }
    if (decoded.functionName !== 'aggregate3') throw Object.assign(new Error('execution reverted'), { code: 3 });
    const results = decoded.args[0].map((entry) => {
      const target = entry.target.toLowerCase();
      const callData = entry.callData.toLowerCase();
      const returnData = target === MULTICALL3_ADDRESS ? this.multicall(callData, block) : this.call(target, callData, block);
      return { success: true, returnData: returnData as Hex };
    });
    return encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: results });
  }

  private hasCode(address: string): boolean {
    return this.contracts.has(address) || (this.spec.multicall3 === true && address === MULTICALL3_ADDRESS);
  }

  private coinBalance(address: string, block: number): bigint {
    return this.coins.get(address)?.at(block) ?? COIN_BASE;
  }

  private call(to: string, data: string, block: number): string {
    const token = this.tokenByAddress.get(to);
    if (!token) return '0x';
    const selector = data.slice(0, 10);
    const argument = (position: number): string => data.slice(10 + position * 64, 10 + (position + 1) * 64);
    const argAddress = (position: number): string => `0x${argument(position).slice(24)}`;
    const argInt = (position: number): bigint => BigInt(`0x${argument(position) || '0'}`);
    switch (selector) {
      case SELECTOR.name:
        return encodeString(token.name);
      case SELECTOR.symbol:
        return encodeString(token.symbol);
      case SELECTOR.decimals:
        return token.kind === 'ERC-20' ? `0x${word(18)}` : '0x';
      case SELECTOR.totalSupply:
        if (token.kind === 'ERC-1155') return '0x';
        // ERC-20: 10^30 plus what was minted (bridge deposits, wrapped coin) less what was burnt.
        return `0x${word(this.supplies.get(to)?.at(block) ?? (token.kind === 'ERC-20' ? 10n ** 30n : 0n))}`;
      case SELECTOR.supportsInterface: {
        if (token.kind === 'ERC-20') return '0x';
        const id = argument(0).slice(0, 8);
        return `0x${word((id === INTERFACE_721 && token.kind === 'ERC-721') || (id === INTERFACE_1155 && token.kind === 'ERC-1155') ? 1 : 0)}`;
      }
      case SELECTOR.balanceOf: {
        if (token.kind === 'ERC-1155') return '0x';
        const value = this.balances.get(`${to}|${argAddress(0)}`)?.at(block);
        return `0x${word(value ?? (token.kind === 'ERC-20' ? BASE : 0n))}`;
      }
      case SELECTOR.balanceOf1155: {
        if (token.kind !== 'ERC-1155') return '0x';
        return `0x${word(this.balances1155.get(`${to}|${argAddress(0)}|${argInt(1)}`)?.at(block) ?? 0n)}`;
      }
      case SELECTOR.ownerOf: {
        if (token.kind !== 'ERC-721') return '0x';
        const owner = this.owners.get(`${to}|${argInt(0)}`)?.at(block);
        return owner ? `0x${addressWord(owner)}` : '0x';
      }
      case SELECTOR.tokenURI:
        return token.kind === 'ERC-721' ? encodeString(`data:application/json,{"name":"${token.symbol} #${argInt(0)}"}`) : '0x';
      case SELECTOR.uri:
        return token.kind === 'ERC-1155' ? encodeString(`data:application/json,{"name":"${token.symbol} {id}"}`) : '0x';
      case SELECTOR.totalSupplyOf:
        return token.kind === 'ERC-1155' ? `0x${word(this.supplies.get(`${to}|${argInt(0)}`)?.at(block) ?? 0n)}` : '0x';
      default:
        return '0x';
    }
  }

  protected blockJson(block: BlockSpec, full: boolean): Record<string, unknown> {
    const gasUsed = block.txs.reduce((sum, tx) => sum + tx.gasUsed, 0);
    const seed = `bench:${this.spec.chainId}:${block.number}`;
    return {
      number: hex(block.number),
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: hex(block.timestamp),
      nonce: '0x0000000000000000',
      sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
      mixHash: hash32(`${seed}:mix`),
      miner: this.minerOf(block.number),
      stateRoot: hash32(`${seed}:state`),
      transactionsRoot: hash32(`${seed}:txs`),
      receiptsRoot: hash32(`${seed}:receipts`),
      logsBloom: bloomOf(block.txs.flatMap((tx) => tx.logs)),
      size: hex(600 + block.txs.length * 180),
      extraData: '0x',
      difficulty: '0x0',
      totalDifficulty: '0x0',
      gasLimit: hex(30_000_000),
      gasUsed: hex(gasUsed),
      baseFeePerGas: hex(block.baseFee ?? GWEI),
      withdrawalsRoot: hash32(`${seed}:withdrawals`),
      withdrawals: block.withdrawals.map((withdrawal) => ({
        index: hex(withdrawal.index),
        validatorIndex: hex(withdrawal.validatorIndex),
        address: withdrawal.address,
        amount: hex(withdrawal.amountGwei),
      })),
      uncles: [],
      transactions: full ? block.txs.map((tx, position) => this.transactionJson(block, tx, position)) : block.txs.map((tx) => tx.hash),
    };
  }

  protected transactionJson(block: BlockSpec, tx: TxSpec, position: number): Record<string, unknown> {
    return {
      hash: tx.hash,
      nonce: hex(tx.nonce),
      blockHash: block.hash,
      blockNumber: hex(block.number),
      transactionIndex: hex(position),
      from: tx.from,
      to: tx.to,
      value: hex(tx.value),
      gas: hex(tx.gas),
      gasPrice: hex(2n * GWEI),
      maxFeePerGas: hex(3n * GWEI),
      maxPriorityFeePerGas: hex(GWEI),
      input: tx.input,
      type: '0x2',
      chainId: hex(this.spec.chainId),
      accessList: [],
      v: '0x1',
      yParity: '0x1',
      r: hash32(`${tx.hash}:r`),
      s: hash32(`${tx.hash}:s`),
    };
  }

  protected receiptJson(block: BlockSpec, tx: TxSpec, position: number): Record<string, unknown> {
    let cumulative = 0;
    for (let index = 0; index <= position; index += 1) cumulative += block.txs[index].gasUsed;
    let logIndex = 0;
    for (let index = 0; index < position; index += 1) logIndex += block.txs[index].logs.length;
    return {
      transactionHash: tx.hash,
      transactionIndex: hex(position),
      blockHash: block.hash,
      blockNumber: hex(block.number),
      from: tx.from,
      to: tx.to,
      cumulativeGasUsed: hex(cumulative),
      gasUsed: hex(tx.gasUsed),
      effectiveGasPrice: hex(2n * GWEI),
      contractAddress: null,
      logs: tx.logs.map((log, offset) => ({
        address: log.address,
        topics: log.topics,
        data: log.data,
        blockNumber: hex(block.number),
        blockHash: block.hash,
        transactionHash: tx.hash,
        transactionIndex: hex(position),
        logIndex: hex(logIndex + offset),
        removed: false,
      })),
      logsBloom: bloomOf(tx.logs),
      status: '0x1',
      type: '0x2',
    };
  }

  protected traceJson(tx: TxSpec): Record<string, unknown> {
    const frame = (call: CallFrame): Record<string, unknown> => ({
      type: call.type,
      from: call.from,
      to: call.to,
      value: hex(call.value),
      gas: hex(100_000),
      gasUsed: hex(30_000),
      input: call.input,
      output: '0x',
      ...(call.calls ? { calls: call.calls.map(frame) } : {}),
    });
    return {
      type: 'CALL',
      from: tx.from,
      to: tx.to,
      value: hex(tx.value),
      gas: hex(tx.gas),
      gasUsed: hex(tx.gasUsed),
      input: tx.input,
      output: '0x',
      ...(tx.calls.length > 0 ? { calls: tx.calls.map(frame) } : {}),
    };
  }
}

export const topicOf = (address: string): string => `0x${addressWord(address)}`;
