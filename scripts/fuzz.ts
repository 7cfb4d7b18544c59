/**
 * Generated bad input, any size (issue 10): the generators and the property of test/support/fuzz.ts
 * run against a local service started for the run (embedded DynamoDB in memory, the three base URLs on
 * free 127.0.0.1 ports; the demo chain ingested unless --without-chain), most requests in process through `dispatch`, a share over a raw socket.
 *
 *   npm run fuzz -- [--runs N] [--seed S] [--group explorer|insights|orders|collections]... [--path P] [--http-share 0.15]
 *
 * Prints per group the runs, the statuses seen and, for a failure, its seed, path and shrunk request;
 * `--group G --seed S --path P` replays it. Exit code 1 when a group failed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path_ from 'node:path';
import { parseArgs } from 'node:util';
import type { GroupReport } from '../test/support/fuzz';
import { runCli, usageError } from './lib/cli';

const USAGE = `usage: npm run fuzz -- [--runs N] [--seed S] [--group G]... [--path P] [--http-share X] [--concurrency C] [--without-chain]
  --runs N        requests per group (default 1000)
  --seed S        fast-check seed (default: random, printed)
  --group G       explorer, insights, orders or collections; repeat for several (default: all four)
  --path P        replay a failure's path (with its --group and --seed)
  --http-share X  share of requests sent over HTTP to the local gateway, 0 to 1 (default 0.15)
  --concurrency C then the same number of requests again, all over HTTP, C at a time (default 32; 0: none)
  --without-chain skip the demo chain (anvil) ingested first for explorer and insights to read`;

const fail = (message: string) => usageError('fuzz', USAGE, message);

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        runs: { type: 'string', default: '1000' },
        seed: { type: 'string' },
        group: { type: 'string', multiple: true },
        path: { type: 'string' },
        'http-share': { type: 'string', default: '0.15' },
        concurrency: { type: 'string', default: '32' },
        'without-chain': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return fail((error as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const runs = Number(values.runs);
  if (!Number.isSafeInteger(runs) || runs < 1) return fail('--runs must be a positive whole number');
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isSafeInteger(seed)) return fail('--seed must be a whole number');
  const httpShare = Number(values['http-share']);
  if (!(httpShare >= 0 && httpShare <= 1)) return fail('--http-share must be from 0 to 1');
  const concurrency = Number(values.concurrency);
  if (!Number.isSafeInteger(concurrency) || concurrency < 0 || concurrency > 1024) return fail('--concurrency must be from 0 to 1024');

  // Handlers log only what they did not handle (the cause of a 500); before any module reads it.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.AWS_REGION ??= 'us-east-1';
  const { FUZZ_GROUPS, fuzzConcurrently, fuzzGroup, ingestDemoChain, seedExamples } = await import('../test/support/fuzz');
  const groups = values.group ?? [...FUZZ_GROUPS];
  const unknown = groups.filter((group) => !(FUZZ_GROUPS as readonly string[]).includes(group));
  if (unknown.length > 0) return fail(`unknown group ${unknown.join(', ')} (one of ${FUZZ_GROUPS.join(', ')})`);
  if (values.path !== undefined && groups.length !== 1) return fail('--path replays one group: give one --group');

  // The contract check of the test suite: every 2xx body against its route's schema, every error body
  // against its group's format (a violation fails the request).
  await import('../test/support/contract');
  const { startLocalService } = await import('./lib/gateway');
  const { localClient } = await import('./lib/local-table/ensure-table');
  const { scanItems } = await import('./lib/local-table/scan');

  const service = await startLocalService({
    tableName: 'fuzz',
    onHandlerError: (error, entry) => console.error(`[gateway] ${entry.method} ${entry.url.slice(0, 200)}:`, error),
  });
  const client = localClient(service.dynamodbEndpoint);
  const snapshot = async () =>
    (await scanItems(client, service.tableName)).sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
  const reports: GroupReport[] = [];
  const failedTogether: string[] = [];
  let stopChain: () => Promise<void> = async () => undefined;
  let chainIngested = false;
  try {
    await seedExamples();
    console.log(`fuzz: ${runs} runs per group, seed ${seed}, ${Math.round(httpShare * 100)}% over HTTP (${service.urls.base}, ...)`);
    // The groups with write routes first: a rejected write is checked by scanning the whole table, which
    // the chain's items would make slow; the chain is ingested for explorer and insights only.
    const ordered = [...groups].sort((a, b) => Number(readsChain(a)) - Number(readsChain(b))) as (typeof FUZZ_GROUPS)[number][];
    for (const group of ordered) {
      if (readsChain(group) && !values['without-chain'] && !chainIngested) {
        const started = performance.now();
        stopChain = await ingestDemoChain();
        chainIngested = true;
        console.log(`(demo chain ingested in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
      }
      const report = await fuzzGroup(
        group,
        { urls: service.urls, snapshot, timeoutMs: 15_000 },
        { runs, seed, path: values.path, httpShare },
      );
      reports.push(report);
      printReport(report);
      // The same generators again, many requests in flight at once through the gateway (no replay: they ran together).
      if (concurrency > 0 && values.path === undefined) {
        const together = await fuzzConcurrently(group, { urls: service.urls, snapshot, timeoutMs: 30_000 }, { runs, seed, concurrency });
        const statuses = Object.entries(together.statuses)
          .map(([status, count]) => `${status}x${count}`)
          .join(' ');
        console.log(
          `${''.padEnd(12)} ${together.runs} more, ${concurrency} at a time over HTTP, in ${(together.ms / 1000).toFixed(1)} s; statuses ${statuses}`,
        );
        for (const failure of together.failures) console.log(`  FAILED at once: ${failure.error}\n  request: ${failure.request}`);
        if (together.failures.length > 0) failedTogether.push(group);
      }
    }
  } finally {
    client.destroy();
    await stopChain();
    await service.stop();
  }
  const failed = [...new Set([...reports.filter((report) => report.failure).map((report) => report.group), ...failedTogether])];
  console.log(failed.length === 0 ? 'fuzz: every group passed' : `fuzz: ${failed.length} group(s) failed: ${failed.join(', ')}`);
  return failed.length === 0 ? 0 : 1;
}

const readsChain = (group: string) => group === 'explorer' || group === 'insights';

function printReport(report: GroupReport): void {
  const statuses = Object.entries(report.statuses)
    .map(([status, count]) => `${status}x${count}`)
    .join(' ');
  console.log(
    `${report.group.padEnd(12)} runs ${report.runs} (${report.http} over HTTP) in ${(report.ms / 1000).toFixed(1)} s; statuses ${statuses}`,
  );
  if (report.failure) {
    const { seed, path, request, error } = report.failure;
    console.log(`  FAILED: ${error}`);
    console.log(`  request: ${request}`);
    console.log(`  replay:  npm run fuzz -- --group ${report.group} --seed ${seed} --path ${path}`);
    const file = path_.join('.scratch-fuzz', `${report.group}-${seed}.json`);
    mkdirSync(path_.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(report.failure.full, null, 2)}\n`);
    console.log(`  the whole request: ${file}`);
  }
}

runCli(main);
