/**
 * The chain behind `npm start` (one AfterStartStep of scripts/start.ts), run once the local service is
 * up and process.env.DYNAMODB_ENDPOINT / TABLE_NAME point at its table:
 *
 *  - no RPC_URL: a local anvil on 127.0.0.1:ANVIL_PORT (8545) with chain id CHAIN_ID (31337), its state
 *    kept in <DATA_DIR>/anvil-state.json. A fresh chain gets the demo contracts and activity
 *    (scripts/lib/demo-activity.ts), whose manifest is kept beside it in <DATA_DIR>/demo-manifest.json
 *    so that a restart prints the same addresses and drives the same contracts. Everything is
 *    ingested, then followed (a new block is served within a second), while the activity ticker adds
 *    a block every DEMO_ACTIVITY_INTERVAL_MS (3000; 0 disables it).
 *  - RPC_URL: that chain instead (no anvil, no demo). CHAIN_ID defaults to eth_chainId (and must match
 *    it); an empty table starts at START_BLOCK (default head - 100); then the head is followed.
 *
 * The saved chain and the table must describe the same chain (docs/decisions/local-chain.md):
 *  - anvil keeps no historical state across a restart, so a block the table lacks can never be
 *    ingested after one (its traces and the balances at it are gone), while blocks the table has and
 *    the saved chain lacks are simply a reorg the ingest undoes. So the state file is written by this
 *    step, never by anvil on exit (a terminal Ctrl-C reaches anvil too, which would save blocks not yet
 *    indexed): `anvil_dumpState`, kept only when its head is at or below the table's cursor, every few
 *    seconds and once more at a clean stop after a last catch-up. anvil loads it with --load-state.
 *  - at start the cursor is compared with the node (the block hash at the cursor's number, and the
 *    blocks past it): the table ahead of the saved chain is rolled back by the ingest's own reorg
 *    procedure; anything else that disagrees (the table behind, another chain) starts the local demo
 *    chain afresh: its items are deleted from the table, the saved state discarded, the demo rerun.
 *    An RPC_URL chain's data is never deleted here: a mismatch there is a reorg or an error.
 *
 * Every ingest of this step hands its blocks to the listeners the caller loads (`loadListeners`:
 * scripts/start.ts wires order deposit detection). The ingest modules, and the listeners, are imported
 * only once the service is up: shared/db/client.ts binds the DynamoDB endpoint when it is first imported.
 */
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as v from 'valibot';
import type { Address } from 'viem';
import { createChainClient, type ChainClient } from '../../shared/chain/client';
import type { RetryPolicy } from '../../shared/chain/retry';
import { readEnv } from '../../shared/config';
import { chainKeys, type ItemKey } from '../../shared/table/keys';
import type { ChainIngest, IngestOptions } from '../../shared/ingest/ingest';
import type { IngestListener } from '../../shared/ingest/listeners';
import type { IngestLog } from '../../shared/ingest/log';
import type { CursorRecord } from '../../shared/table/records';
import { startAnvil, type Anvil } from './anvil';
import { deployDemoContracts, generateDemoActivity, startActivityTicker, type DemoManifest } from './demo-activity';
import type { LocalService } from './gateway';
import { localClient } from './local-table/ensure-table';
import { scanItems } from './local-table/scan';

/** anvil's state file and the demo manifest, inside DATA_DIR. */
export const ANVIL_STATE_FILE = 'anvil-state.json';
export const DEMO_MANIFEST_FILE = 'demo-manifest.json';
/** How often the follower asks the node for new blocks. */
export const FOLLOW_INTERVAL_MS = 250;
/** Blocks an empty table starts behind the head of an RPC_URL chain (START_BLOCK overrides). */
export const DEFAULT_BACKFILL_BLOCKS = 100;

