/**
 * The test-only EIP-1967 proxy (support/Eip1967Proxy.sol), compiled here with the `solc` npm package
 * (the demo contracts' cache in scripts/lib/contracts.ts is left alone): a proxy whose implementation
 * lives in the standard slot and changes with Upgraded(address), and a plain implementation.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

export interface ProxyArtifacts {
  proxy: CompiledContract;
  implementation: CompiledContract;
}

interface Solc {
  compile(input: string): string;
}

let compiled: Promise<ProxyArtifacts> | undefined;

/** The compiled proxy and implementation (compiled once per process). */
export function proxyArtifacts(): Promise<ProxyArtifacts> {
  compiled ??= compileProxy();
  return compiled;
}

async function compileProxy(): Promise<ProxyArtifacts> {
  const source = await readFile(path.join(path.dirname(fileURLToPath(import.meta.url)), 'Eip1967Proxy.sol'), 'utf8');
  const module = (await import('solc')) as unknown as { default?: Solc } & Solc;
  const solc = module.default ?? module;
  const input = {
    language: 'Solidity',
    sources: { 'Eip1967Proxy.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const unit = output.contracts['Eip1967Proxy.sol'] ?? {};
  const artifact = (name: string): CompiledContract => {
    const contract = unit[name];
    if (!contract) throw new Error(`solc output lacks ${name}`);
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  return { proxy: artifact('TestEip1967Proxy'), implementation: artifact('TestImplementationV1') };
}
