/**
 * A chain profile's dataset (issue 27: "report every figure on a realistic chain shape"): the
 * Base-like chain of base-profile.ts written by the real ingest (ChainIngest, default batching unless
 * `batchBlocks`) into an embedded table of its own, every write request priced by item family at the
 * table's edge as the ingest bench prices them (lib/write-families.ts: the same ledger, the same
 * item sizes), and the items left scanned at the end for the stored bytes.
 *
 * `npm run bench:dataset -- --profile base [--blocks N] [--tx-per-block N] [--batch-blocks N]` builds
 * it in a process of its own into .bench/profile-base-<size>-<key>/ (`ensureProfile` spawns that
 * when `npm run bench` finds none); profile.json holds the figures, written last. The key hashes the
 * dataset's item code (build.ts ITEM_CODE), the profile's generator and the size: any change of what
 * runs builds it again. A stopped build starts over (it takes minutes; the ledger lives in memory).
 * The table (LevelDB in DIR/table) is removed once the figures are written: they are the build's product.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneratedCounts } from './chain';
import type { ProfileShape } from './base-profile';
import { BASE_PROFILE_DEFAULT_SIZE, baseProfileSpec, type BaseProfileSize } from './spec';
import { expiringStoredNote, type PerUnitReport } from '../lib/write-families';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BUILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build.ts');
export const PROFILE_TABLE = 'bench-profile';
/**
 * The profiles there are: the Base-like chain, and the same chain ingested with zero-value internal
 * calls kept 30 days or not stored (INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS, shared/ingest/zero-value-calls.ts:
 * the operator's setting, measured in the ledger with its TTL, issue 35).
 */
export const PROFILES = ['base', 'base-zero-value-calls-30d', 'base-zero-value-calls-0d'] as const;
export type ProfileName = (typeof PROFILES)[number];
/** Each profile's INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS (undefined: the default, kept for good). */
export const ZERO_VALUE_CALLS_RETENTION_DAYS: Record<ProfileName, number | undefined> = {
  base: undefined,
  'base-zero-value-calls-30d': 30,
  'base-zero-value-calls-0d': 0,
};
/** The profile whose chain a profile is (its generator, and its Lambda harness figures): all are Base's. */
export const chainOf = (_profile: ProfileName): 'base' => 'base';
/** The profile's own code, hashed into its key beside the dataset's item code. */
const PROFILE_CODE = [
  'scripts/bench/dataset/base-profile.ts',
  'scripts/bench/dataset/profile.ts',
  'scripts/bench/lib/write-families.ts',
  'scripts/bench/lib/partition-heat.ts',
  // The compactor, whose run over the build the profile's facts keep (ColdTierMeasured): its parts and pointers.
  'shared/ingest/cold-history.ts',
  'shared/table/cold-parts.ts',
  'shared/table/joins.ts',
];

export interface ProfileOptions extends BaseProfileSize {
  profile: ProfileName;
  /** Most blocks the ingest writes as one batch; absent: the ingest's default. */
  batchBlocks?: number;
}