/** The follower talks to a node on this machine: a few quick retries, so that stopping never waits long. */
const LOCAL_FOLLOW_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 1_000 };
/** One quick attempt: used where a failure means "the node cannot serve this any more". */
const PROBE_RETRY: RetryPolicy = { attempts: 2, baseDelayMs: 100, maxDelayMs: 100 };
/** Longest a stop waits for the follower's round in flight. */
const STOP_FOLLOWER_WAIT_MS = 5_000;
/** How often the chain state is saved (when the table has caught up with it). */
const STATE_SAVE_INTERVAL_MS = 2_000;
/** Pause before a follower that failed starts again. */
const FOLLOWER_RESTART_MS = 5_000;

const wholeNumber = (max: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.maxValue(max, `must be at most ${max}`));

const localChainEnvSchema = v.object({
  /** A chain to index instead of the local anvil; empty = unset. */
  RPC_URL: v.optional(
    v.union([v.literal(''), v.pipe(v.string(), v.url('must be an http(s) URL'), v.regex(/^https?:\/\//i, 'must be an http(s) URL'))]),
    '',
  ),
  CHAIN_ID: v.optional(v.pipe(wholeNumber(Number.MAX_SAFE_INTEGER), v.minValue(1, 'must be a positive whole number'))),
  /** 0 picks a free port. */
  ANVIL_PORT: v.optional(wholeNumber(65535), '8545'),
  START_BLOCK: v.optional(wholeNumber(Number.MAX_SAFE_INTEGER)),
  /** 0 disables the ticker. */
  DEMO_ACTIVITY_INTERVAL_MS: v.optional(wholeNumber(86_400_000), '3000'),
  /** JSON-RPC calls per batch request to RPC_URL at start (halved when the node refuses a batch), as the Lambdas' RPC_BATCH_SIZE. */
  RPC_BATCH_SIZE: v.optional(v.pipe(wholeNumber(1_000), v.minValue(1, 'must be at least 1'))),
});

export interface LocalChainSettings {
  rpcUrl: string | undefined;
  chainId: number | undefined;
  anvilPort: number;
  startBlock: number | undefined;
  activityIntervalMs: number;
  rpcBatchSize: number | undefined;
}

export function readLocalChainSettings(env: Record<string, string | undefined> = process.env): LocalChainSettings {
  const raw = readEnv(localChainEnvSchema, env);
  return {
    rpcUrl: raw.RPC_URL || undefined,
    chainId: raw.CHAIN_ID,
    anvilPort: raw.ANVIL_PORT,
    startBlock: raw.START_BLOCK,
    activityIntervalMs: raw.DEMO_ACTIVITY_INTERVAL_MS,
    rpcBatchSize: raw.RPC_BATCH_SIZE,
  };
}

export interface LocalChainOptions {
  /** Read when the step runs; process.env by default. */
  env?: Record<string, string | undefined>;
  /** Where the step reports; console.log by default. */
  print?: (line: string) => void;
  /** How often the chain state is saved while running (default 2000 ms); tests stretch it to save only when told. */
  stateSaveIntervalMs?: number;
  /** The listeners of every ingest of the step (default none), imported once the service is up. */
  loadListeners?: () => Promise<readonly IngestListener[]>;
}

export interface LocalChain {
  kind: 'anvil' | 'rpc';
  rpcUrl: string;
  chainId: number;
  /** The demo's manifest (local anvil only). */
  manifest?: DemoManifest;
  /** The anvil this step started (local anvil only). */
  anvil?: Anvil;
  /** Saves the chain state now (local anvil with a DATA_DIR); false when the table is behind the chain. */
  saveState?: () => Promise<boolean>;
  /** Blocks ingested before the step returned. */
  initialIngest: { from: number; to: number; advanced: number; seconds: number };
  /** Stops the ticker, the follower (after a last catch-up) and anvil, in that order. Safe to call twice. */
  stop(): Promise<void>;
}

/** The AfterStartStep of scripts/start.ts: starts the chain and returns its stop function. */
export function localChainStep(options: LocalChainOptions = {}): (service: LocalService) => Promise<() => Promise<void>> {
  return async (service) => {
    const chain = await startLocalChain(service, options);
    return chain.stop;
  };
}

type TableModules = Awaited<ReturnType<typeof loadTableModules>>;

/** The ingest and table modules, imported once the service has set the DynamoDB endpoint. */
async function loadTableModules() {
  const [ingest, manifest, operations, client] = await Promise.all([
    import('../../shared/ingest/ingest'),
    import('../../shared/ingest/manifest'),
    import('../../shared/db/operations'),
    import('../../shared/db/client'),
  ]);
  return {
    ChainIngest: ingest.ChainIngest,
    readCursor: manifest.readCursor,
    writeItems: operations.writeItems,
    dynamoClient: client.dynamoClient,
  };
}

export async function startLocalChain(service: LocalService, options: LocalChainOptions = {}): Promise<LocalChain> {
  const settings = readLocalChainSettings(options.env ?? process.env);
  const print = options.print ?? ((line: string) => console.log(line));
  const modules = await tableModulesFor(service);
  const listeners = (await options.loadListeners?.()) ?? [];
  const ingests: IngestFactory = (ingestOptions) => new modules.ChainIngest({ ...ingestOptions, listeners });
  return settings.rpcUrl
    ? startRemote(service, settings, settings.rpcUrl, modules, ingests, print)
    : startDemo(service, settings, modules, ingests, print, options.stateSaveIntervalMs ?? STATE_SAVE_INTERVAL_MS);
}

/** A new ingest of the chain, with the step's listeners. */
type IngestFactory = (options: Omit<IngestOptions, 'listeners'>) => ChainIngest;

/** Loads the table modules and checks they write to this service's table. */
async function tableModulesFor(service: LocalService): Promise<TableModules> {
  if (process.env.DYNAMODB_ENDPOINT !== service.dynamodbEndpoint || process.env.TABLE_NAME !== service.tableName) {
    throw new Error(
      `the local chain needs DYNAMODB_ENDPOINT=${service.dynamodbEndpoint} TABLE_NAME=${service.tableName} in this process (set by startLocalService), found ${process.env.DYNAMODB_ENDPOINT} / ${process.env.TABLE_NAME}`,
    );
  }
  const modules = await loadTableModules();
  const endpoint = await modules.dynamoClient.config.endpoint?.();
  const bound = endpoint ? `${endpoint.protocol}//${endpoint.hostname}${endpoint.port ? `:${endpoint.port}` : ''}` : 'AWS';
  if (bound !== service.dynamodbEndpoint) {
    throw new Error(
      `shared/db/client.ts was loaded against ${bound} before the service started at ${service.dynamodbEndpoint}: the ingest would write elsewhere`,
    );
  }
  return modules;
}

function ingestLog(print: (line: string) => void): IngestLog {
  return {
    info: () => undefined,
    warn: (message, details) => print(`ingest: ${message}${details ? ` ${JSON.stringify(details)}` : ''}`),
  };
}

const silentLog: IngestLog = { info: () => undefined, warn: () => undefined };

// ---------------------------------------------------------------------------------------------------
// The local anvil and its demo

interface SavedManifest {
  /**
   * Hash of the demo's first block on the chain the manifest was made on (not block 0: anvil rebuilds
   * its genesis block, with a new timestamp, each time it loads a state).
   */
  firstBlockHash: string;
  manifest: DemoManifest;
}

async function startDemo(
  service: LocalService,
  settings: LocalChainSettings,
  modules: TableModules,
  ingests: IngestFactory,
  print: (line: string) => void,
  saveIntervalMs: number,
): Promise<LocalChain> {
  const chainId = settings.chainId ?? 31337;
  const statePath = service.dataDir ? path.join(service.dataDir, ANVIL_STATE_FILE) : undefined;
  const manifestPath = service.dataDir ? path.join(service.dataDir, DEMO_MANIFEST_FILE) : undefined;
  pointExplorerAt(chainId, print);

  let anvil = await launchAnvil(settings.anvilPort, chainId, statePath);
  let stopTicker: (() => Promise<void>) | undefined;
  let follower: Follower | undefined;
  let saver: NodeJS.Timeout | undefined;
  try {
    let client = createChainClient(anvil.rpcUrl);
    const check = await compareWithTable(client, await modules.readCursor(chainId));
    let fresh = check.kind === 'fresh';
    if (check.kind === 'ahead' || check.kind === 'behind') {
      // The ingest either rolls the table back to the saved chain (a reorg to it) or indexes the blocks
      // the table lacks, which works only while anvil still holds their parent states (not after a restart).
      const repair = ingests({ chainId, client, log: silentLog, retry: PROBE_RETRY });
      const repaired = await repair.ingestRange({ from: check.cursor ? undefined : 0, to: check.head }).then(
        () => true,
        () => false,
      );
      if (repaired && check.kind === 'ahead') {
        print(
          `Local chain ${chainId}: ${check.reason}; rolled the table back to block ${check.head} (blocks after it were not saved before the last stop).`,
        );
      }
      if (!repaired) {
        print(
          `Local chain ${chainId}: the table and the saved chain disagree: ${check.reason}${check.kind === 'behind' ? ', and anvil cannot replay blocks after a restart' : ''}.`,
        );
        print(
          `  Starting the demo chain afresh: chain ${chainId}'s items are deleted from table ${service.tableName} and ${statePath ?? 'the chain state'} is discarded.`,
        );
        await anvil.stop();
        if (statePath) await rm(statePath, { force: true });
        if (manifestPath) await rm(manifestPath, { force: true });
        const deleted = await deleteChainItems(service, modules, chainId);
        print(`  Deleted ${deleted} items of chain ${chainId}.`);
        anvil = await launchAnvil(anvil.port, chainId, statePath);
        client = createChainClient(anvil.rpcUrl);
        fresh = true;
      }
    }

    const manifest = await demoManifest(client, anvil, fresh, manifestPath, chainId, print);
    const ingest = ingests({ chainId, client, log: ingestLog(print), retry: LOCAL_FOLLOW_RETRY });
    const initialIngest = await ingestToHead(ingest, modules, chainId, 0, print);
    const running = anvil;
    // Saves run one at a time, so an older dump never lands after a newer one.
    let saveQueue: Promise<unknown> = Promise.resolve();
    const saveState = (): Promise<boolean> => {
      const next = saveQueue.then(() => (statePath ? saveChainState(client, modules, chainId, statePath) : false));
      saveQueue = next.catch(() => false);
      return next;
    };
    await saveState();
    follower = startFollower(ingest, 0, print);
    if (settings.activityIntervalMs > 0) stopTicker = startActivityTicker(anvil.rpcUrl, manifest, settings.activityIntervalMs);
    if (statePath) {
      let saving = false;
      saver = setInterval(() => {
        if (saving || !isRunning(running)) return;
        saving = true;
        saveState()
          .catch(() => false)
          .finally(() => (saving = false));
      }, saveIntervalMs);
    }

    printDemoChain(service, anvil, chainId, manifest, statePath, settings.activityIntervalMs, print);
    const finalCatchUp = ingests({ chainId, client, log: silentLog, retry: PROBE_RETRY });
    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        clearInterval(saver);
        await stopTicker?.();
        await follower?.stop();
        if (isRunning(running)) {
          // Index what came last, then save the chain exactly as far as the table goes.
          try {
            await finalCatchUp.ingestRange({});
            await saveState();
          } catch (error) {
            print(`local chain: could not index and save the last blocks before stopping: ${message(error)}`);
          }
        } else {
          print(
            'local chain: anvil had already stopped (a terminal Ctrl-C reaches it too); its state was saved up to the last indexed block seen.',
          );
        }
        await running.stop();
      })());
    return { kind: 'anvil', rpcUrl: anvil.rpcUrl, chainId, manifest, anvil, initialIngest, saveState, stop };
  } catch (error) {
    clearInterval(saver);
    await stopTicker?.();
    await follower?.stop();
    await anvil.stop();
    throw error;
  }
}

function isRunning(anvil: Anvil): boolean {
  return anvil.process.exitCode === null && anvil.process.signalCode === null;
}

async function launchAnvil(port: number, chainId: number, statePath: string | undefined): Promise<Anvil> {
  const load = statePath !== undefined && existsSync(statePath);
  try {
    return await startAnvil({ port, chainId, args: load ? ['--load-state', statePath] : [] });
  } catch (error) {
    if (port && /address already in use|os error 98/i.test(message(error))) {
      throw new Error(
        `Port ${port} (ANVIL_PORT) is in use: is another \`npm start\` or anvil running? Stop it or set ANVIL_PORT (0 = any free port).`,
        {
          cause: error,
        },
      );
    }
    if (load)
      throw new Error(`anvil could not load ${statePath} (delete it to start the demo chain afresh): ${message(error)}`, { cause: error });
    throw error;
  }
}

/**
 * Writes anvil's state to `statePath` if the chain ends at or below the table's cursor (read first:
 * the cursor only moves on), so the saved chain is never ahead of the table. Returns whether it wrote.
 */
async function saveChainState(client: ChainClient, modules: TableModules, chainId: number, statePath: string): Promise<boolean> {
  const cursor = await modules.readCursor(chainId);
  if (!cursor) return false;
  const dump = (await client.request({ method: 'anvil_dumpState' as 'eth_chainId' })) as unknown as string;
  const json = gunzipSync(Buffer.from(dump.replace(/^0x/, ''), 'hex'));
  const state = JSON.parse(json.toString('utf8')) as { best_block_number?: number | string };
  if (state.best_block_number === undefined || Number(BigInt(state.best_block_number)) > cursor.blockNumber) return false;
  const tmp = `${statePath}.${process.pid}.tmp`;
  await writeFile(tmp, json);
  await rename(tmp, statePath);
  return true;
}

type ChainCheck =
  | { kind: 'fresh' }
  | { kind: 'consistent' }
  /** The table holds blocks the node does not (or other ones at the cursor's number). */
  | { kind: 'ahead'; cursor: CursorRecord; head: number; reason: string }
  /** The node has blocks past the table's cursor (or the table has none of the chain). */
  | { kind: 'behind'; cursor: CursorRecord | undefined; head: number; reason: string };

/** How the node's chain relates to what the table holds of it (see the file comment). */
async function compareWithTable(client: ChainClient, cursor: CursorRecord | undefined): Promise<ChainCheck> {
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  if (!cursor)
    return head === 0 ? { kind: 'fresh' } : { kind: 'behind', cursor, head, reason: `the table has none of the chain's blocks 0..${head}` };
  if (cursor.blockNumber > head) {
    return {
      kind: 'ahead',
      cursor,
      head,
      reason: `the table holds blocks up to ${cursor.blockNumber}, the saved chain ends at block ${head}`,
    };
  }
  const hash = (await client.getBlock({ blockNumber: BigInt(cursor.blockNumber) })).hash?.toLowerCase();
  if (hash !== cursor.blockHash) {
    return {
      kind: 'ahead',
      cursor,
      head,
      reason: `block ${cursor.blockNumber} is ${hash} on the chain but ${cursor.blockHash} in the table`,
    };
  }
  if (cursor.blockNumber < head) {
    return { kind: 'behind', cursor, head, reason: `the chain has blocks ${cursor.blockNumber + 1}..${head} that the table lacks` };
  }
  return { kind: 'consistent' };
}

/**
 * Every item of one chain: by the key design (shared/table/keys.ts) every chain item's partition key
 * starts with `C#<chainId>#`, plus the chain's registry entry. A Scan with the local admin client
 * (the table layer serves no Scan), run only by this local reset of the demo chain, never by a request.
 */
async function deleteChainItems(service: LocalService, modules: TableModules, chainId: number): Promise<number> {
  const prefix = `C#${chainId}#`;
  if (!chainKeys.cursor(chainId).pk.startsWith(prefix)) throw new Error(`keys.ts no longer starts chain keys with ${prefix}`);
  const admin = localClient(service.dynamodbEndpoint);
  const keys = (await scanItems(admin, service.tableName, { pkPrefix: prefix, keysOnly: true })) as unknown as ItemKey[];
  admin.destroy();
  await modules.writeItems({ delete: keys });
  const deleted = keys.length;
  await modules.writeItems({ delete: [chainKeys.registry(chainId)] });
  return deleted;
}

/** The demo on this chain: generated on a fresh chain, else the saved manifest (or a new demo on top). */
async function demoManifest(
  client: ChainClient,
  anvil: Anvil,
  fresh: boolean,
  manifestPath: string | undefined,
  chainId: number,
  print: (line: string) => void,
): Promise<DemoManifest> {
  const blockHash = async (blockNumber: number) =>
    (await client.getBlock({ blockNumber: BigInt(blockNumber) }).catch(() => undefined))?.hash?.toLowerCase();
  if (!fresh) {
    const saved = manifestPath ? await readSavedManifest(manifestPath) : undefined;
    if (saved && saved.manifest.chainId === chainId && saved.firstBlockHash === (await blockHash(saved.manifest.blocks.first))) {
      const code = await client.getCode({ address: saved.manifest.contracts.token });
      if (code && code !== '0x') {
        print(
          `Local chain ${chainId}: restored from ${ANVIL_STATE_FILE} (head ${await client.getBlockNumber({ cacheTime: 0 })}); demo already deployed.`,
        );
        return { ...saved.manifest, rpcUrl: anvil.rpcUrl };
      }
    }
    print(`Local chain ${chainId}: restored, but without a demo manifest for it: deploying the demo contracts again on top.`);
  }
  const started = Date.now();
  print(`Local chain ${chainId}: deploying the demo contracts and generating the demo activity…`);
  const deployment = await deployDemoContracts(anvil.rpcUrl);
  const manifest = await generateDemoActivity(anvil.rpcUrl, { deployment });
  print(
    `  ${manifest.transactions.length} transactions in blocks ${manifest.blocks.first}..${manifest.blocks.last} (${seconds(started)} s).`,
  );
  if (manifestPath) {
    const tmp = `${manifestPath}.${process.pid}.tmp`;
    const firstBlockHash = (await blockHash(manifest.blocks.first))!;
    await writeFile(tmp, JSON.stringify({ firstBlockHash, manifest } satisfies SavedManifest, null, 2));
    await rename(tmp, manifestPath);
  }
  return manifest;
}

async function readSavedManifest(file: string): Promise<SavedManifest | undefined> {
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as Partial<SavedManifest>;
    return typeof saved.firstBlockHash === 'string' && saved.manifest?.contracts?.token ? (saved as SavedManifest) : undefined;
  } catch {
    return undefined;
  }
}

