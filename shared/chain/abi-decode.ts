/**
 * viem's event-log and calldata decoding, with every decoded address given as lowercase hex.
 *
 * viem checksums (EIP-55) each address it decodes: a keccak-256 per address, ~17 us on the bench
 * machine (measured: a decoded ERC-20 Transfer log cost ~65 us, two thirds of it those checksums),
 * which the callers here then throw away (records and keys are lowercase; the explorer checksums
 * through its own memo, address.ts). So the item is decoded in a form where each `address` (also
 * inside arrays and tuples) reads as the `uint160` of the same 32-byte word, and the values are
 * turned back into addresses: the low 20 bytes of the word, as viem's own address decoding takes
 * them. The log's topic 0 or the calldata's selector is checked here against the original item's
 * selector, computed once per item (viem formats the item's signature again on every call to find
 * it); everything else (sizes, the strict checks, the shape of `args`) is viem's.
 */
import {
  decodeAbiParameters,
  decodeEventLog,
  toEventSelector,
  toFunctionSelector,
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
  type Hex,
} from 'viem';

/** Decoded arguments as viem gives them: an object by name when every parameter is named, else an array. */
export type DecodedArgs = readonly unknown[] | Record<string, unknown>;

const LOW_160_BITS = (1n << 160n) - 1n;

interface Rewritten<T> {
  /** Addresses as uint160; events marked anonymous, so that viem finds them by name, not by signature. */
  item: T;
  /** The selector of the item as given: a log or calldata of another item is refused, as viem refuses it. */
  original: Hex;
}

/** A log or calldata whose selector is not the item's (viem throws its own errors for the rest). */
export class SelectorMismatchError extends Error {}

const rewrittenItems = new WeakMap<AbiEvent | AbiFunction, Rewritten<AbiEvent | AbiFunction>>();

/** `address`, `address[]`, `address[2][]` ... as `uint160...`; tuples component by component. */
function addressesAsIntegers<T extends AbiParameter>(parameter: T): T {
  if (/^address(\[\d*\])*$/.test(parameter.type)) return { ...parameter, type: parameter.type.replace(/^address/, 'uint160') };
  const components = (parameter as { components?: readonly AbiParameter[] }).components;
  if (parameter.type.startsWith('tuple') && components) return { ...parameter, components: components.map(addressesAsIntegers) };
  return parameter;
}

/** The item in its decoding form, and its own selector; made once per item. */
function rewritten<T extends AbiEvent | AbiFunction>(abi: T): Rewritten<T> {
  let entry = rewrittenItems.get(abi) as Rewritten<T> | undefined;
  if (!entry) {
    const inputs = abi.inputs.map(addressesAsIntegers);
    const item = (abi.type === 'event' ? { ...abi, anonymous: true, inputs } : { ...abi, inputs }) as T;
    entry = { item, original: abi.type === 'event' ? toEventSelector(abi) : toFunctionSelector(abi) };
    rewrittenItems.set(abi, entry);
  }
  return entry;
}

/** A decoded value of `parameter` (decoded in its rewritten form) with its addresses restored. */
function restored(parameter: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[\d*\]$/.exec(parameter.type);
  if (array) return (value as readonly unknown[]).map((item) => restored({ ...parameter, type: array[1] as string }, item));
  if (parameter.type === 'address') return `0x${((value as bigint) & LOW_160_BITS).toString(16).padStart(40, '0')}`;
  const components = (parameter as { components?: readonly AbiParameter[] }).components;
  if (parameter.type === 'tuple' && components) return restoredArgs(components, value as DecodedArgs);
  return value;
}

function restoredArgs(parameters: readonly AbiParameter[], args: DecodedArgs): DecodedArgs {
  if (Array.isArray(args)) return parameters.map((parameter, position) => restored(parameter, args[position]));
  // An object only when every parameter has a name (viem's rule).
  const named = args as Record<string, unknown>;
  return Object.fromEntries(parameters.map((parameter) => [parameter.name, restored(parameter, named[parameter.name as string])]));
}

/**
 * The arguments of a log of event `abi` (viem's `decodeEventLog`, strict). Throws when the log does
 * not decode, when its topic 0 is not the event's (an anonymous event has none), or when it has
 * another number of topics than the event has indexed inputs.
 */
export function decodeLogArgs(abi: AbiEvent, topics: readonly Hex[], data: Hex): DecodedArgs {
  const { item, original } = rewritten(abi);
  if (!abi.anonymous && topics[0]?.toLowerCase() !== original) throw new SelectorMismatchError(`topic 0 is not ${abi.name}'s`);
  // Given as an anonymous event with the argument topics alone: viem then picks it by name and topic
  // count instead of formatting its signature again on every call.
  const { args } = decodeEventLog({
    abi: [item],
    eventName: item.name,
    topics: (abi.anonymous ? topics : topics.slice(1)) as [Hex, ...Hex[]],
    data,
    strict: true,
  });
  return restoredArgs(abi.inputs, (args ?? []) as DecodedArgs);
}

/**
 * The arguments of calldata of function `abi` (viem's `decodeFunctionData`), as an array. Throws
 * when the data does not decode, or when its selector is not the function's.
 */
export function decodeCallArgs(abi: AbiFunction, data: Hex): readonly unknown[] {
  const { item, original } = rewritten(abi);
  if (data.slice(0, 10).toLowerCase() !== original) throw new SelectorMismatchError(`calldata is not a call of ${abi.name}`);
  // viem's decodeFunctionData without its search by selector (a signature formatted on every call).
  const args = item.inputs.length > 0 ? decodeAbiParameters(item.inputs, `0x${data.slice(10)}`) : [];
  return restoredArgs(abi.inputs, args) as readonly unknown[];
}
