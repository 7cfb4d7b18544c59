/**
 * Native coin balances and EIP-1967 implementations through the real ingest on anvil: every address
 * a block touched has its balance as eth_getBalance answers it (a contract paid in an internal call
 * included), an older read never replaces a newer one, a reorg leaves no orphaned balance, a node
 * that refuses eth_getBalance does not stop the ingest, and a proxy's item names its implementation,
 * changed by an upgrade.
 */
import { createWalletClient, defineChain, http, numberToHex, parseEther, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { DEFAULT_RETRY_POLICY } from '../../../shared/chain/retry';
import { parseBlock } from '../../../shared/chain/rpc-block';
import { loadIngestConfig } from '../../../shared/ingest/config';
import { deriveBlock } from '../../../shared/ingest/derive';
import { BlockSource } from '../../../shared/ingest/fetch-block';
import { ingestRange } from '../../../shared/ingest/ingest';
import type { IngestLog } from '../../../shared/ingest/log';
import { readCursor } from '../../../shared/ingest/manifest';
import { coinTouches, NativeStateWriter } from '../../../shared/ingest/native-state';
import { coinBalanceKey, type CoinBalanceRecord, type ProxyFields } from '../../../shared/table/address-state';
import { addressKeys } from '../../../shared/table/keys';
import type { AddressRecord } from '../../../shared/table/records';
import { rawReceipt, rawRpc } from '../../support/raw-rpc';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { proxyArtifacts, type ProxyArtifacts } from './support/eip1967-proxy';
import { startRpcProxy, type RpcProxy } from './support/proxy';
import { publicClient } from './support/truth';

const table = useTestTable('native-state');
const CHAIN_ID = 31337;
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const [deployer, alice, bob, carol] = accounts.map((account) => account.address);
let anvil: Anvil;
let artifacts: DemoArtifacts;
let proxyCode: ProxyArtifacts;
let wallet: ReturnType<typeof createWalletClient>;
let splitter: Address;
let proxy: Address;
let implementationV1: Address;
let token: Address;
const warnings: string[] = [];
const log: IngestLog = { info: () => undefined, warn: (message) => void warnings.push(message) };

const chain = () => publicClient(anvil.rpcUrl);
const ingest = (rpcUrl = anvil.rpcUrl, options: { coinBalances?: boolean } = {}) =>
  ingestRange({
    chainId: CHAIN_ID,
    client: createChainClient(rpcUrl),
    log,
    retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    ...options,
  });
const headNumber = async () => Number(await chain().getBlockNumber({ cacheTime: 0 }));
const rpc = (method: string, params: unknown[] = []) => chain().request({ method: method as never, params: params as never });

async function mined(hash: Promise<Hash>): Promise<Address | null> {
  const receipt = await chain().waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  expect(receipt.status).toBe('success');
  return receipt.contractAddress ?? null;
}

const deploy = async (code: { abi: unknown; bytecode: `0x${string}` }, args: unknown[] = []): Promise<Address> =>
  (await mined(
    wallet.deployContract({
      abi: code.abi as never,
      bytecode: code.bytecode,
      args: args as never,
      account: accounts[0],
      chain: wallet.chain,
    }),
  ))!;

const send = (from: number, to: Address, value: bigint) =>
  mined(wallet.sendTransaction({ to, value, account: accounts[from], chain: wallet.chain }));

/** A fresh address nobody holds a key of (never funded before the test sends to it). */
const stranger = (seed: number): Address => `0x${seed.toString(16).padStart(40, 'c')}` as Address;

async function coinItem(address: string): Promise<CoinBalanceRecord | undefined> {
  const key = coinBalanceKey(CHAIN_ID, address);
  return (await tableSnapshot(table.name)).find((item) => item.pk === key.pk && item.sk === key.sk) as CoinBalanceRecord | undefined;
}

async function addressItem(address: string): Promise<(AddressRecord & ProxyFields) | undefined> {
  const key = addressKeys.address(CHAIN_ID, address);
  return (await tableSnapshot(table.name)).find((item) => item.pk === key.pk && item.sk === key.sk) as
    | (AddressRecord & ProxyFields)
    | undefined;
}

/** The stored balance of each address next to eth_getBalance at the head (the chain's truth). */
async function storedAndChain(addresses: readonly string[]) {
  const head = BigInt(await headNumber());
  return Promise.all(
    addresses.map(async (address) => ({
      address: address.toLowerCase(),
      stored: (await coinItem(address.toLowerCase()))?.value,
      chain: (await chain().getBalance({ address: address as Address, blockNumber: head })).toString(),
    })),
  );
}

beforeAll(async () => {
  [anvil, artifacts, proxyCode] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts(), proxyArtifacts()]);
  const definition = defineChain({
    id: CHAIN_ID,
    name: 'native-state',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  wallet = createWalletClient({ chain: definition, transport: http(anvil.rpcUrl) });
  splitter = await deploy(artifacts.DemoSplitter);
  implementationV1 = await deploy(proxyCode.implementation);
  token = await deploy(artifacts.DemoToken, [deployer]);
  proxy = await deploy(proxyCode.proxy, [implementationV1]);
  await send(1, bob, parseEther('3'));
  // The proxy (a contract) paid in an internal call of the splitter, beside an account.
  await mined(
    wallet.writeContract({
      address: splitter,
      abi: artifacts.DemoSplitter.abi,
      functionName: 'split',
      args: [
        [proxy, carol],
        [parseEther('0.25'), parseEther('0.5')],
      ],
      value: parseEther('0.75'),
      account: accounts[2],
      chain: wallet.chain,
    }),
  );
  await ingest();
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('coin balances', () => {
  test('every touched address holds the balance the chain gives, a contract paid in an internal call included', async () => {
    const pairs = await storedAndChain([deployer, alice, bob, carol, splitter, proxy, token, implementationV1]);
    for (const pair of pairs) expect(pair.stored, pair.address).toBe(pair.chain);
    expect(pairs.find((pair) => pair.address === proxy.toLowerCase())?.stored).toBe(parseEther('0.25').toString());
    // Read at the last block that touched it, and equal to the chain there too.
    const item = await coinItem(carol.toLowerCase());
    expect(item?.updatedAtBlock).toBe(await headNumber());
    expect(item?.value).toBe((await chain().getBalance({ address: carol, blockNumber: BigInt(item!.updatedAtBlock) })).toString());
  });

  test('a read of an older block never replaces a newer one', async () => {
    const before = await coinItem(bob.toLowerCase());
    expect(before).toBeDefined();
    const writer = new NativeStateWriter(CHAIN_ID);
    expect(await writer.setCoinBalance(bob.toLowerCase(), 1n, before!.updatedAtBlock - 1)).toBe(false);
    expect(await coinItem(bob.toLowerCase())).toEqual(before);
    // The ingest moving on reads it again at the newer block.
    await send(2, bob, parseEther('1'));
    await ingest();
    const after = await coinItem(bob.toLowerCase());
    expect(after?.updatedAtBlock).toBe(await headNumber());
    expect(after?.value).toBe((await chain().getBalance({ address: bob })).toString());
  });

  test('a reorg leaves no orphaned balance: re-read at the ancestor, or gone when first touched above it', async () => {
    const snapshot = await rpc('evm_snapshot');
    const orphanedOnly = stranger(1);
    const canonicalOnly = stranger(2);
    await send(1, orphanedOnly, parseEther('2'));
    await send(1, bob, parseEther('4'));
    await ingest();
    expect((await coinItem(orphanedOnly.toLowerCase()))?.value).toBe(parseEther('2').toString());
    const orphanedHead = await headNumber();

    await rpc('evm_revert', [snapshot]);
    await send(3, canonicalOnly, parseEther('1'));
    await send(3, carol, parseEther('1'));
    await send(3, canonicalOnly, parseEther('1'));
    expect(await headNumber()).toBeGreaterThan(orphanedHead);
    const result = await ingest();
    expect(result.reorgs).toBe(1);

    expect(await coinItem(orphanedOnly.toLowerCase()), 'first touched in an orphaned block').toBeUndefined();
    expect(await chain().getBalance({ address: orphanedOnly })).toBe(0n);
    const pairs = await storedAndChain([alice, bob, carol, canonicalOnly, deployer]);
    for (const pair of pairs) expect(pair.stored, pair.address).toBe(pair.chain);
  });

  test('a node that refuses eth_getBalance does not stop the ingest: balances stay as they were, then catch up', async () => {
    const faulty: RpcProxy = await startRpcProxy(anvil.rpcUrl);
    try {
      faulty.inject({ kind: 'refuse', form: 'rpc-32601', method: 'eth_getBalance', count: Number.POSITIVE_INFINITY });
      const before = await coinItem(alice.toLowerCase());
      await send(1, carol, parseEther('1'));
      warnings.length = 0;
      await ingest(faulty.url);
      expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: await headNumber() });
      expect(faulty.served.refuse ?? 0).toBeGreaterThan(0);
      expect(await coinItem(alice.toLowerCase())).toEqual(before);
      expect(warnings.some((message) => message.includes('eth_getBalance'))).toBe(true);

      faulty.clear();
      await send(1, carol, parseEther('1'));
      await ingest(faulty.url);
      const pairs = await storedAndChain([alice, carol]);
      for (const pair of pairs) expect(pair.stored, pair.address).toBe(pair.chain);
    } finally {
      await faulty.close();
    }
  });

  test('switched off (INGEST_COIN_BALANCES=off): no coin balance is read or written', async () => {
    const environment = { DEPOSIT_EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/DepositEvents.fifo' };
    expect(loadIngestConfig(environment).coinBalances).toBe(true);
    const { coinBalances } = loadIngestConfig({ ...environment, INGEST_COIN_BALANCES: 'off' });
    expect(coinBalances).toBe(false);
    expect(() => loadIngestConfig({ ...environment, INGEST_COIN_BALANCES: 'no' })).toThrow(/INGEST_COIN_BALANCES/);
    const items = await inTable(`${table.name}-off`, async () => {
      await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log, coinBalances });
      return tableSnapshot(`${table.name}-off`);
    });
    expect(items.filter((item) => item.kind === 'coinBalance')).toEqual([]);
    expect(items.some((item) => item.kind === 'block')).toBe(true);
  });
});