/** The explorer serves one chain (EXPLORER_CHAIN_ID, default 31337): make it the one indexed here, unless set. */
function pointExplorerAt(chainId: number, print: (line: string) => void): void {
  const configured = process.env.EXPLORER_CHAIN_ID;
  if (configured === undefined || configured === '') {
    if (chainId !== 31337) process.env.EXPLORER_CHAIN_ID = String(chainId);
  } else if (configured !== String(chainId)) {
    print(`Note: EXPLORER_CHAIN_ID=${configured}: the explorer endpoints read chain ${configured}, not chain ${chainId}.`);
  }
}

// ---------------------------------------------------------------------------------------------------
// A chain at RPC_URL

async function startRemote(
  service: LocalService,
  settings: LocalChainSettings,
  rpcUrl: string,
  modules: TableModules,
  ingests: IngestFactory,
  print: (line: string) => void,
): Promise<LocalChain> {
  const client = createChainClient(rpcUrl, settings.rpcBatchSize === undefined ? {} : { batchSize: settings.rpcBatchSize });
  const nodeChainId = await client.getChainId().catch((error: unknown) => {
    throw new Error(`RPC_URL ${rpcUrl} does not answer eth_chainId: ${message(error)}`, { cause: error });
  });
  const chainId = settings.chainId ?? nodeChainId;
  if (chainId !== nodeChainId) throw new Error(`CHAIN_ID ${chainId} does not match eth_chainId ${nodeChainId} of RPC_URL ${rpcUrl}`);
  pointExplorerAt(chainId, print);

  const ingest = ingests({ chainId, client, log: ingestLog(print) });
  const cursor = await modules.readCursor(chainId);
  const head = Number(await ingest.head());
  const firstBlock = settings.startBlock ?? Math.max(0, head - DEFAULT_BACKFILL_BLOCKS);
  if (cursor && settings.startBlock !== undefined) {
    print(
      `START_BLOCK ${settings.startBlock} ignored: chain ${chainId} is already indexed up to block ${cursor.blockNumber}; continuing from there.`,
    );
  }
  let initialIngest;
  try {
    initialIngest = await ingestToHead(ingest, modules, chainId, cursor ? undefined : firstBlock, print);
  } catch (error) {
    if (error instanceof Error && error.name === 'ReorgTooDeepError') {
      throw new Error(
        `chain ${chainId}: the blocks in table ${service.tableName} do not match ${rpcUrl} (${error.message}). If RPC_URL is now another chain with the same id, use another DATA_DIR or TABLE_NAME; nothing was deleted.`,
        { cause: error },
      );
    }
    throw error;
  }
  const follower = startFollower(ingest, cursor ? 0 : firstBlock, print);

  const indexed = (await modules.readCursor(chainId))?.blockNumber;
  print(
    [
      `Chain ${chainId} at ${rpcUrl}: ${indexed === undefined ? `waiting for block ${firstBlock}` : `indexed up to block ${indexed}`}; following the head every ${FOLLOW_INTERVAL_MS} ms.`,
      `  curl -s '${service.urls.base}/insights/v1/blocks?chain_id=${chainId}&sort_order=desc&limit=5'`,
    ].join('\n'),
  );
  let stopped: Promise<void> | undefined;
  return {
    kind: 'rpc',
    rpcUrl,
    chainId,
    initialIngest,
    stop: () => (stopped ??= follower.stop()),
  };
}

