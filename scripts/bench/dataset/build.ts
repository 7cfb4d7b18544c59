/**
 * The benchmark dataset, built once and cached under .bench/ (`datasetDir`), reused while the code
 * that writes its items is unchanged (the cache key hashes shared/ingest/derive.ts, items.ts,
 * state.ts, shared/table/keys.ts, records.ts, the dataset generator and the scale).
 *
 * Built in a process of its own (`npx tsx scripts/bench/dataset/build.ts --scale S --dir DIR`, which
 * `ensureDataset` spawns): the embedded DynamoDB persisted in DIR/table (LevelDB), in a child process;
 * every chain of spec.ts served by the synthetic node (chain.ts) and written by the real ingest
 * (ChainIngest, default batching); then collections (EIP-712 signed, createCollection) and orders
 * (createOrder), through the domain write functions. DIR/dataset.json holds the facts the requests
 * need and what the build took; it is written last, so a half-built folder is never reused.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { transformSync } from 'esbuild';
import type { ChainFacts } from './chain';
import {
  chainTotals,
  progressFile,
  readProgress,
  saveProgress,
  writeUnitsPerTransaction,
  type BuildProgress,
  type ChainSegment,
} from './progress';
import { datasetSpec, EXPLORER_CHAIN } from './spec';
import { emptyUsage, measureTableInto, totalCalls } from '../../../shared/db/instrument';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SELF = fileURLToPath(import.meta.url);
export const BENCH_TABLE = 'bench-dataset';

/** The files whose change invalidates the dataset: the item-writing code and the generator. */
export const ITEM_CODE = [
  'shared/ingest/derive.ts',
  'shared/ingest/ingest.ts',
  'shared/ingest/items.ts',
  'shared/ingest/state.ts',
  'shared/ingest/block-work.ts',
  'shared/ingest/batch.ts',
  'shared/ingest/range-positions.ts',
  'shared/ingest/manifest.ts',
  'shared/ingest/chain-state.ts',
  'shared/ingest/native-state.ts',
  'shared/table/address-state.ts',
  'shared/table/keys.ts',
  'shared/table/records.ts',
  'shared/table/compact.ts',
  'shared/table/pack.ts',
  // Union ranges: numbered on their members' entries, whose state the ingest reads through the union's Query.
  'shared/table/union-ranges.ts',
  'shared/table/seek-chunk.ts',
  'shared/db/union-query.ts',
  // Block buckets: which entries share an item, and how the ingest's reads see them.
  'shared/table/buckets.ts',
  'shared/db/bucket-query.ts',
  // Range heads (their items), zero-value calls' storage and the manifests' expiry.
  'shared/ingest/range-heads.ts',
  'shared/ingest/zero-value-calls.ts',
  'shared/ingest/manifest-retention.ts',
  // Orders and collections are created through their own code (createOrder, createCollection).
  'shared/orders/creation.ts',
  'shared/orders/orders.ts',
  'shared/orders/order-list.ts',
  'shared/collections/store.ts',
  'shared/collections/collections.ts',
  'scripts/bench/dataset/chain.ts',
  'scripts/bench/dataset/spec.ts',
];

export interface DatasetFacts {
  key: string;
  scale: number;
  builtAt: string;
  tableName: string;
  chains: ChainFacts[];
  explorerChain: number;
  collections: {
    count: number;
    creators: string[];
    chainIds: number[];
    sampleAddress: string;
    /** A creator and chain id that both filter (two filters). */
    twoFilters: { creator: string; chainId: number };
  };
  /** `sampleCreator` (absent in datasets built before orders had creators): a creator with count / 50 orders. */
  orders: { count: number; sampleId: string; sampleCreator?: string };
  generation: {
    seconds: number;
    /** How many build processes it took (a stopped build carries on: progress.ts). */
    builds?: number;
    /**
     * Per chain: seconds, write units (over every transaction, from the blocks measured) and calls over
     * every build process; `measuredBlocks`: the blocks whose writes were counted.
     */
    chains: {
      chainId: number;
      blocks: number;
      transactions: number;
      seconds: number;
      writeUnits: number;
      calls: number;
      measuredBlocks?: number;
    }[];
    collectionsSeconds: number;
    ordersSeconds: number;
    /** Write units the ingest consumed per transaction, over the two busy chains. */
    ingestWriteUnitsPerTransaction: number;
    itemsOnDiskBytes?: number;
  };
}

/**
 * The cache key: a hash of the item code as JavaScript (esbuild strips types, comments and
 * whitespace), so that an edit of types or comments alone keeps the dataset; any change of what runs
 * builds it again.
 */
