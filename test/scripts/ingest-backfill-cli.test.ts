/**
 * `npm run ingest -- --workers N` as an operator runs it, against the demo chain: worker processes
 * stage segments while the CLI numbers them; one worker is killed with SIGKILL during the backfill,
 * its segment goes to another, and the table ends exactly as one sequential ingest leaves it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createChainClient } from '../../shared/chain/client';
import { ingestRange } from '../../shared/ingest/ingest';
import { startDemoChain, type DemoChain } from '../support/demo-chain';
import { startRpcProxy, type RpcProxy } from '../support/rpc-fault-proxy';
import { inTable, tableSnapshot, testEndpoint, useTestTable } from '../support/table';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const table = useTestTable('backfill-cli');
const CHAIN_ID = 31337;
const HEAD = 60;
let demo: DemoChain;
/**
 * The CLI reads the chain through a provider that answers in 40 ms: 61 blocks take the workers a few
 * seconds, so the one killed is still staging (straight from anvil they finished in under 1.5 s).
 */
let provider: RpcProxy;
let child: ChildProcess | undefined;

beforeAll(async () => {
  demo = await startDemoChain({ chainId: CHAIN_ID });
  provider = await startRpcProxy(demo.anvil.rpcUrl);
  provider.inject({ kind: 'slow', ms: 40, count: Number.POSITIVE_INFINITY });
}, 120_000);

afterAll(async () => {
  await provider?.close();
  // The CLI's whole process group (tsx, the script, its workers), should a test have left it running.
  if (child?.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  await demo?.stop();
});

function runCli(args: string[], onOutput: (output: string) => void = () => undefined) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    let output = '';
    child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/ingest.ts', '--rpc-url', provider.url, ...args], {
      cwd: ROOT,
      env: { ...process.env, DYNAMODB_ENDPOINT: testEndpoint(), TABLE_NAME: table.name, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput(output);
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

test('3 workers, one killed: the backfill finishes and equals a sequential ingest', async () => {
  let killed: number | undefined;
  const run = await runCli(['--to-block', String(HEAD), '--workers', '3', '--segment-blocks', '6'], (output) => {
    // Killed a moment after it started: it is staging a segment by then.
    const pid = /worker 2 started \(pid (\d+)\)/.exec(output)?.[1];
    if (killed === undefined && pid) {
      killed = Number(pid);
      setTimeout(() => process.kill(killed!, 'SIGKILL'), 1_500);
    }
  });
  expect(run.code, run.output).toBe(0);
  expect(run.output).toContain(`cursor at block ${HEAD}`);
  expect(run.output).toMatch(/worker 2 exited \(SIGKILL\)/);
  expect(run.output, 'its segment went to another worker').toMatch(/segment \d+\.\.\d+ again \(worker 2 exited\)/);
  expect(run.output, 'and a new worker took its place').toContain('worker 4 started');

  const sequential = `${table.name}-sequential`;
  await inTable(sequential, () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(demo.anvil.rpcUrl), from: 0, to: HEAD }));
  // Item for item, when token details were last read (tokenDetailsAt) included.
  expect(await tableSnapshot(table.name)).toEqual(await tableSnapshot(sequential));
}, 240_000);

test('bad --workers arguments are refused with the usage', async () => {
  const zero = await runCli(['--workers', '0']);
  expect(zero.code).toBe(1);
  expect(zero.output).toContain('--workers and --segment-blocks must be at least 1');
  const alone = await runCli(['--segment-blocks', '8']);
  expect(alone.code).toBe(1);
  expect(alone.output).toContain('--segment-blocks and --confirmations go with --workers');
  const trace = await runCli(['--trace-method', 'fast']);
  expect(trace.code).toBe(1);
  expect(trace.output).toContain('--trace-method must be callTracer, parity or none');
}, 60_000);
