/**
 * Preloaded (`node --import tsx --import ./scripts/bench/lib/follow-hook.ts scripts/ingest.ts ...`)
 * by the follow bench into the real ingest CLI: installs the probe (ingest-probe.ts) before the CLI
 * runs, and writes what it saw as JSON to BENCH_PROBE_FILE on SIGTERM and when the process exits
 * (the CLI exits on SIGTERM once its follow loop has stopped); nothing is written meanwhile, so as
 * not to take the ingest's CPU.
 */
import { writeFileSync } from 'node:fs';
import { installProbe } from './ingest-probe';

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  const log = await installProbe();
  const flush = () => writeFileSync(file, JSON.stringify(log));
  process.on('exit', flush);
  // The CLI stops its follow loop on SIGTERM only between rounds (a round runs to the head): write
  // what was seen so far at once, in case the bench has to kill it before it exits.
  process.on('SIGTERM', flush);
}
