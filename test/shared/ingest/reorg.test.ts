/**
 * Reorgs on a real anvil: evm_snapshot, mine blocks with token activity, ingest, evm_revert, mine
 * DIFFERENT blocks, ingest again. The table must end with only canonical data: exactly the items a
 * fresh ingest of the canonical chain writes (state items compared without the block they were
 * written at), no item of an orphaned block, balances equal to the chain's.
 */
import { createWalletClient, defineChain, http, parseEther, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { addressKeys } from '../../../shared/table/keys';
import { BackfillPlanError, planBackfill, readPlan, stageSegment } from '../../../shared/ingest/backfill';
import { ingestRange } from '../../../shared/ingest/ingest';
import { moveCursor, readCursor } from '../../../shared/ingest/manifest';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { expectImmutableItems, expectStateMatchesChain, publicClient, readChainTruth } from './support/truth';

const table = useTestTable('reorg');
const CHAIN_ID = 31337;
let anvil: Anvil;
let artifacts: DemoArtifacts;
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const [deployer, alice, bob, carol, dave] = accounts.map((account) => account.address);
let wallet: ReturnType<typeof createWalletClient>;
let token: Address;
let nft: Address;
let multi: Address;

async function mined(hash: Promise<Hash>): Promise<Address | null> {
  const receipt = await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  return receipt.contractAddress ?? null;
}

async function deploy(name: 'DemoToken' | 'DemoNFT' | 'DemoMulti'): Promise<Address> {
  const artifact = artifacts[name];
  return (await mined(
    wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [deployer], account: accounts[0], chain: wallet.chain }),
  ))!;
}

async function call(
  address: Address,
  name: 'DemoToken' | 'DemoNFT' | 'DemoMulti',
  functionName: string,
  args: unknown[],
  from = 0,
): Promise<void> {
  await mined(
    wallet.writeContract({ address, abi: artifacts[name].abi, functionName, args, account: accounts[from], chain: wallet.chain }),
  );
}

async function send(to: Address, value: bigint): Promise<void> {
  await mined(wallet.sendTransaction({ to, value, account: accounts[0], chain: wallet.chain }));
}

const rpc = (method: string, params: unknown[] = []) =>
  publicClient(anvil.rpcUrl).request({ method: method as never, params: params as never });
const ingest = () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl) });
const headNumber = async () => Number(await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 }));

/** Items without the block a state item was written at (a reorg rewrites them at the ancestor). */
const comparable = (items: Record<string, unknown>[]) => items.map(({ updatedAtBlock: _block, ...rest }) => rest);

/** What a fresh ingest of the canonical chain writes, in a table of its own. */
async function freshIngestSnapshot(name: string): Promise<Record<string, unknown>[]> {
  await inTable(name, ingest);
  return tableSnapshot(name);
}

beforeAll(async () => {
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'reorg',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl) });
  token = await deploy('DemoToken');
  nft = await deploy('DemoNFT');
  multi = await deploy('DemoMulti');
  await call(token, 'DemoToken', 'mint', [alice, parseEther('1000')]);
  await call(nft, 'DemoNFT', 'mint', [alice, 10n]);
  await ingest();
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

