/**
 * The backfill's speed-up (issue 15, §3), for `npm run bench:ingest -- --backfill-workers 1,2,4`: the
 * bench chain's blocks ingested by the CLI as an operator runs it, into a fresh table process each
 * time: once sequentially, then with `--workers N` (shared/ingest/backfill.ts) for each N. Wall times
 * include the CLI's start; the table floor of the same run is the bound no number of workers beats
 * here (one single-threaded embedded table for every worker and the ingest).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureTable, localClient } from '../../lib/local-table/ensure-table';
import { startTableProcess } from '../../lib/table-process';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface BackfillRun {
  /** 0: the sequential ingest (no --workers). */
  workers: number;
  seconds: number;
  /** The sequential run's time over this run's. */
  speedUp: number;
}

export async function measureBackfill(options: {
  rpcUrl: string;
  from: number;
  to: number;
  workers: readonly number[];
}): Promise<BackfillRun[]> {
  const timed: { workers: number; seconds: number }[] = [];
  for (const workers of [0, ...options.workers]) {
    const table = await startTableProcess();
    const tableName = `bench-backfill-${workers}-${Date.now()}`;
    const admin = localClient(table.endpoint);
    try {
      await ensureTable(admin, tableName);
      const args = [
        'scripts/ingest.ts',
        '--rpc-url',
        options.rpcUrl,
        '--from-block',
        String(options.from),
        '--to-block',
        String(options.to),
      ];
      if (workers > 0) args.push('--workers', String(workers));
      const started = performance.now();
      const output = await runCli(args, { DYNAMODB_ENDPOINT: table.endpoint, TABLE_NAME: tableName });
      const seconds = (performance.now() - started) / 1000;
      if (!output.includes(`cursor at block ${options.to}`)) throw new Error(`backfill with ${workers} workers did not finish:\n${output}`);
      console.log(`backfill: ${workers === 0 ? 'sequential' : `${workers} workers`} in ${seconds.toFixed(1)} s`);
      timed.push({ workers, seconds });
    } finally {
      admin.destroy();
      await table.close();
    }
  }
  const sequential = timed[0]!.seconds;
  return timed.map((run) => ({
    ...run,
    seconds: Math.round(run.seconds * 100) / 100,
    speedUp: Math.round((sequential / run.seconds) * 100) / 100,
  }));
}

function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), args, {
      cwd: ROOT,
      env: { ...process.env, ...env, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`ingest CLI exited ${code}:\n${output.slice(-2000)}`))));
  });
}
