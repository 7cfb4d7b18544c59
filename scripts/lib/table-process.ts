/**
 * The embedded DynamoDB in a child process of its own (scripts/table-server.ts), on a free port of
 * 127.0.0.1: the benchmark's table, which must not share a thread with the code it measures.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../table-server.ts');

export interface TableProcess {
  endpoint: string;
  /** The child's process id (its CPU time can be read from /proc on Linux). */
  pid: number;
  close(): Promise<void>;
}

export async function startTableProcess(options: { path?: string; timeoutMs?: number } = {}): Promise<TableProcess> {
  const args = ['--import', 'tsx', SERVER, '--port', '0', '--exit-with-stdin', ...(options.path ? ['--path', options.path] : [])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a half-started server behind
      reject(new Error('the table process did not start within the timeout'));
    }, options.timeoutMs ?? 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /^listening (\S+)$/.exec(line.trim());
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the table process exited (code ${code}) before it listened`));
    });
  });
  const kill = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', kill);
  return {
    endpoint,
    pid: child.pid!,
    async close() {
      process.off('exit', kill);
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
