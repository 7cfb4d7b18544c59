/**
 * `npm start` with its local chain, as a developer runs it: the real entry (`node --import tsx scripts/start.ts`) as a
 * child process on free ports with a temporary DATA_DIR. It must print the three URLs, the chain and
 * the demo addresses, serve the demo data, keep adding blocks (the activity ticker), and on SIGTERM
 * stop everything, anvil included, saving the chain state.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { afterAll, expect, it } from 'vitest';
import { type NpmStartService, startNpmStart } from '../support/npm-start';

let service: NpmStartService | undefined;

afterAll(async () => {
  await service?.stop();
  if (service) await rm(service.dataDir, { recursive: true, force: true });
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
  service = await startNpmStart({ keepDataDir: true, env: { TABLE_NAME: 'start-chain-test', DEMO_ACTIVITY_INTERVAL_MS: '500' } });
  const started = service;
  const output = started.output();
  const dataDir = service.dataDir;

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
  await expect.poll(() => started.output()).toMatch(/GET base\/explorer\/addresses\/0x[0-9a-f]{40}\/transactions -> 200/);

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
  expect(await started.stop()).toBe(0);
  expect(started.output()).toContain('Stopped');
  expect(await anvilPidsOnPort(anvilPort)).toEqual([]);
  expect(() => process.kill(anvils[0], 0)).toThrow();
  await expect(fetch(chainLine![1], { method: 'POST', body: '{}' })).rejects.toThrow();
  expect(await readdir(dataDir)).toContain('anvil-state.json');
}, 120_000);
