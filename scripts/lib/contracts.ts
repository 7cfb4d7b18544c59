/**
 * The demo chain's Solidity contracts (contracts/*.sol), compiled with the `solc` npm package through
 * its standard JSON interface (optimizer on) and cached in build/contracts.json.
 *
 * The cache is keyed by a hash of every source the compiler read (ours and the OpenZeppelin files
 * they import), the compiler version and the settings, so editing a contract or upgrading solc or
 * OpenZeppelin recompiles, and a second load only reads the JSON file. Two processes that both find
 * no cache (parallel test workers on a fresh clone) serialise on a lock file so the slow compile runs
 * once.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONTRACTS_DIR = path.join(ROOT, 'contracts');
const BUILD_DIR = path.join(ROOT, 'build');
export const CONTRACTS_CACHE_FILE = path.join(BUILD_DIR, 'contracts.json');
const LOCK_FILE = path.join(BUILD_DIR, 'contracts.lock');
/** A lock older than this is left over from a crashed build and is taken over. */
const STALE_LOCK_MS = 120_000;

const require = createRequire(import.meta.url);

/** Every contract the demo chain deploys or creates, by Solidity name. */
export const DEMO_CONTRACT_NAMES = [
  'DemoToken',
  'DemoNFT',
  'DemoMulti',
  'DemoFactory',
  'DemoChild',
  'DemoEphemeral',
  'DemoSplitter',
  'DemoVault',
  'DemoReverter',
] as const;
/** Test-only contracts (contracts/HostileTokens.sol): tokens that answer what strangers' tokens answer. */
export const HOSTILE_CONTRACT_NAMES = [
  'HostileToken',
  'KittyLike',
  'IdInDataNFT',
  'PhoenixToken',
  'PhoenixFactory',
  'GasBurnerToken',
] as const;
/** Test-only NFTs whose token URIs a test chooses (contracts/UriTokens.sol: the NFT metadata fetcher's tests). */
export const URI_CONTRACT_NAMES = ['UriNFT', 'UriMulti'] as const;
/** Every contract compiled into the cache. */
const COMPILED_CONTRACT_NAMES = [...DEMO_CONTRACT_NAMES, ...HOSTILE_CONTRACT_NAMES, ...URI_CONTRACT_NAMES] as const;
export type DemoContractName = (typeof COMPILED_CONTRACT_NAMES)[number];

export interface ContractArtifact {
  /** Source unit the contract lives in, e.g. contracts/DemoFactory.sol. */
  sourceName: string;
  abi: Abi;
  /** Creation code (what a deployment sends, before constructor arguments). */
  bytecode: Hex;
  /** Runtime code (what eth_getCode returns once deployed, immutables aside). */
  deployedBytecode: Hex;
}

export type DemoArtifacts = Record<DemoContractName, ContractArtifact>;

interface CacheFile {
  key: string;
  solcVersion: string;
  compiledAt: string;
  contracts: DemoArtifacts;
}

/** Compiler settings; part of the cache key. Cancun: the newest fork every tool here agrees on. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

/**
 * The test-only hostile contracts compile for Shanghai: no MCOPY, so they also run on a pre-Cancun
 * chain, where a self-destruct still deletes the code (a token created again at the same address).
 */
const HOSTILE_SOURCE = 'contracts/HostileTokens.sol';
const HOSTILE_SETTINGS = { ...SETTINGS, evmVersion: 'shanghai' } as const;

let loaded: Promise<DemoArtifacts> | undefined;

/**
 * The compiled demo contracts. Compiles on first use (a few seconds) and caches the result in
 * build/contracts.json; later loads, in this process or another, read the cache.
 */
export function loadContracts(options: { force?: boolean } = {}): Promise<DemoArtifacts> {
  if (options.force || !loaded) {
    loaded = buildOrReadCache(options.force ?? false);
    loaded.catch(() => {
      loaded = undefined;
    });
  }
  return loaded;
}

