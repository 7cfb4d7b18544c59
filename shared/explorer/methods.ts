/**
 * `method` and `decoded_input` of explorer transactions and token transfers. Nothing on the chain is
 * verified, so (like a Blockscout instance whose signature database knows only the common methods)
 * calldata is decoded against the standard token methods; any other call shows its selector.
 */
import { checksummed } from '../chain/address';
import { decodeCallArgs } from '../chain/abi-decode';
import type { AbiFunction, AbiParameter, Hex } from 'viem';
import type { DecodedInput } from './schemas';

const method = (name: string, ...inputs: [type: string, name: string][]): AbiFunction => ({
  name,
  type: 'function',
  stateMutability: 'nonpayable',
  inputs: inputs.map(([type, name]): AbiParameter => ({ type, name })),
  outputs: [],
});

/**
 * ERC-20, ERC-721 and ERC-1155 methods that change state, by selector. Written out rather than parsed
 * from their signatures with their selectors hashed at module load, which cost every explorer
 * function about 20 ms of its cold start; test/shared/explorer/methods.test.ts checks every entry
 * against viem's `parseAbi` and `toFunctionSelector`.
 */
export const KNOWN_METHODS: ReadonlyMap<string, AbiFunction> = new Map([
  ['0xa9059cbb', method('transfer', ['address', 'to'], ['uint256', 'value'])],
  ['0x095ea7b3', method('approve', ['address', 'spender'], ['uint256', 'value'])],
  ['0x23b872dd', method('transferFrom', ['address', 'from'], ['address', 'to'], ['uint256', 'value'])],
  ['0xa22cb465', method('setApprovalForAll', ['address', 'operator'], ['bool', 'approved'])],
  ['0x42842e0e', method('safeTransferFrom', ['address', 'from'], ['address', 'to'], ['uint256', 'tokenId'])],
  ['0xb88d4fde', method('safeTransferFrom', ['address', 'from'], ['address', 'to'], ['uint256', 'tokenId'], ['bytes', 'data'])],
  [
    '0xf242432a',
    method('safeTransferFrom', ['address', 'from'], ['address', 'to'], ['uint256', 'id'], ['uint256', 'value'], ['bytes', 'data']),
  ],
  [
    '0x2eb2c2d6',
    method(
      'safeBatchTransferFrom',
      ['address', 'from'],
      ['address', 'to'],
      ['uint256[]', 'ids'],
      ['uint256[]', 'values'],
      ['bytes', 'data'],
    ),
  ],
]);

/** The method name when the selector is a known one, else the selector; null without one (creation, plain transfer). */
export function methodName(selector: string | null): string | null {
  if (!selector) return null;
  return KNOWN_METHODS.get(selector.toLowerCase())?.name ?? selector.toLowerCase();
}

/** Blockscout's decoded_input for calldata of a known method; null otherwise (or when it does not decode). */
export function decodeInput(input: string | null): DecodedInput | null {
  if (!input || input.length < 10) return null;
  const selector = input.slice(0, 10).toLowerCase();
  const method = KNOWN_METHODS.get(selector);
  if (!method) return null;
  try {
    const args = decodeCallArgs(method, input as Hex);
    const inputs = method.inputs;
    return {
      method_call: `${method.name}(${inputs.map((param) => `${param.type} ${param.name ?? ''}`.trim()).join(', ')})`,
      method_id: selector.slice(2),
      parameters: inputs.map((param, position) => ({
        name: param.name ?? '',
        type: param.type,
        value: parameterText(args[position]),
      })),
    };
  } catch {
    return null;
  }
}

/** A decoded argument as a string: addresses checksummed, integers decimal, arrays as JSON. */
function parameterText(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return /^0x[0-9a-fA-F]{40}$/.test(value) ? checksummed(value) : value;
  if (Array.isArray(value)) return JSON.stringify(value.map(parameterText));
  return String(value);
}
