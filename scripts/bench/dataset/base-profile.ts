/**
 * A Base-like chain for the benchmark (issue 27: "a realistic chain shape"): the synthetic node of
 * chain.ts with a generator of its own, so that the real ingest's write units and stored bytes per
 * transaction can be measured on a chain of Base's shape rather than the dataset's light chains.
 *
 * Every block (spec.ts baseProfileSpec holds the figures, docs/decisions/bench-profiles.md where
 * they come from):
 *  - starts with its deposits (type 0x7e): the L1 attributes deposit from the depositor account
 *    0xdead...0001 to the L1Block predeploy 0x4200...0015 (Ecotone calldata, 164 bytes), then, in the
 *    first block of an epoch (an L1 block every `epochBlocks` L2 blocks), the user deposits of that
 *    L1 block: ETH deposits (mint = value) and bridged ERC-20 deposits (relayed by the aliased L1
 *    messenger through the L2 messenger and standard bridge, minting the token);
 *  - then user transactions, `transactionsPerBlock` in all, of a mix dominated by DEX swaps (routers
 *    over Uniswap v2-like pairs, with Sync and Swap logs, and v3-like pools with their callback; one
 *    to three hops; wrapped-coin deposits and withdrawals; a frontend fee now and then) and ERC-20
 *    transfers (a tenth of them multi-sends), then native transfers, approvals, NFT mints (ERC-721
 *    and ERC-1155) and calls of other contracts;
 *  - tokens, pools, routers, called contracts, senders and recipients drawn with a Zipf-like law
 *    (weight of rank r is 1 / r^s): a few hot tokens and pools, a long tail;
 *  - call traces as the contracts make them: a pool's transfers, balance reads (STATICCALL) and
 *    callback; a DELEGATECALL beneath each call of a token behind a proxy.
 *
 * Receipts are an OP node's: a deposit's has `depositNonce` and `depositReceiptVersion` and no fee;
 * every other carries the Ecotone L1 data fee fields (`l1Fee`, `l1GasUsed`, `l1GasPrice`,
 * `l1BaseFeeScalar`, `l1BlobBaseFee`, `l1BlobBaseFeeScalar`). Fees go where the OP stack sends them:
 * the priority fee to the sequencer fee vault (the block's miner), the base fee to the base fee vault,
 * the L1 fee to the L1 fee vault; a deposit pays none and mints its `mint` to its sender.
 *
 * The chain stays consistent as chain.ts's does: every Transfer log moves a balance balanceOf
 * reports, the wrapped coin's deposits and withdrawals and the bridge's mints move balances and the
 * total supply, and native coin moves (values, fees, mints, internal values) add up in eth_getBalance.
 */
import { toEventSelector, toFunctionSelector } from 'viem';
import { TOPIC } from '../../../shared/chain/abis';
import {
  ACTORS,
  addressOf,
  addressWord,
  GWEI,
  hash32,
  hex,
  prng,
  SyntheticChain,
  topicOf,
  word,
  ZERO_ADDRESS,
  type BaseShape,
  type BlockSpec,
  type CallFrame,
  type LogSpec,
  type TokenKind,
  type TokenSpec,
  type TxSpec,
} from './chain';

/** The OP stack's fixed accounts (predeploys and the L1 attributes depositor). */
export const OP_ADDRESSES = {
  depositor: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
  l1Block: '0x4200000000000000000000000000000000000015',
  l2CrossDomainMessenger: '0x4200000000000000000000000000000000000007',
  l2StandardBridge: '0x4200000000000000000000000000000000000010',
  weth: '0x4200000000000000000000000000000000000006',
  sequencerFeeVault: '0x4200000000000000000000000000000000000011',
  baseFeeVault: '0x4200000000000000000000000000000000000019',
  l1FeeVault: '0x420000000000000000000000000000000000001a',
} as const;

export const DEPOSIT_TYPE = '0x7e';
/** Ecotone's L1 fee scalars (fixed here: they only set the size of the L1 fee). */
const BASE_FEE_SCALAR = 2269n;
const BLOB_BASE_FEE_SCALAR = 1_055_762n;
const BLOCK_GAS_LIMIT = 400_000_000;
const MAX_UINT256 = (1n << 256n) - 1n;

const SEL = {
  transfer: toFunctionSelector('transfer(address,uint256)'),
  transferFrom: toFunctionSelector('transferFrom(address,address,uint256)'),
  approve: toFunctionSelector('approve(address,uint256)'),
  balanceOf: toFunctionSelector('balanceOf(address)'),
  deposit: toFunctionSelector('deposit()'),
  withdraw: toFunctionSelector('withdraw(uint256)'),
  execute: toFunctionSelector('execute(bytes,bytes[],uint256)'),
  getReserves: toFunctionSelector('getReserves()'),
  pairSwap: toFunctionSelector('swap(uint256,uint256,address,bytes)'),
  poolSwap: toFunctionSelector('swap(address,bool,int256,uint160,bytes)'),
  swapCallback: toFunctionSelector('uniswapV3SwapCallback(int256,int256,bytes)'),
  disperseToken: toFunctionSelector('disperseToken(address,address[],uint256[])'),
  mint: toFunctionSelector('mint(address,uint256)'),
  mint1155: toFunctionSelector('mint(address,uint256,uint256)'),
  mintBatch: toFunctionSelector('mintBatch(address,uint256[],uint256[])'),
  safeTransferFrom: toFunctionSelector('safeTransferFrom(address,address,uint256)'),
  act: toFunctionSelector('act(uint256,bytes32)'),
  latestRoundData: toFunctionSelector('latestRoundData()'),
  relayMessage: toFunctionSelector('relayMessage(uint256,address,address,uint256,uint256,bytes)'),
  finalizeBridgeERC20: toFunctionSelector('finalizeBridgeERC20(address,address,address,address,uint256,bytes)'),
  /** Ecotone's packed L1 attributes call. */
  setL1BlockValuesEcotone: '0x440a5e20',
};

