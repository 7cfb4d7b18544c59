/**
 * The service exactly as `npm start` runs it, for tests that drive it as a user would (the published
 * clients): the real entry (`node --import tsx scripts/start.ts`) as a child process, on free loopback ports, with a
 * temporary DATA_DIR, the demo chain on anvil, its activity ingested and order deposit detection
 * listening. Resolves once it prints its three base URLs; `stop()` sends SIGTERM and removes the data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import type { DemoManifest } from '../../scripts/lib/demo-activity';
import { DEMO_MANIFEST_FILE } from '../../scripts/lib/local-chain';
import type { ApiName } from '../../shared/http/groups';

export interface NpmStartService {
  urls: Record<ApiName, string>;
  /** anvil's JSON-RPC URL. */
  rpcUrl: string;
  /** What the demo activity sent (contracts, accounts, transactions), as saved in DATA_DIR. */
  demo: DemoManifest;
  /** DATA_DIR: a temporary folder, removed by `stop()` unless `keepDataDir` was given. */
  dataDir: string;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM, then waits for the exit; resolves to the exit code (null when it was killed). */
  stop(): Promise<number | null>;
}

const READY_LINE = 'Ctrl-C stops.';

export async function startNpmStart(
  options: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number; keepDataDir?: boolean } = {},
): Promise<NpmStartService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'npm-start-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    ORDERS_PORT: '0',
    COLLECTIONS_PORT: '0',
    DYNAMODB_PORT: '0',
    ANVIL_PORT: '0',
    DATA_DIR: dataDir,
    TABLE_NAME: 'npm-start',
    LOG_REQUESTS: '1',
  };
  // What a test file set for its own in-process table must not leak into the service.
  for (const name of ['RPC_URL', 'CHAIN_ID', 'START_BLOCK', 'DYNAMODB_ENDPOINT', 'EXPLORER_CHAIN_ID']) delete env[name];
  Object.assign(env, options.env);

  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    // what npm start runs
    cwd: REPOSITORY_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    }
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    return child.exitCode;
  };

  try {
    const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
    while (!output.includes(READY_LINE)) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm start did not get ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const url = (label: string) => {
      const found = new RegExp(`${label}\\s+(http://127\\.0\\.0\\.1:\\d+)`).exec(output)?.[1];
      if (!found) throw new Error(`npm start printed no ${label} URL:\n${output}`);
      return found;
    };
    const rpcUrl = /Local chain: anvil (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    if (!rpcUrl) throw new Error(`npm start printed no local chain:\n${output}`);
    const demo = JSON.parse(await readFile(path.join(dataDir, DEMO_MANIFEST_FILE), 'utf8')) as { manifest: DemoManifest };
    return {
      urls: { base: url('explorer \\+ insights'), orders: url('orders'), collections: url('collections') },
      rpcUrl,
      dataDir,
      demo: demo.manifest,
      output: () => output,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
