/**
 * Which addresses hold code, for many addresses in one `eth_call` instead of one `eth_getCode` each
 * (providers bill per call): the call runs a small program put at an unused address for the call only
 * (the state override, eth_call's third parameter, which geth, reth, erigon, anvil and the large
 * providers take). For each 32-byte word of its calldata (an address) it returns that address's
 * EXTCODESIZE as a word. EXTCODESIZE is 0 exactly when eth_getCode answers "0x" (an EIP-7702
 * delegated account has the 23 bytes of its designator, as eth_getCode shows them), so "holds code"
 * means the same either way.
 *
 * The program (25 bytes), the stack shown top first:
 *   00 PUSH1 0         [i]
 *   02 JUMPDEST        loop
 *   03 CALLDATASIZE    [n, i]
 *   04 DUP2            [i, n, i]
 *   05 LT              [i < n, i]
 *   06 ISZERO
 *   07 PUSH1 0x15      (end)
 *   09 JUMPI           [i]
 *   0a DUP1 CALLDATALOAD EXTCODESIZE   [size, i]
 *   0d DUP2 MSTORE     memory[i] = size
 *   0f PUSH1 32 ADD    [i + 32]
 *   12 PUSH1 2 JUMP    loop
 *   15 JUMPDEST        end
 *   16 PUSH1 0 RETURN  memory[0, i)
 */
import { keccak256, stringToBytes, type Hex } from 'viem';

export const CODE_SIZES_PROGRAM: Hex = '0x60005b3681101560155780353b81526020016002565b6000f3';

/** Where the program is put for the call: an address nobody holds the key to (a hash's last 20 bytes). */
export const CODE_SIZES_ADDRESS: Hex = `0x${keccak256(stringToBytes('chain-data-api: code sizes of many addresses')).slice(26)}`;

/** Addresses a call: 2,600 gas each (a cold EXTCODESIZE), 2.6 M gas and 32 KB of calldata for 1,000. */
export const CODE_SIZES_PER_CALL = 1_000;

/** The eth_call parameters that read the code sizes of `addresses` at `blockNumber`. */
export function codeSizesCall(
  addresses: readonly string[],
  blockNumber: bigint,
): [Record<string, string>, Hex, Record<string, { code: Hex }>] {
  const data = `0x${addresses.map((address) => address.slice(2).toLowerCase().padStart(64, '0')).join('')}` as Hex;
  return [{ to: CODE_SIZES_ADDRESS, data }, `0x${blockNumber.toString(16)}`, { [CODE_SIZES_ADDRESS]: { code: CODE_SIZES_PROGRAM } }];
}

/** The sizes in an answer for `count` addresses; undefined when it is not one word each (the node ignored the override). */
export function decodeCodeSizes(answer: unknown, count: number): bigint[] | undefined {
  if (typeof answer !== 'string' || !/^0x[0-9a-fA-F]*$/.test(answer) || answer.length !== 2 + 64 * count) return undefined;
  return Array.from({ length: count }, (_, index) => BigInt(`0x${answer.slice(2 + index * 64, 2 + (index + 1) * 64)}`));
}
