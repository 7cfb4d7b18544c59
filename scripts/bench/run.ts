/**
 * `npm run bench [-- --only http,cold,ingest,follow,lambda,load,webhooks] [--scale S] [--reps N] [--processes N] [--blocks N]
 * [--follow-seconds S] [--lambda-seconds S] [--duration S] [--settle S] [--profiles base,...|none] [--profile-blocks N]
 * [--out DIR]`: the benchmark suite of issues 13 and 15. Not part of `npm test`.
 *
 * Parts (all by default, in this order):
 *  - http   every route on the benchmark dataset (scripts/bench/http.ts, in a process of its own; the
 *           dataset is built once per scale and item code, cached under .bench/);
 *  - cold   every handler bundled as the stack bundles it, import time in fresh processes (cold.ts);
 *  - ingest the ingest of an anvil history against its raw fetch and the table floor (ingest.ts, spawned);
 *  - follow  the ingest CLI following a busy anvil chain, its lag behind the head (follow.ts, spawned);
 *  - lambda the deployed ingest run as Lambda runs it (schedule, timeouts, handovers, the deposit queue):
 *           block-to-API lag, deposit-to-detected, continuity, cost per chain (lambda-follow.ts, spawned);
 *  - load   16 and 64 connections on the local service (load.ts, spawned).
 * Then the cost model (lib/cost.ts) from the ingest's write units per transaction and the http mix's
 * read units per page; issue 27's W1 / W2 per table option (lib/workload-cost.ts) for each chain
 * profile: the ingest bench chain, the dataset's busy chains, and each profile of --profiles (default
 * every one: base, and base with zero-value calls kept 30 days or not stored; dataset/profile.ts, its dataset built once per size and item code, cached under .bench/; its own
 * write units, stored bytes and ingest reads per transaction, the http mix's reads per page); and
 * every budget (lib/budgets.ts). Writes bench/results/latest.json and
 * latest.md (and dated copies, bench-<UTC time>.*); exits 1 when a budget is broken or a part failed.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { HttpResult } from './http';
import type { FollowResult } from './follow';
import type { LambdaFollowResult } from './lambda-follow';
import {
  coldBudgets,
  followBudgets,
  httpBudgets,
  ingestBudgets,
  lambdaBudgets,
  loadBudgets,
  type Budget,
  type IngestResult,
  type LoadResult,
  type Part,
  webhooksBudgets,
} from './lib/budgets';
import { costModel, ingestInputs } from './lib/cost';
import type { LambdaCostInputs } from './lib/lambda-cost';
import { workloadCostModel, type ProfiledWorkloadCost, type WorkloadInputs } from './lib/workload-cost';
import {
  coldTierProjection,
  coldTierWindowOptions,
  DEFAULT_COLD_ASSUMPTIONS,
  ESTIMATED_STATE_GROWTH,
  measuredColdAssumptions,
} from './lib/cold-tier-projection';
import { buildReport, writeReport, type ProfileResult, type Report } from './lib/report';
import { chainOf, defaultProfileOptions, ensureProfile, PROFILES, type ProfileName } from './dataset/profile';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PARTS: Part[] = ['http', 'cold', 'ingest', 'follow', 'lambda', 'load', 'webhooks'];
const USAGE = `usage: npm run bench [-- --only http,cold,ingest,follow,lambda,load,webhooks] [--scale S (0 < S <= 1)] [--reps N] [--processes N] [--blocks N] [--follow-seconds S] [--lambda-seconds S] [--duration S] [--settle S] [--profiles ${PROFILES.join(',')}|none] [--profile-blocks N] [--out DIR]`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      scale: { type: 'string', default: process.env.BENCH_SCALE ?? '1' },
      reps: { type: 'string', default: '60' },
      processes: { type: 'string', default: '20' },
      blocks: { type: 'string', default: '2000' },
      'follow-seconds': { type: 'string', default: '300' },
      'lambda-seconds': { type: 'string', default: '240' },
      duration: { type: 'string', default: '60' },
      settle: { type: 'string', default: '30' },
      profiles: { type: 'string', default: PROFILES.join(',') },
      'profile-blocks': { type: 'string' },
      out: { type: 'string', default: path.join(ROOT, 'bench', 'results') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const parts = values.only ? values.only.split(',').map((part) => part.trim()) : PARTS;
  const unknown = parts.filter((part) => !PARTS.includes(part as Part));
  const scale = Number(values.scale);
  const profileNames = values.profiles === 'none' ? [] : values.profiles.split(',').map((name) => name.trim());
  const unknownProfiles = profileNames.filter((name) => !PROFILES.includes(name as ProfileName));
  const profileBlocks = values['profile-blocks'] === undefined ? undefined : Number(values['profile-blocks']);
  if (
    unknown.length > 0 ||
    !(scale > 0 && scale <= 1) ||
    unknownProfiles.length > 0 ||
    (profileBlocks !== undefined && !(Number.isInteger(profileBlocks) && profileBlocks >= 1))
  ) {
    console.error(
      `${unknown.length > 0 ? `unknown part ${unknown.join(', ')}; ` : ''}${unknownProfiles.length > 0 ? `unknown profile ${unknownProfiles.join(', ')}; ` : ''}${USAGE}`,
    );
    process.exit(2);
  }
  const log = (line: string) => console.error(line);
  const startedAt = new Date();
  const started = performance.now();
  const seconds: Report['seconds'] = { total: 0 };
  const missing: Report['missing'] = {};
  const results: Report['parts'] = { http: null, cold: null, ingest: null, follow: null, lambda: null, load: null, webhooks: null };
  const timed = async <T>(part: Part, work: () => Promise<T>): Promise<T | null> => {
    if (!parts.includes(part)) return null;
    log(`\n== ${part} ==`);
    const t0 = performance.now();
    try {
      return await work();
    } catch (error) {
      missing[part] = `failed: ${(error as Error).message.split('\n')[0].slice(0, 300)}`;
      log(`${part} failed: ${(error as Error).stack ?? error}`);
      return null;
    } finally {
      seconds[part] = Math.round((performance.now() - t0) / 100) / 10;
    }
  };

  results.http = await timed('http', async () => {
    const out = path.join(os.tmpdir(), `bench-http-${process.pid}.json`);
    try {
      await run(['scripts/bench/http.ts', '--scale', String(scale), '--reps', values.reps, '--out', out]);
      return JSON.parse(await readFile(out, 'utf8')) as HttpResult;
    } finally {
      await rm(out, { force: true });
    }
  });
  results.cold = await timed('cold', async () => {
    const { runCold } = await import('./cold');
    return runCold({ processes: Number(values.processes), log });
  });
  results.ingest = await timed('ingest', async () => {
    const outDir = path.resolve(values.out);
    const before = new Set(await readdir(outDir).catch(() => [] as string[]));
    await run(['scripts/bench/ingest.ts', '--blocks', values.blocks, '--out', outDir]);
    const written = (await readdir(outDir)).filter((name) => /^ingest-.*Z\.json$/.test(name) && !before.has(name)).sort();
    if (written.length === 0) throw new Error('the ingest bench wrote no ingest-<time>.json');
    return JSON.parse(await readFile(path.join(outDir, written[written.length - 1]), 'utf8')) as IngestResult;
  });
  results.follow = await timed('follow', async () => {
    const outDir = path.resolve(values.out);
    const before = new Set(await readdir(outDir).catch(() => [] as string[]));
    await run(['scripts/bench/follow.ts', '--follow-seconds', values['follow-seconds'], '--out', outDir]);
    const written = (await readdir(outDir)).filter((name) => /^follow-.*Z\.json$/.test(name) && !before.has(name)).sort();
    if (written.length === 0) throw new Error('the follow bench wrote no follow-<time>.json');
    return JSON.parse(await readFile(path.join(outDir, written[written.length - 1]), 'utf8')) as FollowResult;
  });
  results.lambda = await timed('lambda', async () => {
    const outDir = path.resolve(values.out);
    const before = new Set(await readdir(outDir).catch(() => [] as string[]));
    await run(['scripts/bench/lambda-follow.ts', '--duration', values['lambda-seconds'], '--out', outDir]);
    const written = (await readdir(outDir)).filter((name) => /^lambda-.*Z\.json$/.test(name) && !before.has(name)).sort();
    if (written.length === 0) throw new Error('the lambda bench wrote no lambda-<time>.json');
    return JSON.parse(await readFile(path.join(outDir, written[written.length - 1]), 'utf8')) as LambdaFollowResult;
  });
  results.load = await timed('load', async () => {
    const { stdout } = await run(['scripts/bench/load.ts', '--duration', values.duration, '--settle', values.settle], {
      allowFailure: true,
    });
    const start = stdout.indexOf('{');
    if (start === -1) throw new Error('the load bench printed no result');
    return JSON.parse(stdout.slice(start)) as LoadResult;
  });
  results.webhooks = await timed('webhooks', async () => {
    const { runWebhooks } = await import('./webhooks');
    return runWebhooks({ log });
  });
  for (const part of PARTS) if (!parts.includes(part)) missing[part] = 'not run (--only)';

  // The chain profiles' datasets (built once per size and item code, in a process of their own): their
  // W1 / W2 need the http mix's read units per page, so only with the http part.
  const profiles: ProfileResult[] = [];
  if (results.http && profileNames.length > 0) {
    log('\n== profiles ==');
    const t0 = performance.now();
    for (const name of profileNames as ProfileName[]) {
      const options = { ...defaultProfileOptions(name), ...(profileBlocks ? { blocks: profileBlocks } : {}) };
      try {
        const { dir, facts, built } = await ensureProfile(options, log);
        profiles.push({ profile: name, dir: path.relative(ROOT, dir), builtThisRun: built, facts });
      } catch (error) {
        log(`profile ${name} failed: ${(error as Error).stack ?? error}`);
        profiles.push({ profile: name, error: `failed: ${(error as Error).message.split('\n')[0].slice(0, 300)}` });
      }
    }
    seconds.profiles = Math.round((performance.now() - t0) / 100) / 10;
  }

  // The cost model: write units and stored bytes per transaction from this run's ingest bench (else the
  // newest ingest result on disk), read units per page from this run's http mix.
  let cost: Report['cost'] = null;
  let workloadCost: Report['workloadCost'] = null;
  const ingestFigures = (results.ingest ?? (await newestIngest(path.resolve(values.out)))) as Parameters<typeof ingestInputs>[0] | null;
  if (ingestFigures && results.http) {
    const source = results.ingest ? 'the ingest bench of this run' : 'the newest ingest-<time>.json in bench/results';
    const fromIngest = ingestInputs(ingestFigures);
    const sources = {
      writes: `${source} (table write units + GSI estimate / transactions)`,
      storage: `${source} (items left x (average item size + 100 B) / transactions)`,
      reads: `the http part (mean read units of one page per list route, ${results.http.requests.filter((request) => request.mix).length} routes)`,
    };
    cost = costModel({ ...fromIngest, readUnitsPerPage: results.http.mixReadUnitsPerPage, sources });
    const dataset = results.http.dataset.generation;
    cost.alternative = {
      basis: `benchmark dataset (scale ${results.http.dataset.scale}, busy-chain shape)`,
      model: costModel({
        writeUnitsPerTransaction: dataset.ingestWriteUnitsPerTransaction,
        storedBytesPerTransaction: fromIngest.storedBytesPerTransaction,
        ...expiringOf(fromIngest),
        readUnitsPerPage: results.http.mixReadUnitsPerPage,
        sources: { ...sources, writes: 'the dataset build (ChainIngest write units / transactions of the two busy chains, table only)' },
      }),
    };
    const ingestBlocks = (ingestFigures.chain as { blocks?: number }).blocks;
    const busyChains = dataset.chains.filter((chain) => chain.transactions >= 100);
    const busyTransactions = busyChains.reduce((sum, chain) => sum + chain.transactions, 0);
    const busyBlocks = busyChains.reduce((sum, chain) => sum + chain.blocks, 0);
    const entries: ProfiledWorkloadCost[] = [
      {
        basis: `the ingest bench chain (${ingestFigures.chain.transactions} transactions)`,
        model: workloadCostModel({ ...fromIngest, readUnitsPerPage: results.http.mixReadUnitsPerPage }),
        profile: {
          name: 'ingest bench chain',
          ...(ingestBlocks ? { transactionsPerBlock: ingestFigures.chain.transactions / ingestBlocks } : {}),
        },
      },
      {
        basis: `the dataset's busy chains (write units of the build; bytes as the ingest bench chain)`,
        model: workloadCostModel({
          writeUnitsPerTransaction: dataset.ingestWriteUnitsPerTransaction,
          storedBytesPerTransaction: fromIngest.storedBytesPerTransaction,
          ...expiringOf(fromIngest),
          readUnitsPerPage: results.http.mixReadUnitsPerPage,
        }),
        profile: { name: "dataset's busy chains", ...(busyBlocks > 0 ? { transactionsPerBlock: busyTransactions / busyBlocks } : {}) },
      },
    ];
    // Each chain profile from its own build: write units, stored bytes and the ingest's reads per transaction.
    for (const { profile, facts } of profiles) {
      if (!facts) continue;
      const profileInputs: WorkloadInputs = {
        writeUnitsPerTransaction: facts.inputs.writeUnitsPerTransaction,
        storedBytesPerTransaction: facts.inputs.storedBytesPerTransaction,
        ...expiringOf(facts.inputs),
        readUnitsPerPage: results.http.mixReadUnitsPerPage,
        ingestReadUnitsPerTransaction: facts.inputs.ingestReadUnitsPerTransaction,
        // The ingest Lambda and the node, as the harness measured them on this shape (issue 35).
        follower: await harnessFollower(path.resolve(values.out), chainOf(profile as ProfileName)),
      };
      // The cold tier's projection (docs/decisions/cold-history.md, step 1), from the bytes by family group.
      const byGroup = Object.fromEntries(Object.entries(facts.writesByFamily.groups).map(([group, row]) => [group, row.bytesStoredPerTx]));
      const familyBytes = (prefix: string): number =>
        facts.writesByFamily.rows.filter((row) => row.family.startsWith(prefix)).reduce((sum, row) => sum + row.bytesStoredPerTx, 0);
      const tierFamilies = { seekChunkBytes: familyBytes('N15 '), manifestBytes: familyBytes('G2 ') };
      // The tier's own figures where the build compacted itself (its bytes in S3, pointers, CPU, reads), else the defaults.
      const measuredTier = facts.coldTier;
      const tierAssumptions = measuredTier ? measuredColdAssumptions(measuredTier) : DEFAULT_COLD_ASSUMPTIONS;
      const coldTier = coldTierProjection(
        profileInputs,
        byGroup,
        facts.shape.transactionsPerBlock.mean,
        tierAssumptions,
        tierFamilies,
        measuredTier,
      );
      entries.push({
        coldTier,
        basis: `the ${profile} chain profile (${facts.shape.transactions} transactions in ${facts.shape.blocks} blocks; write units, stored bytes and ingest reads of its build)`,
        model: workloadCostModel(
          profileInputs,
          measuredTier
            ? (workload) => coldTierWindowOptions(workload, profileInputs, byGroup, coldTier.assumptions, measuredTier, tierFamilies)
            : undefined,
        ),
        profile: {
          name: profile,
          transactionsPerBlock: facts.shape.transactionsPerBlock.mean,
          itemsWrittenPerTransaction: facts.inputs.itemsWrittenPerTransaction,
        },
      });
    }
    workloadCost = entries;
  }

  const budgets: Budget[] = [
    ...(results.http ? httpBudgets(results.http) : []),
    ...(results.cold ? coldBudgets(results.cold) : []),
    ...(results.ingest ? ingestBudgets(results.ingest) : []),
    ...(results.follow ? followBudgets(results.follow) : []),
    ...(results.lambda ? lambdaBudgets(results.lambda) : []),
    ...(results.load ? loadBudgets(results.load) : []),
    ...(results.webhooks ? webhooksBudgets(results.webhooks) : []),
  ];
  seconds.total = Math.round((performance.now() - started) / 100) / 10;
  const report = buildReport({
    date: startedAt.toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? '?',
      memoryGb: Math.round(os.totalmem() / 1024 ** 3),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    seconds,
    parts: results,
    missing: Object.fromEntries(Object.entries(missing).filter(([, why]) => !why.startsWith('not run'))) as Report['missing'],
    cost,
    workloadCost,
    profiles: profiles.length > 0 ? profiles : null,
    budgets,
  });
  const files = await writeReport(report, path.resolve(values.out));
  const failedFamilies = report.summary.byFamily.filter((family) => family.failed > 0);
  log(`\n${report.pass ? 'PASS' : 'FAIL'}: ${report.summary.failed} of ${report.summary.budgets} budgets broken`);
  for (const family of failedFamilies) log(`  ${family.failed}/${family.total} ${family.family}`);
  if (cost)
    log(
      `cost per day: writes $${cost.perDayUsd.writes}, reads $${cost.perDayUsd.reads}, storage $${cost.perDayUsd.storage} (total $${cost.perDayUsd.total})`,
    );
  for (const entry of workloadCost ?? []) {
    const { W1, W2 } = entry.model.workloads;
    const line = (id: string, workload: typeof W1) =>
      `${id} $${workload.cheapest.perDayUsd.total.toFixed(2)} a day (default $${workload.defaultOption.perDayUsd.total.toFixed(2)}; goal $${workload.goalUsdPerDay}: ${workload.meetsGoal ? 'met' : 'NOT MET'})`;
    log(`${entry.profile?.name ?? entry.basis}: ${line('W1', W1)}, ${line('W2', W2)}`);
    const projected = (id: string, pointers: number, growth: number) =>
      entry.coldTier?.days.find((day) => day.workload === id && day.pointersPerTransaction === pointers && day.stateGrowth === growth)
        ?.perDayUsd.total;
    if (entry.coldTier) {
      log(
        `  with the cold tier (as built, opt-in with coldAfterDays; ${entry.coldTier.measured ? 'compaction measured on the build' : 'projected, not measured'}; 1 pointer a transaction): W1 $${projected('W1', 1, 1)} (state growth 1) to $${projected('W1', 1, 0.1)} (0.1), W2 $${projected('W2', 1, 1)} to $${projected('W2', 1, 0.1)}`,
      );
      log(
        `  by window at a deployed job's pointers and state growth ${ESTIMATED_STATE_GROWTH} (above public figures' 0.03-0.13): ${entry.coldTier.windows
          .filter((day) => day.stateGrowth === ESTIMATED_STATE_GROWTH)
          .map((day) => `${day.workload} ${day.afterDays}+${day.marginDays} d $${day.perDayUsd.total.toFixed(2)}`)
          .join(', ')}`,
      );
    }
  }
  log(`written: ${files.map((file) => path.relative(ROOT, file)).join(', ')}`);
  process.exitCode = report.pass ? 0 : 1;
}

/** Runs a TypeScript script of the repository with tsx; stderr passes through, stdout is returned. */
function run(args: string[], options: { allowFailure?: boolean } = {}): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_NO_WARNINGS: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 || options.allowFailure) resolve({ stdout, code: code ?? 1 });
      else reject(new Error(`${args[0]} exited with ${code}`));
    });
  });
}

