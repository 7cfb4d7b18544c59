import { describe, expect, test } from 'vitest';
import { flattenCallTracerFrame, groupParityTraces, type CallTracerFrame, type ParityTrace } from '../../../shared/chain/trace';

const a = (n: number): `0x${string}` => `0x${n.toString(16).padStart(40, '0')}`;

describe('call traces in Blockscout order', () => {
  // tx -> [ call A -> [ delegatecall B ], create2 C, selfdestruct ]
  const tree: CallTracerFrame = {
    type: 'CALL',
    from: a(1),
    to: a(2),
    value: '0x0',
    gas: '0x100',
    gasUsed: '0x10',
    input: '0x12345678',
    calls: [
      {
        type: 'CALL',
        from: a(2),
        to: a(3),
        value: '0x5',
        calls: [{ type: 'DELEGATECALL', from: a(3), to: a(4), error: 'execution reverted' }],
      },
      { type: 'CREATE2', from: a(2), to: a(5), value: '0x0' },
      { type: 'SELFDESTRUCT', from: a(2), to: a(6), value: '0x7' },
    ],
  };

  test('callTracer frames are numbered depth first, the transaction itself being 0', () => {
    const { calls } = flattenCallTracerFrame(tree, null);
    expect(calls.map((c) => [c.index, c.type, c.callType, c.from, c.to, c.createdContract, c.value, c.traceAddress, c.error])).toEqual([
      [0, 'call', 'call', a(1), a(2), null, 0n, [], null],
      [1, 'call', 'call', a(2), a(3), null, 5n, [0], null],
      [2, 'call', 'delegatecall', a(3), a(4), null, 0n, [0, 0], 'execution reverted'],
      [3, 'create2', null, a(2), null, a(5), 0n, [1], null],
      [4, 'selfdestruct', null, a(2), a(6), null, 7n, [2], null],
    ]);
  });

  test('parity traces, in any order, give the same calls per transaction', () => {
    const traces: ParityTrace[] = [
      { type: 'suicide', action: { address: a(2), refundAddress: a(6), balance: '0x7' }, traceAddress: [2], transactionPosition: 0 },
      {
        type: 'call',
        action: { callType: 'delegatecall', from: a(3), to: a(4), value: '0x0' },
        error: 'Reverted',
        traceAddress: [0, 0],
        transactionPosition: 0,
      },
      { type: 'reward', action: {}, traceAddress: [], transactionPosition: null },
      {
        type: 'call',
        action: { callType: 'call', from: a(1), to: a(2), value: '0x0', input: '0x12345678' },
        traceAddress: [],
        transactionPosition: 0,
      },
      {
        type: 'create',
        action: { creationMethod: 'create2', from: a(2), value: '0x0' },
        result: { address: a(5) },
        traceAddress: [1],
        transactionPosition: 0,
      },
      { type: 'call', action: { callType: 'call', from: a(2), to: a(3), value: '0x5' }, traceAddress: [0], transactionPosition: 0 },
      { type: 'call', action: { callType: 'call', from: a(9), to: a(8), value: '0x1' }, traceAddress: [], transactionPosition: 1 },
    ];
    const [first, second] = groupParityTraces(traces, 2);
    const shape = (calls: typeof first.calls) =>
      calls.map((c) => [c.index, c.type, c.callType, c.from, c.to, c.createdContract, c.value, c.traceAddress, c.error !== null]);
    expect(shape(first.calls)).toEqual(shape(flattenCallTracerFrame(tree, null).calls));
    expect(shape(second.calls)).toEqual([[0, 'call', 'call', a(9), a(8), null, 1n, [], false]]);
  });
});
