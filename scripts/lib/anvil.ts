/**
 * Starts a real local EVM chain: the anvil binary shipped in the npm package @foundry-rs/anvil,
 * listening on 127.0.0.1 only. Used by `npm start` (the demo chain) and by the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The anvil binary itself, from the platform package that @foundry-rs/anvil installs (its `bin.mjs`
 * is a Node wrapper: killing the wrapper hard would orphan the chain). Falls back to the wrapper.
 */
function anvilBinary(): { path: string; native: boolean } {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  try {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const binary = path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
    if (existsSync(binary)) return { path: binary, native: true };
  } catch {
    // not installed for this platform: use the wrapper
  }
  return { path: path.join(ROOT, 'node_modules', '.bin', 'anvil'), native: false };
}

const { path: ANVIL_BIN, native: ANVIL_IS_NATIVE } = anvilBinary();

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
  /** How a free port is picked when `port` is 0 (default freePort; a test hands out a taken one first). */
  pickPort?: () => Promise<number>;
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

/** Ports a chain started without one tries before giving up (each refused one was taken by another process). */
const PORT_ATTEMPTS = 5;

/** The port was another process's: bound between freePort() and the chain's bind, or named by the caller. */
class PortTakenError extends Error {}

/**
 * Starts a chain and answers once it listens on its port. Without `options.port` it picks a free one, and
 * picks again when another process takes it first: two test workers can be handed the same free port,
 * and the one that loses the bind exits while the winner answers on that port, so an answer on the port
 * is not enough: the chain returned is the one that owns the listening socket (ownsListeningPort).
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  if (options.port) return launchAnvil(options.port, options);
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchAnvil(await (options.pickPort ?? freePort)(), options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

async function launchAnvil(port: number, options: AnvilOptions): Promise<Anvil> {
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
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await waitForRpc(rpcUrl, child, () => stderr);
    if (!(await ownsListeningPort(child.pid, port))) throw new PortTakenError(`another process answers on ${rpcUrl}`);
  } catch (error) {
    await stop();
    if (/address already in use/i.test(stderr)) throw new PortTakenError(`port ${port} is taken: ${stderr.trim()}`);
    throw error;
  }
  return { rpcUrl, port, chainId, process: child, stop };
}

/**
 * Whether the process `pid` holds the socket listening on 127.0.0.1:`port` (Linux: the LISTEN entries of
 * /proc/net/tcp name the socket's inode, /proc/<pid>/fd links to it). True where /proc cannot tell (another
 * system, or the npm wrapper, whose anvil is a child process).
 */
export async function ownsListeningPort(pid: number | undefined, port: number): Promise<boolean> {
  if (pid === undefined || !ANVIL_IS_NATIVE || !existsSync('/proc/net/tcp')) return true;
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address HEXIP:HEXPORT, state 0A = LISTEN, inode in the tenth column.
      if (fields.length > 9 && fields[1]?.endsWith(`:${portHex}`) && fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined && inodes.has(inode)) return true;
  }
  return false;
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
