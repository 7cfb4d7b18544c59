/**
 * A dataset build that can stop and go on later (scripts/bench/dataset/build.ts): the full-scale build
 * takes longer than a working session on a 2-core machine, so what it did is written to
 * DIR/progress.json as it goes, and a build started again on the same folder carries on.
 *
 * Two phases:
 *  1. collections and orders, through their domain functions. Their ids and list positions come from
 *     the table at creation time, so a half-done phase cannot be told apart from a finished one: a
 *     build stopped during it starts over from an empty folder (the phase takes minutes, not hours).
 *  2. the chains, through the real ingest, which carries on after its cursor by design. Each process
 *     that works on a chain adds a segment: the blocks it saw written, the seconds, and the write
 *     units and calls it counted. The blocks a stopped process wrote after its last snapshot are in the
 *     table but not in any segment, so the write units per transaction are taken over the blocks the
 *     segments cover, not over the chain.
 */
import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface ChainSegment {
  /** First and last block this process saw written (both inclusive). */
  fromBlock: number;
  toBlock: number;
  /** Transactions in those blocks. */
  transactions: number;
  seconds: number;
  writeUnits: number;
  calls: number;
}

export interface BuildProgress<Collections = unknown, Orders = unknown> {
  key: string;
  scale: number;
  startedAt: string;
  /** Wall seconds of every process that worked on this folder, up to its last snapshot. */
  seconds: number;
  /** Build processes that worked on this folder. */
  builds?: number;
  collections?: { facts: Collections; seconds: number };
  orders?: { facts: Orders; seconds: number };
  chains: Record<string, { done: boolean; segments: ChainSegment[] }>;
}

export const progressFile = (dir: string): string => path.join(dir, 'progress.json');

/**
 * What a build finds in its folder: `resume` with the progress of an earlier build of the same
 * key whose first phase finished; otherwise `fresh` (nothing there, another key, or a build stopped
 * in its first phase: the folder is emptied).
 */
export function readProgress<C, O>(dir: string, key: string): { mode: 'fresh' } | { mode: 'resume'; progress: BuildProgress<C, O> } {
  const file = progressFile(dir);
  if (!existsSync(file)) return { mode: 'fresh' };
  try {
    const progress = JSON.parse(readFileSync(file, 'utf8')) as BuildProgress<C, O>;
    if (progress.key !== key || !progress.collections || !progress.orders) return { mode: 'fresh' };
    return { mode: 'resume', progress };
  } catch {
    return { mode: 'fresh' };
  }
}

let writes = 0;

/** Writes the progress whole or not at all (a stop in the middle leaves the previous one); safe to call concurrently. */
export async function saveProgress(dir: string, progress: BuildProgress): Promise<void> {
  const file = progressFile(dir);
  writes += 1;
  const temporary = `${file}.${process.pid}-${writes}.tmp`;
  await writeFile(temporary, `${JSON.stringify(progress, null, 2)}\n`);
  await rename(temporary, file);
}

/** A chain's figures over every segment: seconds and calls summed, write units per transaction over the blocks measured. */
export function chainTotals(segments: ChainSegment[]): {
  seconds: number;
  writeUnits: number;
  calls: number;
  measuredTransactions: number;
  measuredBlocks: number;
} {
  const sum = (pick: (segment: ChainSegment) => number) => segments.reduce((total, segment) => total + pick(segment), 0);
  return {
    seconds: sum((segment) => segment.seconds),
    writeUnits: sum((segment) => segment.writeUnits),
    calls: sum((segment) => segment.calls),
    measuredTransactions: sum((segment) => segment.transactions),
    measuredBlocks: sum((segment) => segment.toBlock - segment.fromBlock + 1),
  };
}

/**
 * The write units per transaction of the busy chains: write units counted over the transactions of
 * the blocks they were counted for.
 */
export function writeUnitsPerTransaction(chains: { segments: ChainSegment[] }[]): number {
  const totals = chains.map((chain) => chainTotals(chain.segments));
  const transactions = totals.reduce((sum, total) => sum + total.measuredTransactions, 0);
  if (transactions === 0) return 0;
  return totals.reduce((sum, total) => sum + total.writeUnits, 0) / transactions;
}
