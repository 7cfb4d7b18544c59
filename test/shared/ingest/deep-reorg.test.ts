/**
 * Reorgs deeper than the old 64-block window, on a real anvil (evm_snapshot, a branch of token activity
 * and many mined blocks, ingest, evm_revert, another branch, ingest again):
 *  - with the default window (1,024 blocks) a 150-block reorg is repaired, in chunks of 64 blocks,
 *    and the table equals a clean ingest of the new chain; the status says `following` afterwards;
 *  - with a small configured window, a deeper reorg stops the ingest: nothing is written (the table is
 *    unchanged but for the status item), the status says `stopped` and why, and a client sees it.
 * The common ancestor is found with few node calls (strides, then a binary search), counted here.
 */
import { parseEther, type Address } from 'viem';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { ChainIngest, ingestRange } from '../../../shared/ingest/ingest';
import { readCursor } from '../../../shared/ingest/manifest';
import { DEFAULT_MAX_REORG_DEPTH, ReorgTooDeepError } from '../../../shared/ingest/reorg';
import { DEFAULT_STATUS_SETTINGS, readChainStatus } from '../../../shared/chain-status/status';
import { readStoredStatus } from '../../../shared/ingest/status';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { demoAccounts, demoWallet, type DemoWallet } from './support/demo-wallet';
import { expectImmutableItems, expectStateMatchesChain, readChainTruth } from './support/truth';

const table = useTestTable('deep-reorg');
const CHAIN_ID = 31337;
const quiet = { info: () => undefined, warn: () => undefined };
let anvil: Anvil;
let chain: DemoWallet;
const [, alice, bob, carol, dave] = demoAccounts.map((account) => account.address);
let token: Address;
let nft: Address;

const call: DemoWallet['call'] = (...args) => chain.call(...args);
const send: DemoWallet['send'] = (to, value) => chain.send(to, value);
const rpc = (method: string, params: unknown[] = []) => chain.rpc(method, params);
const mine = (blocks: number) => chain.mine(blocks);
const headNumber = () => chain.headNumber();
/** Items without the block a state item was written at (a reorg rewrites them at the ancestor). */
const comparable = (items: Record<string, unknown>[]) => items.map(({ updatedAtBlock: _block, ...rest }) => rest);

/** A chain client that counts the JSON-RPC requests it sends, by method. */
function countingClient() {
  const counts = new Map<string, number>();
  const client = createChainClient(anvil.rpcUrl);
  const request = client.request.bind(client);
  client.request = ((args: { method: string }, options?: unknown) => {
    counts.set(args.method, (counts.get(args.method) ?? 0) + 1);
    return request(args as never, options as never);
  }) as typeof client.request;
  return { client, counts };
}

beforeAll(async () => {
  let artifacts: DemoArtifacts;
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  chain = demoWallet(anvil, artifacts, CHAIN_ID, 'reorg');
  token = await chain.deploy('DemoToken');
  nft = await chain.deploy('DemoNFT');
  await call(token, 'DemoToken', 'mint', [alice, parseEther('1000')]);
  await call(nft, 'DemoNFT', 'mint', [alice, 10n]);
  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log: quiet, traceMethod: 'parity' });
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

test('a 150-block reorg (past the old 64-block window) is repaired with the default window: the table equals a clean ingest of the new chain', async () => {
  expect(DEFAULT_MAX_REORG_DEPTH).toBeGreaterThan(150);
  const fork = await headNumber();
  const snapshot = await rpc('evm_snapshot');
  // The branch that will be orphaned: token and NFT activity at its start, then 150 blocks.
  await call(token, 'DemoToken', 'transfer', [bob, parseEther('100')], 1);
  await call(nft, 'DemoNFT', 'mint', [carol, 1n]);
  await send(carol, parseEther('1'));
  await mine(150);
  await call(token, 'DemoToken', 'transfer', [carol, parseEther('1')], 1);
  const orphanedHead = await headNumber();
  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log: quiet, traceMethod: 'parity' });
  expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: orphanedHead });

  await rpc('evm_revert', [snapshot]);
  // The canonical branch: other transactions, and longer.
  await call(token, 'DemoToken', 'transfer', [dave, parseEther('50')], 1);
  await call(nft, 'DemoNFT', 'transferFrom', [alice, dave, 10n], 1);
  await mine(160);
  await send(bob, parseEther('2'));
  const head = await headNumber();
  expect(head).toBeGreaterThan(orphanedHead);

  const { client, counts } = countingClient();
  const ingest = new ChainIngest({ chainId: CHAIN_ID, client, log: quiet, traceMethod: 'parity' });
  const result = await ingest.ingestRange();
  expect(result.reorgs).toBe(1);
  expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: head });
  // The walk back: about 2·log2(depth) header reads, not one per orphaned block (the canonical
  // blocks ingested after it read their own blocks with full transactions).
  const depth = orphanedHead - fork;
  const headerReads = (counts.get('eth_getBlockByNumber') ?? 0) - (head - fork);
  expect(headerReads).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(depth)) + 4);

  const truth = await readChainTruth(anvil.rpcUrl, 0, head);
  await expectImmutableItems(table.name, truth, { traces: true });
  await expectStateMatchesChain(table.name, truth, anvil.rpcUrl);
  const fresh = `${table.name}-fresh`;
  await inTable(fresh, () =>
    ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log: quiet, traceMethod: 'parity' }),
  );
  expect(comparable(await tableSnapshot(table.name))).toEqual(comparable(await tableSnapshot(fresh)));

  const status = await readChainStatus(CHAIN_ID, DEFAULT_STATUS_SETTINGS);
  expect(status).toMatchObject({ state: 'following', reason: null, indexedHead: { number: head }, lag: { blocks: 0, seconds: 0 } });
}, 300_000);