export function datasetKey(scale: number): string {
  return codeKey([], `scale=${scale}`);
}

/** The hash of the item code and of `extraFiles` as JavaScript, and of `suffix` (the dataset's scale, a profile's size). */
export function codeKey(extraFiles: readonly string[], suffix: string): string {
  const hash = createHash('sha256');
  for (const file of [...ITEM_CODE, ...extraFiles]) {
    const code = transformSync(readFileSync(path.join(ROOT, file), 'utf8'), {
      loader: 'ts',
      minifyWhitespace: true,
      legalComments: 'none',
    }).code;
    hash.update(file).update(code);
  }
  hash.update(suffix);
  return hash.digest('hex').slice(0, 16);
}

export function datasetDir(scale: number): string {
  return path.join(ROOT, '.bench', `dataset-${scale}-${datasetKey(scale)}`);
}

/** The cached dataset of this scale, built first when missing (progress on stderr). */
export async function ensureDataset(
  scale: number,
  log: (line: string) => void,
): Promise<{ dir: string; facts: DatasetFacts; built: boolean }> {
  const dir = datasetDir(scale);
  const factsFile = path.join(dir, 'dataset.json');
  if (existsSync(factsFile)) return { dir, facts: JSON.parse(await readFile(factsFile, 'utf8')) as DatasetFacts, built: false };
  log(`dataset: building scale ${scale} into ${path.relative(ROOT, dir)} (cached for later runs)…`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--scale', String(scale), '--dir', dir], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR', NODE_NO_WARNINGS: '1' },
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`dataset build exited with ${code}`))));
  });
  return { dir, facts: JSON.parse(await readFile(factsFile, 'utf8')) as DatasetFacts, built: true };
}

// ---------------------------------------------------------------------------------------------------
// The build (child process)

