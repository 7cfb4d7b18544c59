/**
 * `npx tsx scripts/bench/cold.ts [--processes 20]` (or `npm run bench -- --only cold`): the cold start
 * of every HTTP function. Each distinct handler module of the route table (and the fallback that
 * answers unknown routes) is bundled as the CDK stack bundles it (lib/api-function.ts: esbuild, one
 * minified ESM file, the Lambdas' target (BUNDLE_TARGET), source map beside it, the AWS SDK bundled in, the `require` banner, the
 * module aliases), then imported in --processes fresh Node processes with the function's environment (NODE_OPTIONS
 * --enable-source-maps as deployed; --no-source-maps without): import time is the median over those processes minus the median
 * of importing an empty module the same way. The scheduled jobs' bundles are measured too and
 * reported apart (no request waits on them).
 */
import { spawn } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { BUNDLE_ALIASES, BUNDLE_TARGET, ESM_REQUIRE_BANNER } from '../../lib/api-function';
import { consumers, jobs, queues } from '../../shared/jobs';
import { FALLBACK_HANDLER, routes } from '../../shared/routes';
import { median } from './lib/measure';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = fileURLToPath(import.meta.url);

export interface BundleFigure {
  /** Route ids served by this module (or the job id). */
  functions: string[];
  handler: string;
  kind: 'route' | 'job';
  bytes: number;
  mapBytes: number;
  importMs: { median: number; min: number; max: number; overEmpty: number };
}

export interface ColdResult {
  processes: number;
  /** NODE_OPTIONS=--enable-source-maps, as the stack deploys the functions. */
  sourceMaps: boolean;
  emptyModuleMs: number;
  bundles: BundleFigure[];
  routes: { count: number; medianBytes: number; medianOverEmptyMs: number; maxOverEmptyMs: number; slowest: string };
  /**
   * The floor (lib/sdk-floor.ts): only the DynamoDB document client, bundled as the routes are. Its import
   * time over an empty module is the least any route can cost; `routes.medianOverFloorMs` is what the
   * service's own code adds on top.
   */
  sdkFloor: { bytes: number; overEmptyMs: number };
  seconds: number;
}

const IMPORTER = `const started = performance.now();
await import(process.argv[2]);
process.stdout.write(String(performance.now() - started));
`;

