/**
 * `npm start` with its local chain, as a developer runs it: the real entry (tsx scripts/start.ts) as a
 * child process on free ports with a temporary DATA_DIR. It must print the three URLs, the chain and
 * the demo addresses, serve the demo data, keep adding blocks (the activity ticker), and on SIGTERM
 * stop everything, anvil included, saving the chain state.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';

let child: ChildProcess | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  if (child?.pid && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Pids of the anvil processes listening on `port` (read from /proc: Linux). */
async function anvilPidsOnPort(port: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const args = cmdline.split('\0');
    if (args[0]?.endsWith('anvil') && args.includes('--port') && args[args.indexOf('--port') + 1] === port) pids.push(Number(entry));
  }
  return pids;
}

it('npm start runs the demo chain: prints URLs, chain and addresses, serves the data, follows new blocks, and stops anvil on SIGTERM', async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'start-chain-test-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    ORDERS_PORT: '0',
    COLLECTIONS_PORT: '0',
    DYNAMODB_PORT: '0',
    ANVIL_PORT: '0',
    DATA_DIR: dataDir,
    TABLE_NAME: 'start-chain-test',
    LOG_REQUESTS: '1',
    DEMO_ACTIVITY_INTERVAL_MS: '500',
  };
  for (const name of ['RPC_URL', 'CHAIN_ID', 'START_BLOCK', 'DYNAMODB_ENDPOINT', 'EXPLORER_CHAIN_ID']) delete env[name];
  child = spawn(path.join(REPOSITORY_ROOT, 'node_modules/.bin/tsx'), ['scripts/start.ts'], {
    cwd: REPOSITORY_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 90_000;
  while (!output.includes('Ctrl-C stops.')) {
    if (child.exitCode !== null) throw new Error(`start.ts exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`start.ts did not get ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // The three URLs, the chain and the demo addresses with curl lines.
  const url = (label: string) => new RegExp(`${label}\\s+(http://127\\.0\\.0\\.1:\\d+)`).exec(output)?.[1];
  const base = url('explorer \\+ insights');
  expect(base).toBeDefined();
  expect(url('orders')).toBeDefined();
  expect(url('collections')).toBeDefined();
  const chainLine = /Local chain: anvil (http:\/\/127\.0\.0\.1:(\d+))\s+chain id 31337/.exec(output);
  expect(chainLine).not.toBeNull();
  const anvilPort = chainLine![2];
  const busy = /busy account (0x[0-9a-fA-F]{40})/.exec(output)?.[1];
  expect(busy).toBeDefined();
  expect(output).toMatch(/DemoToken \(ERC-20\) 0x[0-9a-fA-F]{40}/);
  const curl = new RegExp(`curl -s '(${base}/explorer/addresses/${busy!.toLowerCase()}/transactions)'`).exec(output);
  expect(curl).not.toBeNull();

  // A printed curl line answers with the busy address's transactions.
  const response = await fetch(curl![1]);
  expect(response.status).toBe(200);
  const page = (await response.json()) as { items: { from: { hash: string } }[] };
  expect(page.items).toHaveLength(50);
  await expect.poll(() => output).toMatch(/GET base\/explorer\/addresses\/0x[0-9a-f]{40}\/transactions -> 200/);

  // The ticker keeps adding blocks, and they are served.
  const newest = async () => {
    const blocks = (await (await fetch(`${base}/insights/v1/blocks?chain_id=31337&sort_order=desc&limit=1`)).json()) as {
      data: { block_number: number }[];
    };
    return blocks.data[0].block_number;
  };
  const first = await newest();
  await expect.poll(newest, { timeout: 5_000, interval: 200 }).toBeGreaterThan(first);

  const anvils = await anvilPidsOnPort(anvilPort);
  expect(anvils).toHaveLength(1);
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await exited;
  expect(code).toBe(0);
  expect(output).toContain('Stopped');
  expect(await anvilPidsOnPort(anvilPort)).toEqual([]);
  expect(() => process.kill(anvils[0], 0)).toThrow();
  await expect(fetch(chainLine![1], { method: 'POST', body: '{}' })).rejects.toThrow();
  expect(await readdir(dataDir)).toContain('anvil-state.json');
}, 120_000);
