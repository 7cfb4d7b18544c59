/**
 * Table writers: worker threads that send the table layer's BatchWriteItem calls (batch-write.ts) for
 * the thread that built the items, so that a process given more than one vCPU spends its main thread
 * on the work only it can do. The AWS SDK's work on a write (marshalling, the JSON body, signing,
 * HTTP) costs about 1.5 ms of CPU for 25 items of the ingest's size, a sixth of the ingest's CPU on the
 * Base profile (docs/decisions/ingest.md, "Table writers").
 *
 * `startTableWriters(n)` starts n writers (the ingest function does at cold start, from
 * INGEST_TABLE_WRITERS); from then on operations.ts `writeItems` hands a write of two chunks or more to
 * them, its chunks dealt out in turn, and resolves when every writer has written its share (or rejects
 * with the first failure, once all have ended). What `writeItems` promises does not change: every put
 * and delete is done when it resolves. A writer is a thread of this process: its own SDK client, the
 * same settings and retry policy. Measurement follows the calls: inside a `measureTable` scope the
 * writers ask for consumed capacity and the scope records their calls as its own.
 *
 * A writer's code is this module's: a worker starts from this file (in a bundle, the bundle itself,
 * whose copy of this module sees it is a writer and listens). Under tsx (tests, `npm start`) the
 * worker loads TypeScript through tsx as its parent does.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { type SentCall, sendWriteChunks, type WriteRequest } from './batch-write';
import { RetriesExhaustedError } from './retry';

const ROLE = 'table-writer';

/** What a writer is asked to do. */
interface WriteJob {
  id: number;
  table: string;
  chunks: WriteRequest[][];
  concurrency: number;
  /** Report each call's consumed capacity (the caller is measuring). */
  measure: boolean;
}

/** What it answers. */
interface WriteDone {
  id: number;
  calls: SentCall[];
  error?: { name: string; message: string };
}

interface Writer {
  worker: Worker;
  pending: Map<number, { resolve: (done: WriteDone) => void; reject: (error: Error) => void }>;
}

let writers: Writer[] = [];
let nextJob = 0;
const observers: ((table: string, chunks: readonly WriteRequest[][]) => void)[] = [];

/**
 * Starts `count` table writers (none: writes stay on the calling thread) in place of any started before.
 * A no-op in a writer itself: a bundle evaluated as a writer runs its handler module's start-up too.
 */
export function startTableWriters(count: number): void {
  if (isWriter()) return;
  void stopTableWriters();
  writers = Array.from({ length: count }, () => startWriter());
}

/** Stops the writers; writes go back to the calling thread. */
export async function stopTableWriters(): Promise<void> {
  const stopping = writers;
  writers = [];
  await Promise.all(stopping.map(({ worker }) => worker.terminate()));
}

/** How many writers run. */
export function tableWriterCount(): number {
  return writers.length;
}

/**
 * Calls `observer` with every write handed to the writers, on the calling thread, before it is sent
 * (the Lambda harness records the write units by partition of every write this way; its client
 * middleware sees only the calling thread's calls).
 */
export function observeWriterWrites(observer: (table: string, chunks: readonly WriteRequest[][]) => void): void {
  observers.push(observer);
}

/**
 * Sends `chunks` through the writers, dealt out in turn, `concurrency` calls at a time in all; returns
 * the calls they made when asked to `measure`. Rejects with the first failure once every writer has ended.
 */
export async function writeThroughWriters(
  table: string,
  chunks: WriteRequest[][],
  concurrency: number,
  measure: boolean,
): Promise<SentCall[]> {
  for (const observer of observers) observer(table, chunks);
  const shares: WriteRequest[][][] = writers.map(() => []);
  for (const [index, chunk] of chunks.entries()) shares[index % writers.length]!.push(chunk);
  const perWriter = Math.max(1, Math.ceil(concurrency / writers.length));
  const settled = await Promise.allSettled(
    shares.flatMap((share, index) =>
      share.length === 0 ? [] : [ask(writers[index]!, { table, chunks: share, concurrency: perWriter, measure })],
    ),
  );
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value.calls : []));
}

function ask(writer: Writer, job: Omit<WriteJob, 'id'>): Promise<WriteDone> {
  const id = nextJob++;
  return new Promise<WriteDone>((resolve, reject) => {
    writer.pending.set(id, { resolve, reject });
    // (Referenced while it holds a write: the process waits for it then, and only then.)
    writer.worker.ref();
    writer.worker.postMessage({ ...job, id } satisfies WriteJob);
  }).then((done) => {
    if (done.error) throw errorOf(done.error);
    return done;
  });
}

/** The writer's error as the calling thread would have thrown it (the table layer's own errors keep their class). */
function errorOf(error: { name: string; message: string }): Error {
  if (error.name === 'RetriesExhaustedError') {
    const rebuilt = new RetriesExhaustedError('');
    rebuilt.message = error.message;
    return rebuilt;
  }
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}

function startWriter(): Writer {
  const file = new URL(import.meta.url);
  const worker = new Worker(file, {
    workerData: { role: ROLE },
    // (Source files, not a bundle: the worker needs the same TypeScript loader as its parent.)
    execArgv: file.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [],
  });
  const writer: Writer = { worker, pending: new Map() };
  worker.on('message', (done: WriteDone) => {
    const waiting = writer.pending.get(done.id);
    writer.pending.delete(done.id);
    if (writer.pending.size === 0) writer.worker.unref();
    waiting?.resolve(done);
  });
  const fail = (error: Error) => {
    for (const waiting of writer.pending.values()) waiting.reject(error);
    writer.pending.clear();
    // A writer that died is not replaced (one that cannot start would be started again and again): the
    // others take its share, and with none left the calling thread writes.
    writers = writers.filter((current) => current !== writer);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (writer.pending.size > 0) fail(new Error(`a table writer exited (code ${code}) with writes in flight`));
  });
  // An idle writer never keeps the process alive (tests, scripts end).
  worker.unref();
  return writer;
}

/** This thread is a table writer (not merely a worker thread: a process may run the ingest in one). */
function isWriter(): boolean {
  return !isMainThread && (workerData as { role?: string } | null)?.role === ROLE;
}

// The writer's side: listens for jobs (this module loaded as a worker started above).
if (isWriter() && parentPort) {
  const port = parentPort;
  port.on('message', (job: WriteJob) => {
    const calls: SentCall[] = [];
    sendWriteChunks(job.table, job.chunks, job.concurrency, job.measure ? (call) => calls.push(call) : undefined).then(
      () => port.postMessage({ id: job.id, calls } satisfies WriteDone),
      (error: Error) =>
        port.postMessage({
          id: job.id,
          calls,
          error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) },
        } satisfies WriteDone),
    );
  });
}