const EVENT = {
  approval: toEventSelector('Approval(address,address,uint256)'),
  sync: toEventSelector('Sync(uint112,uint112)'),
  pairSwap: toEventSelector('Swap(address,uint256,uint256,uint256,uint256,address)'),
  poolSwap: toEventSelector('Swap(address,address,int256,int256,uint160,uint128,int24)'),
  deposit: toEventSelector('Deposit(address,uint256)'),
  withdrawal: toEventSelector('Withdrawal(address,uint256)'),
  depositFinalized: toEventSelector('DepositFinalized(address,address,address,address,uint256,bytes)'),
  relayedMessage: toEventSelector('RelayedMessage(bytes32)'),
  action: toEventSelector('Action(address,uint256)'),
};

/** Kinds of transaction the profile generates (GeneratedCounts.byKind, ProfileShape.shareByKind). */
export type BaseKind = 'l1-attributes deposit' | 'user deposit' | 'swap' | 'erc20' | 'native' | 'approve' | 'nft' | 'other';
const DEPOSIT_KINDS: readonly string[] = ['l1-attributes deposit', 'user deposit'];

interface Pool {
  address: string;
  kind: 'pair' | 'pool';
  token0: TokenSpec;
  token1: TokenSpec;
}

/** A sampler of ranks 0..n-1 with weight 1 / (rank + 1)^s. */
export function zipf(n: number, exponent: number, random: () => number): () => number {
  const cumulative = new Float64Array(Math.max(1, n));
  let sum = 0;
  for (let rank = 0; rank < n; rank += 1) {
    sum += 1 / (rank + 1) ** exponent;
    cumulative[rank] = sum;
  }
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] > target) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}

/** Two's complement of a signed integer, as a 32-byte word. */
const signedWord = (value: bigint): string => word(value < 0n ? (1n << 256n) + value : value);
const amountOf = (random: () => number, unit: bigint): bigint => BigInt(1 + Math.floor(random() * 1_000_000)) * unit;

/** The measured shape of a generated chain (what the tests check, and the profile's report shows). */
export interface ProfileShape {
  blocks: number;
  transactions: number;
  blockSeconds: number;
  transactionsPerBlock: { min: number; max: number; mean: number };
  /** Every block starts with the L1 attributes deposit, and no deposit follows a user transaction. */
  depositsFirstInEveryBlock: boolean;
  l1AttributesDeposits: number;
  userDeposits: number;
  /** Share of all transactions by kind. */
  shareByKind: Record<string, number>;
  logsPerTransaction: number;
  tokenTransfersPerTransaction: number;
  /** Call frames below the top-level call (the ingest's internal transactions). */
  internalCallsPerTransaction: number;
  erc20Transfers: number;
  /** The token with the most ERC-20 Transfer logs, its share, and the top three's. */
  topToken: string;
  topTokenShare: number;
  top3TokenShare: number;
  tokensTransferred: number;
  /** Share of the user transactions sent to the most called address (a router). */
  topContractShare: number;
  /** Share of the user transactions sent by the busiest sender. */
  topSenderShare: number;
  senders: number;
}

/** A chain of Base's shape (spec.base); see the file comment. */
export class BaseChain extends SyntheticChain {
  /** Set in generate (declared, not defined: a field would be reset after the base constructor ran it). */
  declare routers: string[];
  declare liquidityPools: Pool[];
  declare apps: string[];

  protected override tokenIdentity(kind: TokenKind, index: number): { address?: string; name: string; symbol: string } {
    if (kind === 'ERC-20') {
      if (index === 0) return { address: OP_ADDRESSES.weth, name: 'Wrapped Ether', symbol: 'WETH' };
      if (index === 1) return { name: 'USD Coin', symbol: 'USDC' };
      if (index === 2) return { name: 'Coinbase Wrapped BTC', symbol: 'cbBTC' };
      return { name: `Base token ${index}`, symbol: `B${index}` };
    }
    return kind === 'ERC-721'
      ? { name: `Base collection ${index}`, symbol: `BC${index}` }
      : { name: `Base editions ${index}`, symbol: `BE${index}` };
  }