export async function runCold(
  options: { processes?: number; sourceMaps?: boolean; log?: (line: string) => void; outDir?: string } = {},
): Promise<ColdResult> {
  const processes = options.processes ?? 20;
  const sourceMaps = options.sourceMaps ?? true;
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const outDir = options.outDir ?? path.join(ROOT, '.bench', 'cold');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const importer = path.join(outDir, 'importer.mjs');
  await writeFile(importer, IMPORTER);
  const empty = path.join(outDir, 'empty.mjs');
  await writeFile(empty, 'export {};\n');

  const modules = new Map<string, { functions: string[]; kind: 'route' | 'job' }>();
  for (const route of routes) {
    const entry = modules.get(route.handler) ?? { functions: [], kind: 'route' as const };
    entry.functions.push(route.id);
    modules.set(route.handler, entry);
  }
  modules.set(FALLBACK_HANDLER, { functions: ['<api>RouteNotFound'], kind: 'route' });
  for (const job of jobs) modules.set(job.handler, { functions: [job.id], kind: 'job' });
  for (const consumer of consumers) modules.set(consumer.handler, { functions: [consumer.id], kind: 'job' });

  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'cold',
    AWS_SECRET_ACCESS_KEY: 'cold',
    TABLE_NAME: 'chain-data',
    POWERTOOLS_SERVICE_NAME: 'chain-data-api',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    DYNAMODB_ENDPOINT: '',
    CHAIN_ID: '31337',
    RPC_URL_PARAMETER: '/chain-data-api/rpc/31337',
    // The cold tier's settings, as the stack sets them with it on (the job reads them at import).
    COLD_BUCKET: 'chain-data-cold-history',
    COLD_AFTER_DAYS: '30',
    // Every queue's URL, as the stack sets them (a consumer reads its own at import: MatchWebhooks' deliveries).
    ...Object.fromEntries(
      queues.map((queue) => [
        queue.urlVariable,
        `https://sqs.us-east-1.amazonaws.com/123456789012/${queue.id}${queue.fifo === false ? '' : '.fifo'}`,
      ]),
    ),
    NODE_OPTIONS: sourceMaps ? '--enable-source-maps' : '',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const importTimes = async (file: string): Promise<number[]> => {
    const times: number[] = [];
    for (let run = 0; run < processes; run += 1) times.push(await timeImport(importer, file, env));
    return times;
  };
  const emptyTimes = await importTimes(empty);
  const emptyMs = median(emptyTimes);
  log(`cold: empty module ${emptyMs.toFixed(1)} ms (median of ${processes})`);

  const bundleOf = async (entryPoint: string, name: string): Promise<string> => {
    const outfile = path.join(outDir, name, 'index.mjs');
    await build({
      entryPoints: [entryPoint],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: BUNDLE_TARGET,
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      mainFields: ['module', 'main'],
      banner: { js: ESM_REQUIRE_BANNER },
      alias: { ...BUNDLE_ALIASES },
      tsconfig: path.join(ROOT, 'tsconfig.json'),
      logLevel: 'error',
    });
    return outfile;
  };

  const floorFile = await bundleOf(path.join(ROOT, 'scripts/bench/lib/sdk-floor.ts'), 'sdk-floor');
  const floorMs = round(median(await importTimes(floorFile)) - emptyMs);
  log(`cold: SDK floor (the DynamoDB document client alone) ${floorMs} ms over empty`);

  const bundles: BundleFigure[] = [];
  for (const [handler, entry] of modules) {
    const name = handler
      .replace(/^functions\//, '')
      .replace(/\.ts$/, '')
      .replace(/\//g, '-');
    const outfile = await bundleOf(path.join(ROOT, handler), name);
    const times = await importTimes(outfile);
    const figure: BundleFigure = {
      functions: entry.functions,
      handler,
      kind: entry.kind,
      bytes: (await stat(outfile)).size,
      mapBytes: (await stat(`${outfile}.map`)).size,
      importMs: {
        median: round(median(times)),
        min: round(Math.min(...times)),
        max: round(Math.max(...times)),
        overEmpty: round(median(times) - emptyMs),
      },
    };
    bundles.push(figure);
    log(`cold: ${handler}: ${(figure.bytes / 1024).toFixed(0)} KB, import ${figure.importMs.overEmpty} ms over empty`);
  }
  const routeBundles = bundles.filter((bundle) => bundle.kind === 'route');
  const slowest = routeBundles.reduce((a, b) => (b.importMs.overEmpty > a.importMs.overEmpty ? b : a));
  return {
    processes,
    sourceMaps,
    emptyModuleMs: round(emptyMs),
    bundles,
    routes: {
      count: routeBundles.length,
      medianBytes: Math.round(median(routeBundles.map((bundle) => bundle.bytes))),
      medianOverEmptyMs: round(median(routeBundles.map((bundle) => bundle.importMs.overEmpty))),
      maxOverEmptyMs: slowest.importMs.overEmpty,
      slowest: slowest.handler,
    },
    sdkFloor: { bytes: (await stat(floorFile)).size, overEmptyMs: floorMs },
    seconds: round((performance.now() - started) / 1000),
  };
}

/** Import time of `file` in a fresh Node process, measured inside it (process start excluded). */
function timeImport(importer: string, file: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [importer, file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const ms = Number(out.trim());
      if (code === 0 && Number.isFinite(ms)) resolve(ms);
      else reject(new Error(`importing ${file} failed (exit ${code}): ${err.slice(0, 500)}`));
    });
  });
}

const round = (value: number): number => Math.round(value * 10) / 10;

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const { values } = parseArgs({
    options: { processes: { type: 'string', default: '20' }, 'no-source-maps': { type: 'boolean', default: false } },
  });
  runCold({ processes: Number(values.processes), sourceMaps: !values['no-source-maps'], log: (line) => console.error(line) }).then(
    (result) => {
      console.log(JSON.stringify(result, null, 2));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