test('a reorg deeper than a small configured window stops the ingest: nothing written, the status says why', async () => {
  const snapshot = await rpc('evm_snapshot');
  await call(token, 'DemoToken', 'transfer', [carol, parseEther('3')], 1);
  await mine(20);
  const ingest = () =>
    new ChainIngest({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log: quiet, traceMethod: 'parity', maxReorgDepth: 8 });
  await ingest().ingestRange();
  const indexed = (await readCursor(CHAIN_ID))!;
  expect((await readStoredStatus(CHAIN_ID))?.state).toBe('following');

  await rpc('evm_revert', [snapshot]);
  await call(token, 'DemoToken', 'transfer', [dave, parseEther('4')], 1);
  await mine(25);
  const before = await tableSnapshot(table.name);
  const error = await ingest()
    .ingestRange()
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ReorgTooDeepError);
  expect(String((error as Error).message)).toMatch(/reorg deeper than 8 blocks/);
  // Nothing written but the status; a later run stops again the same way.
  expect(await tableSnapshot(table.name)).toEqual(before);
  await expect(ingest().follow({ intervalMs: 10 })).rejects.toBeInstanceOf(ReorgTooDeepError);
  expect(await tableSnapshot(table.name)).toEqual(before);
  expect(await readCursor(CHAIN_ID)).toEqual(indexed);

  const stored = await readStoredStatus(CHAIN_ID);
  expect(stored).toMatchObject({ state: 'stopped', reason: expect.stringMatching(/reorg deeper than 8 blocks/) });
  const status = await readChainStatus(CHAIN_ID, DEFAULT_STATUS_SETTINGS);
  expect(status.state).toBe('stopped');
  expect(status.reason).toMatch(/no common ancestor within 8 blocks/);
  expect(status.indexedHead?.number).toBe(indexed.blockNumber);
}, 300_000);

test('a reorg deeper than the default window (1,024 blocks) stops the ingest: nothing past the ancestor written, the status says why', async () => {
  const depth = DEFAULT_MAX_REORG_DEPTH + 76; // 1,100 blocks
  const fork = await headNumber();
  const snapshot = await rpc('evm_snapshot');
  await mine(depth);
  const started = Date.now();
  const ingest = () =>
    new ChainIngest({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log: quiet, traceMethod: 'parity', statusIntervalMs: 0 });
  await ingest().ingestRange();
  const indexed = (await readCursor(CHAIN_ID))!;
  expect(indexed.blockNumber).toBe(fork + depth);
  const firstIngestMs = Date.now() - started;

  await rpc('evm_revert', [snapshot]);
  // The new branch differs from its first block on: empty blocks mined in the same second as the old
  // branch's would be the same blocks (same parent, contents and timestamp), and no reorg at all.
  const forkBlock = (await rpc('eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
  await rpc('evm_setNextBlockTimestamp', [Number(forkBlock.timestamp) + 7]);
  await mine(depth);
  const before = await tableSnapshot(table.name);
  const error = await ingest()
    .ingestRange()
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ReorgTooDeepError);
  expect(String((error as Error).message)).toMatch(/reorg deeper than 1024 blocks/);
  // Nothing written (the cursor stays on the orphaned head, no block past the ancestor is replaced),
  // however often it is run again.
  expect(await tableSnapshot(table.name)).toEqual(before);
  await expect(ingest().ingestNext(100)).rejects.toBeInstanceOf(ReorgTooDeepError);
  expect(await tableSnapshot(table.name)).toEqual(before);
  expect(await readCursor(CHAIN_ID)).toEqual(indexed);

  const status = await readChainStatus(CHAIN_ID, DEFAULT_STATUS_SETTINGS);
  expect(status).toMatchObject({ state: 'stopped', indexedHead: { number: indexed.blockNumber } });
  expect(status.reason).toMatch(/no common ancestor within 1024 blocks/);
  console.info(`deep reorg (${depth} blocks): first ingest ${firstIngestMs} ms, the whole test ${Date.now() - started} ms`);
}, 600_000);