async function build(scale: number, dir: string): Promise<void> {
  const started = performance.now();
  const key = datasetKey(scale);
  const spec = datasetSpec(scale);
  const found = readProgress<DatasetFacts['collections'], DatasetFacts['orders']>(dir, key);
  if (found.mode === 'fresh') {
    await rm(dir, { recursive: true, force: true });
    await mkdir(path.join(dir, 'table'), { recursive: true });
  }
  const progress: BuildProgress<DatasetFacts['collections'], DatasetFacts['orders']> =
    found.mode === 'resume' ? found.progress : { key, scale, startedAt: new Date().toISOString(), seconds: 0, builds: 0, chains: {} };
  progress.builds = (progress.builds ?? 0) + 1;
  const secondsBefore = progress.seconds;
  if (found.mode === 'resume') {
    const done = Object.entries(progress.chains).map(
      ([chainId, entry]) => `${chainId}: ${entry.done ? 'done' : `through block ${entry.segments.at(-1)?.toBlock ?? 0}`}`,
    );
    console.error(
      `  carrying on the build started ${progress.startedAt} (${Math.round(secondsBefore)} s so far; collections and orders done; ${done.join(', ') || 'no chain yet'})`,
    );
  }
  const { startTableProcess } = await import('../../lib/table-process');
  const { ensureTable, localClient } = await import('../../lib/local-table/ensure-table');
  // BENCH_DATASET_ENDPOINT: a table server started by hand (to profile it); the build then leaves it running.
  const external = process.env.BENCH_DATASET_ENDPOINT;
  const table = external
    ? { endpoint: external, close: async () => undefined }
    : await startTableProcess({ path: path.join(dir, 'table') });
  process.env.DYNAMODB_ENDPOINT = table.endpoint;
  process.env.TABLE_NAME = BENCH_TABLE;
  const admin = localClient(table.endpoint);
  await ensureTable(admin, BENCH_TABLE);
  admin.destroy();

  // One save at a time (chains end together, the ticker fires meanwhile): each writes the progress as it then is.
  let saving: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    const write = async (): Promise<void> => {
      progress.seconds = round(secondsBefore + (performance.now() - started) / 1000, 1);
      await saveProgress(dir, progress);
    };
    saving = saving.then(write, write);
    return saving;
  };
  // Stopped by a signal: what was done is saved; the next build carries on from it.
  const stop = (signal: string): void => {
    console.error(`  ${signal}: progress saved in ${path.relative(ROOT, progressFile(dir))}; run the build again to carry on`);
    void save()
      .catch(() => undefined)
      .then(() => table.close())
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  try {
    const { ChainIngest } = await import('../../../shared/ingest/ingest');
    const { SyntheticChain } = await import('./chain');
    const timedWork = async <T>(label: string, work: () => Promise<T>): Promise<{ value: T; seconds: number }> => {
      const t0 = performance.now();
      const value = await work();
      const seconds = (performance.now() - t0) / 1000;
      console.error(`  ${label} in ${seconds.toFixed(1)} s`);
      return { value, seconds };
    };

    // Phase 1: collections and orders (a build stopped before both are done starts over).
    if (!progress.collections || !progress.orders) {
      const [collectionsWork, ordersWork] = await Promise.all([
        timedWork(`${spec.collections} collections`, () => writeCollections(spec.collections)),
        timedWork(`${spec.orders} orders`, () => writeOrders(spec.orders)),
      ]);
      progress.collections = { facts: collectionsWork.value, seconds: round(collectionsWork.seconds, 1) };
      progress.orders = { facts: ordersWork.value, seconds: round(ordersWork.seconds, 1) };
      await save();
    }

    // Phase 2: every chain at once, through the real ingest, which carries on after its cursor.
    const position = new Map<number, string>();
    const ticker = setInterval(() => {
      console.error(`  ${((performance.now() - started) / 1000).toFixed(0)} s: ${[...position.values()].join(', ')}`);
      void save().catch((error: Error) => console.error(`progress not saved: ${error.message}`));
    }, 30_000);
    const ingestChain = async (chainSpec: (typeof spec.chains)[number]) => {
      const t0 = performance.now();
      const chain = new SyntheticChain(chainSpec);
      const generatedMs = performance.now() - t0;
      progress.chains[chainSpec.chainId] ??= { done: false, segments: [] };
      const entry = progress.chains[chainSpec.chainId]!;
      if (!entry.done) {
        const usage = emptyUsage();
        const segment: ChainSegment = { fromBlock: 0, toBlock: 0, transactions: 0, seconds: 0, writeUnits: 0, calls: 0 };
        const ingest = new ChainIngest({
          chainId: chainSpec.chainId,
          client: chain.client(),
          log: {
            info: () => undefined,
            warn: (message, details) => console.error(`ingest warning: ${message} ${JSON.stringify(details ?? {})}`),
          },
          onBlock: ({ blockNumber }) => {
            if (segment.fromBlock === 0) {
              segment.fromBlock = blockNumber;
              entry.segments.push(segment);
            }
            // Called once the block's batch is written and the cursor moved, before the next batch
            // writes anything: the usage so far is that of the blocks through this one.
            segment.toBlock = blockNumber;
            segment.transactions += chain.blocks[blockNumber]!.txs.length;
            segment.seconds = round((performance.now() - t0) / 1000, 1);
            segment.writeUnits = round(usage.writeUnits, 1);
            segment.calls = totalCalls(usage);
            position.set(chainSpec.chainId, `chain ${chainSpec.chainId} block ${blockNumber}/${chain.head}`);
          },
        });
        // From block 1: blocks at or below the cursor (an earlier build's) are skipped.
        const result = await measureTableInto(usage, () => ingest.ingestRange({ from: 1, to: chain.head }));
        if (result.cursor?.blockNumber !== chain.head)
          throw new Error(`chain ${chainSpec.chainId}: ingested through block ${result.cursor?.blockNumber} of ${chain.head}`);
        entry.done = true;
        await save();
      }
      const totals = chainTotals(entry.segments);
      console.error(
        `  chain ${chainSpec.chainId}: ${chain.counts.transactions} transactions, ${chain.counts.tokenTransfers} transfers, ${chain.head} blocks in ${totals.seconds.toFixed(1)} s over ${entry.segments.length} segment(s) (generated in ${(generatedMs / 1000).toFixed(1)} s); ${Math.round(totals.writeUnits)} WCU over ${totals.measuredBlocks} blocks measured`,
      );
      return {
        facts: chain.facts(),
        segments: entry.segments,
        figure: {
          chainId: chainSpec.chainId,
          blocks: chain.head,
          transactions: chain.counts.transactions,
          seconds: round(totals.seconds, 1),
          // Over the whole chain, from the blocks measured (a stopped build leaves some unmeasured).
          writeUnits:
            totals.measuredTransactions > 0 ? round((totals.writeUnits * chain.counts.transactions) / totals.measuredTransactions, 1) : 0,
          calls: totals.calls,
          measuredBlocks: totals.measuredBlocks,
        },
      };
    };
    const ingested = await Promise.all(spec.chains.map(ingestChain)).finally(() => clearInterval(ticker));
    const chainFigures = ingested.map((entry) => entry.figure);

    const busy = ingested.filter((entry) => entry.figure.transactions >= 100);
    const facts: DatasetFacts = {
      key,
      scale,
      builtAt: new Date().toISOString(),
      tableName: BENCH_TABLE,
      chains: ingested.map((entry) => entry.facts),
      explorerChain: EXPLORER_CHAIN,
      collections: progress.collections.facts,
      orders: progress.orders.facts,
      generation: {
        seconds: round(secondsBefore + (performance.now() - started) / 1000, 1),
        builds: progress.builds,
        chains: chainFigures,
        collectionsSeconds: progress.collections.seconds,
        ordersSeconds: progress.orders.seconds,
        ingestWriteUnitsPerTransaction: round(writeUnitsPerTransaction(busy), 2),
      },
    };
    await table.close();
    facts.generation.itemsOnDiskBytes = directoryBytes(path.join(dir, 'table'));
    await writeFile(path.join(dir, 'dataset.json'), `${JSON.stringify(facts, null, 2)}\n`);
    console.error(`dataset built in ${facts.generation.seconds} s (${progress.builds} build process(es))`);
  } finally {
    await table.close();
  }
}

