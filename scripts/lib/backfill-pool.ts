/**
 * The local stand-in for the Step Functions backfill (lib/): N worker processes
 * (backfill-worker.ts) stage a plan's segments, lowest first, so that the ingest, numbering in block
 * order meanwhile, waits as little as possible. A segment whose worker fails or dies (killed) goes
 * back on the queue, up to `maxAttempts` times; a dead worker is replaced.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Segment } from '../../shared/ingest/backfill';
import type { TraceMethod } from '../../shared/ingest/fetch-block';
import type { WorkerMessage } from './backfill-worker';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'backfill-worker.ts');

export interface PoolOptions {
  segments: readonly Segment[];
  workers: number;
  rpcUrl: string;
  chainId: number;
  traceMethod?: TraceMethod;
  /** JSON-RPC calls per batch request at start, as the parent's --rpc-batch-size (default the client's). */
  rpcBatchSize?: number;
  maxAttempts?: number;
  /** A block's items written by a worker. */
  onBlock?: (blockNumber: number) => void;
  /** Worker lifecycle and retries, for the operator. */
  log?: (message: string) => void;
  /** Stops the workers (Ctrl-C): the pool then fails; the same command again resumes the plan. */
  signal?: AbortSignal;
}

export function stageWithWorkers(options: PoolOptions): Promise<void> {
  const queue = [...options.segments].sort((a, b) => a.from - b.from);
  const attempts = new Map<number, number>();
  /** Live workers and their segment (undefined: idle); a worker is added once it says it is ready. */
  const busy = new Map<ChildProcess, Segment | undefined>();
  let starting = 0;
  const maxAttempts = options.maxAttempts ?? 3;
  const log = options.log ?? (() => undefined);
  let spawned = 0;
  let failedStarts = 0;

  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      for (const child of busy.keys()) child.kill();
      if (error) reject(error);
      else resolve();
    };
    const retry = (segment: Segment, reason: string) => {
      const count = (attempts.get(segment.from) ?? 0) + 1;
      attempts.set(segment.from, count);
      if (count >= maxAttempts) return finish(new Error(`segment ${segment.from}..${segment.to} failed ${count} times: ${reason}`));
      log(`segment ${segment.from}..${segment.to} again (${reason})`);
      queue.push(segment);
      queue.sort((a, b) => a.from - b.from);
    };
    const dispatch = () => {
      if (settled) return;
      for (const [child, segment] of busy) {
        if (segment || queue.length === 0) continue;
        if (!child.connected) continue; // exiting: its exit handler takes it out
        const next = queue.shift()!;
        busy.set(child, next);
        child.send(next, (error) => {
          // The worker went away between the check and the send: its exit handler requeues `next`.
          if (error) log(`segment ${next.from}..${next.to} not sent: ${error.message}`);
        });
      }
      while (busy.size + starting < options.workers && queue.length > starting) start();
      if (queue.length === 0 && starting === 0 && [...busy.values()].every((segment) => segment === undefined)) finish();
    };
    const start = () => {
      spawned += 1;
      const name = `worker ${spawned}`;
      const args = ['--rpc-url', options.rpcUrl, '--chain-id', String(options.chainId)];
      if (options.traceMethod) args.push('--trace-method', options.traceMethod);
      if (options.rpcBatchSize !== undefined) args.push('--rpc-batch-size', String(options.rpcBatchSize));
      const child = fork(WORKER, args, {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      starting += 1;
      let ready = false;
      child.on('message', (message: WorkerMessage) => {
        if (message.type === 'block') return options.onBlock?.(message.blockNumber);
        if (message.type === 'ready') {
          ready = true;
          starting -= 1;
          log(`${name} started (pid ${child.pid})`);
        }
        busy.set(child, undefined);
        if (message.type === 'failed') retry(message.segment, message.error);
        dispatch();
      });
      child.on('error', (error) => log(`${name}: ${error.message}`));
      child.on('exit', (code, signal) => {
        if (!ready) {
          starting -= 1;
          failedStarts += 1;
          if (failedStarts > maxAttempts) return finish(new Error(`${name} exited before it was ready (${signal ?? `code ${code}`})`));
        }
        const segment = busy.get(child);
        busy.delete(child);
        if (settled) return;
        log(`${name} exited (${signal ?? `code ${code}`})`);
        if (segment) retry(segment, `${name} exited`);
        dispatch();
      });
    };
    options.signal?.addEventListener('abort', () => finish(new Error('stopped; run the same command again to resume the backfill')), {
      once: true,
    });
    dispatch();
  });
}
