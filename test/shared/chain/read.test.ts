/**
 * ContractReader (shared/chain/read.ts) on a real anvil with Multicall3, next to a gas-burning
 * contract (contracts/HostileTokens.sol GasBurnerToken: name(), symbol() and decimals() loop until
 * out of gas). aggregate3 gives each call 63/64 of the gas left (EIP-150): the burner takes it and a
 * call after it that needs more than what is left (here a 500 KB name()) fails inside aggregate3 for
 * want of gas, while aggregate3 itself answers. That failure is no answer of its contract: every
 * failed entry is read again with its own eth_call (the re-reads in one batch request), and the
 * answers equal a reader without Multicall3. (With cheap reads after the burner, aggregate3 runs out
 * of gas as a whole and the round is read call by call: also checked.)
 */
import { createWalletClient, defineChain, http, toFunctionSelector, type Abi, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts } from '../../../scripts/lib/contracts';
import { erc20Abi, MULTICALL3_ADDRESS } from '../../../shared/chain/abis';
import { createChainClient } from '../../../shared/chain/client';
import { ContractReader, type ContractRead, type ReadResult } from '../../../shared/chain/read';
import { startRpcProxy, type RpcProxy } from '../../support/rpc-fault-proxy';
import { installMulticall3 } from '../ingest/support/multicall3';
import { publicClient } from '../ingest/support/truth';

const CHAIN_ID = 31337;
const account = privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]);
let anvil: Anvil;
let burner: Address;
let innocent: Address;
let big: Address;
let block: bigint;