async function buildOrReadCache(force: boolean): Promise<DemoArtifacts> {
  const sources = await readContractSources();
  const solc = await loadSolc();
  const key = cacheKey(sources, solc.version());
  if (!force) {
    const cached = await readCache(key);
    if (cached) return cached;
  }
  await mkdir(BUILD_DIR, { recursive: true });
  const release = await acquireLock();
  try {
    // Another process may have finished the same build while this one waited for the lock.
    if (!force) {
      const cached = await readCache(key);
      if (cached) return cached;
    }
    const { [HOSTILE_SOURCE]: hostile, ...demo } = sources;
    const contracts = {
      ...compile(solc, demo, SETTINGS, [...DEMO_CONTRACT_NAMES, ...URI_CONTRACT_NAMES]),
      ...(hostile === undefined ? {} : compile(solc, { [HOSTILE_SOURCE]: hostile }, HOSTILE_SETTINGS, HOSTILE_CONTRACT_NAMES)),
    } as DemoArtifacts;
    const missing = COMPILED_CONTRACT_NAMES.filter((name) => !contracts[name]);
    if (missing.length > 0) throw new Error(`solc output lacks ${missing.join(', ')}`);
    const file: CacheFile = { key, solcVersion: solc.version(), compiledAt: new Date().toISOString(), contracts };
    const tmp = `${CONTRACTS_CACHE_FILE}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(file, null, 2));
    await rename(tmp, CONTRACTS_CACHE_FILE);
    return contracts;
  } finally {
    await release();
  }
}

/** Our own sources, by source unit name (contracts/X.sol). */
async function readContractSources(): Promise<Record<string, string>> {
  const files = (await readdir(CONTRACTS_DIR)).filter((name) => name.endsWith('.sol')).sort();
  const sources: Record<string, string> = {};
  for (const name of files) {
    sources[`contracts/${name}`] = await readFile(path.join(CONTRACTS_DIR, name), 'utf8');
  }
  return sources;
}

interface Solc {
  version(): string;
  compile(input: string, callbacks?: { import: (importPath: string) => { contents: string } | { error: string } }): string;
}

async function loadSolc(): Promise<Solc> {
  const module = (await import('solc')) as unknown as { default?: Solc } & Solc;
  return module.default ?? module;
}

/** Resolves `@openzeppelin/...` (and any other package path) from node_modules. */
function resolveImport(importPath: string): string {
  return require.resolve(importPath, { paths: [ROOT] });
}

/**
 * The key covers our sources, every package source they import (found by following the import
 * statements the same way the compiler callback does), the compiler version and the settings.
 */
function cacheKey(sources: Record<string, string>, solcVersion: string): string {
  const hash = createHash('sha256');
  hash.update(`solc ${solcVersion}\n${JSON.stringify(SETTINGS)}\n${JSON.stringify(HOSTILE_SETTINGS)}\n`);
  const seen = new Map<string, string>();
  const visit = (unitName: string, contents: string): void => {
    if (seen.has(unitName)) return;
    seen.set(unitName, contents);
    for (const imported of importsOf(unitName, contents)) {
      if (seen.has(imported)) continue;
      const local = sources[imported];
      visit(imported, local ?? readFileSync(resolveImport(imported), 'utf8'));
    }
  };
  for (const [name, contents] of Object.entries(sources)) visit(name, contents);
  for (const name of [...seen.keys()].sort()) {
    hash.update(`${name}\n${seen.get(name)}\n`);
  }
  return hash.digest('hex');
}

/** Source unit names imported by a file, relative imports resolved against the importer. */
function importsOf(unitName: string, contents: string): string[] {
  const names: string[] = [];
  for (const match of contents.matchAll(/^\s*import\s+(?:[^"';]*\sfrom\s+)?["']([^"']+)["']/gm)) {
    const target = match[1];
    names.push(target.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(unitName), target)) : target);
  }
  return names;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

function compile(
  solc: Solc,
  sources: Record<string, string>,
  settings: typeof SETTINGS | typeof HOSTILE_SETTINGS,
  names: readonly DemoContractName[],
): Partial<DemoArtifacts> {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings,
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (importPath) => {
        try {
          return { contents: readFileSync(resolveImport(importPath), 'utf8') };
        } catch {
          return { error: `not found in node_modules: ${importPath}` };
        }
      },
    }),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((error) => error.formattedMessage).join('\n')}`);
  }
  const artifacts: Partial<DemoArtifacts> = {};
  for (const [sourceName, contracts] of Object.entries(output.contracts ?? {})) {
    if (!sourceName.startsWith('contracts/')) continue;
    for (const [name, contract] of Object.entries(contracts)) {
      if (!(names as readonly string[]).includes(name)) continue;
      artifacts[name as DemoContractName] = {
        sourceName,
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      };
    }
  }
  return artifacts;
}

async function readCache(key: string): Promise<DemoArtifacts | undefined> {
  try {
    const file = JSON.parse(await readFile(CONTRACTS_CACHE_FILE, 'utf8')) as CacheFile;
    if (file.key !== key) return undefined;
    if (COMPILED_CONTRACT_NAMES.some((name) => !file.contracts?.[name]?.bytecode)) return undefined;
    return file.contracts;
  } catch {
    return undefined;
  }
}

/** An exclusive lock file in build/; waits for another process's build, takes over a stale lock. */
async function acquireLock(): Promise<() => Promise<void>> {
  const deadline = Date.now() + STALE_LOCK_MS + 10_000;
  for (;;) {
    try {
      const handle = await open(LOCK_FILE, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(LOCK_FILE, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = await stat(LOCK_FILE).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    if (age > STALE_LOCK_MS) await rm(LOCK_FILE, { force: true });
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${LOCK_FILE}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
