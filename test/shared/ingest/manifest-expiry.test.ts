/**
 * Manifest retention (shared/ingest/manifest.ts), on a real anvil and the embedded table:
 *  - every manifest chunk the ingest writes carries the table's TTL attribute `ttl` = its block's
 *    timestamp + 7 days (none with retention 0);
 *  - a reorg whose orphaned block lost its manifest (deleted here as DynamoDB's TTL would) while the
 *    block's items are stored stops the ingest: nothing written, the status `stopped` with the reason;
 *  - so does a restart that finds a block an interrupted run left past the cursor, since orphaned, whose
 *    manifest is gone.
 * Without the guard both would leave the block's items behind (the undo skips a block without manifest).
 */
import { parseEther, type Address } from 'viem';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { DEFAULT_STATUS_SETTINGS, readChainStatus } from '../../../shared/chain-status/status';
import { updateItem } from '../../../shared/db/operations';
import { loadIngestConfig } from '../../../shared/ingest/config';
import { ChainIngest } from '../../../shared/ingest/ingest';
import { DEFAULT_MANIFEST_RETENTION_DAYS, deleteManifest, readCursor } from '../../../shared/ingest/manifest';
import { ManifestExpiredError, ReorgTooDeepError } from '../../../shared/ingest/reorg';
import { readStoredStatus } from '../../../shared/ingest/status';
import { blockKeys, chainKeys } from '../../../shared/table/keys';
import type { BlockRecord } from '../../../shared/table/records';
import { getItem } from '../../../shared/ingest/table-io';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { demoAccounts, demoWallet, type DemoWallet } from './support/demo-wallet';
import { publicClient } from './support/truth';

const table = useTestTable('manifest-expiry');
const CHAIN_ID = 31337;
const quiet = { info: () => undefined, warn: () => undefined };
let anvil: Anvil;
let chain: DemoWallet;
const [, alice, bob, carol, dave] = demoAccounts.map((account) => account.address);
let token: Address;

/** An ERC-20 transfer of `amount` tokens from alice. */
const transfer = (to: Address, amount: string) => chain.call(token, 'DemoToken', 'transfer', [to, parseEther(amount)], 1);
const rpc = (method: string, params: unknown[] = []) => chain.rpc(method, params);
const mine = (blocks: number) => chain.mine(blocks);
const headNumber = () => chain.headNumber();
const ingest = (options: { manifestRetentionDays?: number } = {}) =>
  new ChainIngest({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log: quiet, traceMethod: 'parity', ...options });
const manifestsOf = (items: Record<string, unknown>[]) => items.filter((item) => item.kind === 'manifest');