  protected override generate(): void {
    const { spec } = this;
    const shape = spec.base as BaseShape;
    const chainId = spec.chainId;
    const random = prng(spec.seed);
    const s = shape.zipfExponent;
    const erc20 = this.tokens.filter((token) => token.kind === 'ERC-20');
    const erc721 = this.tokens.filter((token) => token.kind === 'ERC-721');
    const erc1155 = this.tokens.filter((token) => token.kind === 'ERC-1155');
    const weth = erc20[0];
    const hubs = erc20.slice(0, Math.max(1, Math.min(shape.hubTokens, erc20.length)));
    const tail = erc20.length > hubs.length ? erc20.slice(hubs.length) : erc20;
    // Tokens behind a proxy: USDC (rank 1, as on Base) and a share of the others, spread over the ranks.
    const proxies = new Set<string>();
    erc20.forEach((token, rank) => {
      if (rank === 1 || (rank > 2 && ((rank * 37) % 100) / 100 < shape.proxyTokenShare)) proxies.add(token.address);
    });
    const implementation = (address: string): string => addressOf(`bench:${chainId}:implementation:${address}`);

    this.routers = [
      this.router,
      ...Array.from({ length: Math.max(0, shape.routers - 1) }, (_, i) => addressOf(`bench:${chainId}:router:${i + 1}`)),
    ];
    this.apps = Array.from({ length: shape.apps }, (_, i) => addressOf(`bench:${chainId}:app:${i}`));
    const oracle = addressOf(`bench:${chainId}:oracle`);
    const disperse = addressOf(`bench:${chainId}:disperse`);
    const aliasedMessenger = addressOf('bench:op:aliased-l1-cross-domain-messenger');
    const l1Token = (token: TokenSpec): string => addressOf(`bench:l1-token:${token.address}`);
    const hubRank = zipf(hubs.length, s, random);
    const tailRank = zipf(tail.length, s, random);
    const pools: Pool[] = [];
    for (let index = 0; index < shape.pools; index += 1) {
      // The hubs' own pairs first (WETH/USDC, ...), then each hub with a token of the tail.
      let token0: TokenSpec;
      let token1: TokenSpec;
      const hubPairs = (hubs.length * (hubs.length - 1)) / 2;
      if (index < hubPairs) {
        let pair = index;
        let a = 0;
        while (pair >= hubs.length - 1 - a) {
          pair -= hubs.length - 1 - a;
          a += 1;
        }
        token0 = hubs[a];
        token1 = hubs[a + 1 + pair];
      } else {
        token0 = hubs[hubRank()];
        token1 = tail[tailRank()];
        if (token1 === token0) token1 = erc20[(erc20.indexOf(token0) + 1) % erc20.length];
      }
      pools.push({ address: addressOf(`bench:${chainId}:pool:${index}`), kind: random() < 0.4 ? 'pair' : 'pool', token0, token1 });
    }
    this.liquidityPools = pools;
    const poolsOf = new Map<string, Pool[]>();
    for (const pool of pools)
      for (const token of [pool.token0, pool.token1]) {
        const list = poolsOf.get(token.address) ?? [];
        list.push(pool);
        poolsOf.set(token.address, list);
      }
    for (const address of [
      ...this.routers,
      ...this.apps,
      ...pools.map((pool) => pool.address),
      ...[...proxies].map(implementation),
      oracle,
      disperse,
      OP_ADDRESSES.l1Block,
      OP_ADDRESSES.l2CrossDomainMessenger,
      OP_ADDRESSES.l2StandardBridge,
      OP_ADDRESSES.sequencerFeeVault,
      OP_ADDRESSES.baseFeeVault,
      OP_ADDRESSES.l1FeeVault,
    ])
      this.contracts.add(address);

    const samplers = new Map<number, () => number>();
    const rankBelow = (n: number): number => {
      let sampler = samplers.get(n);
      if (!sampler) {
        sampler = zipf(n, s, random);
        samplers.set(n, sampler);
      }
      return sampler();
    };
    const pick = <T>(list: readonly T[]): T => list[rankBelow(list.length)];
    const holders = Math.max(2, spec.addresses);
    const sender = (): string => ACTORS.holder(rankBelow(holders));
    // Recipients: their own ranking (the busiest sender is not the busiest recipient).
    const recipientStep = holders % 7919 === 0 ? 1 : 7919;
    const recipient = (): string => ACTORS.holder((rankBelow(holders) * recipientStep + 1) % holders);
    const nextTokenId = new Map<string, number>();

    let parentHash = hash32(`bench:${chainId}:genesis-parent`);
    const genesis: BlockSpec = {
      number: 0,
      hash: hash32(`bench:${chainId}:block:0`),
      parentHash,
      timestamp: spec.firstTimestamp - shape.blockSeconds,
      txs: [],
      withdrawals: [],
    };
    this.blocks.push(genesis);
    parentHash = genesis.hash;
    let l1: NonNullable<BlockSpec['l1']> & { hash: string; timestamp: number } = {
      number: 0,
      baseFee: 0n,
      blobBaseFee: 0n,
      hash: '',
      timestamp: 0,
    };

    for (let number = 1; number <= spec.blocks; number += 1) {
      const sequence = (number - 1) % shape.epochBlocks;
      const timestamp = spec.firstTimestamp + (number - 1) * shape.blockSeconds;
      if (sequence === 0) {
        const epoch = (number - 1) / shape.epochBlocks;
        l1 = {
          number: 21_000_000 + epoch,
          baseFee: GWEI / 2n + BigInt(Math.floor(random() * 4_000_000_000)),
          blobBaseFee: BigInt(1 + Math.floor(random() * 1000)),
          hash: hash32(`bench:l1:${chainId}:${epoch}`),
          timestamp: timestamp - 6,
        };
      }
      const block: BlockSpec = {
        number,
        hash: hash32(`bench:${chainId}:block:${number}`),
        parentHash,
        timestamp,
        txs: [],
        withdrawals: [],
        baseFee: 5_000_000n + BigInt(Math.floor(random() * 5_000_000)),
        l1: { number: l1.number, baseFee: l1.baseFee, blobBaseFee: l1.blobBaseFee },
      };
      parentHash = block.hash;
      const baseFee = block.baseFee as bigint;
      const transactions = shape.burst?.block === number ? shape.burst.transactions : shape.transactionsPerBlock;
      const userDeposits = sequence === 0 ? Math.min(transactions - 1, Math.floor(random() * (2 * shape.userDepositsPerEpoch + 1))) : 0;

      for (let position = 0; position < transactions; position += 1) {
        const hash = hash32(`bench:${chainId}:tx:${number}:${position}`);
        const logs: LogSpec[] = [];
        const calls: CallFrame[] = [];
        // A call (a DELEGATECALL to its implementation beneath, when `to` is behind a proxy).
        const frame = (type: CallFrame['type'], from: string, to: string, input: string, value = 0n, inner?: CallFrame[]): CallFrame => {
          if (type !== 'DELEGATECALL' && proxies.has(to))
            return {
              type,
              from,
              to,
              value,
              input,
              calls: [{ type: 'DELEGATECALL', from: to, to: implementation(to), value: 0n, input, calls: inner }],
            };
          return { type, from, to, value, input, ...(inner ? { calls: inner } : {}) } as CallFrame;
        };
        const transfer20 = (token: TokenSpec, from: string, to: string, amount: bigint): void => {
          logs.push({ address: token.address, topics: [TOPIC.transfer, topicOf(from), topicOf(to)], data: `0x${word(amount)}` });
          this.moveBalance(token.address, from, to, amount, number);
          this.countTransfer(token, from, to, timestamp);
        };
        const supply = (token: string, delta: bigint): void => {
          const history = this.history(this.supplies, token);
          history.set(number, (history.latest() ?? 10n ** 30n) + delta);
        };
        const tokenCall = (caller: string, token: TokenSpec, payer: string, to: string, amount: bigint): CallFrame =>
          caller === payer
            ? frame('CALL', caller, token.address, `${SEL.transfer}${addressWord(to)}${word(amount)}`)
            : frame('CALL', caller, token.address, `${SEL.transferFrom}${addressWord(payer)}${addressWord(to)}${word(amount)}`);
        const balanceRead = (caller: string, token: TokenSpec): CallFrame =>
          frame('STATICCALL', caller, token.address, `${SEL.balanceOf}${addressWord(caller)}`);

        let kind: BaseKind;
        let from: string;
        let to: string;
        let value = 0n;
        let input = '0x';
        let gasUsed = 21_000;
        let gas: number | undefined;
        let deposit: TxSpec['deposit'];

        if (position === 0) {
          // The L1 attributes deposit (Ecotone's packed calldata: scalars, sequence number, L1 block).
          kind = 'l1-attributes deposit';
          from = OP_ADDRESSES.depositor;
          to = OP_ADDRESSES.l1Block;
          input =
            `${SEL.setL1BlockValuesEcotone}${BASE_FEE_SCALAR.toString(16).padStart(8, '0')}${BLOB_BASE_FEE_SCALAR.toString(16).padStart(8, '0')}` +
            `${sequence.toString(16).padStart(16, '0')}${l1.timestamp.toString(16).padStart(16, '0')}${l1.number.toString(16).padStart(16, '0')}` +
            `${word(l1.baseFee)}${word(l1.blobBaseFee)}${l1.hash.slice(2)}${addressWord(addressOf('bench:op:batcher'))}`;
          gas = 1_000_000;
          gasUsed = 44_000 + (sequence === 0 ? 8_000 : 0);
          deposit = { sourceHash: hash32(`bench:${chainId}:l1-attributes:${number}`), mint: 0n, isSystemTx: false };
        } else if (position <= userDeposits) {
          kind = 'user deposit';
          const sourceHash = hash32(`bench:${chainId}:user-deposit:${number}:${position}`);
          if (random() < 0.75) {
            // ETH bridged from L1: minted to the depositor, sent on to the recipient.
            from = recipient();
            to = random() < 0.8 ? from : recipient();
            value = BigInt(1 + Math.floor(random() * 2000)) * 10n ** 15n;
            deposit = { sourceHash, mint: value, isSystemTx: false };
            gas = 100_000;
          } else {
            // A bridged ERC-20: the aliased L1 messenger relays to the L2 messenger, the standard bridge mints.
            const token = pick(erc20);
            const holder = recipient();
            const amount = amountOf(random, 10n ** 12n);
            from = aliasedMessenger;
            to = OP_ADDRESSES.l2CrossDomainMessenger;
            const finalize = `${SEL.finalizeBridgeERC20}${addressWord(token.address)}${addressWord(l1Token(token))}${addressWord(holder)}${addressWord(holder)}${word(amount)}${word(0xc0)}${word(0)}`;
            input = `${SEL.relayMessage}${word((1n << 240n) + BigInt(number * 1000 + position))}${addressWord(addressOf('bench:op:l1-standard-bridge'))}${addressWord(OP_ADDRESSES.l2StandardBridge)}${word(0)}${word(200_000)}${word(0xc0)}${word((finalize.length - 2) / 2)}${finalize.slice(2).padEnd(Math.ceil((finalize.length - 2) / 64) * 64, '0')}`;
            calls.push(
              frame('CALL', OP_ADDRESSES.l2CrossDomainMessenger, OP_ADDRESSES.l2StandardBridge, finalize, 0n, [
                frame('CALL', OP_ADDRESSES.l2StandardBridge, token.address, `${SEL.mint}${addressWord(holder)}${word(amount)}`),
              ]),
            );
            transfer20(token, ZERO_ADDRESS, holder, amount);
            supply(token.address, amount);
            logs.push({
              address: OP_ADDRESSES.l2StandardBridge,
              topics: [EVENT.depositFinalized, topicOf(l1Token(token)), topicOf(token.address), topicOf(holder)],
              data: `0x${addressWord(holder)}${word(amount)}${word(0x60)}${word(0)}`,
            });
            logs.push({
              address: OP_ADDRESSES.l2CrossDomainMessenger,
              topics: [EVENT.relayedMessage, hash32(`bench:${chainId}:message:${number}:${position}`)],
              data: '0x',
            });
            deposit = { sourceHash, mint: 0n, isSystemTx: false };
            gas = 300_000;
            gasUsed = 120_000;
          }
        } else {
          from = sender();
          const roll = random();
          const mix = shape.mix;
          kind =
            roll < mix.swap
              ? 'swap'
              : roll < mix.swap + mix.erc20
                ? 'erc20'
                : roll < mix.swap + mix.erc20 + mix.native
                  ? 'native'
                  : roll < mix.swap + mix.erc20 + mix.native + mix.approve
                    ? 'approve'
                    : roll < mix.swap + mix.erc20 + mix.native + mix.approve + mix.nft
                      ? 'nft'
                      : 'other';
          switch (kind) {
            case 'swap': {
              const router = pick(this.routers);
              to = router;
              const hopsRoll = random();
              const hops = hopsRoll < 0.65 ? 1 : hopsRoll < 0.93 ? 2 : 3;
              const path: { pool: Pool; tokenIn: TokenSpec; tokenOut: TokenSpec }[] = [];
              let pool = pick(pools);
              let tokenIn = random() < 0.5 ? pool.token0 : pool.token1;
              for (let hop = 0; hop < hops; hop += 1) {
                const tokenOut = tokenIn === pool.token0 ? pool.token1 : pool.token0;
                path.push({ pool, tokenIn, tokenOut });
                if (hop + 1 === hops) break;
                const onward = (poolsOf.get(tokenOut.address) ?? []).filter((candidate) => candidate !== pool);
                if (onward.length === 0) break;
                pool = pick(onward);
                tokenIn = tokenOut;
              }
              const first = path[0];
              const last = path[path.length - 1];
              const wrapIn = first.tokenIn === weth && random() < 0.5;
              const unwrapOut = !wrapIn && last.tokenOut === weth && random() < 0.5;
              const frontendFee = random() < 0.25;
              const amountIn = amountOf(random, 10n ** 12n);
              // Universal-router-like calldata: commands, one input per hop, a deadline.
              input = `${SEL.execute}${word(0x60)}${word(0xa0)}${word(timestamp + 1800)}${word(path.length)}${'0'.repeat(64)}${word(path.length)}${path
                .map(
                  ({ pool: hopPool, tokenIn: hopIn, tokenOut: hopOut }) =>
                    `${addressWord(from)}${word(amountIn)}${word(0)}${addressWord(hopIn.address)}${addressWord(hopPool.address)}${addressWord(hopOut.address)}${word(1)}`,
                )
                .join('')}`;
              let holder = from;
              if (wrapIn) {
                value = amountIn;
                calls.push(frame('CALL', router, weth.address, SEL.deposit, amountIn));
                logs.push({ address: weth.address, topics: [EVENT.deposit, topicOf(router)], data: `0x${word(amountIn)}` });
                this.moveBalance(weth.address, ZERO_ADDRESS, router, amountIn, number);
                supply(weth.address, amountIn);
                holder = router;
              }
              let amount = amountIn;
              path.forEach(({ pool: hopPool, tokenIn: hopIn, tokenOut: hopOut }, hop) => {
                const next = path[hop + 1];
                const out = (amount * 97n) / 100n;
                const receiver = next
                  ? hopPool.kind === 'pair' && next.pool.kind === 'pair'
                    ? next.pool.address
                    : router
                  : frontendFee || unwrapOut
                    ? router
                    : from;
                const zeroForOne = hopIn === hopPool.token0;
                if (hopPool.kind === 'pair') {
                  // A v2-like pair: paid first, then swap() sends out, syncs and logs.
                  if (holder !== hopPool.address) {
                    calls.push(tokenCall(router, hopIn, holder, hopPool.address, amount));
                    transfer20(hopIn, holder, hopPool.address, amount);
                  }
                  calls.push(frame('STATICCALL', router, hopPool.address, SEL.getReserves));
                  calls.push(
                    frame(
                      'CALL',
                      router,
                      hopPool.address,
                      `${SEL.pairSwap}${word(zeroForOne ? 0n : out)}${word(zeroForOne ? out : 0n)}${addressWord(receiver)}${word(0x80)}${word(0)}`,
                      0n,
                      [
                        tokenCall(hopPool.address, hopOut, hopPool.address, receiver, out),
                        balanceRead(hopPool.address, hopPool.token0),
                        balanceRead(hopPool.address, hopPool.token1),
                      ],
                    ),
                  );
                  transfer20(hopOut, hopPool.address, receiver, out);
                  logs.push({
                    address: hopPool.address,
                    topics: [EVENT.sync],
                    data: `0x${word(10n ** 24n + BigInt(number))}${word(10n ** 24n + BigInt(position))}`,
                  });
                  logs.push({
                    address: hopPool.address,
                    topics: [EVENT.pairSwap, topicOf(router), topicOf(receiver)],
                    data: `0x${word(zeroForOne ? amount : 0n)}${word(zeroForOne ? 0n : amount)}${word(zeroForOne ? 0n : out)}${word(zeroForOne ? out : 0n)}`,
                  });
                } else {
                  // A v3-like pool: sends out, calls the router back to be paid, checks its balance, logs.
                  transfer20(hopOut, hopPool.address, receiver, out);
                  transfer20(hopIn, holder, hopPool.address, amount);
                  calls.push(
                    frame(
                      'CALL',
                      router,
                      hopPool.address,
                      `${SEL.poolSwap}${addressWord(receiver)}${word(zeroForOne ? 1 : 0)}${word(amount)}${word(0)}${word(0xa0)}${word(0)}`,
                      0n,
                      [
                        tokenCall(hopPool.address, hopOut, hopPool.address, receiver, out),
                        balanceRead(hopPool.address, hopIn),
                        frame(
                          'CALL',
                          hopPool.address,
                          router,
                          `${SEL.swapCallback}${signedWord(zeroForOne ? amount : -out)}${signedWord(zeroForOne ? -out : amount)}${word(0x60)}${word(0)}`,
                          0n,
                          [tokenCall(router, hopIn, holder, hopPool.address, amount)],
                        ),
                        balanceRead(hopPool.address, hopIn),
                      ],
                    ),
                  );
                  logs.push({
                    address: hopPool.address,
                    topics: [EVENT.poolSwap, topicOf(router), topicOf(receiver)],
                    data: `0x${signedWord(zeroForOne ? amount : -out)}${signedWord(zeroForOne ? -out : amount)}${word(2n ** 96n + BigInt(number))}${word(10n ** 20n)}${signedWord(BigInt((number % 400) - 200))}`,
                  });
                }
                amount = out;
                holder = receiver;
              });
              const fee = frontendFee ? amount / 400n : 0n;
              if (unwrapOut) {
                // The router unwraps and pays the coin out (less the fee).
                calls.push(
                  frame('CALL', router, weth.address, `${SEL.withdraw}${word(amount)}`, 0n, [
                    frame('CALL', weth.address, router, '0x', amount),
                  ]),
                );
                logs.push({ address: weth.address, topics: [EVENT.withdrawal, topicOf(router)], data: `0x${word(amount)}` });
                this.moveBalance(weth.address, router, ZERO_ADDRESS, amount, number);
                supply(weth.address, -amount);
                if (fee > 0n) calls.push(frame('CALL', router, ACTORS.feeCollector, '0x', fee));
                calls.push(frame('CALL', router, from, '0x', amount - fee));
              } else if (frontendFee) {
                calls.push(tokenCall(router, last.tokenOut, router, ACTORS.feeCollector, fee));
                transfer20(last.tokenOut, router, ACTORS.feeCollector, fee);
                calls.push(tokenCall(router, last.tokenOut, router, from, amount - fee));
                transfer20(last.tokenOut, router, from, amount - fee);
              }
              gasUsed = 90_000 + 65_000 * path.length + (wrapIn || unwrapOut ? 25_000 : 0) + (frontendFee ? 20_000 : 0);
              if (!this.swapHash && path.length > 1) this.swapHash = hash;
              break;
            }
            case 'erc20': {
              const token = pick(erc20);
              if (random() < 0.1) {
                // A multi-send (a disperse contract pulls from the sender to several recipients).
                const count = 3 + Math.floor(random() * 3);
                const receivers = Array.from({ length: count }, recipient);
                const amounts = receivers.map(() => amountOf(random, 10n ** 12n));
                to = disperse;
                input = `${SEL.disperseToken}${addressWord(token.address)}${word(0x60)}${word(0x80 + 32 * count)}${word(count)}${receivers.map(addressWord).join('')}${word(count)}${amounts.map(word).join('')}`;
                receivers.forEach((receiver, index) => {
                  calls.push(tokenCall(disperse, token, from, receiver, amounts[index]));
                  transfer20(token, from, receiver, amounts[index]);
                });
                gasUsed = 40_000 + 30_000 * count;
              } else {
                const receiver = recipient();
                const amount = amountOf(random, 10n ** 12n);
                to = token.address;
                input = `${SEL.transfer}${addressWord(receiver)}${word(amount)}`;
                if (proxies.has(to)) calls.push({ type: 'DELEGATECALL', from: to, to: implementation(to), value: 0n, input });
                transfer20(token, from, receiver, amount);
                gasUsed = 45_000 + Math.floor(random() * 20_000);
              }
              break;
            }
            case 'native': {
              to = recipient();
              value = BigInt(1 + Math.floor(random() * 1000)) * 10n ** 14n;
              break;
            }
            case 'approve': {
              const token = pick(erc20);
              const spender = pick(this.routers);
              to = token.address;
              input = `${SEL.approve}${addressWord(spender)}${word(MAX_UINT256)}`;
              if (proxies.has(to)) calls.push({ type: 'DELEGATECALL', from: to, to: implementation(to), value: 0n, input });
              logs.push({
                address: token.address,
                topics: [EVENT.approval, topicOf(from), topicOf(spender)],
                data: `0x${word(MAX_UINT256)}`,
              });
              gasUsed = 46_000;
              break;
            }
            case 'nft': {
              // Mostly mints: ERC-721 (a transfer of a held id now and then) and ERC-1155 single or batch mints.
              const receiver = random() < 0.7 ? from : recipient();
              if (erc1155.length > 0 && (erc721.length === 0 || random() < 0.25)) {
                const token = pick(erc1155);
                const ids = random() < 0.2 ? [1, 2, 3].map(() => 1 + Math.floor(random() * 50)) : [1 + Math.floor(random() * 50)];
                const unique = [...new Set(ids)];
                const amounts = unique.map(() => BigInt(1 + Math.floor(random() * 5)));
                to = token.address;
                if (unique.length > 1) {
                  if (!this.nftBatchHash) this.nftBatchHash = hash;
                  const lists = `${word(unique.length)}${unique.map(word).join('')}${word(unique.length)}${amounts.map(word).join('')}`;
                  input = `${SEL.mintBatch}${addressWord(receiver)}${word(0x60)}${word(0x60 + 32 * (1 + unique.length))}${lists}`;
                  logs.push({
                    address: token.address,
                    topics: [TOPIC.transferBatch, topicOf(from), topicOf(ZERO_ADDRESS), topicOf(receiver)],
                    data: `0x${word(0x40)}${word(0x40 + 32 * (1 + unique.length))}${lists}`,
                  });
                } else {
                  input = `${SEL.mint1155}${addressWord(receiver)}${word(unique[0])}${word(amounts[0])}`;
                  logs.push({
                    address: token.address,
                    topics: [TOPIC.transferSingle, topicOf(from), topicOf(ZERO_ADDRESS), topicOf(receiver)],
                    data: `0x${word(unique[0])}${word(amounts[0])}`,
                  });
                }
                unique.forEach((id, index) => {
                  this.mint1155(token.address, receiver, BigInt(id), amounts[index], number);
                  this.countTransfer(token, ZERO_ADDRESS, receiver, timestamp);
                });
                gasUsed = 90_000;
              } else {
                const token = pick(erc721);
                const minted = nextTokenId.get(token.address) ?? 0;
                let id: number;
                let owner = ZERO_ADDRESS;
                if (minted === 0 || random() < 0.85) {
                  id = minted + 1;
                  nextTokenId.set(token.address, id);
                  input = `${SEL.mint}${addressWord(receiver)}${word(id)}`;
                } else {
                  id = 1 + Math.floor(random() * minted);
                  owner = this.owners.get(`${token.address}|${id}`)?.latest() as string;
                  from = owner;
                  input = `${SEL.safeTransferFrom}${addressWord(owner)}${addressWord(receiver)}${word(id)}`;
                }
                to = token.address;
                logs.push({
                  address: token.address,
                  topics: [TOPIC.transfer, topicOf(owner), topicOf(receiver), `0x${word(id)}`],
                  data: '0x',
                });
                this.move721(token.address, owner, receiver, BigInt(id), number);
                this.countTransfer(token, owner, receiver, timestamp);
                gasUsed = 80_000;
              }
              break;
            }
            default: {
              // A call of another contract (a game, a social app, a keeper): one event, an oracle read now and then.
              to = pick(this.apps);
              input = `${SEL.act}${word(Math.floor(random() * 1_000_000))}${hash32(`${hash}:arg`).slice(2)}`;
              if (random() < 0.5) calls.push(frame('STATICCALL', to, oracle, SEL.latestRoundData));
              logs.push({ address: to, topics: [EVENT.action, topicOf(from)], data: `0x${word(Math.floor(random() * 1_000_000))}` });
              gasUsed = 60_000 + Math.floor(random() * 60_000);
            }
          }
        }

        const nonce = this.nonces.get(from) ?? 0;
        this.nonces.set(from, nonce + 1);
        let opFees: TxSpec['opFees'];
        if (deposit) {
          // A deposit pays no fee: its mint is credited to its sender, then its value moves.
          this.moveCoin(from, deposit.mint - value, number);
          this.moveCoin(to, value, number);
        } else {
          const priorityFee = 1_000_000n * BigInt(1 + Math.floor(random() * 20));
          // Ecotone: the L1 gas of the signed transaction's bytes (4 per zero byte, 16 per other byte).
          const bytes = (input.length - 2) / 2 + 110;
          const zeroBytes = Math.floor(bytes * 0.3);
          const l1GasUsed = BigInt((bytes - zeroBytes) * 16 + zeroBytes * 4);
          const l1Fee = (l1GasUsed * (16n * l1.baseFee * BASE_FEE_SCALAR + l1.blobBaseFee * BLOB_BASE_FEE_SCALAR)) / 16_000_000n;
          opFees = { priorityFee, l1GasUsed, l1Fee };
          const used = BigInt(gasUsed);
          this.moveCoin(from, -(value + used * (baseFee + priorityFee) + l1Fee), number);
          this.moveCoin(to, value, number);
          this.moveCoin(OP_ADDRESSES.sequencerFeeVault, used * priorityFee, number);
          this.moveCoin(OP_ADDRESSES.baseFeeVault, used * baseFee, number);
          this.moveCoin(OP_ADDRESSES.l1FeeVault, l1Fee, number);
        }
        let frames = 0;
        const visit = (list: readonly CallFrame[] | undefined): void => {
          for (const call of list ?? []) {
            frames += 1;
            if (call.type === 'CALL' && call.value > 0n) {
              this.moveCoin(call.from, -call.value, number);
              this.moveCoin(call.to, call.value, number);
            }
            visit(call.calls);
          }
        };
        visit(calls);
        block.txs.push({
          hash,
          from,
          to,
          value,
          input,
          nonce,
          gas: gas ?? gasUsed + 40_000,
          gasUsed,
          logs,
          calls,
          kind,
          ...(deposit ? { deposit } : {}),
          ...(opFees ? { opFees } : {}),
        });
        this.counts.transactions += 1;
        this.counts.byKind[kind] = (this.counts.byKind[kind] ?? 0) + 1;
        this.counts.logs += logs.length;
        this.counts.internalCalls += frames;
      }
      this.blocks.push(block);
    }
  }

