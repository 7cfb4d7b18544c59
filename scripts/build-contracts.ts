/**
 * npm run build:contracts — recompiles contracts/*.sol with solc (optimizer on) and rewrites the
 * cache build/contracts.json that loadContracts() reads. Normally unnecessary: loadContracts()
 * compiles by itself whenever a source, solc or OpenZeppelin changed.
 */
import path from 'node:path';
import { CONTRACTS_CACHE_FILE, DEMO_CONTRACT_NAMES, loadContracts } from './lib/contracts';

const started = Date.now();
const contracts = await loadContracts({ force: true });
for (const name of DEMO_CONTRACT_NAMES) {
  const { sourceName, bytecode, deployedBytecode } = contracts[name];
  const size = (deployedBytecode.length - 2) / 2;
  console.log(
    `${name.padEnd(14)} ${sourceName.padEnd(26)} runtime ${String(size).padStart(6)} bytes, init ${(bytecode.length - 2) / 2} bytes`,
  );
}
console.log(
  `compiled ${DEMO_CONTRACT_NAMES.length} contracts in ${((Date.now() - started) / 1000).toFixed(1)} s → ${path.relative(process.cwd(), CONTRACTS_CACHE_FILE)}`,
);
