/**
 * The ingest CLI as a child process (`node --import tsx scripts/ingest.ts`, as `npm run ingest` runs it) against the demo chain, killed with
 * SIGKILL in the middle of writing a batch of blocks, twice, then restarted: nothing may be lost or
 * duplicated. The child reaches the embedded DynamoDB through a proxy that watches the requests and
 * pulls the trigger at a precise point (a BatchWriteItem of a batch's items, a balance transaction).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createChainClient } from '../../shared/chain/client';
import { ingestRange } from '../../shared/ingest/ingest';
import { lastPossiblyWritten, readCursor, readManifest, type BlockManifest } from '../../shared/ingest/manifest';
import { getItems } from '../../shared/ingest/table-io';
import { startDemoChain, type DemoChain } from '../support/demo-chain';
import { inTable, tableSnapshot, useTestTable } from '../support/table';
import { startHttpProxy, type HttpProxy } from '../shared/ingest/support/proxy';
import { expectImmutableItems, expectStateMatchesChain, readChainTruth } from '../shared/ingest/support/truth';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const table = useTestTable('cli');
const CHAIN_ID = 31337;
let demo: DemoChain;
let dynamo: HttpProxy;

/** When armed: after `afterCursorMoves` cursor updates, the first request `fires` for kills the child. */
let trap: { afterCursorMoves: number; fires: (operation: string, body: string) => boolean; interrupt?: true } | undefined;
let cursorMoves = 0;
/** Batches of several blocks announced on the cursor (pendingTo), over the whole file. */
let batchesAnnounced = 0;
let itemBatchesSinceManifest = 0;
let child: ChildProcess | undefined;

beforeAll(async () => {
  demo = await startDemoChain({ chainId: CHAIN_ID });
  dynamo = await startHttpProxy(process.env.DYNAMODB_ENDPOINT!, ({ headers, body }) => {
    const operation =
      String(headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    const text = body.toString();
    if (operation === 'UpdateItem' && text.includes('"CURSOR"') && text.includes('REMOVE pendingTo')) cursorMoves += 1;
    if (operation === 'UpdateItem' && text.includes('"CURSOR"') && text.includes('SET pendingTo')) batchesAnnounced += 1;
    if (trap && cursorMoves >= trap.afterCursorMoves && trap.fires(operation, text)) {
      if (trap.interrupt) {
        // Ctrl-C: SIGINT to the script's process.
        trap = undefined;
        if (child?.pid !== undefined) process.kill(child.pid, 'SIGINT');
        return 'forward';
      }
      trap = undefined;
      killCli();
      return 'hang'; // this request never reaches the table
    }
    return 'forward';
  });
}, 120_000);

/**
 * SIGKILL to the CLI's whole process group (it may have children of its own: a crash kills them all).
 */
function killCli(): void {
  if (child?.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

afterAll(async () => {
  killCli();
  await dynamo?.close();
  await demo?.stop();
});

function runCli(args: string[], tableName = table.name): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  cursorMoves = 0;
  itemBatchesSinceManifest = 0;
  return new Promise((resolve) => {
    let output = '';
    // One node process with tsx's loader, not the tsx CLI: the CLI relays a signal to its child and, when
    // the child does not acknowledge it within 30 ms (a loaded machine), SIGKILLs it and exits 130.
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/ingest.ts', '--rpc-url', demo.anvil.rpcUrl, ...args], {
      cwd: ROOT,
      env: { ...process.env, DYNAMODB_ENDPOINT: dynamo.url, TABLE_NAME: tableName, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, killed whole (killCli)
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code, signal) => resolve({ code, signal, output }));
  });
}

/** The manifests past the cursor: the batch a kill interrupted. */
async function manifestsPastCursor(): Promise<BlockManifest[]> {
  const cursor = (await readCursor(CHAIN_ID))!;
  const found: BlockManifest[] = [];
  for (let number = cursor.blockNumber + 1; number <= lastPossiblyWritten(cursor); number += 1) {
    const manifest = await readManifest(CHAIN_ID, number);
    if (manifest) found.push(manifest);
  }
  return found;
}

test('killed twice mid-batch and restarted, the CLI loses nothing and duplicates nothing', async () => {
  const head = 45; // of the demo's 100 blocks: token, NFT and ERC-1155 activity, two kills and a restart
  // Batches of at most 4 blocks: several batches (and cursor moves) on the way to the head.
  const args = ['--from-block', '0', '--to-block', String(head), '--batch-blocks', '4'];

  // 1. Killed on the second chunk of a batch's items (its manifests and first chunk are written).
  trap = {
    afterCursorMoves: 2,
    fires: (operation, body) => {
      if (operation !== 'BatchWriteItem') return false;
      if (body.includes('"manifest"')) {
        itemBatchesSinceManifest = 0;
        return false;
      }
      itemBatchesSinceManifest += 1;
      return itemBatchesSinceManifest === 2 && body.includes('"tokenTransfer"');
    },
  };
  const first = await runCli(args);
  expect(first.signal).toBe('SIGKILL');
  const cursor = (await readCursor(CHAIN_ID))!;
  expect(cursor.blockNumber).toBeLessThan(head);
  const manifests = await manifestsPastCursor();
  expect(
    manifests.map((manifest) => manifest.blockNumber),
    'the half-written batch has its manifests',
  ).toContain(cursor.blockNumber + 1);
  const keys = manifests.flatMap((manifest) => manifest.items);
  const present = await getItems(keys);
  expect(present.size, 'some of its items are written').toBeGreaterThan(0);
  expect(present.size, 'and some are not').toBeLessThan(new Set(keys.map((key) => `${key.pk}\n${key.sk}`)).size);

  // 2. Restarted, then killed inside a balance transition (TransactWriteItems) further on.
  trap = { afterCursorMoves: 1, fires: (operation) => operation === 'TransactWriteItems' };
  const second = await runCli(args);
  expect(second.signal).toBe('SIGKILL');
  const later = (await readCursor(CHAIN_ID))!;
  expect(later.blockNumber).toBeGreaterThan(cursor.blockNumber);
  expect(later.blockNumber).toBeLessThan(head);

  // 3. Restarted without interruption: runs to the end.
  const third = await runCli(args);
  expect(third.code, third.output).toBe(0);
  expect(third.output).toMatch(new RegExp(`cursor at block ${head}`));
  expect(batchesAnnounced, 'blocks were written in batches of several').toBeGreaterThan(0);

  const truth = await readChainTruth(demo.anvil.rpcUrl, 0, head);
  await expectImmutableItems(table.name, truth);
  await expectStateMatchesChain(table.name, truth, demo.anvil.rpcUrl);

  // Exactly the table one uninterrupted run writes, when token details were last read (tokenDetailsAt) included.
  const fresh = `${table.name}-fresh`;
  await inTable(fresh, () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(demo.anvil.rpcUrl), from: 0, to: head }));
  expect(await tableSnapshot(table.name)).toEqual(await tableSnapshot(fresh));
}, 180_000);

