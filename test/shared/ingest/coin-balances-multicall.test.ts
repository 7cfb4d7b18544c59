/**
 * Native coin balances through Multicall3 (issue 34: calls to the node a transaction): on a chain with
 * Multicall3 (Base has it at its canonical address), the ingest reads the balances of the addresses a
 * batch touched with Multicall3's getEthBalance inside one aggregate3 eth_call per block read at, not
 * one eth_getBalance each; every balance stored is the one eth_getBalance answers at its block. Before
 * Multicall3 is there, eth_getBalance as before.
 */
import type { Address } from 'viem';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import { ingestRange } from '../../../shared/ingest/ingest';
import type { CoinBalanceRecord } from '../../../shared/table/address-state';
import { startRpcProxy } from '../../support/rpc-fault-proxy';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { installMulticall3 } from './support/multicall3';
import { publicClient } from './support/truth';
import { variedActivity } from './support/varied-chain';

const table = useTestTable('coin-multicall');
const CHAIN_ID = 31337;
let anvil: Anvil;
let before: number;
let head: number;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await variedActivity(anvil.rpcUrl, CHAIN_ID, 2);
  before = Number(await publicClient(anvil.rpcUrl).getBlockNumber());
  await installMulticall3(anvil.rpcUrl);
  await variedActivity(anvil.rpcUrl, CHAIN_ID, 3);
  head = Number(await publicClient(anvil.rpcUrl).getBlockNumber());
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

/** Ingests blocks `from`..`to` through a proxy that counts the node's calls; the table's coin balance items. */
async function ingestCounting(name: string, from: number, to: number) {
  const proxy = await startRpcProxy(anvil.rpcUrl);
  try {
    return await inTable(name, async () => {
      await ingestRange({
        chainId: CHAIN_ID,
        client: createChainClient(proxy.url),
        from,
        to,
        log: { info: () => undefined, warn: () => undefined },
      });
      const coins = (await tableSnapshot(name)).filter((item) => item.kind === 'coinBalance') as unknown as CoinBalanceRecord[];
      return { calls: new Map(proxy.calls), coins };
    });
  } finally {
    await proxy.close();
  }
}

async function expectNodeBalances(coins: CoinBalanceRecord[]): Promise<void> {
  expect(coins.length).toBeGreaterThan(5);
  for (const coin of coins) {
    const balance = await publicClient(anvil.rpcUrl).getBalance({
      address: coin.address as Address,
      blockNumber: BigInt(coin.updatedAtBlock),
    });
    expect(coin.value, `${coin.address} at ${coin.updatedAtBlock}`).toBe(balance.toString());
  }
}

test('with Multicall3 at the blocks, balances come from getEthBalance in aggregate3: no eth_getBalance, the node’s values', async () => {
  const { calls, coins } = await ingestCounting(`${table.name}-with`, before + 1, head);
  expect(calls.get('eth_getBalance') ?? 0).toBe(0);
  await expectNodeBalances(coins);
});

test('before Multicall3 is deployed, eth_getBalance as before, the node’s values', async () => {
  const { calls, coins } = await ingestCounting(`${table.name}-without`, 0, before);
  expect(calls.get('eth_getBalance') ?? 0).toBeGreaterThan(5);
  await expectNodeBalances(coins);
});
