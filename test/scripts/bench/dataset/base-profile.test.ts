/**
 * The Base-like chain profile (scripts/bench/dataset/base-profile.ts, issue 27): the generated chain
 * has the shape the profile promises (transactions per block, deposits first, a mix dominated by
 * swaps, a Zipf-like concentration on a few tokens), answers as an OP node does, stays consistent
 * (balances and coin add up), and the real ingest indexes it without a warning.
 */
import { decodeFunctionResult, encodeFunctionData, toEventSelector, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { useTestTable } from '../../../support/table';
import { BaseChain, OP_ADDRESSES, zipf } from '../../../../scripts/bench/dataset/base-profile';
import { BASE, COIN_BASE, prng, type ChainSpec } from '../../../../scripts/bench/dataset/chain';
import { baseProfileSpec } from '../../../../scripts/bench/dataset/spec';
import { erc20Abi, MULTICALL3_ADDRESS, multicall3Abi, TOPIC } from '../../../../shared/chain/abis';
import { parseBlock, parseReceipt } from '../../../../shared/chain/rpc-block';

useTestTable('base-profile');

/** A small Base-like chain: fewer tokens, pools and holders, epochs of 3 blocks (user deposits every third block). */
const small = (blocks: number, perBlock: number): ChainSpec => {
  const spec = baseProfileSpec({ blocks, transactionsPerBlock: perBlock });
  return {
    ...spec,
    erc20Tokens: 80,
    erc721Tokens: 4,
    erc1155Tokens: 2,
    addresses: 400,
    base: { ...spec.base!, pools: 40, apps: 12, epochBlocks: 3 },
  };
};

const hex = (value: number | bigint): string => `0x${value.toString(16)}`;
const WRAP = toEventSelector('Deposit(address,uint256)');
const UNWRAP = toEventSelector('Withdrawal(address,uint256)');

describe('the Base-like chain profile', () => {
  const chain = new BaseChain(small(24, 100));
  const shape = chain.shape();

  it('has ~200 transactions a block every 2 s at its default size, deposits first', () => {
    const spec = baseProfileSpec();
    expect(spec.base?.transactionsPerBlock).toBe(200);
    expect(spec.base?.blockSeconds).toBe(2);
    expect(shape.transactionsPerBlock).toEqual({ min: 100, max: 100, mean: 100 });
    expect(shape.blockSeconds).toBe(2);
    expect(chain.blocks[2]!.timestamp - chain.blocks[1]!.timestamp).toBe(2);
    expect(shape.depositsFirstInEveryBlock).toBe(true);
    expect(shape.l1AttributesDeposits).toBe(24);
    for (const block of chain.blocks.slice(1)) {
      const first = block.txs[0]!;
      expect(first.deposit).toBeDefined();
      expect(first.from).toBe(OP_ADDRESSES.depositor);
      expect(first.to).toBe(OP_ADDRESSES.l1Block);
      // Ecotone's packed L1 attributes: 164 bytes.
      expect((first.input.length - 2) / 2).toBe(164);
      // User deposits only in an epoch's first block.
      const userDeposits = block.txs.filter((tx) => tx.kind === 'user deposit').length;
      if ((block.number - 1) % 3 !== 0) expect(userDeposits).toBe(0);
    }
    expect(shape.userDeposits).toBeGreaterThan(0);
  });

  it('is dominated by DEX swaps and ERC-20 transfers, with several logs and about two token transfers a transaction', () => {
    const user = chain.blocks.flatMap((block) => block.txs).filter((tx) => !tx.deposit);
    const share = (kind: string) => user.filter((tx) => tx.kind === kind).length / user.length;
    expect(share('swap')).toBeGreaterThan(0.45);
    expect(share('swap')).toBeLessThan(0.55);
    expect(share('erc20')).toBeGreaterThan(0.25);
    expect(share('erc20')).toBeLessThan(0.35);
    expect(share('nft')).toBeGreaterThan(0.01);
    expect(share('nft')).toBeLessThan(0.08);
    expect(shape.tokenTransfersPerTransaction).toBeGreaterThan(1.6);
    expect(shape.tokenTransfersPerTransaction).toBeLessThan(2.4);
    expect(shape.logsPerTransaction).toBeGreaterThan(2.5);
    // A swap: its token transfers, a Swap log per hop (a Sync too on a v2-like pair), a call tree.
    const swap = user.find((tx) => tx.kind === 'swap')!;
    expect(swap.logs.filter((log) => log.topics[0] === TOPIC.transfer).length).toBeGreaterThanOrEqual(2);
    expect(swap.logs.length).toBeGreaterThanOrEqual(3);
    expect(swap.calls.length).toBeGreaterThan(0);
  });

  it('concentrates on a few hot tokens, contracts and senders (Zipf-like)', () => {
    // The top token carries far more than an even share of the ERC-20 transfers.
    expect(shape.topTokenShare).toBeGreaterThan(0.2);
    expect(shape.topTokenShare).toBeGreaterThan(10 / shape.tokensTransferred);
    expect(shape.top3TokenShare).toBeGreaterThan(0.45);
    expect(shape.topContractShare).toBeGreaterThan(0.1);
    expect(shape.topSenderShare).toBeGreaterThan(0.05);
    // The sampler: weight 1 / rank, so rank 0 is drawn about twice as often as rank 1 and ~H(n) times an even share.
    const draw = zipf(100, 1, prng(7));
    const counts = new Array(100).fill(0);
    for (let i = 0; i < 50_000; i += 1) counts[draw()] += 1;
    expect(counts[0] / counts[1]).toBeGreaterThan(1.8);
    expect(counts[0] / counts[1]).toBeLessThan(2.2);
    expect(counts[0] / 50_000).toBeGreaterThan(0.17);
  });

  it('answers as an OP node: deposits of type 0x7e with their receipts, L1 fee fields on the others', async () => {
    const rawBlock = (await chain.request('eth_getBlockByNumber', [hex(1), true])) as Record<string, unknown>;
    const block = parseBlock(rawBlock)!;
    const receipts = ((await chain.request('eth_getBlockReceipts', [hex(1)])) as unknown[]).map(parseReceipt);
    expect(block.miner).toBe(OP_ADDRESSES.sequencerFeeVault);
    const deposit = block.transactions[0]!;
    expect(deposit.type).toBe(0x7e);
    expect(deposit.sourceHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(deposit.mint).toBe(0n);
    expect(deposit.isSystemTx).toBe(false);
    expect(deposit.from).toBe(OP_ADDRESSES.depositor);
    expect(deposit.nonce).toBe(0n);
    expect(receipts[0]!.depositNonce).toBe(0n);
    expect(receipts[0]!.depositReceiptVersion).toBe(1n);
    expect(receipts[0]!.l1Fee).toBeNull();
    expect(receipts[0]!.effectiveGasPrice).toBe(0n);
    // The second block's L1 attributes deposit carries the depositor's next nonce.
    const second = parseBlock(await chain.request('eth_getBlockByNumber', [hex(2), true]))!;
    expect(second.transactions[0]!.nonce).toBe(1n);
    // A user deposit mints its value to its sender.
    const userDeposit = chain.blocks[1]!.txs.findIndex((tx) => tx.kind === 'user deposit' && tx.value > 0n);
    if (userDeposit > 0) expect(block.transactions[userDeposit]!.mint).toBe(block.transactions[userDeposit]!.value);
    const user = block.transactions.findIndex((tx) => tx.type !== 0x7e);
    const receipt = receipts[user]!;
    expect(receipt.l1Fee).toBeGreaterThan(0n);
    expect(receipt.l1GasUsed).toBeGreaterThan(0n);
    expect(receipt.l1GasPrice).toBeGreaterThan(0n);
    expect(receipt.l1BaseFeeScalar).toBeGreaterThan(0n);
    expect(receipt.l1BlobBaseFee).toBeGreaterThan(0n);
    expect(receipt.l1BlobBaseFeeScalar).toBeGreaterThan(0n);
    expect(receipt.effectiveGasPrice).toBe(block.transactions[user]!.gasPrice);
  });

  it('stays consistent: balanceOf adds up the Transfer logs, no coin is made but by deposits', async () => {
    const head = hex(chain.head);
    const erc20 = new Set(chain.tokens.filter((token) => token.kind === 'ERC-20').map((token) => token.address));
    const expected = new Map<string, bigint>();
    const add = (token: string, holder: string, delta: bigint) => {
      const key = `${token}|${holder}`;
      expected.set(key, (expected.get(key) ?? BASE) + delta);
    };
    const minted = new Map<string, bigint>();
    const word = (topic: string) => `0x${topic.slice(26)}`;
    for (const log of chain.blocks.flatMap((block) => block.txs.flatMap((tx) => tx.logs))) {
      if (!erc20.has(log.address)) continue;
      const amount = BigInt(log.data.slice(0, 66));
      if (log.topics[0] === TOPIC.transfer) {
        const [from, to] = [word(log.topics[1]!), word(log.topics[2]!)];
        if (/^0x0{40}$/.test(from)) minted.set(log.address, (minted.get(log.address) ?? 0n) + amount);
        else add(log.address, from, -amount);
        add(log.address, to, amount);
      } else if (log.topics[0] === WRAP || log.topics[0] === UNWRAP) {
        // The wrapped coin's Deposit(dst, wad) and Withdrawal(src, wad).
        const delta = log.topics[0] === WRAP ? amount : -amount;
        add(log.address, word(log.topics[1]!), delta);
        minted.set(log.address, (minted.get(log.address) ?? 0n) + delta);
      }
    }
    expect(expected.size).toBeGreaterThan(100);
    const balanceOf = async (token: string, holder: string): Promise<bigint> =>
      BigInt((await chain.request('eth_call', [{ to: token, data: `0x70a08231${holder.slice(2).padStart(64, '0')}` }, head])) as string);
    for (const [key, value] of expected) {
      const [token, holder] = key.split('|') as [string, string];
      expect(await balanceOf(token, holder)).toBe(value);
    }
    // Minted tokens (bridge deposits, wrapped coin) show in totalSupply.
    for (const [token, amount] of minted)
      expect(BigInt((await chain.request('eth_call', [{ to: token, data: '0x18160ddd' }, head])) as string)).toBe(10n ** 30n + amount);
    // Native coin: values, fees and internal values only move it; deposits' mints add it.
    let total = 0n;
    for (const address of chain.coinHolders())
      total += BigInt((await chain.request('eth_getBalance', [address, head])) as string) - COIN_BASE;
    const mints = chain.blocks.flatMap((block) => block.txs).reduce((sum, tx) => sum + (tx.deposit?.mint ?? 0n), 0n);
    expect(mints).toBeGreaterThan(0n);
    expect(total).toBe(mints);
  });

  it('has Multicall3 as Base has: aggregate3 and getEthBalance answer what single calls answer', async () => {
    expect(await chain.request('eth_getCode', [MULTICALL3_ADDRESS, 'latest'])).not.toBe('0x');
    const block = hex(12);
    const token = chain.tokens.find((candidate) => candidate.kind === 'ERC-20')!.address as Hex;
    const holders = [...new Set(chain.blocks[11]!.txs.map((tx) => tx.from))].slice(0, 5) as Hex[];
    const calls = [
      ...holders.map((holder) => ({
        target: token,
        callData: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] }),
      })),
      ...holders.map((holder) => ({
        target: MULTICALL3_ADDRESS as Hex,
        callData: encodeFunctionData({ abi: multicall3Abi, functionName: 'getEthBalance', args: [holder] }),
      })),
    ];
    const answer = (await chain.request('eth_call', [
      {
        to: MULTICALL3_ADDRESS,
        data: encodeFunctionData({
          abi: multicall3Abi,
          functionName: 'aggregate3',
          args: [calls.map((call) => ({ ...call, allowFailure: true }))],
        }),
      },
      block,
    ])) as Hex;
    const results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: answer });
    expect(results).toHaveLength(calls.length);
    for (const [index, holder] of holders.entries()) {
      expect(results[index]).toEqual({
        success: true,
        returnData: await chain.request('eth_call', [{ to: token, data: calls[index]!.callData }, block]),
      });
      const coin = decodeFunctionResult({
        abi: multicall3Abi,
        functionName: 'getEthBalance',
        data: results[holders.length + index]!.returnData,
      });
      expect(coin).toBe(BigInt((await chain.request('eth_getBalance', [holder, block])) as string));
    }
    // A chain spec without it has no code there (the dataset's own chains).
    expect(await new BaseChain({ ...small(2, 10), multicall3: false }).request('eth_getCode', [MULTICALL3_ADDRESS, 'latest'])).toBe('0x');
  });

  it('holds one block of a peak when asked (the Lambda harness burst)', () => {
    const spec = small(6, 20);
    const burst = new BaseChain({ ...spec, base: { ...spec.base!, burst: { block: 4, transactions: 150 } } });
    expect(burst.blocks.slice(1).map((block) => block.txs.length)).toEqual([20, 20, 20, 150, 20, 20]);
    expect(baseProfileSpec({ blocks: 6, transactionsPerBlock: 20, burst: { block: 4, transactions: 150 } }).transactions).toBe(250);
  });

  it('is indexed by the real ingest without a warning: deposits and L1 fees on their records', { timeout: 120_000 }, async () => {
    const tiny = new BaseChain(small(4, 20));
    const { ChainIngest } = await import('../../../../shared/ingest/ingest');
    const { getItem } = await import('../../../../shared/db/operations');
    const { transactionKeys } = await import('../../../../shared/table/keys');
    const warnings: string[] = [];
    const ingest = new ChainIngest({
      chainId: tiny.spec.chainId,
      client: tiny.client(),
      log: { info: () => undefined, warn: (message) => warnings.push(message) },
    });
    const result = await ingest.ingestRange({ from: 1, to: tiny.head });
    expect(result.advanced).toBe(tiny.head);
    expect(warnings).toEqual([]);
    const depositTx = tiny.blocks[1]!.txs[0]!;
    const stored = await getItem<Record<string, unknown>>(transactionKeys.transaction(tiny.spec.chainId, depositTx.hash));
    expect(stored).toMatchObject({ type: 0x7e, sourceHash: depositTx.deposit!.sourceHash, mint: '0' });
    const userTx = tiny.blocks[1]!.txs.find((tx) => !tx.deposit)!;
    const user = await getItem<Record<string, unknown>>(transactionKeys.transaction(tiny.spec.chainId, userTx.hash));
    expect(user?.l1Fee).toBe(userTx.opFees!.l1Fee.toString());
    expect(user?.l1GasUsed).toBe(userTx.opFees!.l1GasUsed.toString());
  });
});
