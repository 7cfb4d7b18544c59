/**
 * A reorg undoes token details read in orphaned blocks, on a real anvil (Shanghai, so that a
 * self-destruct deletes code and CREATE2 can create the token again at the same address): a branch
 * where the token is destroyed and created again under another name is ingested, then orphaned; after
 * the new branch is ingested the table equals a clean ingest of the new chain, item for item (name,
 * symbol, type, details time, creation transaction and block of the address item included).
 */
import { createWalletClient, defineChain, http, stringToHex, type Abi, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { ingestRange } from '../../../shared/ingest/ingest';
import { getItem } from '../../../shared/ingest/table-io';
import { addressKeys } from '../../../shared/table/keys';
import type { AddressRecord } from '../../../shared/table/records';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { publicClient } from './support/truth';

const table = useTestTable('reorg-token-details');
const CHAIN_ID = 31337;
const quiet = { info: () => undefined, warn: () => undefined };
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const [, alice, bob, carol] = accounts.map((account) => account.address);
let anvil: Anvil;
let artifacts: DemoArtifacts;
let wallet: ReturnType<typeof createWalletClient>;

const rpc = (method: string, params: unknown[] = []) =>
  publicClient(anvil.rpcUrl).request({ method: method as never, params: params as never });
const ingest = () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log: quiet, traceMethod: 'parity' });
/** Items without the block a state item was written at (a reorg rewrites them at the ancestor). */
const comparable = (items: Record<string, unknown>[]) => items.map(({ updatedAtBlock: _block, ...rest }) => rest);

async function send(to: Address, abi: Abi, functionName: string, args: unknown[]): Promise<Hash> {
  const hash = await wallet.writeContract({ address: to, abi, functionName, args, account: accounts[0]!, chain: wallet.chain });
  await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return hash;
}

beforeAll(async () => {
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID, args: ['--hardfork', 'shanghai'] }), loadContracts()]);
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'reorg-token-details',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl) });
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

test('a token destroyed and created again under another name in orphaned blocks: the rollback restores its details and creation', async () => {
  const { abi, bytecode } = artifacts.PhoenixFactory;
  const deployHash = await wallet.deployContract({ abi, bytecode, account: accounts[0]!, chain: wallet.chain, args: [] });
  const factory = (await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: deployHash, pollingInterval: 20 })).contractAddress!;
  const salt = stringToHex('salt', { size: 32 });
  const created = await publicClient(anvil.rpcUrl).simulateContract({
    address: factory,
    abi,
    functionName: 'create',
    args: [salt, stringToHex('First', { size: 32 })],
    account: accounts[0]!,
  });
  const phoenix = (created.result as Address).toLowerCase() as Address;
  const firstCreation = await send(factory, abi, 'create', [salt, stringToHex('First', { size: 32 })]);
  await send(phoenix, artifacts.PhoenixToken.abi, 'mint', [alice, 5n]);
  await ingest();

  const snapshot = await rpc('evm_snapshot');
  // The orphaned branch: destroyed, created again as "Second", moved.
  await send(phoenix, artifacts.PhoenixToken.abi, 'destroy', []);
  const orphanedCreation = await send(factory, abi, 'create', [salt, stringToHex('Second', { size: 32 })]);
  await send(phoenix, artifacts.PhoenixToken.abi, 'mint', [bob, 3n]);
  await rpc('anvil_mine', ['0x3']);
  await ingest();
  const orphaned = (await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, phoenix)))!;
  expect(orphaned).toMatchObject({ tokenName: 'Second', tokenSymbol: 'Second', creationTransactionHash: orphanedCreation });

  await rpc('evm_revert', [snapshot]);
  // The new branch: the first token moves again (no re-creation), and the chain is longer.
  await send(phoenix, artifacts.PhoenixToken.abi, 'mint', [carol, 2n]);
  await rpc('anvil_mine', ['0x6']);
  await ingest();

  const item = (await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, phoenix)))!;
  expect(item).toMatchObject({ tokenName: 'First', tokenSymbol: 'First', creationTransactionHash: firstCreation });
  const fresh = `${table.name}-fresh`;
  await inTable(fresh, ingest);
  expect(comparable(await tableSnapshot(table.name))).toEqual(comparable(await tableSnapshot(fresh)));
}, 300_000);
