/**
 * Per-id supply of ERC-1155 tokens, distinct ids per collection and the top-level call's error, on a
 * real anvil: an ERC-1155 with ERC1155Supply (its totalSupply(id) is read at the block) and the demo's
 * DemoMulti without it (the supply is the sum of the holders' balances the ingest holds), then what
 * the explorer shows from them (E1/E2 `is_unique`, E2 `amount`, E4 `result`; ids: see docs/access-patterns.md).
 */
import { createWalletClient, defineChain, http, type Abi, type Address, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts } from '../../../scripts/lib/contracts';
import { requestJson } from '../../../scripts/lib/dispatch';
import { createChainClient } from '../../../shared/chain/client';
import { expandTransaction } from '../../../shared/table/compact';
import { nftKeys, transactionKeys } from '../../../shared/table/keys';
import { ingestRange } from '../../../shared/ingest/ingest';
import { getItem } from '../../../shared/ingest/table-io';
import { useTable } from '../../../shared/db/client';
import { useTestTable } from '../../support/table';
import { ensureTable, localClient } from '../../../scripts/lib/local-table/ensure-table';
import { startRpcProxy } from './support/proxy';
import { compileSupplyToken } from './support/supply-token';
import { expectStateMatchesChain, publicClient, readChainTruth } from './support/truth';

const table = useTestTable('nft-supply');
const CHAIN_ID = 31337;
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const [deployer, alice, bob, carol] = accounts.map((account) => account.address);
let anvil: Anvil;
let wallet: ReturnType<typeof createWalletClient>;
let supplyToken: Address;
let multi: Address;
let supplyAbi: Abi;
let multiAbi: Abi;
let outOfGas: Hash;

async function mined(hash: Promise<Hash>): Promise<{ hash: Hash; contract: Address | null }> {
  const receipt = await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  return { hash: receipt.transactionHash, contract: receipt.contractAddress ?? null };
}

async function deploy(abi: Abi, bytecode: Hex, args: unknown[]): Promise<Address> {
  return (await mined(wallet.deployContract({ abi, bytecode, args, account: accounts[0], chain: wallet.chain }))).contract!;
}

async function write(
  address: Address,
  abi: Abi,
  functionName: string,
  args: unknown[],
  options: { from?: number; gas?: bigint } = {},
): Promise<Hash> {
  return (
    await mined(
      wallet.writeContract({
        address,
        abi,
        functionName,
        args,
        account: accounts[options.from ?? 0],
        chain: wallet.chain,
        gas: options.gas,
      }),
    )
  ).hash;
}

const explorer = async (address: string, endpoint: string) => {
  const response = await requestJson('base', 'GET', `/explorer/addresses/${address}/${endpoint}`);
  expect(response.status).toBe(200);
  return response.body as { items: any[] };
};