beforeAll(async () => {
  const [started, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  anvil = started;
  await installMulticall3(anvil.rpcUrl);
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'read',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl), account });
  const mined = async (hash: Promise<Hash>) =>
    publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  const { GasBurnerToken, HostileToken } = artifacts;
  burner = (await mined(wallet.deployContract({ abi: GasBurnerToken.abi, bytecode: GasBurnerToken.bytecode }))).contractAddress as Address;
  innocent = (await mined(wallet.deployContract({ abi: HostileToken.abi, bytecode: HostileToken.bytecode }))).contractAddress as Address;
  big = (await mined(wallet.deployContract({ abi: HostileToken.abi, bytecode: HostileToken.bytecode }))).contractAddress as Address;
  const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}` as const;
  const set = (address: Address, functionName: string, args: unknown[]) =>
    mined(wallet.writeContract({ address, abi: HostileToken.abi, functionName, args }));
  await set(innocent, 'setAnswer', [toFunctionSelector('symbol()'), word(1n)]);
  await set(innocent, 'setAnswer', [toFunctionSelector('decimals()'), word(6n)]);
  await set(innocent, 'setAnswer', [toFunctionSelector('totalSupply()'), word(1000n)]);
  await set(big, 'setLongString', [toFunctionSelector('name()'), 500_000n]);
  block = await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 });
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

const read = (address: Address, functionName: string): ContractRead => ({ address, abi: erc20Abi as Abi, functionName });
const answers = (results: readonly ReadResult[]) => results.map((result) => (result.status === 'success' ? result.data : null));

/** A proxy that answers eth_getCode of Multicall3 with nothing (one eth_call per read). */
async function withoutMulticall3(): Promise<RpcProxy> {
  return startRpcProxy(anvil.rpcUrl, {
    faults: [
      {
        kind: 'transform',
        method: 'eth_getCode',
        count: Number.POSITIVE_INFINITY,
        transform: (result, params) => (String(params?.[0]).toLowerCase() === MULTICALL3_ADDRESS ? '0x' : result),
      },
    ],
  });
}

/** The calls read with Multicall3 and without, and the requests of the Multicall3 reader. */
async function readBothWays(calls: ContractRead[]) {
  const proxy = await startRpcProxy(anvil.rpcUrl);
  const plainProxy = await withoutMulticall3();
  try {
    const reader = new ContractReader(createChainClient(proxy.url));
    const viaMulticall = await reader.readAll(calls, block);
    expect(reader.multicall3From()).toBe(block);
    const plain = new ContractReader(createChainClient(plainProxy.url));
    const alone = await plain.readAll(calls, block);
    expect(plain.multicall3From()).toBeNull();
    return { viaMulticall, alone, ethCalls: proxy.requests.filter((request) => request.methods.includes('eth_call')) };
  } finally {
    await proxy.close();
    await plainProxy.close();
  }
}

describe('a gas-burning contract in the same aggregate3 as other contracts', () => {
  test("a call starved of gas by the burner before it: read again alone, the contract's own answer (as without Multicall3)", async () => {
    const calls = [read(burner, 'name'), read(big, 'name')];
    const { viaMulticall, alone, ethCalls } = await readBothWays(calls);
    expect(viaMulticall[0]!.status).toBe('failure');
    // The 500 KB name: 0x20, the length, the letters.
    expect(viaMulticall[1]!.status).toBe('success');
    expect((viaMulticall[1] as { data: string }).data).toHaveLength(2 + 64 * 2 + 500_000 * 2);
    expect(answers(viaMulticall)).toEqual(answers(alone));
    // One aggregate3 (which answered), then the failed entries, and only those, in one batch request.
    expect(ethCalls.map((request) => request.size)).toEqual([1, 2]);
  });

  test('only the failed entries are read again', async () => {
    const calls = [read(innocent, 'symbol'), read(innocent, 'name'), read(innocent, 'decimals'), read(innocent, 'totalSupply')];
    const { viaMulticall, alone, ethCalls } = await readBothWays(calls);
    expect(viaMulticall.map((result) => result.status)).toEqual(['success', 'failure', 'success', 'success']);
    expect(answers(viaMulticall)).toEqual(answers(alone));
    expect(ethCalls.map((request) => request.size)).toEqual([1, 1]);
  });

  test('cheap reads after the burner: aggregate3 runs out of gas as a whole, the round is read call by call', async () => {
    const calls = [
      ...['name', 'symbol', 'decimals', 'totalSupply'].map((name) => read(burner, name)),
      ...['name', 'symbol', 'decimals', 'totalSupply'].map((name) => read(innocent, name)),
    ];
    const { viaMulticall, alone } = await readBothWays(calls);
    expect(viaMulticall.map((result) => result.status)).toEqual([
      'failure',
      'failure',
      'failure',
      'success',
      'failure',
      'success',
      'success',
      'success',
    ]);
    expect(answers(viaMulticall)).toEqual(answers(alone));
  });
});

describe('which addresses hold code (ContractReader.hasCode)', () => {
  /** Contracts, Multicall3, EOAs, never-used addresses, an EIP-7702 delegated account; and eth_getCode's answer for each. */
  async function addressesAndTruth(extra = 0) {
    const delegated = '0x00000000000000000000000000000000000d7702' as Address;
    await publicClient(anvil.rpcUrl).request({
      method: 'anvil_setCode' as never,
      params: [delegated, `0xef0100${burner.slice(2)}`] as never,
    });
    await publicClient(anvil.rpcUrl).request({ method: 'evm_mine' as never, params: [] as never });
    const head = await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 });
    const addresses: string[] = [
      burner,
      innocent,
      MULTICALL3_ADDRESS,
      account.address,
      '0x000000000000000000000000000000000000dead',
      delegated,
      // Precompiles hold no code.
      '0x0000000000000000000000000000000000000001',
      ...Array.from({ length: extra }, (_, index) => `0x${(0xabc000 + index).toString(16).padStart(40, '0')}`),
    ];
    const codes = await Promise.all(
      addresses.map((address) => publicClient(anvil.rpcUrl).getCode({ address: address as Address, blockNumber: head })),
    );
    return { addresses, head, truth: codes.map((code) => code !== undefined && code !== '0x') };
  }

  test("one eth_call a thousand addresses (the code-sizes program as a state override) answers eth_getCode's truth", async () => {
    const { addresses, head, truth } = await addressesAndTruth(1_200);
    expect(truth.slice(0, 7)).toEqual([true, true, true, false, false, true, false]);
    const proxy = await startRpcProxy(anvil.rpcUrl);
    try {
      const reader = new ContractReader(createChainClient(proxy.url));
      expect(await reader.hasCode(addresses, head)).toEqual(truth);
      expect(proxy.calls.get('eth_call')).toBe(2);
      expect(proxy.calls.get('eth_getCode') ?? 0).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  test('a node that refuses the override, or ignores it: eth_getCode for that round, and for good after three rounds', async () => {
    const { addresses, head, truth } = await addressesAndTruth();
    const refusing = await startRpcProxy(anvil.rpcUrl, {
      faults: [
        { kind: 'error', code: -32602, message: 'state override is not supported', method: 'eth_call', count: Number.POSITIVE_INFINITY },
      ],
    });
    const ignoring = await startRpcProxy(anvil.rpcUrl, {
      faults: [{ kind: 'transform', method: 'eth_call', count: Number.POSITIVE_INFINITY, transform: () => '0x' }],
    });
    try {
      for (const proxy of [refusing, ignoring]) {
        const reader = new ContractReader(createChainClient(proxy.url));
        for (let round = 1; round <= 4; round += 1) expect(await reader.hasCode(addresses, head)).toEqual(truth);
        // Asked three times, then no more; every round answered by eth_getCode.
        expect(proxy.calls.get('eth_call')).toBe(3);
        expect(proxy.calls.get('eth_getCode')).toBe(4 * addresses.length);
      }
    } finally {
      await refusing.close();
      await ignoring.close();
    }
  });

  test("the provider's rate limit is no refusal: thrown for the caller to retry, the override kept", async () => {
    const { addresses, head, truth } = await addressesAndTruth();
    const proxy = await startRpcProxy(anvil.rpcUrl, {
      faults: [{ kind: 'error', code: -32005, message: 'rate limit exceeded', method: 'eth_call', count: 1 }],
    });
    try {
      const reader = new ContractReader(createChainClient(proxy.url));
      await expect(reader.hasCode(addresses, head)).rejects.toThrow(/rate limit/);
      expect(await reader.hasCode(addresses, head)).toEqual(truth);
      expect(proxy.calls.get('eth_getCode') ?? 0).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
