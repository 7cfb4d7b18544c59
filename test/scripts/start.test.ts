/**
 * `npm start` as a developer runs it: a real process that prints its URLs, answers on them, logs one
 * line per request and stops cleanly on SIGTERM, leaving its data folder unlocked and flushed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { localClient } from '../../scripts/lib/local-table/ensure-table';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';

const children: ChildProcess[] = [];
const folders: string[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** Starts `scripts/start.ts` on free ports; resolves once it has printed that it is ready. */
async function startScript(dataDir: string): Promise<{ child: ChildProcess; output: () => string; urls: Record<string, string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: REPOSITORY_ROOT,
    env: {
      ...process.env,
      PORT: '0',
      ORDERS_PORT: '0',
      COLLECTIONS_PORT: '0',
      DYNAMODB_PORT: '0',
      DATA_DIR: dataDir,
      TABLE_NAME: 'start-test',
      LOG_REQUESTS: '1',
      ANVIL_PORT: '0',
      DEMO_ACTIVITY_INTERVAL_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  // Deploying the demo takes seconds alone, far longer on a machine busy with other test files.
  const deadline = Date.now() + 120_000;
  while (!text.includes('Ctrl-C stops.')) {
    if (child.exitCode !== null) throw new Error(`start.ts exited with ${child.exitCode}:\n${text}`);
    if (Date.now() > deadline) throw new Error(`start.ts did not get ready:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = (label: string) => new RegExp(`${label}\\s+(http://\\S+)`).exec(text)?.[1] ?? '';
  return {
    child,
    output: () => text,
    urls: { base: url('insights'), orders: url('orders'), collections: url('collections'), dynamodb: url('DynamoDB') },
  };
}

describe('npm start (scripts/start.ts)', () => {
  it('prints the three URLs and the DynamoDB endpoint, serves requests, and stops cleanly on SIGTERM', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'start-test-'));
    folders.push(dataDir);
    const { child, output, urls } = await startScript(dataDir);

    for (const url of Object.values(urls)) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output()).toContain(`DYNAMODB_ENDPOINT=${urls.dynamodb} TABLE_NAME=start-test`);
    // Each base URL's reference page is printed and served.
    for (const base of [urls.base, urls.orders, urls.collections]) {
      expect(output()).toContain(`${base}/docs`);
      const page = await fetch(`${base}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    }

    const response = await fetch(`${urls.orders}/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ success: false, message: 'No route for GET /nothing', statusCode: 404 });
    const client = localClient(urls.dynamodb);
    const tables = await client.send(new ListTablesCommand({}));
    client.destroy();
    expect(tables.TableNames).toContain('start-test');
    await expect.poll(() => output()).toContain('GET orders/nothing -> 404');

    const exited = once(child, 'exit');
    process.kill(child.pid!, 'SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(output()).toContain('Stopped');
    expect(await readdir(dataDir)).not.toContain('service.pid');
    expect(await readdir(path.join(dataDir, 'dynamodb'))).toContain('CURRENT');
  }, 300_000);

  it('refuses to start on a data folder another instance holds, with a message saying so', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'start-test-'));
    folders.push(dataDir);
    const first = await startScript(dataDir);
    const second = await startScript(dataDir).catch((error: Error) => error);
    expect(second).toBeInstanceOf(Error);
    expect((second as Error).message).toMatch(/is in use by process \d+/);
    const exited = once(first.child, 'exit');
    process.kill(first.child.pid!, 'SIGTERM');
    expect((await exited)[0]).toBe(0);
  }, 300_000);
});