export interface ProfileFacts {
  key: string;
  profile: ProfileName;
  builtAt: string;
  size: BaseProfileSize & { batchBlocks: number | null };
  /** The figures assumed (spec.ts baseProfileSpec). */
  assumed: {
    chainId: number;
    blockSeconds: number;
    transactionsPerBlock: number;
    epochBlocks: number;
    userDepositsPerEpoch: number;
    mix: Record<string, number>;
    zipfExponent: number;
    erc20Tokens: number;
    erc721Tokens: number;
    erc1155Tokens: number;
    pools: number;
    routers: number;
    apps: number;
    holders: number;
  };
  /** The chain as generated, measured. */
  shape: ProfileShape;
  counts: GeneratedCounts;
  generation: {
    seconds: number;
    generateSeconds: number;
    ingestSeconds: number;
    scanSeconds: number;
    transactionsPerSecond: number;
    /** Write units the table reported consumed (table only, no GSI), and DynamoDB calls. */
    consumedWriteUnits: number;
    calls: number;
    itemsLeft: number;
    ingestWarnings: number;
    /** Peak resident memory of the build's process (the generated chain and the ingest in one process), MB (absent in builds from before). */
    peakRssMb?: number;
  };
  /** Every write request of the ingest priced by item family (as the ingest bench's "Writes by item family"). */
  writesByFamily: PerUnitReport & { method: string };
  /**
   * The hottest partition keys (table and GSIs: lib/partition-heat.ts), in write units a second at the
   * profile's rate and at three times Base's average (HOT_PARTITION_TARGET_TPS); DynamoDB's limit is
   * 1,000 a partition (absent in builds from before).
   */
  partitions?: {
    targetTransactionsPerSecond: number;
    hottestPartitionWriteUnitsPerSecondAt3xBase: number;
    hottest: { key: string; writeUnitsPerSecond: number; writeUnitsPerSecondAtTarget: number }[];
  };
  /**
   * The cold tier on this build (docs/decisions/cold-history.md; absent in builds from before): the
   * real compactor (shared/ingest/cold-history.ts compactBlocks) run over the whole build as one span,
   * into a local S3, after the figures above; what it wrote and spent, per transaction.
   */
  coldTier?: ColdTierMeasured;
  /** The cost model's inputs (lib/workload-cost.ts), per transaction, deposits included. */
  inputs: {
    writeUnitsPerTransaction: number;
    storedBytesPerTransaction: number;
    /** Of storedBytesPerTransaction, the bytes of items with a TTL (the manifests), held `expiringRetentionDays` only (absent in builds from before). */
    expiringBytesPerTransaction?: number;
    expiringRetentionDays?: number;
    /** The same by how long each part is held (the manifests' days, zero-value calls' N), when measured. */
    expiringBytesByDays?: Record<string, number>;
    itemsWrittenPerTransaction: number;
    itemsStoredPerTransaction: number;
    /** What the table reported consumed (no GSI): a check of the ledger's pricing. */
    consumedWriteUnitsPerTransaction: number;
    /** Read units the ingest itself spent (range positions, state reads), as the table reported them. */
    ingestReadUnitsPerTransaction: number;
  };
}

/** The compactor's run over a profile's build (ProfileFacts.coldTier). */
export interface ColdTierMeasured {
  /** Blocks and seconds of chain in the one span compacted (a deployed job's spans are COLD_SPAN_BLOCKS: parts grow with them). */
  spanBlocks: number;
  spanSeconds: number;
  /** Items moved into parts, a transaction. */
  itemsPerTransaction: number;
  /** Parts (one pointer item each), a transaction. */
  pointersPerTransaction: number;
  /** A pointer item's stored bytes (its size and DynamoDB's 100 B of overhead), on average. */
  pointerBytes: number;
  /** Compressed bytes written to S3, and the parts' MessagePack bytes before compression, a transaction. */
  coldBytesPerTransaction: number;
  openedBytesPerTransaction: number;
  /** The compactor's process CPU (the table in another process; the local S3 in this one), ms a transaction. */
  compactorCpuMsPerTransaction: number;
  /** Read units the compactor spent (the manifests, then every listed item), a transaction. */
  compactorReadUnitsPerTransaction: number;
  objects: number;
}

/** The profile's cache key: the item code's and the generator's hash, and the size. */
export async function profileKey(options: ProfileOptions): Promise<string> {
  const { codeKey } = await import('./build');
  return codeKey(
    PROFILE_CODE,
    `profile=${options.profile};blocks=${options.blocks};tx=${options.transactionsPerBlock};batch=${options.batchBlocks ?? 'default'}`,
  );
}

export async function profileDir(options: ProfileOptions): Promise<string> {
  const batch = options.batchBlocks ? `-batch${options.batchBlocks}` : '';
  return path.join(
    ROOT,
    '.bench',
    `profile-${options.profile}-${options.blocks}x${options.transactionsPerBlock}${batch}-${await profileKey(options)}`,
  );
}

export const defaultProfileOptions = (profile: ProfileName = 'base'): ProfileOptions => ({ profile, ...BASE_PROFILE_DEFAULT_SIZE });

/** The cached profile of these options, built first (in a process of its own) when missing. */
export async function ensureProfile(
  options: ProfileOptions,
  log: (line: string) => void,
): Promise<{ dir: string; facts: ProfileFacts; built: boolean }> {
  const dir = await profileDir(options);
  const file = path.join(dir, 'profile.json');
  if (existsSync(file)) return { dir, facts: JSON.parse(await readFile(file, 'utf8')) as ProfileFacts, built: false };
  log(
    `profile ${options.profile}: building ${options.blocks} blocks x ${options.transactionsPerBlock} transactions into ${path.relative(ROOT, dir)} (cached for later runs)…`,
  );
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=8192', '--import', 'tsx', BUILD, ...profileArgs(options), '--dir', dir], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR', NODE_NO_WARNINGS: '1' },
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`profile build exited with ${code}`))));
  });
  return { dir, facts: JSON.parse(await readFile(file, 'utf8')) as ProfileFacts, built: true };
}

