/**
 * A chain profile's dataset (scripts/bench/dataset/profile.ts) built as `npm run bench:dataset --
 * --profile base` builds it, at a tiny size: the real ingest writes it without a warning, its writes
 * are priced by item family as the ingest bench prices them, and the report prints its W1 / W2 rows
 * beside the other chain profiles, with its shape and writes by family.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProfileFacts } from '../../../../scripts/bench/dataset/profile';
import { buildReport, markdown } from '../../../../scripts/bench/lib/report';
import { BASELINE_INPUTS, workloadCostModel } from '../../../../scripts/bench/lib/workload-cost';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BUILD = path.join(ROOT, 'scripts/bench/dataset/build.ts');
let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const build = (args: string[]) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', BUILD, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR', NODE_NO_WARNINGS: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });

describe('the base chain profile dataset', () => {
  it('is built by the real ingest, priced by item family, and reported with W1 / W2 per table option', { timeout: 240_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'profile-'));
    const { code, output } = await build(['--profile', 'base', '--blocks', '2', '--tx-per-block', '30', '--dir', dir]);
    expect(code, output).toBe(0);
    const facts = JSON.parse(readFileSync(path.join(dir, 'profile.json'), 'utf8')) as ProfileFacts;
    expect(facts.profile).toBe('base');
    expect(facts.shape.transactions).toBe(60);
    expect(facts.shape.transactionsPerBlock).toEqual({ min: 30, max: 30, mean: 30 });
    expect(facts.shape.depositsFirstInEveryBlock).toBe(true);
    expect(facts.generation.ingestWarnings).toBe(0);
    expect(facts.writesByFamily.transactions).toBe(60);
    const families = facts.writesByFamily.rows.map((row) => row.family);
    expect(families).toContain('N2 transaction (TX#h / TX)');
    // Internal transactions in their sides' ranges only (issue 27, lever 10: no canonical item).
    expect(families).toContain('X5 internal transactions (A#a#ITX#to|from)');
    expect(families).not.toContain('internal transaction (TX#h / ITX#)');
    expect(families).toContain('N10 token transfer (TX#h / TT#)');
    // The cost model's inputs are the ledger's totals; the table's own count agrees within its GSI copies.
    expect(facts.inputs.writeUnitsPerTransaction).toBe(facts.writesByFamily.totals.writeUnitsPerTx);
    expect(facts.inputs.storedBytesPerTransaction).toBe(facts.writesByFamily.totals.bytesStoredPerTx);
    expect(facts.inputs.itemsWrittenPerTransaction).toBeGreaterThan(10);
    expect(facts.inputs.consumedWriteUnitsPerTransaction).toBeGreaterThan(0);
    expect(facts.inputs.consumedWriteUnitsPerTransaction).toBeLessThanOrEqual(facts.inputs.writeUnitsPerTransaction * 1.05);
    // The real compactor over the build as one span (issue 35: the bench prices the tier from it).
    const cold = facts.coldTier!;
    expect(cold.spanBlocks).toBe(2);
    // Every transaction's own record and its index copies move: more than one item a transaction, in more than one range.
    expect(cold.itemsPerTransaction).toBeGreaterThan(1);
    expect(cold.pointersPerTransaction).toBeGreaterThan(0);
    expect(cold.pointerBytes).toBeGreaterThan(100);
    expect(cold.objects).toBeGreaterThan(0);
    // Compressed: fewer bytes in S3 than the parts opened.
    expect(cold.coldBytesPerTransaction).toBeGreaterThan(0);
    expect(cold.coldBytesPerTransaction).toBeLessThan(cold.openedBytesPerTransaction);
    expect(cold.compactorReadUnitsPerTransaction).toBeGreaterThan(0);

    const model = workloadCostModel({
      writeUnitsPerTransaction: facts.inputs.writeUnitsPerTransaction,
      storedBytesPerTransaction: facts.inputs.storedBytesPerTransaction,
      readUnitsPerPage: 8,
      ingestReadUnitsPerTransaction: facts.inputs.ingestReadUnitsPerTransaction,
    });
    const report = buildReport({
      date: '2026-11-27T00:00:00.000Z',
      command: 'npm run bench',
      machine: { cpus: 2, cpuModel: 'test', memoryGb: 24, node: process.version, platform: 'linux-x64' },
      seconds: { total: 1, profiles: facts.generation.seconds },
      parts: { http: null, cold: null, ingest: null, load: null },
      missing: {},
      cost: null,
      workloadCost: [
        {
          basis: 'the ingest bench chain',
          model: workloadCostModel(BASELINE_INPUTS),
          profile: { name: 'ingest bench chain', transactionsPerBlock: 2.8 },
        },
        {
          basis: 'the base chain profile',
          model,
          profile: { name: 'base', transactionsPerBlock: 30, itemsWrittenPerTransaction: facts.inputs.itemsWrittenPerTransaction },
        },
      ],
      profiles: [{ profile: 'base', dir: 'tmp', builtThisRun: true, facts }],
      budgets: [],
    });
    const text = markdown(report);
    // The per-profile summary: one row per chain profile, its goal and verdict.
    expect(text).toContain('### W1 and W2 per chain profile (issue 27)');
    expect(text).toMatch(
      /\| base \| 30 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \$[\d.]+ \(Standard(-IA)? (on-demand|provisioned)\) \| \$[\d.]+ \| (NOT )?MET, (no worse|WORSE) \|/,
    );
    expect(text).toMatch(/\| ingest bench chain \| 2\.8 \|/);
    // Every option for the profile, with the goal and the verdict.
    expect(text).toContain('W1 and W2 per day, one year held (issue 27): the base chain profile');
    const section = text.slice(text.indexOf('the base chain profile\n'));
    for (const row of [
      '| W1 | Standard, on-demand |',
      '| W1 | Standard-IA, provisioned',
      '| W2 | Standard, provisioned',
      '| W2 | Standard-IA, on-demand |',
    ])
      expect(section).toContain(row);
    expect(section).toMatch(/\*\*W1 \(chain indexer, [\d.]+ TB held\)\*\*: cheapest .* goal <= \$130: (NOT MET|MET)/);
    expect(section).toMatch(/ingest read units per transaction/);
    // The profile's own section: its shape and its writes by item family.
    expect(text).toContain('## Chain profile: base');
    expect(text).toContain('Deposits first in every block: yes');
    expect(text).toMatch(/Cold tier \(the compactor run over the build as one span of 2 blocks, .*\*\*[\d.]+ KB in S3\*\*/);
    expect(text).toContain('| N2 transaction (TX#h / TX) | canonical record |');
  });
});
