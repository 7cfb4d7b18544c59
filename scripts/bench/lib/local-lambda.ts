/**
 * A local stand-in for the Lambda service, for one function: invokes its real handler module as Lambda
 * would, in execution environments ("containers", lambda-container.ts, a process each) that each serve
 * one invocation at a time and are kept warm for the next; an invocation that finds every container busy
 * starts a new one (a cold start, its init measured). Each invocation gets a context with its deadline
 * (`timeoutMs` from its start); at the deadline the container is killed, as Lambda ends a timed-out
 * invocation's environment. Overlapping invocations are allowed, as with an asynchronous invoke.
 *
 * `kill(id)` ends an invocation's environment with SIGKILL, as a crash of the host or of the runtime
 * would (the harness's chaos): the invocation is recorded as killed, its container is gone, and the next
 * invocation that finds no warm container starts a new one.
 *
 * Every invocation is recorded (start, end, init, result or error, timed out, killed), for the billed
 * duration (Lambda bills the init phase too, since August 2025) and the harness's checks.
 *
 * With `limitCpu`, each container gets the CPU Lambda gives its memory size: memory / 1,769 MB of one
 * vCPU (lambdaVcpus), enforced by a CFS quota of a cgroup (v1, /sys/fs/cgroup/cpu) of its own where the
 * machine lets this process make one; `cpuLimit` says whether it could.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAMBDA_MB_PER_VCPU } from './lambda-cost';
import type { TableUsage } from './lambda-measure';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CONTAINER = 'scripts/bench/lib/lambda-container.ts';

export interface InvocationRecord {
  id: string;
  event: unknown;
  /** Epoch ms: when the invoke arrived, when the handler started (after any init), when it ended. */
  invokedAt: number;
  startedAt: number;
  endedAt: number;
  /** Init phase of a cold start, ms (null: a warm container). */
  initMs: number | null;
  container: number;
  outcome: 'result' | 'error' | 'timeout' | 'killed';
  result?: unknown;
  error?: string;
  /** What the container measured of the invocation (with BENCH_MEASURE=1 in its environment: lambda-measure.ts). */
  usage?: {
    cpuMs: number;
    mainThreadCpuMs?: number;
    maxRssMb?: number;
    gcMs?: { minor: number; major: number; other: number };
  } & TableUsage;
}

interface Container {
  index: number;
  child: ChildProcess;
  busy: boolean;
  output: string;
  ready: Promise<number>;
}

export interface LocalLambdaOptions {
  /** Handler module, relative to the repository root. */
  handler: string;
  functionName: string;
  timeoutMs: number;
  memoryMb: number;
  /** Environment of the containers (besides this process's). */
  env: Record<string, string>;
  /** Called with each finished invocation. */
  onInvocation?: (record: InvocationRecord) => void;
  /** Give each container the CPU share of `memoryMb` (see the file comment). */
  limitCpu?: boolean;
}

/** Lambda's CPU by memory size: one vCPU at 1,769 MB, in proportion below and above (up to 6 at 10,240 MB). */
export const lambdaVcpus = (memoryMb: number): number => Math.min(6, memoryMb / LAMBDA_MB_PER_VCPU);

const CGROUP_CPU = '/sys/fs/cgroup/cpu';
const CFS_PERIOD_US = 100_000;

export class LocalLambda {
  readonly invocations: InvocationRecord[] = [];
  private readonly containers: Container[] = [];
  private readonly pending = new Set<Promise<InvocationRecord>>();
  private readonly running = new Map<string, { startedAt: number; container: Container; killed: boolean }>();
  private sequence = 0;
  private readonly cgroups: string[] = [];
  /** How the containers' CPU was limited: a cgroup's quota of `vcpus`, or not at all (no limit asked, or none could be set). */
  cpuLimit: { by: 'cgroup'; vcpus: number } | { by: 'none'; why: string };

  constructor(private readonly options: LocalLambdaOptions) {
    this.cpuLimit = options.limitCpu ? { by: 'cgroup', vcpus: lambdaVcpus(options.memoryMb) } : { by: 'none', why: 'not asked' };
  }

  /** Containers started so far (cold starts). */
  get coldStarts(): number {
    return this.containers.length;
  }

  /** Invokes the function with `event`; resolves when the invocation ends (result, error or timeout). */
  invoke(event: unknown): Promise<InvocationRecord> {
    const run = this.run(event);
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
    return run;
  }

  /** The invocations whose handler runs now (init done), oldest first. */
  inFlight(): { id: string; startedAt: number; pid: number | undefined }[] {
    return [...this.running]
      .map(([id, entry]) => ({ id, startedAt: entry.startedAt, pid: entry.container.child.pid }))
      .sort((a, b) => a.startedAt - b.startedAt);
  }

  /** SIGKILLs the environment running invocation `id` (recorded as killed); false when it is not running. */
  kill(id: string): boolean {
    const entry = this.running.get(id);
    if (!entry || entry.container.child.exitCode !== null) return false;
    entry.killed = true;
    entry.container.child.kill('SIGKILL');
    return true;
  }

