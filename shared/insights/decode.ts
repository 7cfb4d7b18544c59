/**
 * ABI decoding for `decode=true`, with viem (through chain/abi-decode.ts): transaction calldata from the function signature of the
 * I1 path, and event logs from the event ABI registry (event-abis.ts). Values become JSON as follows:
 *  - integers of at most 48 bits (uint8 ... int48): numbers; wider integers (uint56 ... uint256,
 *    int56 ... int256): decimal strings, since a JSON number cannot carry them exactly;
 *  - addresses: lowercase hex; bytes and bytesN: lowercase hex; bool: boolean; string: string;
 *  - arrays: arrays of converted values; tuples: objects by component name (arrays when unnamed);
 *  - indexed dynamic event parameters (string, bytes, arrays, tuples): their topic (a keccak hash).
 * An unnamed parameter is named `arg<position>`.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import {
  parseAbiItem,
  toEventSignature,
  toFunctionSelector,
  toFunctionSignature,
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
  type Hex,
} from 'viem';
import { decodeCallArgs, decodeLogArgs } from '../chain/abi-decode';
import { InvalidRequestError } from '../errors';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface DecodedCall {
  name: string;
  signature: string;
  inputs: Record<string, JsonValue>;
}

export interface DecodedEvent {
  name: string;
  signature: string;
  indexed_params: Record<string, JsonValue>;
  non_indexed_params: Record<string, JsonValue>;
}

/** The I1 `signature`: its selector, and its ABI when it is a text signature. */
export interface FunctionSignature {
  selector: string;
  abi: AbiFunction | null;
}

const SELECTOR = /^0x[0-9a-fA-F]{8}$/;

/**
 * Parses `transfer(address to,uint256 amount)` (names and `indexed` allowed, an optional leading
 * `function` and trailing `returns (...)`), or a raw 4-byte selector. Anything else is a 400.
 */
export function parseFunctionSignature(text: string): FunctionSignature {
  const trimmed = text.trim();
  if (SELECTOR.test(trimmed)) return { selector: trimmed.toLowerCase(), abi: null };
  const abi = parseSignatureItem('function', trimmed);
  if (abi?.type !== 'function') {
    throw new InvalidRequestError(
      'signature: must be a function signature such as transfer(address,uint256) or a 4-byte selector such as 0xa9059cbb',
    );
  }
  return { selector: toFunctionSelector(abi), abi };
}

/**
 * A text signature as an ABI item of `kind`, or null when it is not one. `indexed` is dropped for
 * functions (thirdweb accepts signatures copied from events).
 */
export function parseSignatureItem(kind: 'function' | 'event', text: string): AbiFunction | AbiEvent | null {
  const body = text.trim().replace(/^(function|event)\s+/, '');
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*\s*\(/.test(body)) return null;
  // viem's parser wants single spaces between a type and its name.
  const source = (kind === 'function' ? body.replace(/\bindexed\b/g, ' ') : body)
    .replace(/\s+/g, ' ')
    .replace(/\( /g, '(')
    .replace(/ ([),])/g, '$1')
    .replace(/,(?=\S)/g, ', ');
  try {
    const item = parseAbiItem(`${kind} ${source}`) as AbiFunction | AbiEvent;
    return item.type === kind ? item : null;
  } catch {
    return null;
  }
}

/** The text signature of an ABI item, formatted once per item (viem formats it anew each call: 2-3 us, 50 times a page). */
const signatures = new WeakMap<AbiFunction | AbiEvent, string>();
function signatureOf(abi: AbiFunction | AbiEvent): string {
  let signature = signatures.get(abi);
  if (signature === undefined) {
    signature = abi.type === 'function' ? toFunctionSignature(abi) : toEventSignature(abi);
    signatures.set(abi, signature);
  }
  return signature;
}

/** Decodes calldata with the function ABI, or null when the data does not match it. */
export function decodeCall(abi: AbiFunction, data: string | null): DecodedCall | null {
  if (!data) return null;
  try {
    const args = decodeCallArgs(abi, data as Hex);
    return { name: abi.name, signature: signatureOf(abi), inputs: namedValues(abi.inputs, args) };
  } catch {
    return null;
  }
}

/** Decodes a log with the first candidate ABI whose indexed count matches and that decodes strictly. */
export function decodeEvent(candidates: readonly AbiEvent[], topics: readonly string[], data: string | null): DecodedEvent | null {
  for (const abi of candidates) {
    const indexed = abi.inputs.filter((input) => input.indexed);
    if (indexed.length !== topics.length - (abi.anonymous ? 0 : 1)) continue;
    try {
      const args = decodeLogArgs(abi, topics as Hex[], (data ?? '0x') as Hex);
      const indexedParams: Record<string, JsonValue> = {};
      const nonIndexedParams: Record<string, JsonValue> = {};
      abi.inputs.forEach((input, position) => {
        const name = input.name || `arg${position}`;
        const raw = Array.isArray(args) ? args[position] : (args as Record<string, unknown>)[input.name ?? ''];
        // viem returns an indexed dynamic value as its topic hash.
        const value = input.indexed && isDynamic(input) ? (raw as JsonValue) : toJson(input, raw);
        (input.indexed ? indexedParams : nonIndexedParams)[name] = value;
      });
      return { name: abi.name, signature: signatureOf(abi), indexed_params: indexedParams, non_indexed_params: nonIndexedParams };
    } catch {
      // try the next candidate
    }
  }
  return null;
}

function isDynamic(parameter: AbiParameter): boolean {
  return parameter.type === 'string' || parameter.type === 'bytes' || parameter.type.endsWith(']') || parameter.type.startsWith('tuple');
}

function namedValues(parameters: readonly AbiParameter[], values: readonly unknown[]): Record<string, JsonValue> {
  const result: Record<string, JsonValue> = {};
  parameters.forEach((parameter, position) => {
    result[parameter.name || `arg${position}`] = toJson(parameter, values[position]);
  });
  return result;
}

/** One decoded value as JSON, by its ABI type (see the module comment). */
export function toJson(parameter: AbiParameter, value: unknown): JsonValue {
  const type = parameter.type;
  const array = /^(.*)\[[0-9]*\]$/.exec(type);
  if (array) {
    const element = { ...parameter, type: array[1] } as AbiParameter;
    return (value as readonly unknown[]).map((item) => toJson(element, item));
  }
  if (type === 'tuple') {
    const components = (parameter as { components?: readonly AbiParameter[] }).components ?? [];
    const named = components.length > 0 && components.every((component) => component.name);
    if (!named) return components.map((component, position) => toJson(component, (value as readonly unknown[])[position]));
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      components.map((component, position) => [
        component.name as string,
        toJson(component, Array.isArray(value) ? value[position] : record[component.name as string]),
      ]),
    );
  }
  const integer = /^u?int([0-9]*)$/.exec(type);
  if (integer) {
    const bits = integer[1] ? Number(integer[1]) : 256;
    return bits <= 48 ? Number(value) : BigInt(value as bigint | number).toString();
  }
  if (type === 'address' || type.startsWith('bytes')) return String(value).toLowerCase();
  if (type === 'bool') return Boolean(value);
  if (type === 'string') return String(value);
  return String(value);
}
