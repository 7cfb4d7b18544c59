/**
 * A test-only ERC-1155 WITH the ERC1155Supply extension (OpenZeppelin), compiled here with solc, so
 * the ingest's `totalSupply(id)` read path runs against real bytecode on anvil (the demo chain's
 * DemoMulti has no per-id supply and exercises the fallback). Anyone may mint and burn: it is a test
 * fixture, never deployed anywhere else.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC1155Supply} from "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Supply.sol";

contract TestSupplyMulti is ERC1155Supply {
    constructor() ERC1155("ipfs://test-supply/{id}.json") {}

    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }

    function burn(address from, uint256 id, uint256 amount) external {
        _burn(from, id, amount);
    }
}
`;

const require = createRequire(import.meta.url);

interface Solc {
  compile(input: string, callbacks?: { import: (path: string) => { contents: string } | { error: string } }): string;
}

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

/** Compiles TestSupplyMulti (a few seconds: the OpenZeppelin sources it imports). */
export async function compileSupplyToken(): Promise<CompiledContract> {
  const module = (await import('solc')) as unknown as { default?: Solc } & Solc;
  const solc = module.default ?? module;
  const input = {
    language: 'Solidity',
    sources: { 'TestSupplyMulti.sol': { content: SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (path) => {
        try {
          return { contents: readFileSync(require.resolve(path), 'utf8') };
        } catch {
          return { error: `not found: ${path}` };
        }
      },
    }),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const contract = output.contracts['TestSupplyMulti.sol'].TestSupplyMulti;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
