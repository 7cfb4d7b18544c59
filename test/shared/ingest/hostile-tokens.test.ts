/**
 * Token contracts written by strangers (contracts/HostileTokens.sol), through the real ingest on a
 * real anvil (Shanghai, so that a self-destruct deletes code): a 500 KB name, bytes32 names, empty,
 * reverting and garbage answers, decimals of 300 and 2^60, a token that renames itself, a token
 * destroyed and created again at the same address, a CryptoKitties-style ERC-721 (no indexed
 * parameter), an ERC-721 whose Transfer carries the id in data, and a zero-value ERC-20 transfer.
 * The same chain is ingested three times: with Multicall3 (set at its canonical address before the
 * first block), through a proxy that hides it (one eth_call per read), and through a proxy whose
 * aggregate3 calls fail at the transport every other time. The three tables must be equal, every
 * token's details the documented rule applied to its answers (docs/decisions/ingest.md "Untrusted
 * contract answers"), and no item over DynamoDB's 400 KB.
 */
import {
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  getContractAddress,
  http as httpTransport,
  stringToHex,
  toFunctionSelector,
  type Abi,
  type Address,
  type Hash,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { MULTICALL3_ADDRESS } from '../../../shared/chain/abis';
import { createChainClient } from '../../../shared/chain/client';
import { ingestRange } from '../../../shared/ingest/ingest';
import { getItem, queryRange } from '../../../shared/ingest/table-io';
import { expandTokenTransfer } from '../../../shared/table/compact';
import { addressKeys, tokenTransferKeys } from '../../../shared/table/keys';
import { startRpcProxy, type FaultRule } from '../../support/rpc-fault-proxy';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { installMulticall3 } from './support/multicall3';
import { publicClient } from './support/truth';

const table = useTestTable('hostile');
const CHAIN_ID = 31337;
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const [, alice, bob] = accounts.map((account) => account.address.toLowerCase() as Address);
const RETRY = { attempts: 8, baseDelayMs: 5, maxDelayMs: 20 };
/**
 * Every run writes block by block, so the three tables compare the same batches: a holder of the
 * re-created token's first life keeps the balance last read for it until it is touched again, and
 * whether that read fell before or after the re-creation depends on where a batch ends (a known
 * limit: docs/decisions/ingest.md, "Untrusted contract answers").
 */
const BATCH = { maxBatchBlocks: 1 } as const;
const SEL = {
  name: toFunctionSelector('name()'),
  symbol: toFunctionSelector('symbol()'),
  decimals: toFunctionSelector('decimals()'),
  totalSupply: toFunctionSelector('totalSupply()'),
};
const abiString = (text: string): Hex => encodeAbiParameters([{ type: 'string' }], [text]);
const abiBytesString = (bytes: Hex): Hex =>
  `0x${'20'.padStart(64, '0')}${((bytes.length - 2) / 2).toString(16).padStart(64, '0')}${bytes.slice(2).padEnd(64, '0')}`;
const word = (value: bigint): Hex => `0x${value.toString(16).padStart(64, '0')}`;

let anvil: Anvil;
let artifacts: DemoArtifacts;
let wallet: ReturnType<typeof createWalletClient>;
const tokens: Record<string, Address> = {};
let phoenix: Address;
let secondCreation: Hash;
let zeroTransfer: Hash;
let head: number;

async function mined(hash: Promise<Hash>): Promise<{ hash: Hash; contract: Address | null }> {
  const receipt = await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} failed`);
  return { hash: receipt.transactionHash, contract: receipt.contractAddress ?? null };
}

async function deploy(name: keyof DemoArtifacts): Promise<Address> {
  const { abi, bytecode } = artifacts[name];
  return (await mined(wallet.deployContract({ abi, bytecode, args: [], account: accounts[0]!, chain: wallet.chain }))).contract!;
}

async function send(address: Address, abi: Abi, functionName: string, args: unknown[], from = 0): Promise<Hash> {
  return (await mined(wallet.writeContract({ address, abi, functionName, args, account: accounts[from]!, chain: wallet.chain }))).hash;
}

/** A hostile ERC-20 with these raw answers (selector -> return data, or `revert`, or a long string). */
async function hostile(answers: Partial<Record<keyof typeof SEL, Hex | { revert: Hex } | { longString: number }>>): Promise<Address> {
  const address = await deploy('HostileToken');
  const abi = artifacts.HostileToken.abi;
  for (const [name, answer] of Object.entries(answers)) {
    const selector = SEL[name as keyof typeof SEL];
    if (typeof answer === 'string') await send(address, abi, 'setAnswer', [selector, answer]);
    else if ('revert' in answer) await send(address, abi, 'setRevert', [selector, answer.revert]);
    else await send(address, abi, 'setLongString', [selector, BigInt(answer.longString)]);
  }
  await send(address, abi, 'mint', [alice, 1000n]);
  return address;
}

/**
 * A gas burner (name(), symbol(), decimals() loop until out of gas) and an innocent token created
 * and minted in ONE block, the burner first: both are probed in one round at that block (batch.ts:
 * the tokens of the block's transfers, in log order), i.e. one aggregate3 in which the burner's
 * calls come before the innocent token's.
 */
async function burnerBesideInnocent(): Promise<void> {
  const client = publicClient(anvil.rpcUrl);
  const from = accounts[0]!;
  await client.request({ method: 'evm_setAutomine' as never, params: [false] as never });
  try {
    const nonce = await client.getTransactionCount({ address: from.address, blockTag: 'pending' });
    tokens.burner = getContractAddress({ from: from.address, nonce: BigInt(nonce) }).toLowerCase() as Address;
    tokens.innocent = getContractAddress({ from: from.address, nonce: BigInt(nonce + 1) }).toLowerCase() as Address;
    const { GasBurnerToken, IdInDataNFT } = artifacts;
    const common = { account: from, chain: wallet.chain } as const;
    const hashes = [
      await wallet.deployContract({ ...common, abi: GasBurnerToken.abi, bytecode: GasBurnerToken.bytecode, nonce, gas: 1_000_000n }),
      await wallet.deployContract({ ...common, abi: IdInDataNFT.abi, bytecode: IdInDataNFT.bytecode, nonce: nonce + 1, gas: 2_000_000n }),
      await wallet.writeContract({
        ...common,
        address: tokens.burner,
        abi: GasBurnerToken.abi,
        functionName: 'mint',
        args: [alice, 5n],
        nonce: nonce + 2,
        gas: 200_000n,
      }),
      await wallet.writeContract({
        ...common,
        address: tokens.innocent,
        abi: IdInDataNFT.abi,
        functionName: 'mint',
        args: [alice, 9n],
        nonce: nonce + 3,
        gas: 200_000n,
      }),
    ];
    await client.request({ method: 'evm_mine' as never, params: [] as never });
    const receipts = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 20 })));
    expect(receipts.map((receipt) => receipt.status)).toEqual(['success', 'success', 'success', 'success']);
    expect(new Set(receipts.map((receipt) => receipt.blockNumber)).size).toBe(1);
  } finally {
    await client.request({ method: 'evm_setAutomine' as never, params: [true] as never });
  }
}

beforeAll(async () => {
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID, args: ['--hardfork', 'shanghai'] }), loadContracts()]);
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'hostile',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  wallet = createWalletClient({ chain, transport: httpTransport(anvil.rpcUrl) });
  // Multicall3 from the genesis block on (anvil has none).
  await installMulticall3(anvil.rpcUrl);

  tokens.big = await hostile({ name: { longString: 500_000 }, symbol: abiString('é'.repeat(200)) });
  tokens.bytes32 = await hostile({
    name: stringToHex('Maker', { size: 32 }),
    symbol: stringToHex('MKR', { size: 32 }),
    decimals: word(18n),
    totalSupply: word(1000n),
  });
  tokens.empty = await hostile({ name: '0x', symbol: '0x', decimals: '0x', totalSupply: '0x' });
  tokens.reverting = await hostile({ name: { revert: '0x08c379a0' }, symbol: { revert: '0x' } });
  tokens.garbage = await hostile({
    name: '0x01020304050607',
    symbol: `0x${word(32n).slice(2)}${word(2n ** 255n).slice(2)}${'41'.repeat(32)}`,
    decimals: word(300n),
    totalSupply: word(2n ** 256n - 1n),
  });
  tokens.decimals60 = await hostile({
    name: abiString('Ze\u0000ro\u0000'),
    symbol: abiBytesString('0xc0af'),
    decimals: word(2n ** 60n),
    totalSupply: word(2n ** 200n),
  });
  tokens.badName = await hostile({
    name: abiBytesString('0xfffe41'),
    symbol: `0x${word(2n ** 64n).slice(2)}${word(3n).slice(2)}`,
    decimals: `0x${word(255n).slice(2)}${'ff'.repeat(7)}`,
  });
  tokens.renamed = await hostile({ name: abiString('Before'), symbol: abiString('RN'), decimals: word(6n), totalSupply: word(1n) });
  await burnerBesideInnocent();
  // A zero-value ERC-20 transfer.
  zeroTransfer = await send(tokens.bytes32, artifacts.HostileToken.abi, 'transfer', [bob, 0n], 1);

  // CryptoKitties-style ERC-721 and an ERC-721 with the id in data.
  tokens.kitty = await deploy('KittyLike');
  await send(tokens.kitty, artifacts.KittyLike.abi, 'mint', [alice, 1n]);
  await send(tokens.kitty, artifacts.KittyLike.abi, 'mint', [alice, 2n]);
  await send(tokens.kitty, artifacts.KittyLike.abi, 'transfer', [bob, 1n], 1);
  tokens.idInData = await deploy('IdInDataNFT');
  await send(tokens.idInData, artifacts.IdInDataNFT.abi, 'mint', [alice, 7n]);
  await send(tokens.idInData, artifacts.IdInDataNFT.abi, 'transfer', [bob, 7n], 1);
  await send(tokens.idInData, artifacts.IdInDataNFT.abi, 'mint', [bob, 8n]);

  // A token destroyed and created again at the same address, under another name.
  const factory = await deploy('PhoenixFactory');
  const salt = word(7n);
  const created = await publicClient(anvil.rpcUrl).simulateContract({
    address: factory,
    abi: artifacts.PhoenixFactory.abi,
    functionName: 'create',
    args: [salt, stringToHex('First', { size: 32 })],
    account: accounts[0]!,
  });
  phoenix = (created.result as Address).toLowerCase() as Address;
  await send(factory, artifacts.PhoenixFactory.abi, 'create', [salt, stringToHex('First', { size: 32 })]);
  await send(phoenix, artifacts.PhoenixToken.abi, 'mint', [alice, 5n]);
  await send(phoenix, artifacts.PhoenixToken.abi, 'destroy', []);
  expect(await publicClient(anvil.rpcUrl).getCode({ address: phoenix })).toBeUndefined();
  secondCreation = await send(factory, artifacts.PhoenixFactory.abi, 'create', [salt, stringToHex('Second', { size: 32 })]);
  await send(phoenix, artifacts.PhoenixToken.abi, 'mint', [bob, 3n]);

  // The token renames itself; two days later it moves again (both holders: their balances copy the
  // token name, and are written again with the new one).
  await send(tokens.renamed, artifacts.HostileToken.abi, 'setAnswer', [SEL.name, abiString('After')]);
  await send(tokens.renamed, artifacts.HostileToken.abi, 'setAnswer', [SEL.symbol, abiString('RN2')]);
  await publicClient(anvil.rpcUrl).request({ method: 'evm_increaseTime' as never, params: [2 * 86_400 + 60] as never });
  await send(tokens.renamed, artifacts.HostileToken.abi, 'transfer', [bob, 1n], 1);
  head = Number(await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 }));

  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), from: 0, retry: RETRY, ...BATCH });
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
});

const addressItem = async (address: string) => (await getItem<Record<string, any>>(addressKeys.address(CHAIN_ID, address)))!;
const transfersOf = async (token: string) =>
  (await queryRange<Record<string, any>>(tokenTransferKeys.byToken(CHAIN_ID, token))).map((item) => expandTokenTransfer(item));

describe('token details: one rule per field, whatever the contract answers', () => {
  test('the ingest reached the head', async () => {
    expect((await addressItem(tokens.renamed!)).updatedAtBlock).toBe(head);
  });

  test.each([
    ['big', { tokenName: 'A'.repeat(255), tokenNameTruncated: true, tokenSymbol: 'é'.repeat(127), tokenSymbolTruncated: true }],
    ['bytes32', { tokenName: 'Maker', tokenSymbol: 'MKR', tokenDecimals: 18, tokenTotalSupply: '1000' }],
    ['empty', { tokenName: null, tokenSymbol: null, tokenDecimals: null, tokenTotalSupply: null }],
    ['reverting', { tokenName: null, tokenSymbol: null, tokenDecimals: null, tokenTotalSupply: null }],
    ['garbage', { tokenName: null, tokenSymbol: null, tokenDecimals: null, tokenTotalSupply: (2n ** 256n - 1n).toString() }],
    ['decimals60', { tokenName: 'Zero', tokenSymbol: null, tokenDecimals: null, tokenTotalSupply: (2n ** 200n).toString() }],
    ['badName', { tokenSymbol: null, tokenDecimals: 255, tokenTotalSupply: null }],
  ] as const)('%s', async (key, expected) => {
    const item = await addressItem(tokens[key]!);
    expect(item).toMatchObject({ tokenType: 'ERC-20', ...expected });
    if (!('tokenNameTruncated' in expected)) expect(item.tokenNameTruncated ?? false).toBe(false);
  });

  test("a gas burner probed in the same aggregate3 before an innocent token: the innocent token's details are its own", async () => {
    expect(await addressItem(tokens.burner!)).toMatchObject({
      tokenType: 'ERC-20',
      tokenName: null,
      tokenSymbol: null,
      tokenDecimals: null,
      tokenTotalSupply: '5',
    });
    expect(await addressItem(tokens.innocent!)).toMatchObject({ tokenType: 'ERC-721', tokenName: 'Id In Data', tokenSymbol: 'IDD' });
    expect(await getItem<Record<string, any>>(addressKeys.balance(CHAIN_ID, alice, tokens.innocent!))).toMatchObject({
      value: '1',
      tokenStandard: 'ERC-721',
    });
    expect(await getItem<Record<string, any>>(addressKeys.balance(CHAIN_ID, alice, tokens.burner!))).toMatchObject({ value: '5' });
  });

  test('an invalid UTF-8 name is the address prefix, as Blockscout names it', async () => {
    expect((await addressItem(tokens.badName!)).tokenName).toBe(tokens.badName!.slice(0, 6));
  });

  test('a token that renamed itself: the new name and symbol once its details are read again', async () => {
    expect(await addressItem(tokens.renamed!)).toMatchObject({ tokenName: 'After', tokenSymbol: 'RN2', tokenDecimals: 6 });
    const old = await getItem<{ addresses?: Set<string> }>(addressKeys.name(CHAIN_ID, 'rn'));
    expect(old?.addresses?.has(tokens.renamed!) ?? false).toBe(false);
    const current = await getItem<{ addresses?: Set<string> }>(addressKeys.name(CHAIN_ID, 'rn2'));
    expect(current?.addresses?.has(tokens.renamed!)).toBe(true);
  });

  test('a token destroyed and created again: the details and the creation of the live contract', async () => {
    expect(await addressItem(phoenix)).toMatchObject({
      isContract: true,
      tokenType: 'ERC-20',
      tokenName: 'Second',
      tokenSymbol: 'Second',
      tokenDecimals: 18,
      tokenTotalSupply: '3',
      creationTransactionHash: secondCreation.toLowerCase(),
    });
  });

  test('no item is over 400 KB', async () => {
    const items = await tableSnapshot(table.name);
    const largest = Math.max(...items.map((item) => Buffer.byteLength(JSON.stringify(item))));
    expect(largest).toBeLessThan(400 * 1024);
  });
});

describe('non-standard transfer events', () => {
  test('a Transfer with no indexed parameter (CryptoKitties) is an ERC-721 transfer of the id in data', async () => {
    const transfers = await transfersOf(tokens.kitty!);
    expect(transfers.map((t) => [t.tokenStandard, t.from, t.to, t.tokenId, t.amount])).toEqual([
      ['ERC-721', '0x0000000000000000000000000000000000000000', alice, '1', '1'],
      ['ERC-721', '0x0000000000000000000000000000000000000000', alice, '2', '1'],
      ['ERC-721', alice, bob, '1', '1'],
    ]);
    expect(await addressItem(tokens.kitty!)).toMatchObject({ tokenType: 'ERC-721', tokenName: 'KittyLike', tokenSymbol: 'KL' });
  });

  test('a Transfer with the id in data from an ERC-721 by ERC-165 is an ERC-721 transfer of that id', async () => {
    const transfers = await transfersOf(tokens.idInData!);
    expect(transfers.map((t) => [t.tokenStandard, t.from, t.to, t.tokenId, t.amount])).toEqual([
      ['ERC-721', '0x0000000000000000000000000000000000000000', alice, '7', '1'],
      ['ERC-721', alice, bob, '7', '1'],
      ['ERC-721', '0x0000000000000000000000000000000000000000', bob, '8', '1'],
    ]);
    expect(await addressItem(tokens.idInData!)).toMatchObject({ tokenType: 'ERC-721', tokenName: 'Id In Data' });
    expect(await getItem<Record<string, any>>(addressKeys.balance(CHAIN_ID, bob, tokens.idInData!))).toMatchObject({
      value: '2',
      tokenStandard: 'ERC-721',
    });
  });

  test('a zero-value ERC-20 transfer is indexed with amount 0', async () => {
    const transfers = await transfersOf(tokens.bytes32!);
    const zero = transfers.find((t) => t.transactionHash === zeroTransfer.toLowerCase());
    expect(zero).toMatchObject({ tokenStandard: 'ERC-20', from: alice, to: bob, amount: '0', tokenId: null });
  });
});

const isMulticall3 = (address: unknown) => String(address).toLowerCase() === MULTICALL3_ADDRESS;

/** The fault proxy (test/support/rpc-fault-proxy.ts) hiding Multicall3: its eth_getCode answers nothing. */
const hideMulticall3 = (aggregateCalls: { count: number }): FaultRule[] => [
  {
    kind: 'transform',
    method: 'eth_getCode',
    count: Number.POSITIVE_INFINITY,
    transform: (result, params) => (isMulticall3(params?.[0]) ? '0x' : result),
  },
  {
    kind: 'transform',
    method: 'eth_call',
    count: Number.POSITIVE_INFINITY,
    transform: (result, params) => {
      if (isMulticall3((params?.[0] as { to?: string } | undefined)?.to)) aggregateCalls.count += 1;
      return result;
    },
  },
];

const snapshot = (name: string) => tableSnapshot(name);

describe('the same chain through other read paths gives the same table', () => {
  test('without Multicall3 (one eth_call per read): item for item the same table', async () => {
    const aggregateCalls = { count: 0 };
    const proxy = await startRpcProxy(anvil.rpcUrl, { faults: hideMulticall3(aggregateCalls) });
    const name = `${table.name}-plain`;
    try {
      await inTable(name, () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(proxy.url), from: 0, retry: RETRY, ...BATCH }));
      expect(aggregateCalls.count).toBe(0);
      expect(await snapshot(name)).toEqual(await snapshot(table.name));
    } finally {
      await proxy.close();
    }
  });

  test('eth_call (aggregate3 here) failing at the transport (429, reset, JSON-RPC error): the table of a clean run', async () => {
    const proxy = await startRpcProxy(anvil.rpcUrl, {
      faults: [
        { kind: 'rateLimit', status: 429, method: 'eth_call', count: 2 },
        { kind: 'reset', method: 'eth_call', count: 2 },
        { kind: 'error', code: -32005, message: 'rate limit exceeded', method: 'eth_call', count: 2 },
      ],
    });
    const name = `${table.name}-flaky`;
    try {
      await inTable(name, () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(proxy.url), from: 0, retry: RETRY, ...BATCH }));
      expect([proxy.served.rateLimit, proxy.served.reset, proxy.served.error]).toEqual([2, 2, 2]);
      expect(await snapshot(name)).toEqual(await snapshot(table.name));
    } finally {
      await proxy.close();
    }
  });
});
