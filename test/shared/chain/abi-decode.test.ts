import { randomBytes } from 'node:crypto';
import {
  decodeEventLog,
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  parseAbiItem,
  type AbiEvent,
  type AbiFunction,
  type Address,
  type Hex,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeCallArgs, decodeLogArgs } from '../../../shared/chain/abi-decode';

const address = (): Address => `0x${randomBytes(20).toString('hex')}`;

/** viem's own decoding with every address lowercased: what the fast path must give. */
function lowercased(value: unknown): unknown {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) return value.toLowerCase();
  if (Array.isArray(value)) return value.map(lowercased);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, lowercased(item)]));
  return value;
}

describe('decodeLogArgs', () => {
  const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)') as AbiEvent;

  it("gives viem's arguments of an ERC-20 Transfer, with lowercase addresses", () => {
    const [from, to] = [address(), address()];
    const topics = encodeEventTopics({ abi: [transfer], eventName: 'Transfer', args: { from, to } }) as [Hex, ...Hex[]];
    const data = encodeAbiParameters([{ type: 'uint256' }], [123456789n]);
    const args = decodeLogArgs(transfer, topics, data);
    expect(args).toEqual({ from: from.toLowerCase(), to: to.toLowerCase(), value: 123456789n });
    expect(args).toEqual(lowercased(decodeEventLog({ abi: [transfer], topics, data, strict: true }).args));
  });

  it('restores addresses in non-indexed arrays and tuples, and in events with unnamed inputs (arrays)', () => {
    const event = parseAbiItem('event Routed(address indexed, (address to, uint256 amount)[] legs, address[2] pair)') as AbiEvent;
    const sender = address();
    const legs = [
      { to: address(), amount: 1n },
      { to: address(), amount: 2n },
    ];
    const pair = [address(), address()] as const;
    const topics = encodeEventTopics({ abi: [event], args: [sender] } as never) as [Hex, ...Hex[]];
    const data = encodeAbiParameters(
      event.inputs.filter((input) => !input.indexed),
      [legs, pair],
    );
    const args = decodeLogArgs(event, topics, data);
    expect(args).toEqual(lowercased(decodeEventLog({ abi: [event], topics, data, strict: true }).args));
    expect((args as unknown[])[0]).toBe(sender.toLowerCase());
  });

  it('refuses a log whose topic 0 is another event', () => {
    const approval = parseAbiItem('event Approval(address indexed owner, address indexed spender, uint256 value)') as AbiEvent;
    const topics = encodeEventTopics({ abi: [approval], eventName: 'Approval', args: { owner: address(), spender: address() } }) as [
      Hex,
      ...Hex[],
    ];
    expect(() => decodeLogArgs(transfer, topics, encodeAbiParameters([{ type: 'uint256' }], [1n]))).toThrow();
  });

  it("refuses data too short for the event, as viem's strict decoding does", () => {
    const topics = encodeEventTopics({ abi: [transfer], eventName: 'Transfer', args: { from: address(), to: address() } }) as [
      Hex,
      ...Hex[],
    ];
    expect(() => decodeLogArgs(transfer, topics, '0x1234')).toThrow();
  });
});

describe('decodeCallArgs', () => {
  const swap = parseAbiItem('function swap(address tokenIn, (address recipient, uint256 minOut) route, address[] path)') as AbiFunction;

  it("gives viem's arguments of calldata, with lowercase addresses at every depth", () => {
    const args = [address(), { recipient: address(), minOut: 7n }, [address(), address(), address()]] as const;
    const data = encodeFunctionData({ abi: [swap], args } as never);
    const decoded = decodeCallArgs(swap, data);
    expect(decoded).toEqual(lowercased(decodeFunctionData({ abi: [swap], data }).args));
    expect(decoded[0]).toBe(args[0].toLowerCase());
  });

  it('refuses calldata of another function', () => {
    const transfer = parseAbiItem('function transfer(address to, uint256 amount)') as AbiFunction;
    const data = encodeFunctionData({ abi: [transfer], args: [address(), 1n] });
    expect(() => decodeCallArgs(swap, data)).toThrow(/not a call of swap/);
  });

  it('keeps an address word whose upper bytes are not zero to its low 20 bytes, as viem does', () => {
    const transfer = parseAbiItem('function transfer(address to, uint256 amount)') as AbiFunction;
    const to = address();
    const data = encodeFunctionData({ abi: [transfer], args: [to, 5n] });
    const dirty = `${data.slice(0, 10)}${'ff'.repeat(12)}${data.slice(34)}` as Hex;
    expect(decodeCallArgs(transfer, dirty)).toEqual(lowercased(decodeFunctionData({ abi: [transfer], data: dirty }).args));
  });
});