  // -------------------------------------------------------------------------------------------------
  // An OP node's answers

  protected override blockJson(block: BlockSpec, full: boolean): Record<string, unknown> {
    return {
      ...super.blockJson(block, full),
      miner: OP_ADDRESSES.sequencerFeeVault,
      gasLimit: hex(BLOCK_GAS_LIMIT),
      blobGasUsed: '0x0',
      excessBlobGas: '0x0',
      parentBeaconBlockRoot: hash32(`bench:${this.spec.chainId}:${block.number}:beacon`),
    };
  }

  protected override transactionJson(block: BlockSpec, tx: TxSpec, position: number): Record<string, unknown> {
    if (tx.deposit)
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
        gasPrice: '0x0',
        input: tx.input,
        type: DEPOSIT_TYPE,
        sourceHash: tx.deposit.sourceHash,
        mint: hex(tx.deposit.mint),
        isSystemTx: tx.deposit.isSystemTx,
        depositReceiptVersion: '0x1',
        v: '0x0',
        r: '0x0',
        s: '0x0',
      };
    const baseFee = block.baseFee ?? GWEI;
    const priorityFee = tx.opFees?.priorityFee ?? 0n;
    return {
      ...super.transactionJson(block, tx, position),
      gasPrice: hex(baseFee + priorityFee),
      maxFeePerGas: hex(2n * baseFee + priorityFee),
      maxPriorityFeePerGas: hex(priorityFee),
    };
  }

  protected override receiptJson(block: BlockSpec, tx: TxSpec, position: number): Record<string, unknown> {
    const receipt = super.receiptJson(block, tx, position);
    if (tx.deposit)
      return { ...receipt, effectiveGasPrice: '0x0', type: DEPOSIT_TYPE, depositNonce: hex(tx.nonce), depositReceiptVersion: '0x1' };
    const fees = tx.opFees ?? { priorityFee: 0n, l1GasUsed: 0n, l1Fee: 0n };
    return {
      ...receipt,
      effectiveGasPrice: hex((block.baseFee ?? GWEI) + fees.priorityFee),
      l1GasPrice: hex(block.l1?.baseFee ?? 0n),
      l1GasUsed: hex(fees.l1GasUsed),
      l1Fee: hex(fees.l1Fee),
      l1BaseFeeScalar: hex(BASE_FEE_SCALAR),
      l1BlobBaseFee: hex(block.l1?.blobBaseFee ?? 0n),
      l1BlobBaseFeeScalar: hex(BLOB_BASE_FEE_SCALAR),
    };
  }

  /** Every address whose native balance the generator moved (for consistency checks). */
  coinHolders(): string[] {
    return [...this.coins.keys()];
  }

  /** The chain's shape as generated: what the profile promises, measured. */
  shape(): ProfileShape {
    const blocks = this.blocks.slice(1);
    const sizes = blocks.map((block) => block.txs.length);
    const txs = blocks.flatMap((block) => block.txs);
    const user = txs.filter((tx) => !tx.deposit);
    const share = (count: number, of: number): number => (of > 0 ? round(count / of, 4) : 0);
    const tally = (values: Iterable<string>): [string, number][] => {
      const counts = new Map<string, number>();
      for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1]);
    };
    const erc20 = new Set(this.tokens.filter((token) => token.kind === 'ERC-20').map((token) => token.address));
    const transferLogs = txs
      .flatMap((tx) => tx.logs)
      .filter((log) => log.topics[0] === TOPIC.transfer && log.topics.length === 3 && erc20.has(log.address));
    const byToken = tally(transferLogs.map((log) => log.address));
    const byTo = tally(user.map((tx) => tx.to));
    const bySender = tally(user.map((tx) => tx.from));
    const kinds = tally(txs.map((tx) => tx.kind ?? '?'));
    const symbolOf = (address: string | undefined): string => this.tokens.find((token) => token.address === address)?.symbol ?? '';
    return {
      blocks: blocks.length,
      transactions: txs.length,
      blockSeconds: this.spec.base?.blockSeconds ?? Math.floor(this.spec.spanSeconds / Math.max(1, this.spec.blocks)),
      transactionsPerBlock: {
        min: Math.min(...sizes),
        max: Math.max(...sizes),
        mean: round(txs.length / Math.max(1, blocks.length), 2),
      },
      depositsFirstInEveryBlock: blocks.every(
        (block) =>
          block.txs[0]?.kind === 'l1-attributes deposit' &&
          block.txs.every((tx, index) => !tx.deposit || block.txs.slice(0, index).every((before) => before.deposit)),
      ),
      l1AttributesDeposits: txs.filter((tx) => tx.kind === 'l1-attributes deposit').length,
      userDeposits: txs.filter((tx) => tx.kind === 'user deposit').length,
      shareByKind: Object.fromEntries(kinds.map(([kind, count]) => [kind, share(count, txs.length)])),
      logsPerTransaction: round(this.counts.logs / Math.max(1, txs.length), 2),
      tokenTransfersPerTransaction: round(this.counts.tokenTransfers / Math.max(1, txs.length), 2),
      internalCallsPerTransaction: round(this.counts.internalCalls / Math.max(1, txs.length), 2),
      erc20Transfers: transferLogs.length,
      topToken: symbolOf(byToken[0]?.[0]),
      topTokenShare: share(byToken[0]?.[1] ?? 0, transferLogs.length),
      top3TokenShare: share(
        byToken.slice(0, 3).reduce((sum, [, count]) => sum + count, 0),
        transferLogs.length,
      ),
      tokensTransferred: byToken.length,
      topContractShare: share(byTo[0]?.[1] ?? 0, user.length),
      topSenderShare: share(bySender[0]?.[1] ?? 0, user.length),
      senders: bySender.length,
    };
  }
}

/** Whether a kind of BaseChain transaction is a deposit. */
export const isDepositKind = (kind: string): boolean => DEPOSIT_KINDS.includes(kind);

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
