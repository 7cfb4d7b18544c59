/**
 * Compilation of contracts/*.sol through solc standard JSON and the build/contracts.json cache.
 */
import { readFile, stat } from 'node:fs/promises';
import solc from 'solc';
import { toFunctionSelector } from 'viem';
import { describe, expect, it, vi } from 'vitest';
import { CONTRACTS_CACHE_FILE, DEMO_CONTRACT_NAMES, loadContracts } from '../../scripts/lib/contracts';

describe('loadContracts', () => {
  it('returns abi, creation and runtime code for every demo contract', async () => {
    const contracts = await loadContracts();
    for (const name of DEMO_CONTRACT_NAMES) {
      expect(contracts[name].bytecode, name).toMatch(/^0x[0-9a-f]{100,}$/);
      expect(contracts[name].deployedBytecode, name).toMatch(/^0x[0-9a-f]+$/);
      expect(contracts[name].sourceName, name).toMatch(/^contracts\/\w+\.sol$/);
    }
    const functions = (name: (typeof DEMO_CONTRACT_NAMES)[number]) =>
      contracts[name].abi.filter((item) => item.type === 'function').map((item) => (item as { name: string }).name);
    expect(functions('DemoToken')).toEqual(expect.arrayContaining(['mint', 'burn', 'transfer', 'approve', 'decimals']));
    expect(functions('DemoNFT')).toEqual(expect.arrayContaining(['mint', 'burn', 'tokenURI', 'safeTransferFrom']));
    expect(functions('DemoMulti')).toEqual(expect.arrayContaining(['mint', 'mintBatch', 'safeBatchTransferFrom', 'uri']));
    expect(functions('DemoFactory')).toEqual(expect.arrayContaining(['createChild', 'createChildDeterministic', 'createEphemeral']));
    expect(functions('DemoSplitter')).toEqual(expect.arrayContaining(['split', 'splitBestEffort', 'distributeToken']));
    // The runtime code dispatches on the selectors the ABI lists.
    expect(contracts.DemoReverter.deployedBytecode).toContain(toFunctionSelector('alwaysReverts()').slice(2));
  });

  it('caches the build in build/contracts.json, keyed and stamped with the solc version', async () => {
    const contracts = await loadContracts();
    const file = JSON.parse(await readFile(CONTRACTS_CACHE_FILE, 'utf8'));
    expect(file.solcVersion).toBe(solc.version());
    expect(file.key).toMatch(/^[0-9a-f]{64}$/);
    expect(file.contracts).toEqual(contracts);
  });

  it('loads from the cache file in a fresh module instance without compiling again', async () => {
    await loadContracts();
    const before = await stat(CONTRACTS_CACHE_FILE);
    vi.resetModules();
    const fresh = await import('../../scripts/lib/contracts');
    const again = await fresh.loadContracts();
    // A compile would rewrite the cache file; a cache hit leaves it untouched.
    const after = await stat(CONTRACTS_CACHE_FILE);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(again).toEqual(await loadContracts());
  });
});
