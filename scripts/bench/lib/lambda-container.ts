/**
 * One local Lambda "container" (execution environment) for the Lambda harness (local-lambda.ts): a
 * process of its own that loads the handler module once (the init phase) and runs the invocations the
 * parent sends it one at a time, each with a Lambda context whose deadline the parent set, as the
 * Lambda runtime does. Module state (the ingest's per-chain cache, SDK clients) survives between
 * invocations, as in a warm container. The parent kills the process at an invocation's timeout.
 *
 * argv[2]: the handler module (relative to the repository root). Messages (IPC):
 *   parent -> { type: 'invoke', id, event, deadline, functionName, memoryMb } | { type: 'exit' } (between invocations)
 *   child  -> { type: 'ready', initMs } | { type: 'result', id, result, usage? } | { type: 'error', id, error, usage? }
 * With BENCH_MEASURE=1 each answer carries `usage`: the process's CPU during the invocation (user +
 * system, ms), its peak resident memory so far (MB), and its table client's calls and write heat
 * (lambda-measure.ts).
 */
import path from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

interface InvokeMessage {
  type: 'invoke';
  id: string;
  event: unknown;
  deadline: number;
  functionName: string;
  memoryMb: number;
}

type Handler = (event: unknown, context: Context) => Promise<unknown>;

async function main(): Promise<void> {
  const modulePath = process.argv[2];
  if (!modulePath || !process.send) throw new Error('usage: a child process of local-lambda.ts, with the handler module as argument');
  const started = performance.now();
  const module = (await import(pathToFileURL(path.resolve(modulePath)).href)) as { handler?: Handler };
  const handler = module.handler;
  if (typeof handler !== 'function') throw new Error(`${modulePath} exports no handler`);
  const measure = process.env.BENCH_MEASURE === '1' ? await import('./lambda-measure') : undefined;
  // The main thread's garbage-collection pauses (ms) by kind, since the invocation started.
  const gc = { minor: 0, major: 0, other: 0 };
  if (measure)
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
        if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor += entry.duration;
        else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major += entry.duration;
        else gc.other += entry.duration;
      }
    }).observe({ entryTypes: ['gc'] });
  process.send({ type: 'ready', initMs: performance.now() - started });
  process.on('message', (message: InvokeMessage | { type: 'exit' }) => {
    // Asked to end between invocations (the harness's close): exit, writing what exit writes (--cpu-prof).
    if (message?.type === 'exit') process.exit(0);
    if (message?.type !== 'invoke') return;
    measure?.takeTableUsage();
    const cpu = process.cpuUsage();
    const threadCpu = process.threadCpuUsage();
    const gcBefore = { ...gc };
    // (maxRssMb: the environment's peak resident memory so far, what Lambda reports as Max Memory Used.)
    // (cpuMs: the handler's, without what measuring the table's calls cost: lambda-measure.ts.)
    const usage = () => {
      if (!measure) return {};
      const spent = process.cpuUsage(cpu);
      const spentOnMain = process.threadCpuUsage(threadCpu);
      const { measuringCpuMs, ...table } = measure.takeTableUsage();
      return {
        usage: {
          cpuMs: (spent.user + spent.system) / 1000 - measuringCpuMs,
          // (The main thread's share: the rest went to the table writers and V8's helper threads.)
          mainThreadCpuMs: (spentOnMain.user + spentOnMain.system) / 1000 - measuringCpuMs,
          measuringCpuMs,
          gcMs: { minor: gc.minor - gcBefore.minor, major: gc.major - gcBefore.major, other: gc.other - gcBefore.other },
          maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
          ...table,
        },
      };
    };
    const context = {
      awsRequestId: message.id,
      functionName: message.functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${message.functionName}`,
      memoryLimitInMB: String(message.memoryMb),
      logGroupName: `/aws/lambda/${message.functionName}`,
      logStreamName: 'local',
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    } as Context;
    handler(message.event, context).then(
      (result) => process.send?.({ type: 'result', id: message.id, result, ...usage() }),
      (error: unknown) =>
        process.send?.({
          type: 'error',
          id: message.id,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          ...usage(),
        }),
    );
  });
}

main().catch((error: unknown) => {
  console.error(`lambda container failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