test('a longer competing branch: orphaned items deleted, touched state recomputed, canonical blocks ingested', async () => {
  const snapshot = await rpc('evm_snapshot');
  // The branch that will be orphaned: a new holder, a new NFT, an ERC-1155 mint, and a second token
  // with the same symbol (which makes the symbol ambiguous while it lasts).
  await call(token, 'DemoToken', 'transfer', [bob, parseEther('100')], 1);
  await call(nft, 'DemoNFT', 'mint', [carol, 1n]);
  await call(multi, 'DemoMulti', 'mint', [bob, 7n, 5n]);
  const orphanToken = await deploy('DemoToken');
  await call(orphanToken, 'DemoToken', 'mint', [bob, 1n]);
  await send(carol, parseEther('1'));
  const orphaned = await ingest();
  expect(orphaned.reorgs).toBe(0);
  const ambiguous = (await tableSnapshot(table.name)).find((item) => item.pk === addressKeys.name(CHAIN_ID, 'DEMO').pk);
  expect((ambiguous!.addresses as Set<string>).size).toBe(2);
  const orphanedHead = await headNumber();

  await rpc('evm_revert', [snapshot]);
  // The canonical branch: different transactions, one block longer.
  await call(token, 'DemoToken', 'transfer', [dave, parseEther('50')], 1);
  await call(nft, 'DemoNFT', 'mint', [bob, 2n]);
  await call(multi, 'DemoMulti', 'mint', [dave, 7n, 3n]);
  await send(bob, parseEther('2'));
  await call(token, 'DemoToken', 'transfer', [bob, parseEther('10')], 4);
  await call(nft, 'DemoNFT', 'transferFrom', [bob, carol, 2n], 2);
  await call(multi, 'DemoMulti', 'mint', [alice, 8n, 1n]);
  const head = await headNumber();
  expect(head).toBeGreaterThan(orphanedHead);

  const result = await ingest();
  expect(result.reorgs).toBe(1);
  expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: head });

  const truth = await readChainTruth(anvil.rpcUrl, 0, head);
  await expectImmutableItems(table.name, truth);
  await expectStateMatchesChain(table.name, truth, anvil.rpcUrl);
  const items = await tableSnapshot(table.name);
  expect(items.find((item) => item.pk === addressKeys.address(CHAIN_ID, orphanToken).pk)).toBeUndefined();
  expect(items.filter((item) => String(item.pk).includes(orphanToken.toLowerCase()))).toEqual([]);
  const demo = items.find((item) => item.pk === addressKeys.name(CHAIN_ID, 'DEMO').pk);
  expect([...(demo!.addresses as Set<string>)]).toEqual([token.toLowerCase()]);
  expect(comparable(items)).toEqual(comparable(await freshIngestSnapshot(`${table.name}-fresh1`)));
});

test('a shorter competing branch: the cursor goes back and the table matches a fresh ingest', async () => {
  const snapshot = await rpc('evm_snapshot');
  await call(token, 'DemoToken', 'transfer', [carol, parseEther('5')], 1);
  await call(nft, 'DemoNFT', 'transferFrom', [alice, dave, 10n], 1);
  await send(dave, parseEther('1'));
  await ingest();
  await rpc('evm_revert', [snapshot]);
  await call(multi, 'DemoMulti', 'safeTransferFrom', [alice, carol, 8n, 1n, '0x'], 1);
  const head = await headNumber();

  const result = await ingest();
  expect(result.reorgs).toBe(1);
  expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: head });
  const truth = await readChainTruth(anvil.rpcUrl, 0, head);
  await expectImmutableItems(table.name, truth);
  await expectStateMatchesChain(table.name, truth, anvil.rpcUrl);
  expect(comparable(await tableSnapshot(table.name))).toEqual(comparable(await freshIngestSnapshot(`${table.name}-fresh2`)));
});

test('a batch written but never moved past (the cursor still announces it), then reorged: the restart undoes it and ingests the canonical blocks', async () => {
  const base = (await readCursor(CHAIN_ID))!;
  const snapshot = await rpc('evm_snapshot');
  await call(token, 'DemoToken', 'transfer', [carol, parseEther('7')], 1);
  await call(nft, 'DemoNFT', 'mint', [dave, 1n]);
  await send(bob, parseEther('1'));
  const orphanedHead = await headNumber();
  // Everything of the batch written, then the cursor put back where a crash before its move leaves
  // it: on the block before the batch, announcing the batch.
  await ingest();
  const written = (await readCursor(CHAIN_ID))!;
  await moveCursor(
    CHAIN_ID,
    written,
    { blockNumber: base.blockNumber, blockHash: base.blockHash, pendingTo: orphanedHead },
    base.firstBlock,
  );

  await rpc('evm_revert', [snapshot]);
  await call(token, 'DemoToken', 'transfer', [dave, parseEther('3')], 1);
  await send(carol, parseEther('2'));
  const head = await headNumber();
  const undone: number[] = [];
  const result = await ingestRange({
    chainId: CHAIN_ID,
    client: createChainClient(anvil.rpcUrl),
    listeners: [
      { blocksIngested: () => undefined, blocksOrphaned: ({ blocks }) => void undone.push(...blocks.map((block) => block.number)) },
    ],
  });
  expect(result.reorgs, 'no rollback: the cursor block is canonical').toBe(0);
  expect(undone.sort((a, b) => a - b)).toEqual(
    Array.from({ length: orphanedHead - base.blockNumber }, (_, offset) => base.blockNumber + 1 + offset),
  );
  expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: head });
  expect((await readCursor(CHAIN_ID))?.pendingTo).toBeUndefined();

  const truth = await readChainTruth(anvil.rpcUrl, 0, head);
  await expectImmutableItems(table.name, truth);
  await expectStateMatchesChain(table.name, truth, anvil.rpcUrl);
  expect(comparable(await tableSnapshot(table.name))).toEqual(comparable(await freshIngestSnapshot(`${table.name}-fresh3`)));
});

