/**
 * `method` and `decoded_input` of explorer transactions and token transfers. Nothing on the chain is
 * verified, so (like a Blockscout instance whose signature database knows only the common methods)
 * calldata is decoded against the standard token methods; any other call shows its selector.
 */
import { decodeFunctionData, getAddress, parseAbi, toFunctionSelector, type AbiFunction, type Hex } from 'viem';
import type { DecodedInput } from './schemas';

/** ERC-20, ERC-721 and ERC-1155 methods that change state. */
const knownMethods = parseAbi([
  'function transfer(address to, uint256 value)',
  'function approve(address spender, uint256 value)',
  'function transferFrom(address from, address to, uint256 value)',
  'function setApprovalForAll(address operator, bool approved)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
]);

const methodBySelector = new Map<string, AbiFunction>(knownMethods.map((item) => [toFunctionSelector(item), item]));

/** The method name when the selector is a known one, else the selector; null without one (creation, plain transfer). */
export function methodName(selector: string | null): string | null {
  if (!selector) return null;
  return methodBySelector.get(selector.toLowerCase())?.name ?? selector.toLowerCase();
}

/** Blockscout's decoded_input for calldata of a known method; null otherwise (or when it does not decode). */
export function decodeInput(input: string | null): DecodedInput | null {
  if (!input || input.length < 10) return null;
  const selector = input.slice(0, 10).toLowerCase();
  const method = methodBySelector.get(selector);
  if (!method) return null;
  try {
    const { args } = decodeFunctionData({ abi: [method], data: input as Hex });
    const inputs = method.inputs;
    return {
      method_call: `${method.name}(${inputs.map((param) => `${param.type} ${param.name ?? ''}`.trim()).join(', ')})`,
      method_id: selector.slice(2),
      parameters: inputs.map((param, position) => ({
        name: param.name ?? '',
        type: param.type,
        value: parameterText((args ?? [])[position]),
      })),
    };
  } catch {
    return null;
  }
}

/** A decoded argument as a string: addresses checksummed, integers decimal, arrays as JSON. */
function parameterText(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return /^0x[0-9a-fA-F]{40}$/.test(value) ? getAddress(value) : value;
  if (Array.isArray(value)) return JSON.stringify(value.map(parameterText));
  return String(value);
}
