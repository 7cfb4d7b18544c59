/**
 * Call traces in one shape, whichever tracer the node offers: geth's `callTracer` (a tree per
 * transaction, from debug_traceBlockByNumber) or parity's flat `trace_block` list. A transaction's
 * trace is its calls in depth-first order; position 0 is the top-level call (the transaction itself),
 * and the position is the `index` Blockscout gives internal transactions.
 */
import { hexToBigInt, type Address, type Hex } from 'viem';
import { normalizeAddress } from './address';

export type InternalCallType = 'call' | 'create' | 'create2' | 'selfdestruct';
export type CallKind = 'call' | 'delegatecall' | 'staticcall' | 'callcode';

export interface TraceCall {
  /** Depth-first position; 0 is the top-level call. */
  index: number;
  type: InternalCallType;
  /** For `type: call` only: the opcode that made it. */
  callType: CallKind | null;
  from: Address;
  /** Callee, or the beneficiary of a selfdestruct; null for a creation. */
  to: Address | null;
  /** Address a create / create2 produced (null when it failed). */
  createdContract: Address | null;
  value: bigint;
  gas: bigint;
  gasUsed: bigint;
  input: Hex;
  output: Hex | null;
  error: string | null;
  /** Path of child positions from the top-level call (empty for it). */
  traceAddress: number[];
}

export interface TransactionTrace {
  /** As reported by the tracer; null when it does not say. */
  transactionHash: Hex | null;
  calls: TraceCall[];
}

/** One frame of geth's callTracer. */
export interface CallTracerFrame {
  type: string;
  from: string;
  to?: string;
  value?: Hex;
  gas?: Hex;
  gasUsed?: Hex;
  input?: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  calls?: CallTracerFrame[];
}

const hexValue = (value: Hex | string | number | undefined | null): bigint => {
  if (value === undefined || value === null || value === '' || value === '0x') return 0n;
  if (typeof value === 'number') return BigInt(value);
  return hexToBigInt(value as Hex);
};

/** Flattens one transaction's callTracer tree in depth-first order. */
export function flattenCallTracerFrame(root: CallTracerFrame, transactionHash: Hex | null): TransactionTrace {
  const calls: TraceCall[] = [];
  const visit = (frame: CallTracerFrame, traceAddress: number[]): void => {
    const opcode = frame.type.toUpperCase();
    const isCreate = opcode === 'CREATE' || opcode === 'CREATE2';
    const target = frame.to ? normalizeAddress(frame.to) : null;
    calls.push({
      index: calls.length,
      type: isCreate ? (opcode.toLowerCase() as 'create' | 'create2') : opcode === 'SELFDESTRUCT' ? 'selfdestruct' : 'call',
      callType: isCreate || opcode === 'SELFDESTRUCT' ? null : callKind(opcode),
      from: normalizeAddress(frame.from),
      to: isCreate ? null : target,
      createdContract: isCreate && !frame.error ? target : null,
      value: hexValue(frame.value),
      gas: hexValue(frame.gas),
      gasUsed: hexValue(frame.gasUsed),
      input: (frame.input ?? '0x') as Hex,
      output: (frame.output ?? null) as Hex | null,
      error: frame.error ?? null,
      traceAddress,
    });
    for (const [position, child] of (frame.calls ?? []).entries()) visit(child, [...traceAddress, position]);
  };
  visit(root, []);
  return { transactionHash, calls };
}

function callKind(opcode: string): CallKind {
  switch (opcode) {
    case 'DELEGATECALL':
      return 'delegatecall';
    case 'STATICCALL':
      return 'staticcall';
    case 'CALLCODE':
      return 'callcode';
    default:
      return 'call';
  }
}

/** One entry of parity's trace_block. */
export interface ParityTrace {
  type: 'call' | 'create' | 'suicide' | 'reward' | string;
  action: {
    callType?: string;
    creationMethod?: string;
    from?: string;
    to?: string;
    value?: Hex;
    gas?: Hex;
    input?: Hex;
    init?: Hex;
    address?: string;
    refundAddress?: string;
    balance?: Hex;
  };
  result?: { gasUsed?: Hex; output?: Hex; address?: string } | null;
  error?: string;
  traceAddress: number[];
  transactionHash?: Hex | null;
  transactionPosition?: number | null;
}

/**
 * Groups parity traces by transaction position and orders each group depth-first (by trace address),
 * giving one TransactionTrace per transaction of the block, in block order. Block rewards are skipped.
 */
export function groupParityTraces(traces: readonly ParityTrace[], transactionCount: number): TransactionTrace[] {
  const groups: ParityTrace[][] = Array.from({ length: transactionCount }, () => []);
  for (const trace of traces) {
    if (trace.transactionPosition === null || trace.transactionPosition === undefined) continue;
    const group = groups[trace.transactionPosition];
    if (!group) throw new Error(`trace_block: trace for transaction position ${trace.transactionPosition} of ${transactionCount}`);
    group.push(trace);
  }
  return groups.map((group) => {
    group.sort((a, b) => compareTraceAddress(a.traceAddress, b.traceAddress));
    return {
      transactionHash: group[0]?.transactionHash ?? null,
      calls: group.map((trace, index) => parityCall(trace, index)),
    };
  });
}

function compareTraceAddress(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    // Within both arrays: i is below both lengths.
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

function parityCall(trace: ParityTrace, index: number): TraceCall {
  const { action, result } = trace;
  const base = {
    index,
    gas: hexValue(action.gas),
    gasUsed: hexValue(result?.gasUsed),
    error: trace.error ?? null,
    traceAddress: trace.traceAddress,
  };
  if (trace.type === 'create') {
    return {
      ...base,
      type: action.creationMethod === 'create2' ? 'create2' : 'create',
      callType: null,
      from: normalizeAddress(action.from ?? ''),
      to: null,
      createdContract: result?.address && !trace.error ? normalizeAddress(result.address) : null,
      value: hexValue(action.value),
      input: (action.init ?? '0x') as Hex,
      output: null,
    };
  }
  if (trace.type === 'suicide') {
    return {
      ...base,
      type: 'selfdestruct',
      callType: null,
      from: normalizeAddress(action.address ?? ''),
      to: action.refundAddress ? normalizeAddress(action.refundAddress) : null,
      createdContract: null,
      value: hexValue(action.balance),
      input: '0x',
      output: null,
    };
  }
  return {
    ...base,
    type: 'call',
    callType: callKind((action.callType ?? 'call').toUpperCase()),
    from: normalizeAddress(action.from ?? ''),
    to: action.to ? normalizeAddress(action.to) : null,
    createdContract: null,
    value: hexValue(action.value),
    input: (action.input ?? '0x') as Hex,
    output: (result?.output ?? null) as Hex | null,
  };
}
