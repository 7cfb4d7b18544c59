/**
 * Starts the local API Gateway with its table in a child process (gateway-server.ts) and returns its
 * base URLs and DynamoDB endpoint: the API and the table the Lambda harness's users and functions reach.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ApiName } from '../../../shared/http/groups';

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'gateway-server.ts');

export interface GatewayProcess {
  urls: Record<ApiName, string>;
  dynamodbEndpoint: string;
  pid: number;
  close(): Promise<void>;
}

/** The table behind the gateway: the embedded dynalite, or the bench's stand-in (./stand-in/table.ts). */
export type GatewayTable = 'dynalite' | 'stand-in';

export async function startGatewayProcess(
  tableName: string,
  env: Record<string, string>,
  options: { table?: GatewayTable; timeoutMs?: number } = {},
): Promise<GatewayProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, tableName, ...(options.table === 'stand-in' ? ['stand-in'] : [])], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_NO_WARNINGS: '1', ...env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ urls: Record<ApiName, string>; dynamodbEndpoint: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the gateway process did not start within the timeout'));
    }, timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening (\{.*\})$/.exec(line.trim());
      if (!match) return;
      clearTimeout(timer);
      resolve(JSON.parse(match[1]!));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway process exited (code ${code}) before it listened`));
    });
  });
  const kill = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', kill);
  return {
    ...started,
    pid: child.pid!,
    async close() {
      process.off('exit', kill);
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