test('a reorg inside a backfill ends the plan: what its workers wrote past the cursor is swept, the rest is read from the node', async () => {
  const client = createChainClient(anvil.rpcUrl);
  const options = { chainId: CHAIN_ID, client, log: { info: () => undefined, warn: () => undefined } };
  const base = (await readCursor(CHAIN_ID))!.blockNumber;
  await send(bob, parseEther('1'));
  await call(token, 'DemoToken', 'transfer', [carol, parseEther('1')], 1);
  const snapshot = await rpc('evm_snapshot');
  // The branch that will be orphaned, backfilled by workers in segments of 2 blocks: a new holder of
  // the token, an NFT, an address that only this branch pays.
  const orphanPayee = privateKeyToAccount(`0x${'5'.repeat(64)}`).address;
  await call(token, 'DemoToken', 'transfer', [orphanPayee, parseEther('9')], 1);
  await call(nft, 'DemoNFT', 'mint', [orphanPayee, 1n]);
  await send(orphanPayee, parseEther('3'));
  await send(dave, parseEther('1'));
  await call(multi, 'DemoMulti', 'mint', [orphanPayee, 7n, 2n]);
  await send(orphanPayee, parseEther('4'));
  const orphanedHead = await headNumber();
  expect(orphanedHead).toBe(base + 8);
  const { segments } = await planBackfill({ chainId: CHAIN_ID, to: orphanedHead, head: orphanedHead, segmentBlocks: 2 });
  for (const segment of segments) await stageSegment(options, segment);
  expect((await ingestRange({ ...options, to: base + 4 })).advanced, 'the first two segments numbered').toBe(4);

  await rpc('evm_revert', [snapshot]);
  await send(carol, parseEther('1'));
  await call(token, 'DemoToken', 'transfer', [dave, parseEther('2')], 1);
  for (let block = 0; block < 6; block += 1) await send(bob, parseEther('0.1'));
  const head = await headNumber();
  expect(head).toBeGreaterThan(orphanedHead);

  const result = await ingestRange(options);
  expect(result.reorgs).toBe(1);
  expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: head });
  expect(await readPlan(CHAIN_ID), 'the plan is gone').toBeUndefined();
  const items = await tableSnapshot(table.name);
  expect(
    items.filter((item) => String(item.pk).includes('#STAGED#')),
    'no staged item is left',
  ).toEqual([]);
  expect(
    items.filter((item) => String(item.pk).includes(orphanPayee.toLowerCase().slice(2))),
    'nothing of the orphaned branch',
  ).toEqual([]);
  const truth = await readChainTruth(anvil.rpcUrl, 0, head);
  await expectImmutableItems(table.name, truth);
  await expectStateMatchesChain(table.name, truth, anvil.rpcUrl);
  expect(comparable(items)).toEqual(comparable(await freshIngestSnapshot(`${table.name}-fresh4`)));

  // A worker late for the ended plan writes nothing: there is no open backfill any more.
  await expect(stageSegment(options, { from: head + 1, to: head + 2 })).rejects.toThrow(BackfillPlanError);
});
