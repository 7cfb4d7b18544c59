/**
 * An observer of the ingest for the benchmarks, installed in the process that runs it (the ingest
 * bench itself, or the `npm run ingest -- --follow` child of the follow bench through
 * follow-hook.ts). It changes nothing the ingest does; it records:
 *  - every DynamoDB command sent through the shared document client (shared/db/client.ts `db`),
 *    with its stage (lib/stages.ts: read from the functions on its call stack) and interval;
 *  - every JSON-RPC HTTP request (global fetch, which viem's transport uses) with its stage;
 *  - every batch the ingest writes (ChainIngest's writeBatch, wrapped on the prototype) with its
 *    blocks;
 *  - every cursor move (the conditional UpdateItem of the cursor item that sets its block number),
 *    when it returned: the moment the ingest is done with those blocks.
 * Times are epoch milliseconds with sub-millisecond precision (performance.timeOrigin + now), so
 * that two processes of the same machine compare.
 */
import { dbStage, rpcStage, type BatchInterval, type CursorMove, type StageInterval } from './stages';

export interface ProbeLog {
  intervals: StageInterval[];
  /** With BENCH_PROBE_STACKS=1: the first call stacks seen of each stage and command (to check the attribution). */
  stacks?: Record<string, string[]>;
  batches: BatchInterval[];
  cursorMoves: CursorMove[];
  /** True when ChainIngest had no writeBatch to wrap (batches then stay empty). */
  batchesUnobserved: boolean;
}

export const now = (): number => performance.timeOrigin + performance.now();

type Json = Record<string, any>;

/** Installs the observers; returns the log they fill. Import after DYNAMODB_ENDPOINT / TABLE_NAME are set. */
export async function installProbe(): Promise<ProbeLog> {
  const log: ProbeLog = { intervals: [], batches: [], cursorMoves: [], batchesUnobserved: false };
  const { db } = await import('../../../shared/db/client');
  const { ChainIngest } = await import('../../../shared/ingest/ingest');

  // DynamoDB: wrap send, where the caller's stack is still the ingest's.
  const send = db.send.bind(db) as (command: unknown, ...rest: unknown[]) => Promise<unknown>;
  (db as unknown as { send: typeof send }).send = (command: unknown, ...rest: unknown[]) => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    const name = (command as { constructor?: { name?: string } }).constructor?.name ?? '?';
    const input = ((command as { input?: Json }).input ?? {}) as Json;
    const stage = dbStage(name, stack, input);
    if (process.env.BENCH_PROBE_STACKS) {
      log.stacks ??= {};
      const samples = log.stacks[`${stage} ${name}`] ?? [];
      log.stacks[`${stage} ${name}`] = samples;
      if (samples.length < 3) samples.push(stack.split('\n').slice(2, 14).join('\n'));
    }
    const start = now();
    const result = send(command, ...rest);
    return result.then(
      (output) => {
        const end = now();
        log.intervals.push({ stage, start, end });
        const values = input.ExpressionAttributeValues as Json | undefined;
        if (name === 'UpdateCommand' && values?.[':kind'] === 'cursor' && typeof values[':number'] === 'number')
          log.cursorMoves.push({ blockNumber: values[':number'], at: end });
        return output;
      },
      (error: unknown) => {
        log.intervals.push({ stage, start, end: now() });
        throw error;
      },
    );
  };

  // JSON-RPC: every fetch whose body is JSON-RPC (the table's own HTTP, when in process, is not).
  const original = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = typeof init?.body === 'string' ? init.body : '';
    if (!body.includes('"jsonrpc"')) return original(input, init);
    let calls: { method?: string; params?: unknown }[] = [];
    try {
      const parsed = JSON.parse(body) as { method?: string; params?: unknown } | { method?: string; params?: unknown }[];
      calls = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      calls = [];
    }
    const stage = rpcStage(calls);
    const start = now();
    try {
      const response = await original(input, init);
      // The body is part of the answer: read it inside the interval, hand back a copy.
      const text = await response.text();
      return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      log.intervals.push({ stage, start, end: now() });
    }
  };

  // Batches: ChainIngest's writeBatch (private in TypeScript, a method of the prototype at run time).
  const prototype = ChainIngest.prototype as unknown as Record<string, unknown>;
  const writeBatch = prototype.writeBatch;
  if (typeof writeBatch === 'function') {
    prototype.writeBatch = async function (this: unknown, bundles: { block: { number: bigint | null } }[], ...rest: unknown[]) {
      const start = now();
      try {
        return await (writeBatch as (...args: unknown[]) => Promise<unknown>).call(this, bundles, ...rest);
      } finally {
        log.batches.push({ start, end: now(), blocks: bundles.map((bundle) => Number(bundle.block.number)) });
      }
    };
  } else log.batchesUnobserved = true;
  return log;
}
