/**
 * Multicall3 on a test anvil (which has none): its runtime code set at the canonical address with
 * anvil_setCode, so that the ingest reads token state through aggregate3 from the block it is set at.
 */
import { readFileSync } from 'node:fs';
import type { Hex } from 'viem';
import { MULTICALL3_ADDRESS } from '../../../../shared/chain/abis';
import { publicClient } from './truth';

/** Multicall3's runtime code: viem's copy of its creation code, past the 32-byte constructor. */
export function multicall3Runtime(): Hex {
  const source = readFileSync(new URL('../../../../node_modules/viem/_esm/constants/contracts.js', import.meta.url), 'utf8');
  const creation = /multicall3Bytecode = '(0x[0-9a-f]+)'/.exec(source)?.[1];
  const prefix = '0x608060405234801561001057600080fd5b506115b9806100206000396000f3fe';
  if (!creation?.startsWith(prefix)) throw new Error('unexpected Multicall3 creation code in viem');
  return `0x${creation.slice(prefix.length, prefix.length + 0x15b9 * 2)}`;
}

/** Sets Multicall3 at its canonical address on the anvil at `rpcUrl` (from the current block on). */
export async function installMulticall3(rpcUrl: string): Promise<void> {
  await publicClient(rpcUrl).request({
    method: 'anvil_setCode' as never,
    params: [MULTICALL3_ADDRESS, multicall3Runtime()] as never,
  });
}