/** The build command's arguments for these options. */
export const profileArgs = (options: ProfileOptions): string[] => [
  '--profile',
  options.profile,
  '--blocks',
  String(options.blocks),
  '--tx-per-block',
  String(options.transactionsPerBlock),
  ...(options.batchBlocks ? ['--batch-blocks', String(options.batchBlocks)] : []),
];

type Json = Record<string, any>;
/** Three times Base's average rate (issue 34: 100 transactions a second), the rate partitions must take. */
export const HOT_PARTITION_TARGET_TPS = 300;

const WRITE_COMMANDS = new Set(['BatchWriteItem', 'TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem']);

/** Builds the profile into `dir` (this process: the build's child). */
export async function buildProfile(options: ProfileOptions, dir: string): Promise<ProfileFacts> {
  const started = performance.now();
  const key = await profileKey(options);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const { startTableProcess } = await import('../../lib/table-process');
  const { ensureTable, localClient } = await import('../../lib/local-table/ensure-table');
  const { scanItems } = await import('../../lib/local-table/scan');
  // On disk (LevelDB, faster here than in memory), removed once the figures are written.
  const tableDir = path.join(dir, 'table');
  await mkdir(tableDir, { recursive: true });
  const table = await startTableProcess({ path: tableDir });
  try {
    process.env.DYNAMODB_ENDPOINT = table.endpoint;
    process.env.TABLE_NAME = PROFILE_TABLE;
    const admin = localClient(table.endpoint);
    await ensureTable(admin, PROFILE_TABLE);
    // Modules that create the table client: imported once the endpoint is set.
    const { db } = await import('../../../shared/db/client');
    const { emptyUsage, measureTableInto, totalCalls } = await import('../../../shared/db/instrument');
    const { ChainIngest } = await import('../../../shared/ingest/ingest');
    const { BaseChain } = await import('./base-profile');
    const { WriteLedger, perUnit, recordWriteCommand, EXPIRING_RETENTION_DAYS } = await import('../lib/write-families');
    const zeroValueCallsRetentionDays = ZERO_VALUE_CALLS_RETENTION_DAYS[options.profile];
    // Items with a TTL: the manifests, and on a profile with zero-value calls kept N days their X5 buckets.
    const ledger = new WriteLedger({
      retentionDaysOf: (family) =>
        family.id.startsWith('X5 ') && zeroValueCallsRetentionDays !== undefined ? zeroValueCallsRetentionDays : EXPIRING_RETENTION_DAYS,
    });
    const { PartitionHeat, recordPartitionWrites, hottestPartitions } = await import('../lib/partition-heat');
    const heat = new PartitionHeat();
    // Every write request as it goes out, in document form (as scripts/bench/ingest.ts observes them).
    (db as unknown as { middlewareStack: { add: (...args: any[]) => void } }).middlewareStack.add(
      (next: (args: { input: Json }) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Json }) => {
        const command = (context.commandName ?? '?').replace(/Command$/, '');
        if (WRITE_COMMANDS.has(command)) {
          recordWriteCommand(ledger, command, args.input);
          recordPartitionWrites(heat, command, args.input);
        }
        return next(args);
      },
      { step: 'serialize', priority: 'high', name: 'benchProfileLedger' },
    );

    const t0 = performance.now();
    const spec = baseProfileSpec(options);
    const chain = new BaseChain(spec);
    const generateSeconds = (performance.now() - t0) / 1000;
    console.error(
      `  profile ${options.profile}: generated ${chain.counts.transactions} transactions in ${chain.head} blocks (${chain.counts.logs} logs, ${chain.counts.tokenTransfers} token transfers) in ${generateSeconds.toFixed(1)} s`,
    );
    const usage = emptyUsage();
    let warnings = 0;
    const t1 = performance.now();
    let lastReport = t1;
    const ingest = new ChainIngest({
      chainId: spec.chainId,
      client: chain.client(),
      ...(options.batchBlocks ? { maxBatchBlocks: options.batchBlocks } : {}),
      ...(zeroValueCallsRetentionDays === undefined ? {} : { zeroValueCallsRetentionDays }),
      log: {
        info: () => undefined,
        warn: (message, details) => {
          warnings += 1;
          console.error(`ingest warning: ${message} ${JSON.stringify(details ?? {})}`);
        },
      },
      onBlock: ({ blockNumber }) => {
        const now = performance.now();
        if (now - lastReport >= 30_000 || blockNumber === chain.head) {
          lastReport = now;
          console.error(`  ${((now - started) / 1000).toFixed(0)} s: block ${blockNumber}/${chain.head}, ${ledger.writes} writes`);
        }
      },
    });
    const result = await measureTableInto(usage, () => ingest.ingestRange({ from: 1, to: chain.head }));
    if (result.cursor?.blockNumber !== chain.head) throw new Error(`ingested through block ${result.cursor?.blockNumber} of ${chain.head}`);
    const ingestSeconds = (performance.now() - t1) / 1000;

    const t2 = performance.now();
    const items = await scanItems(admin, PROFILE_TABLE);
    const families = perUnit(ledger.report(items), chain.counts.transactions, chain.counts.logs);
    const scanSeconds = (performance.now() - t2) / 1000;
    const transactions = chain.counts.transactions;
    const base = spec.base!;
    const coldTier = await measureColdTier({
      chainId: spec.chainId,
      head: chain.head,
      transactions,
      // As of the chain's last block: an item whose own retention ended by then (cold-settings.ts) is left out, as the job would.
      nowMs: (spec.firstTimestamp + chain.head * base.blockSeconds) * 1000,
      spanSeconds: chain.head * base.blockSeconds,
      scan: () => scanItems(admin, PROFILE_TABLE),
    });
    console.error(
      `  profile ${options.profile}: cold tier over ${coldTier.spanBlocks} blocks: ${coldTier.pointersPerTransaction} pointers, ${(coldTier.coldBytesPerTransaction / 1024).toFixed(2)} KB in S3, ${coldTier.compactorCpuMsPerTransaction} ms CPU, ${coldTier.compactorReadUnitsPerTransaction} read units a transaction`,
    );
    admin.destroy();
    const facts: ProfileFacts = {
      key,
      profile: options.profile,
      builtAt: new Date().toISOString(),
      size: { blocks: options.blocks, transactionsPerBlock: options.transactionsPerBlock, batchBlocks: options.batchBlocks ?? null },
      assumed: {
        chainId: spec.chainId,
        blockSeconds: base.blockSeconds,
        transactionsPerBlock: base.transactionsPerBlock,
        epochBlocks: base.epochBlocks,
        userDepositsPerEpoch: base.userDepositsPerEpoch,
        mix: base.mix,
        zipfExponent: base.zipfExponent,
        erc20Tokens: spec.erc20Tokens,
        erc721Tokens: spec.erc721Tokens,
        erc1155Tokens: spec.erc1155Tokens,
        pools: base.pools,
        routers: base.routers,
        apps: base.apps,
        holders: spec.addresses,
      },
      shape: chain.shape(),
      counts: chain.counts,
      generation: {
        seconds: round((performance.now() - started) / 1000, 1),
        generateSeconds: round(generateSeconds, 1),
        ingestSeconds: round(ingestSeconds, 1),
        scanSeconds: round(scanSeconds, 1),
        transactionsPerSecond: round(transactions / ingestSeconds, 1),
        consumedWriteUnits: round(usage.writeUnits, 1),
        calls: totalCalls(usage),
        itemsLeft: items.length,
        ingestWarnings: warnings,
        peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      },
      writesByFamily: {
        method:
          'every write request of the ingest, classified by the key of its item (scripts/bench/lib/write-families.ts): ceil(size / 1 KB) units per item (updates and deletes: the size of the item at the end of the run or as last put), doubled in TransactWriteItems, again on each GSI whose keys the item carries (ALL projection); stored bytes: the items left, + 100 B each',
        ...families,
      },
      coldTier,
      partitions: (() => {
        const chainSeconds = chain.head * base.blockSeconds;
        const hottest = hottestPartitions(
          heat,
          { chainSeconds, transactionsPerSecond: transactions / chainSeconds },
          HOT_PARTITION_TARGET_TPS,
        );
        return {
          targetTransactionsPerSecond: HOT_PARTITION_TARGET_TPS,
          hottestPartitionWriteUnitsPerSecondAt3xBase: hottest[0]?.writeUnitsPerSecondAtTarget ?? 0,
          hottest,
        };
      })(),
      inputs: {
        writeUnitsPerTransaction: families.totals.writeUnitsPerTx,
        storedBytesPerTransaction: families.totals.bytesStoredPerTx,
        expiringBytesPerTransaction: families.totals.expiringBytesStoredPerTx,
        expiringRetentionDays: families.expiringRetentionDays,
        expiringBytesByDays: families.expiringBytesStoredPerTxByDays,
        itemsWrittenPerTransaction: families.totals.itemsWrittenPerTx,
        itemsStoredPerTransaction: families.totals.itemsStoredPerTx,
        consumedWriteUnitsPerTransaction: round(usage.writeUnits / transactions, 2),
        ingestReadUnitsPerTransaction: round(usage.readUnits / transactions, 2),
      },
    };
    await writeFile(path.join(dir, 'profile.json'), `${JSON.stringify(facts, null, 2)}\n`);
    console.error(
      `profile ${options.profile} built in ${facts.generation.seconds} s (ingest ${facts.generation.ingestSeconds} s, ${facts.generation.transactionsPerSecond} tx/s): ` +
        `${facts.inputs.writeUnitsPerTransaction} write units, ${(facts.inputs.storedBytesPerTransaction / 1024).toFixed(2)} KB stored${expiringStoredNote(families)}, ${facts.inputs.itemsWrittenPerTransaction} items written per transaction; ` +
        `hottest partition at ${HOT_PARTITION_TARGET_TPS} tx/s: ${facts.partitions?.hottest[0]?.key} ${facts.partitions?.hottestPartitionWriteUnitsPerSecondAt3xBase} write units a second (limit 1,000)`,
    );
    return facts;
  } finally {
    await table.close();
    await rm(tableDir, { recursive: true, force: true });
  }
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The real compactor over the whole build as one span, into a local S3 (s3rver, in this process), with
 * the table in its own: its pointers (the N17 items it put, scanned back), its bytes, its CPU and
 * its read units, per transaction. Run after the build's figures, so they hold the ingest's writes only.
 */