// ---------------------------------------------------------------------------------------------------
// Ingest, follower, output

async function ingestToHead(
  ingest: ChainIngest,
  modules: TableModules,
  chainId: number,
  from: number | undefined,
  print: (line: string) => void,
) {
  const started = Date.now();
  const head = Number(await ingest.head());
  const cursor = await modules.readCursor(chainId);
  const first = cursor ? cursor.blockNumber + 1 : (from ?? 0);
  if (first <= head) print(`Indexing blocks ${first}..${head} of chain ${chainId} into the table…`);
  const result = await ingest.ingestRange({ from: cursor ? undefined : from, to: head });
  const elapsed = seconds(started);
  if (result.advanced > 0)
    print(`  ${result.advanced} blocks in ${elapsed} s (${(result.advanced / Math.max(0.001, Number(elapsed))).toFixed(1)} blocks/s).`);
  return { from: first, to: head, advanced: result.advanced, seconds: Number(elapsed) };
}

interface Follower {
  stop(): Promise<void>;
}

/** Follows the head until stopped; a failed round is reported and the follower starts again. */
function startFollower(ingest: ChainIngest, firstBlock: number, print: (line: string) => void): Follower {
  const controller = new AbortController();
  const running = (async () => {
    while (!controller.signal.aborted) {
      try {
        await ingest.follow({ intervalMs: FOLLOW_INTERVAL_MS, signal: controller.signal, firstBlock });
      } catch (error) {
        if (controller.signal.aborted) break;
        print(`ingest: following stopped on an error, retrying in ${FOLLOWER_RESTART_MS / 1000} s: ${message(error)}`);
        await abortableSleep(FOLLOWER_RESTART_MS, controller.signal);
      }
    }
  })();
  return {
    stop: async () => {
      controller.abort();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_FOLLOWER_WAIT_MS)))]);
      clearTimeout(timer);
    },
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Addresses of the demo printed with a curl line for each base URL group. */
function demoQueries(manifest: DemoManifest, chainId: number): { address: Address; label: string; explorer: string; insights: string }[] {
  const q = (address: Address) => address.toLowerCase();
  return [
    {
      address: manifest.accounts.busy,
      label: 'busy account',
      explorer: `/explorer/addresses/${q(manifest.accounts.busy)}/transactions`,
      insights: `/insights/v1/tokens/transfers?chain_id=${chainId}&owner_address=${q(manifest.accounts.busy)}&limit=5`,
    },
    {
      address: manifest.accounts.alice,
      label: 'alice',
      explorer: `/explorer/addresses/${q(manifest.accounts.alice)}/nft/collections`,
      insights: `/insights/v1/resolve/${q(manifest.accounts.alice)}?chain_id=${chainId}`,
    },
    {
      address: manifest.contracts.token,
      label: 'DemoToken (ERC-20)',
      explorer: `/explorer/addresses/${q(manifest.accounts.busy)}/tokens`,
      insights: `/insights/v1/tokens/transfers/${q(manifest.contracts.token)}?chain_id=${chainId}&limit=5`,
    },
    {
      address: manifest.contracts.multi,
      label: 'DemoMulti (ERC-1155)',
      explorer: `/explorer/addresses/${q(manifest.accounts.alice)}/token-transfers?type=ERC-1155`,
      insights: `/insights/v1/events/${q(manifest.contracts.multi)}?chain_id=${chainId}&limit=5`,
    },
    {
      address: manifest.contracts.splitter,
      label: 'DemoSplitter',
      explorer: `/explorer/addresses/${q(manifest.contracts.splitter)}/internal-transactions`,
      insights: `/insights/v1/transactions/${q(manifest.contracts.splitter)}/split(address[],uint256[])?chain_id=${chainId}`,
    },
    {
      address: manifest.payees.payee2,
      label: 'payee2',
      explorer: `/explorer/addresses/${q(manifest.payees.payee2)}/internal-transactions`,
      insights: `/insights/v1/tokens/transfers?chain_id=${chainId}&owner_address=${q(manifest.payees.payee2)}`,
    },
  ];
}

function printDemoChain(
  service: LocalService,
  anvil: Anvil,
  chainId: number,
  manifest: DemoManifest,
  statePath: string | undefined,
  activityIntervalMs: number,
  print: (line: string) => void,
): void {
  const base = service.urls.base;
  const described = new Map(manifest.addressesWorthQuerying.map((entry) => [entry.address, entry.description]));
  const lines = [
    `Local chain: anvil ${anvil.rpcUrl}  chain id ${chainId}  (${statePath ? `state saved to ${statePath}` : 'in memory'})`,
    `  following the head every ${FOLLOW_INTERVAL_MS} ms; ${activityIntervalMs > 0 ? `demo activity every ${activityIntervalMs} ms` : 'demo activity ticker off'}`,
    `  curl -s '${base}/insights/v1/blocks?chain_id=${chainId}&sort_order=desc&limit=5'`,
    'Addresses worth querying:',
  ];
  for (const query of demoQueries(manifest, chainId)) {
    lines.push(`  ${query.label} ${query.address}: ${described.get(query.address) ?? ''}`.trimEnd());
    lines.push(`    curl -s '${base}${query.explorer}'`);
    lines.push(`    curl -s '${base}${query.insights}'`);
  }
  print(lines.join('\n'));
}

function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}