/** The expiring part of stored bytes (items with a TTL: the manifests) and its retention, when a figure has them. */
function expiringOf(inputs: {
  expiringBytesPerTransaction?: number;
  expiringRetentionDays?: number;
  expiringBytesByDays?: Record<string, number>;
}) {
  return inputs.expiringBytesPerTransaction
    ? {
        expiringBytesPerTransaction: inputs.expiringBytesPerTransaction,
        expiringRetentionDays: inputs.expiringRetentionDays,
        ...(inputs.expiringBytesByDays ? { expiringBytesByDays: inputs.expiringBytesByDays } : {}),
      }
    : {};
}

/**
 * The ingest's CPU and node calls per transaction on chain profile `profile`, from the newest Lambda
 * harness result in `dir` that ran it (`npm run bench:lambda -- --chain base`) with the deployed flags
 * (not BENCH_LAMBDA_NODE_FLAGS) against dynalite (not the stand-in table, which measures the follower's
 * ceiling: issue 34), or undefined.
 */
async function harnessFollower(dir: string, profile: string): Promise<WorkloadInputs['follower']> {
  const files = (await readdir(dir).catch(() => [] as string[]))
    .filter((name) => /^lambda-.*Z\.json$/.test(name))
    .sort()
    .reverse();
  for (const file of files) {
    const result = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as {
      chain?: { profile?: string };
      ingestCpuMsPerTransaction?: number;
      nodeCallsPerTransaction?: number;
      cost?: { deployed?: { inputs?: LambdaCostInputs } };
      settings?: { extraNodeFlags?: string | null; table?: string };
    };
    // (A run with flags beyond the deployed ones is an experiment, not what the stack deploys; a run on the stand-in measures a ceiling.)
    if (result.chain?.profile !== profile || result.settings?.extraNodeFlags || result.settings?.table === 'stand-in') continue;
    const deployed = result.cost?.deployed?.inputs;
    if (typeof result.ingestCpuMsPerTransaction !== 'number' || typeof result.nodeCallsPerTransaction !== 'number' || !deployed)
      return undefined;
    return {
      cpuMsPerTransaction: result.ingestCpuMsPerTransaction,
      nodeCallsPerTransaction: result.nodeCallsPerTransaction,
      deployed,
      source: `the Lambda harness, ${file}`,
    };
  }
  return undefined;
}

async function newestIngest(dir: string): Promise<unknown> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((name) => /^ingest-.*Z\.json$/.test(name)).sort();
  return files.length > 0 ? JSON.parse(await readFile(path.join(dir, files[files.length - 1]), 'utf8')) : null;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