async function measureColdTier(options: {
  chainId: number;
  head: number;
  transactions: number;
  nowMs: number;
  spanSeconds: number;
  scan: () => Promise<Record<string, unknown>[]>;
}): Promise<ColdTierMeasured> {
  const { startLocalS3 } = await import('../../lib/local-s3');
  const { compactBlocks } = await import('../../../shared/ingest/cold-history');
  const { s3ColdStore } = await import('../../../shared/aws/cold-store');
  const { emptyUsage, measureTableInto } = await import('../../../shared/db/instrument');
  const { itemSize } = await import('../lib/write-families');
  const { COLD_POINTER_PREFIX } = await import('../../../shared/table/keys');
  const bucket = 'bench-profile-cold';
  const s3 = await startLocalS3(bucket);
  try {
    const usage = emptyUsage();
    const cpu = process.cpuUsage();
    const result = await measureTableInto(usage, () =>
      compactBlocks({
        chainId: options.chainId,
        fromBlock: 1,
        toBlock: options.head,
        store: s3ColdStore({ bucket, endpoint: s3.endpoint, credentials: s3.credentials }),
        now: options.nowMs,
      }),
    );
    const used = process.cpuUsage(cpu);
    const pointers = (await options.scan()).filter((item) => String(item.pk).startsWith(COLD_POINTER_PREFIX));
    if (pointers.length !== result.parts)
      throw new Error(`the compactor reported ${result.parts} parts, the table holds ${pointers.length} pointers`);
    const perTx = (value: number, digits: number) => round(value / options.transactions, digits);
    return {
      spanBlocks: result.blocks,
      spanSeconds: options.spanSeconds,
      itemsPerTransaction: perTx(result.items, 3),
      pointersPerTransaction: perTx(result.parts, 3),
      pointerBytes: Math.round(pointers.reduce((sum, item) => sum + itemSize(item) + 100, 0) / Math.max(1, pointers.length)),
      coldBytesPerTransaction: perTx(result.bytes, 1),
      openedBytesPerTransaction: perTx(result.openedBytes, 1),
      compactorCpuMsPerTransaction: perTx((used.user + used.system) / 1000, 3),
      compactorReadUnitsPerTransaction: perTx(usage.readUnits, 2),
      objects: result.objects.length,
    };
  } finally {
    await s3.close();
  }
}