beforeAll(async () => {
  let artifacts: DemoArtifacts;
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  chain = demoWallet(anvil, artifacts, CHAIN_ID, 'manifest-expiry');
  token = await chain.deploy('DemoToken');
  await chain.call(token, 'DemoToken', 'mint', [alice, parseEther('1000')]);
  await transfer(bob, '1');
  await ingest().ingestRange();
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

test('every manifest chunk expires (ttl) 7 days after its block’s timestamp; with retention 0 none does', async () => {
  expect(DEFAULT_MANIFEST_RETENTION_DAYS).toBe(7);
  const items = await tableSnapshot(table.name);
  const manifests = manifestsOf(items);
  expect(manifests.length).toBeGreaterThan(2);
  for (const manifest of manifests) {
    const block = await publicClient(anvil.rpcUrl).getBlock({ blockNumber: BigInt(manifest.blockNumber as number) });
    expect(typeof manifest.ttl).toBe('number');
    expect(manifest.ttl).toBe(Number(block.timestamp) + 7 * 86_400);
  }

  const forever = await inTable(`${table.name}-forever`, async () => {
    await ingest({ manifestRetentionDays: 0 }).ingestRange();
    return tableSnapshot(`${table.name}-forever`);
  });
  expect(manifestsOf(forever).length).toBe(manifests.length);
  expect(manifestsOf(forever).filter((item) => 'ttl' in item)).toEqual([]);
  // Otherwise the same items.
  const withoutTtl = (list: Record<string, unknown>[]) => list.map(({ ttl: _ttl, ...rest }) => rest);
  expect(withoutTtl(forever)).toEqual(withoutTtl(items));

  expect(() => ingest({ manifestRetentionDays: -1 })).toThrow(/manifestRetentionDays must be a whole number/);
  expect(() => ingest({ manifestRetentionDays: 1.5 })).toThrow(/manifestRetentionDays must be a whole number/);
}, 120_000);

test('INGEST_MANIFEST_RETENTION_DAYS: 7 by default, 0 keeps manifests forever, anything but a whole number of days is refused', () => {
  const environment = { DEPOSIT_EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/DepositEvents.fifo' };
  expect(loadIngestConfig(environment).manifestRetentionDays).toBe(7);
  expect(loadIngestConfig({ ...environment, INGEST_MANIFEST_RETENTION_DAYS: '0' }).manifestRetentionDays).toBe(0);
  expect(loadIngestConfig({ ...environment, INGEST_MANIFEST_RETENTION_DAYS: '30' }).manifestRetentionDays).toBe(30);
  for (const bad of ['-1', '1.5', 'week', ''])
    expect(() => loadIngestConfig({ ...environment, INGEST_MANIFEST_RETENTION_DAYS: bad })).toThrow(/INGEST_MANIFEST_RETENTION_DAYS/);
});

test('a restart that finds a block left past the cursor, since orphaned, whose manifest expired stops: nothing written', async () => {
  const fork = await headNumber();
  const snapshot = await rpc('evm_snapshot');
  await transfer(carol, '2');
  await mine(2);
  await transfer(carol, '3');
  const orphanedHead = await headNumber(); // fork + 4
  await ingest().ingestRange();
  expect((await readCursor(CHAIN_ID))?.blockNumber).toBe(orphanedHead);
  // As if a batch of fork+1..orphanedHead was interrupted after writing its items: the cursor still on
  // the fork block, announcing the batch.
  const forkBlock = (await getItem<BlockRecord>(blockKeys.block(CHAIN_ID, fork)))!;
  await updateItem({
    Key: chainKeys.cursor(CHAIN_ID),
    UpdateExpression: 'SET blockNumber = :number, blockHash = :hash, blockTimestamp = :timestamp, pendingTo = :pending',
    ExpressionAttributeValues: { ':number': fork, ':hash': forkBlock.hash, ':timestamp': forkBlock.timestamp, ':pending': orphanedHead },
  });
  const cursor = await readCursor(CHAIN_ID);
  // The orphaned branch's first block (a transfer) lost its manifest to the TTL.
  const expired = fork + 1;
  await deleteManifest(CHAIN_ID, expired);

  await rpc('evm_revert', [snapshot]);
  await transfer(dave, '4');
  await mine(5);
  const before = await tableSnapshot(table.name);
  const error = await ingest()
    .ingestRange()
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ManifestExpiredError);
  expect(error).toBeInstanceOf(ReorgTooDeepError); // (the Lambda's IngestStopped, the follow loop's stop)
  expect((error as Error).message).toBe(
    `chain ${CHAIN_ID}: manifest of block ${expired} expired (INGEST_MANIFEST_RETENTION_DAYS=7): cannot undo it; raise the retention or re-ingest`,
  );
  expect(await tableSnapshot(table.name)).toEqual(before);
  expect(await readCursor(CHAIN_ID)).toEqual(cursor);
  expect(await readStoredStatus(CHAIN_ID)).toMatchObject({
    state: 'stopped',
    reason: expect.stringContaining(`manifest of block ${expired} expired (INGEST_MANIFEST_RETENTION_DAYS=7)`),
  });
}, 180_000);

test('a reorg whose orphaned block’s manifest expired stops the ingest: the table unchanged item for item, the status says why', async () => {
  // A table of its own, ingested cleanly up to here.
  const name = `${table.name}-reorg`;
  await inTable(name, async () => {
    await ingest().ingestRange();
    const fork = await headNumber();
    const snapshot = await rpc('evm_snapshot');
    await transfer(carol, '5');
    await mine(3);
    await transfer(bob, '6');
    const orphanedHead = await headNumber();
    await ingest().ingestRange();
    const cursor = await readCursor(CHAIN_ID);
    expect(cursor?.blockNumber).toBe(orphanedHead);
    // Manifests expire oldest first: the orphaned branch's first block lost it.
    const expired = fork + 1;
    await deleteManifest(CHAIN_ID, expired);

    await rpc('evm_revert', [snapshot]);
    await transfer(dave, '7');
    await mine(6);
    const before = await tableSnapshot(name);
    const error = await ingest()
      .ingestRange()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ManifestExpiredError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `manifest of block ${expired} expired \\(INGEST_MANIFEST_RETENTION_DAYS=7\\): cannot undo it; raise the retention or re-ingest`,
      ),
    );
    // Nothing deleted or written, however often it runs; the chain's status says why.
    expect(await tableSnapshot(name)).toEqual(before);
    await expect(ingest().follow({ intervalMs: 10 })).rejects.toBeInstanceOf(ManifestExpiredError);
    expect(await tableSnapshot(name)).toEqual(before);
    expect(await readCursor(CHAIN_ID)).toEqual(cursor);
    const status = await readChainStatus(CHAIN_ID, DEFAULT_STATUS_SETTINGS);
    expect(status.state).toBe('stopped');
    expect(status.reason).toMatch(/manifest of block \d+ expired \(INGEST_MANIFEST_RETENTION_DAYS=7\)/);
    expect(status.indexedHead?.number).toBe(orphanedHead);
  });
}, 180_000);