beforeAll(async () => {
  const [started, artifacts, compiled] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts(), compileSupplyToken()]);
  anvil = started;
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'supply',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl) });
  supplyAbi = compiled.abi;
  multiAbi = artifacts.DemoMulti.abi;
  supplyToken = await deploy(supplyAbi, compiled.bytecode, []);
  multi = await deploy(multiAbi, artifacts.DemoMulti.bytecode, [deployer]);

  // ERC1155Supply: #1 a single copy; #2 five copies; #3 a single copy that moves; #4 two copies, one burned.
  await write(supplyToken, supplyAbi, 'mint', [alice, 1n, 1n]);
  await write(supplyToken, supplyAbi, 'mint', [alice, 2n, 5n]);
  await write(supplyToken, supplyAbi, 'mint', [bob, 3n, 1n]);
  await write(supplyToken, supplyAbi, 'safeTransferFrom', [bob, carol, 3n, 1n, '0x'], { from: 2 });
  await write(supplyToken, supplyAbi, 'mint', [alice, 4n, 2n]);
  await write(supplyToken, supplyAbi, 'burn', [alice, 4n, 1n]);
  // DemoMulti (no totalSupply(id)): #7 one copy; #8 one copy each to bob and carol; 11 ids to carol.
  await write(multi, multiAbi, 'mint', [alice, 7n, 1n]);
  await write(multi, multiAbi, 'mint', [bob, 8n, 1n]);
  await write(multi, multiAbi, 'mint', [carol, 8n, 1n]);
  const ids = Array.from({ length: 11 }, (_, i) => BigInt(100 + i));
  await write(multi, multiAbi, 'mintBatch', [carol, ids, ids.map(() => 2n)]);
  // A transaction that runs out of gas (the gas limit covers the call's start, not its storage writes).
  outOfGas = await write(multi, multiAbi, 'mint', [alice, 9n, 1n], { gas: 30_000n });

  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), from: 0 });
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('ERC-1155 per-id supply', () => {
  const instance = async (contract: Address, id: bigint) => (await getItem<Record<string, any>>(nftKeys.instance(CHAIN_ID, contract, id)))!;

  test('a contract with totalSupply(id): the supply it reports at the block, after mints, a transfer and a burn', async () => {
    expect(await instance(supplyToken, 1n)).toMatchObject({
      totalSupply: '1',
      totalSupplySource: 'totalSupply',
      holders: 1,
      heldSupply: '1',
    });
    expect(await instance(supplyToken, 2n)).toMatchObject({ totalSupply: '5', totalSupplySource: 'totalSupply', holders: 1 });
    expect(await instance(supplyToken, 3n)).toMatchObject({
      totalSupply: '1',
      totalSupplySource: 'totalSupply',
      holders: 1,
      heldSupply: '1',
    });
    expect(await instance(supplyToken, 4n)).toMatchObject({
      totalSupply: '1',
      totalSupplySource: 'totalSupply',
      holders: 1,
      heldSupply: '1',
    });
  });

  test('a contract without it: the sum of the balances of the holders with a positive balance', async () => {
    expect(await instance(multi, 7n)).toMatchObject({ totalSupply: '1', totalSupplySource: 'holders', holders: 1, heldSupply: '1' });
    expect(await instance(multi, 8n)).toMatchObject({ totalSupply: '2', totalSupplySource: 'holders', holders: 2, heldSupply: '2' });
  });

  test('every state item agrees with the chain at the head (supplies, held sums, distinct ids)', async () => {
    const head = Number(await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 }));
    await expectStateMatchesChain(table.name, await readChainTruth(anvil.rpcUrl, 0, head), anvil.rpcUrl);
  });

  test('the explorer shows an id with a supply of 1 as unique, others not (E1 and E2)', async () => {
    const balances = (await explorer(alice, 'tokens')).items.filter((item) => item.token.type === 'ERC-1155');
    const unique = Object.fromEntries(
      balances.map((item) => [`${item.token.address.toLowerCase()}#${item.token_id}`, item.token_instance.is_unique]),
    );
    expect(unique).toEqual({
      [`${supplyToken.toLowerCase()}#1`]: true,
      [`${supplyToken.toLowerCase()}#2`]: false,
      [`${supplyToken.toLowerCase()}#4`]: true,
      [`${multi.toLowerCase()}#7`]: true,
    });
    const collections = (await explorer(carol, 'nft/collections')).items;
    const ofSupply = collections.find((item) => item.token.address.toLowerCase() === supplyToken.toLowerCase());
    expect(ofSupply.token_instances.map((i: any) => [i.id, i.is_unique])).toEqual([['3', true]]);
    const ofMulti = collections.find((item) => item.token.address.toLowerCase() === multi.toLowerCase());
    // 12 distinct ids (8 and 100..110), 9 of them embedded; none unique.
    expect(ofMulti.amount).toBe('12');
    expect(ofMulti.token_instances).toHaveLength(9);
    expect(ofMulti.token_instances.every((i: any) => i.is_unique === false)).toBe(true);
  });
});

describe('the top-level call error', () => {
  test('a transaction out of gas stores the tracer error, and the explorer shows it as the result', async () => {
    const trace = (await publicClient(anvil.rpcUrl).request({
      method: 'debug_traceTransaction' as never,
      params: [outOfGas, { tracer: 'callTracer' }] as never,
    })) as { error?: string };
    expect(trace.error).toMatch(/out of gas/i);
    const stored = expandTransaction((await getItem<Record<string, any>>(transactionKeys.transaction(CHAIN_ID, outOfGas)))!);
    expect(stored).toMatchObject({ status: 0, error: trace.error });
    const item = (await explorer(deployer, 'transactions')).items.find((tx) => tx.hash === outOfGas.toLowerCase());
    expect(item).toMatchObject({ status: 'error', result: trace.error });
  });

  test.each([
    ['parity trace_block', ['debug_traceBlockByNumber'], 'an error'],
    ['no tracer (revert reason by replay)', ['debug_traceBlockByNumber', 'trace_block'], null],
  ] as const)(
    'through a node with %s, the out-of-gas transaction is ingested (no retry loop) with its error',
    async (_label, unsupported, error) => {
      const proxy = await startRpcProxy(anvil.rpcUrl, { unsupportedMethods: [...unsupported] });
      const name = `${table.name}-${unsupported.length}`;
      try {
        await ensureTable(localClient(process.env.DYNAMODB_ENDPOINT!), name);
        useTable(name);
        await ingestRange({
          chainId: CHAIN_ID,
          client: createChainClient(proxy.url),
          from: 0,
          retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
        });
        const stored = expandTransaction((await getItem<Record<string, any>>(transactionKeys.transaction(CHAIN_ID, outOfGas)))!);
        expect(stored).toMatchObject({ status: 0, revertReason: null });
        if (error === null) expect(stored!.error).toBeNull();
        else expect(stored!.error).toEqual(expect.any(String));
      } finally {
        useTable(table.name);
        await proxy.close();
      }
    },
  );
});