/** Collections through createCollection: EIP-712 signed by one of 40 creators, over 3 chains. */
async function writeCollections(count: number): Promise<DatasetFacts['collections']> {
  const v = await import('valibot');
  const { privateKeyToAccount } = await import('viem/accounts');
  const { createCollection } = await import('../../../shared/collections/collections');
  const { loadCollectionsConfig } = await import('../../../shared/collections/config');
  const { createCollectionBody } = await import('../../../shared/collections/schemas');
  const { collectionMessage, collectionTypedData } = await import('../../../shared/collections/signing');
  const { inParallel } = await import('../../../shared/db/operations');
  const config = loadCollectionsConfig();
  const creators = Array.from({ length: 40 }, (_, index) =>
    privateKeyToAccount(`0x${createHash('sha256').update(`bench:creator:${index}`).digest('hex')}`),
  );
  const chainIds = [8453, 1, 31337];
  let sampleAddress = '';
  await inParallel(
    Array.from({ length: count }, (_, index) => index),
    4,
    async (index) => {
      const creator = creators[index % creators.length];
      const chainId = chainIds[Math.floor(index / creators.length) % chainIds.length];
      const metadata = {
        name: `Bench Collection ${index}`,
        symbol: `BC${index % 500}`,
        baseURI: `https://example.com/bench/${index}/`,
        creator: creator.address,
        gameOwner: creators[(index * 7) % creators.length].address,
        maxSupply: String(1000 + (index % 9000)),
        mintPrice: '1000000000000000',
        maxPerWallet: '10',
        isWhitelistEnabled: false,
        whitelistMerkleRoot: `0x${'0'.repeat(64)}`,
        startTime: '1767225600',
        endTime: '1798761600',
      };
      const signature = await creator.signTypedData({ ...collectionTypedData(chainId, config), message: collectionMessage(metadata) });
      const body = v.parse(createCollectionBody, {
        ...metadata,
        chainId,
        creatorSignature: signature,
        gameId: `game-${index % 100}`,
        referrer: `partner${index % 10}`,
        image: `https://example.com/bench/${index}/cover.png`,
        description: `Collection ${index} of the benchmark dataset`,
        attributes: [{ trait_type: 'Edition', value: String(index % 3) }],
      });
      const collection = await createCollection(body, config);
      if (index === 0) sampleAddress = collection.predictedAddress;
    },
  );
  return {
    count,
    creators: creators.map((creator) => creator.address),
    chainIds,
    sampleAddress,
    twoFilters: { creator: creators[1].address, chainId: chainIds[0] },
  };
}

