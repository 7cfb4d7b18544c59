/**
 * Starts a real local EVM chain: the anvil binary shipped in the npm package @foundry-rs/anvil,
 * listening on 127.0.0.1 only. Used by `npm start` (the demo chain) and by the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The anvil binary itself, from the platform package that @foundry-rs/anvil installs (its `bin.mjs`
 * is a Node wrapper: killing the wrapper hard would orphan the chain). Falls back to the wrapper.
 */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  try {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const binary = path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
    if (existsSync(binary)) return binary;
  } catch {
    // not installed for this platform: use the wrapper
  }
  return path.join(ROOT, 'node_modules', '.bin', 'anvil');
}

const ANVIL_BIN = anvilBinary();

/** Chains started by this process, stopped when it exits so that no test run leaves a node behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface AnvilOptions {
  chainId?: number;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Seconds between blocks; absent = a block per transaction (automine). */
  blockTime?: number;
  /** Load and save the chain state here (survives restarts). */
  statePath?: string;
  /** Extra command line arguments. */
  args?: string[];
}

export interface Anvil {
  rpcUrl: string;
  port: number;
  chainId: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The ten dev accounts anvil funds, from its default mnemonic ("test test ... junk"). */
export const ANVIL_PRIVATE_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
] as const;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const port = options.port || (await freePort());
  const chainId = options.chainId ?? 31337;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent'];
  if (options.blockTime) args.push('--block-time', String(options.blockTime));
  if (options.statePath) args.push('--state', options.statePath);
  args.push(...(options.args ?? []));
  // Its own process group: a terminal's Ctrl-C reaches `npm start`, which stops the chain in order
  // (after a last ingest and state save), instead of reaching anvil directly.
  const child = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForRpc(rpcUrl, child, () => stderr);
  return {
    rpcUrl,
    port,
    chainId,
    process: child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

async function waitForRpc(rpcUrl: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr()}`);
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`anvil did not answer on ${rpcUrl} within 20 s: ${stderr()}`);
}