  /** Waits for every invocation in flight. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * Stops every container: those idle are asked to exit (what a process writes at exit, a CPU profile
   * of --cpu-prof, is written), given a second; then every one left is killed.
   */
  async close(): Promise<void> {
    const alive = this.containers.filter((container) => container.child.exitCode === null && container.child.signalCode === null);
    const exits = alive.map((container) => new Promise((resolve) => container.child.once('exit', resolve)));
    for (const container of alive) if (!container.busy && container.child.connected) container.child.send({ type: 'exit' });
    await Promise.race([Promise.all(exits), sleep(1_000)]);
    for (const container of this.containers)
      if (container.child.exitCode === null && container.child.signalCode === null) container.child.kill('SIGKILL');
    await Promise.all(exits);
    for (const group of this.cgroups.splice(0)) {
      try {
        rmdirSync(group);
      } catch {
        // (Removed by the system, or a process still leaving it: left for the next boot.)
      }
    }
  }

  /** Puts a container's process in a cgroup of its own whose CFS quota is the memory size's vCPU share. */
  private limit(child: ChildProcess, index: number): void {
    if (this.cpuLimit.by !== 'cgroup' || child.pid === undefined) return;
    const group = `${CGROUP_CPU}/bench-lambda-${process.pid}-${this.options.functionName}-${index}`;
    try {
      mkdirSync(group);
      this.cgroups.push(group);
      writeFileSync(`${group}/cpu.cfs_period_us`, String(CFS_PERIOD_US));
      writeFileSync(`${group}/cpu.cfs_quota_us`, String(Math.round(this.cpuLimit.vcpus * CFS_PERIOD_US)));
      writeFileSync(`${group}/cgroup.procs`, String(child.pid));
    } catch (error) {
      this.cpuLimit = { by: 'none', why: `no cgroup could be set (${(error as Error).message})` };
    }
  }

  private async run(event: unknown): Promise<InvocationRecord> {
    const invokedAt = Date.now();
    this.sequence += 1;
    const id = `invocation-${String(this.sequence).padStart(4, '0')}`;
    let container = this.containers.find(
      (candidate) => !candidate.busy && candidate.child.exitCode === null && candidate.child.signalCode === null,
    );
    const cold = container === undefined;
    container ??= this.start();
    container.busy = true;
    let initMs: number | null = null;
    try {
      const init = await container.ready;
      if (cold) initMs = Math.round(init);
    } catch (error) {
      container.busy = false;
      const record: InvocationRecord = {
        id,
        event,
        invokedAt,
        startedAt: Date.now(),
        endedAt: Date.now(),
        initMs,
        container: container.index,
        outcome: 'error',
        error: `init failed: ${(error as Error).message}`,
      };
      this.finish(record);
      return record;
    }
    const startedAt = Date.now();
    const deadline = startedAt + this.options.timeoutMs;
    const child = container.child;
    const running = { startedAt, container, killed: false };
    this.running.set(id, running);
    const record = await new Promise<InvocationRecord>((resolve) => {
      const base = { id, event, invokedAt, startedAt, initMs, container: container.index };
      const onMessage = (message: { type: string; id?: string; result?: unknown; error?: string; usage?: InvocationRecord['usage'] }) => {
        if (message.id !== id) return;
        cleanup();
        const usage = message.usage ? { usage: message.usage } : {};
        resolve(
          message.type === 'result'
            ? { ...base, endedAt: Date.now(), outcome: 'result', result: message.result, ...usage }
            : { ...base, endedAt: Date.now(), outcome: 'error', error: message.error, ...usage },
        );
      };
      const onExit = () => {
        cleanup();
        resolve(
          running.killed
            ? { ...base, endedAt: Date.now(), outcome: 'killed', error: 'its environment was killed (SIGKILL)' }
            : { ...base, endedAt: Date.now(), outcome: 'error', error: `the container exited: ${container.output.slice(-1_000)}` },
        );
      };
      const timer = setTimeout(() => {
        cleanup();
        child.kill('SIGKILL');
        resolve({ ...base, endedAt: Date.now(), outcome: 'timeout', error: `timed out after ${this.options.timeoutMs} ms` });
      }, this.options.timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ type: 'invoke', id, event, deadline, functionName: this.options.functionName, memoryMb: this.options.memoryMb });
    });
    this.running.delete(id);
    container.busy = false;
    this.finish(record);
    return record;
  }

  private finish(record: InvocationRecord): void {
    this.invocations.push(record);
    this.options.onInvocation?.(record);
  }

  private start(): Container {
    const child = spawn(process.execPath, ['--import', 'tsx', CONTAINER, this.options.handler], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, NODE_NO_WARNINGS: '1', ...this.options.env },
    });
    const container: Container = { index: this.containers.length, child, busy: false, output: '', ready: Promise.resolve(0) };
    this.limit(child, container.index);
    const keep = (chunk: Buffer) => {
      container.output = (container.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    container.ready = new Promise<number>((resolve, reject) => {
      const onMessage = (message: { type?: string; initMs?: number }) => {
        if (message?.type !== 'ready') return;
        child.off('message', onMessage);
        resolve(message.initMs ?? 0);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the container exited (${code}) during init: ${container.output.slice(-1_000)}`)));
    });
    container.ready.catch(() => undefined);
    this.containers.push(container);
    return container;
  }
}