/** Orders through createOrder (USDC on Base to USDC on Ethereum, varied recipients and amounts). */
async function writeOrders(count: number): Promise<DatasetFacts['orders']> {
  const v = await import('valibot');
  const { createOrder } = await import('../../../shared/orders/orders');
  const { loadOrderConfig } = await import('../../../shared/orders/config');
  const { createOrderBodySchema } = await import('../../../shared/orders/schemas');
  const { inParallel } = await import('../../../shared/db/operations');
  const { addressOf } = await import('./chain');
  // 50 creators share the orders, so that a creator's list holds count / 50 of them.
  const creatorOf = (index: number): string => addressOf(`bench:order-creator:${index % 50}`);
  const config = loadOrderConfig();
  const schema = createOrderBodySchema(config);
  let sampleId = '';
  await inParallel(
    Array.from({ length: count }, (_, index) => index),
    4,
    async (index) => {
      const request = v.parse(schema, orderBody(addressOf(`bench:order-recipient:${index % 500}`), index, creatorOf(index)));
      // A busy answer (the list positions lost to the other creations, as a client of POST /orders can
      // meet on a loaded machine) is retried shortly, as its message asks.
      for (let attempt = 1; ; attempt += 1) {
        try {
          const outcome = await createOrder(request, { config, sourceIp: '127.0.0.1' });
          if (index === 0 && outcome.created) sampleId = outcome.value.id;
          break;
        } catch (error) {
          if ((error as Error).name !== 'BusyError' || attempt >= 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
        }
      }
    },
  );
  return { count, sampleId, sampleCreator: creatorOf(0) };
}

/** A POST /orders body (the route example's shape). */
export function orderBody(recipient: string, index: number, creator?: string): Record<string, unknown> {
  const usdcBase = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
  const usdcMain = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
  const amount = String(1_000_000 + index * 1000);
  return {
    type: 'swap',
    recipientAddress: recipient,
    srcChain: 8453,
    dstChain: 1,
    srcTokenAddress: usdcBase,
    dstTokenAddress: usdcMain,
    srcAmount: amount,
    payload: { expectedDstAmount: amount },
    metadata: {
      srcToken: { chainId: 8453, address: usdcBase, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
      dstToken: { chainId: 1, address: usdcMain, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    },
    clientReferenceId: `bench-order-${index}`,
    ...(creator ? { creatorAddress: creator } : {}),
  };
}

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(file) : statSync(file).size;
  }
  return total;
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  // `npm run bench:dataset -- --scale S`: builds (or carries on building) the cached dataset of a scale
  // on its own, e.g. in the background ahead of a bench run; `--dir` for another folder.
  // `npm run bench:dataset -- --profile base [--blocks N] [--tx-per-block N] [--batch-blocks N]`: a chain
  // profile's dataset instead (profile.ts).
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: process.env.BENCH_SCALE ?? '1' },
      dir: { type: 'string' },
      profile: { type: 'string' },
      blocks: { type: 'string' },
      'tx-per-block': { type: 'string' },
      'batch-blocks': { type: 'string' },
    },
  });
  if (values.profile !== undefined) {
    buildProfileCli(values).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  } else {
    const scale = Number(values.scale);
    if (!(scale > 0 && scale <= 1)) {
      console.error('usage: npm run bench:dataset -- [--scale S (0 < S <= 1, default 1)] [--dir DIR]');
      process.exit(2);
    }
    const dir = values.dir ?? datasetDir(scale);
    if (!values.dir && existsSync(path.join(dir, 'dataset.json'))) {
      console.error(`dataset of scale ${scale} already built: ${path.relative(ROOT, dir)}`);
      process.exit(0);
    }
    build(scale, dir).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  }
}

/** `--profile NAME`: builds that chain profile's dataset unless it is cached (`--dir`: into that folder, always). */
async function buildProfileCli(values: {
  profile?: string;
  dir?: string;
  blocks?: string;
  'tx-per-block'?: string;
  'batch-blocks'?: string;
}): Promise<void> {
  const { buildProfile, defaultProfileOptions, profileDir, PROFILES } = await import('./profile');
  const usage = `usage: npm run bench:dataset -- --profile ${PROFILES.join('|')} [--blocks N] [--tx-per-block N] [--batch-blocks N] [--dir DIR]`;
  const profile = PROFILES.find((name) => name === values.profile);
  const whole = (text: string | undefined, fallback: number | undefined, least: number): number | undefined => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < least) {
      console.error(usage);
      process.exit(2);
    }
    return value;
  };
  if (!profile) {
    console.error(usage);
    process.exit(2);
  }
  const defaults = defaultProfileOptions(profile);
  const options = {
    profile,
    blocks: whole(values.blocks, defaults.blocks, 1) as number,
    transactionsPerBlock: whole(values['tx-per-block'], defaults.transactionsPerBlock, 2) as number,
    batchBlocks: whole(values['batch-blocks'], undefined, 1),
  };
  const dir = values.dir ?? (await profileDir(options));
  if (!values.dir && existsSync(path.join(dir, 'profile.json'))) {
    console.error(`profile ${profile} of this size already built: ${path.relative(ROOT, dir)}`);
    return;
  }
  await buildProfile(options, dir);
}
