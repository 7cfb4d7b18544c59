/**
 * The benchmark dataset's build can stop and carry on (scripts/bench/dataset/progress.ts): the
 * full-scale build outlasts a working session. A build stopped while it ingests the chains leaves its
 * progress on disk; the next build on the folder carries on from the ingest's cursor and ends with
 * the same dataset a build in one go writes: every block of every chain, every collection and order
 * once, figures over both processes.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { datasetSpec } from '../../../../scripts/bench/dataset/spec';
import {
  chainTotals,
  readProgress,
  saveProgress,
  writeUnitsPerTransaction,
  type BuildProgress,
  type ChainSegment,
} from '../../../../scripts/bench/dataset/progress';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BUILD = path.join(ROOT, 'scripts/bench/dataset/build.ts');
const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});
const folder = async (): Promise<string> => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dataset-'));
  folders.push(dir);
  return dir;
};

const segment = (fromBlock: number, toBlock: number, transactions: number, writeUnits: number): ChainSegment => ({
  fromBlock,
  toBlock,
  transactions,
  seconds: 10,
  writeUnits,
  calls: 100,
});

describe('dataset build progress', () => {
  it('carries on only a build of the same item code whose collections and orders are done', async () => {
    const dir = await folder();
    expect(readProgress(dir, 'k1').mode).toBe('fresh');
    const progress: BuildProgress = { key: 'k1', scale: 1, startedAt: '2026-11-26T00:00:00Z', seconds: 5, chains: {} };
    await saveProgress(dir, progress);
    // Collections and orders not done: their ids and positions cannot be carried on; start over.
    expect(readProgress(dir, 'k1').mode).toBe('fresh');
    await saveProgress(dir, { ...progress, collections: { facts: {}, seconds: 1 }, orders: { facts: {}, seconds: 1 } });
    expect(readProgress(dir, 'k1')).toMatchObject({ mode: 'resume', progress: { seconds: 5 } });
    // Another item code: another dataset.
    expect(readProgress(dir, 'k2').mode).toBe('fresh');
  });

  it('saves whole progress files when saves overlap', async () => {
    const dir = await folder();
    const base: BuildProgress = { key: 'k1', scale: 1, startedAt: '2026-11-26T00:00:00Z', seconds: 0, chains: {} };
    await Promise.all(Array.from({ length: 8 }, (_, index) => saveProgress(dir, { ...base, seconds: index })));
    const saved = JSON.parse(readFileSync(path.join(dir, 'progress.json'), 'utf8')) as BuildProgress;
    expect(saved.key).toBe('k1');
    expect(readdirSync(dir)).toEqual(['progress.json']);
  });

  it('counts write units per transaction over the blocks measured, not over the chain', () => {
    // Blocks 41-50 were written by a stopped build after its last snapshot: in no segment.
    const segments = [segment(1, 40, 400, 8000), segment(51, 100, 500, 10_000)];
    expect(chainTotals(segments)).toEqual({ seconds: 20, writeUnits: 18_000, calls: 200, measuredTransactions: 900, measuredBlocks: 90 });
    expect(writeUnitsPerTransaction([{ segments }, { segments: [segment(1, 10, 100, 3000)] }])).toBe(21_000 / 1000);
    expect(writeUnitsPerTransaction([{ segments: [] }])).toBe(0);
  });
});

const run = (dir: string, onLine?: (line: string, child: ReturnType<typeof spawn>) => void) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', BUILD, '--scale', '0.001', '--dir', dir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR', NODE_NO_WARNINGS: '1' },
    });
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of chunk.toString().split('\n')) onLine?.(line, child);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });

describe('a dataset build stopped while it ingests the chains', () => {
  it('carries on from the cursor and ends with the whole dataset', { timeout: 240_000 }, async () => {
    const dir = await folder();
    const spec = datasetSpec(0.001);
    // Stopped (as by Ctrl-C) once a chain is done and the explorer's chain is part way.
    let stopped = false;
    const first = await run(dir, (line, child) => {
      if (!stopped && /chain \d+: .* blocks in/.test(line)) {
        stopped = true;
        child.kill('SIGINT');
      }
    });
    expect(first.code, first.output.slice(-4000)).toBe(130);
    expect(existsSync(path.join(dir, 'dataset.json'))).toBe(false);
    const saved = JSON.parse(readFileSync(path.join(dir, 'progress.json'), 'utf8')) as BuildProgress;
    expect(saved.collections).toBeDefined();
    expect(saved.orders).toBeDefined();
    const explorer = saved.chains[String(spec.chains[0]!.chainId)];
    expect(explorer?.done).toBe(false);

    const second = await run(dir);
    expect(second.code, second.output.slice(-4000)).toBe(0);
    expect(second.output).toContain('carrying on the build started');
    // Collections and orders were not written again.
    expect(second.output).not.toMatch(/\d+ orders in/);
    const facts = JSON.parse(readFileSync(path.join(dir, 'dataset.json'), 'utf8'));
    expect(facts.generation.builds).toBe(2);
    expect(facts.collections.count).toBe(spec.collections);
    expect(facts.orders.count).toBe(spec.orders);
    for (const chain of spec.chains) {
      const figure = facts.generation.chains.find((entry: { chainId: number }) => entry.chainId === chain.chainId);
      expect(figure.blocks).toBe(chain.blocks);
      expect(figure.measuredBlocks).toBeLessThanOrEqual(chain.blocks);
    }
    // The explorer chain's segments (one per process that saw a block written) follow each other and end at its head.
    const progress = JSON.parse(readFileSync(path.join(dir, 'progress.json'), 'utf8')) as BuildProgress;
    const segments = progress.chains[String(spec.chains[0]!.chainId)]!.segments;
    expect(segments.length).toBeGreaterThanOrEqual(1);
    for (let index = 1; index < segments.length; index += 1)
      expect(segments[index]!.fromBlock).toBeGreaterThan(segments[index - 1]!.toBlock);
    expect(segments.at(-1)!.toBlock).toBe(spec.chains[0]!.blocks);
    expect(facts.generation.ingestWriteUnitsPerTransaction).toBeGreaterThan(0);
  });
});