test('bad arguments fail with a message and write nothing', async () => {
  const before = await tableSnapshot(table.name);
  const wrongChain = await runCli(['--chain-id', '5']);
  expect(wrongChain.code).toBe(1);
  expect(wrongChain.output).toMatch(/does not match the node's eth_chainId 31337/);
  const gap = await runCli(['--from-block', String(demo.manifest.blocks.last + 5)]);
  expect(gap.code).toBe(1);
  expect(gap.output).toMatch(/would leave a gap/);
  const retention = await runCli(['--manifest-retention-days', '1.5']);
  expect(retention.code).toBe(1);
  expect(retention.output).toMatch(/--manifest-retention-days must be a whole number, got "1.5"/);
  expect(await tableSnapshot(table.name)).toEqual(before);
});

test('Ctrl-C during a catch-up stops after the batch in flight: exit 0, a summary, and the next run carries on', async () => {
  const name = `${table.name}-interrupted`;
  const last = demo.manifest.blocks.last;
  await inTable(name, async () => {
    // Interrupted once the chain's first block is numbered, at the next batch's first item write.
    trap = { afterCursorMoves: 1, fires: (operation) => operation === 'BatchWriteItem', interrupt: true };
    const interrupted = await runCli(['--to-block', String(last)], name);
    expect(interrupted.code, interrupted.output).toBe(0);
    expect(interrupted.output).toMatch(/blocks ingested/);
    const cursor = (await readCursor(CHAIN_ID))!;
    expect(cursor.blockNumber, 'stopped before the end of the range').toBeLessThan(last);
    expect(cursor.pendingTo, 'the batch in flight was finished').toBeUndefined();
    const resumed = await runCli(['--to-block', String(last)], name);
    expect(resumed.code, resumed.output).toBe(0);
    expect((await readCursor(CHAIN_ID))?.blockNumber).toBe(last);
  });
}, 180_000);