describe('EIP-1967 implementations', () => {
  test('a proxy created with an implementation names it; a plain contract names none', async () => {
    expect((await addressItem(proxy.toLowerCase()))?.implementation).toBe(implementationV1.toLowerCase());
    expect((await addressItem(splitter.toLowerCase()))?.implementation).toBeUndefined();
  });

  test('an upgrade (Upgraded(address)) changes it to what the slot holds', async () => {
    await mined(
      wallet.writeContract({
        address: proxy,
        abi: proxyCode.proxy.abi,
        functionName: 'upgradeTo',
        args: [token],
        account: accounts[0],
        chain: wallet.chain,
      }),
    );
    await ingest();
    const item = await addressItem(proxy.toLowerCase());
    const slot = await chain().getStorageAt({
      address: proxy,
      slot: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    });
    expect(`0x${slot!.slice(-40)}`).toBe(token.toLowerCase());
    expect(item?.implementation).toBe(token.toLowerCase());
    expect(item?.implementationAt).toBe(await headNumber());
  });
});

describe('touched addresses', () => {
  test('an OP-stack deposit: its sender (minted value included) and recipient hold what the chain gives', async () => {
    const op = await startAnvil({ chainId: CHAIN_ID, args: ['--network', 'optimism'] });
    try {
      const depositor = accounts[4]!.address;
      const recipient = stranger(3);
      const deposit = await rawRpc(op.rpcUrl, 'eth_sendTransaction', [
        {
          from: depositor,
          to: recipient,
          value: numberToHex(parseEther('1')),
          gas: numberToHex(100_000),
          sourceHash: `0x${'5b'.repeat(32)}`,
          mint: numberToHex(parseEther('2')),
          isSystemTx: false,
        },
      ]);
      expect((await rawReceipt(op.rpcUrl, deposit)).status).toBe('0x1');
      expect((await rawRpc(op.rpcUrl, 'eth_getTransactionByHash', [deposit])).type).toBe('0x7e');
      const name = `${table.name}-op`;
      const items = await inTable(name, async () => {
        await ingestRange({ chainId: CHAIN_ID, client: createChainClient(op.rpcUrl), log });
        return tableSnapshot(name);
      });
      const head = await rawRpc(op.rpcUrl, 'eth_blockNumber', []);
      for (const address of [depositor, recipient]) {
        const item = items.find((candidate) => candidate.pk === coinBalanceKey(CHAIN_ID, address).pk && candidate.sk === 'COIN');
        expect(item?.value, address).toBe(BigInt(await rawRpc(op.rpcUrl, 'eth_getBalance', [address, head])).toString());
      }
      expect(items.find((item) => item.pk === coinBalanceKey(CHAIN_ID, recipient).pk && item.sk === 'COIN')?.value).toBe(
        parseEther('1').toString(),
      );
    } finally {
      await op.stop();
    }
  });

  test('a block touches its fee recipient and its withdrawal recipients', async () => {
    const source = new BlockSource(createChainClient(anvil.rpcUrl), DEFAULT_RETRY_POLICY, { warn: () => undefined });
    const bundle = await source.fetch(1n);
    const receiver = stranger(4);
    bundle.block.withdrawals = parseBlock({
      number: '0x1',
      hash: bundle.block.hash,
      parentHash: bundle.block.parentHash,
      timestamp: '0x0',
      transactions: [],
      withdrawals: [{ index: '0x1', validatorIndex: '0x2', address: receiver, amount: '0x3b9aca00' }],
    })!.withdrawals;
    const derived = deriveBlock(CHAIN_ID, bundle);
    const touched = coinTouches(derived);
    expect(touched).toContain(receiver.toLowerCase());
    expect(touched).toContain(String(bundle.block.miner).toLowerCase());
    for (const tx of derived.transactions) expect(touched).toContain(tx.from);
  });
});
