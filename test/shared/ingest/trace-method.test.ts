/**
 * How the ingest reads block traces, chosen by the operator (`--trace-method`, INGEST_TRACE_METHOD) or
 * found out from the node: `parity` reads trace_block only (anvil answers it in milliseconds where its
 * callTracer takes seconds on big blocks), with the same calls as callTracer finds.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createChainClient } from '../../../shared/chain/client';
import { DEFAULT_RETRY_POLICY } from '../../../shared/chain/retry';
import { BlockSource, type TraceMethod } from '../../../shared/ingest/fetch-block';
import { recordingChain } from '../../../shared/ingest/recorded-chain';
import { startDemoChain, type DemoChain } from '../../support/demo-chain';

let demo: DemoChain;

beforeAll(async () => {
  demo = await startDemoChain();
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

/** Traces of blocks 1..40 read with `method` (undefined: found out), and the JSON-RPC methods used. */
async function readTraces(method: TraceMethod | undefined) {
  const chain = recordingChain(createChainClient(demo.anvil.rpcUrl));
  const source = new BlockSource(chain.client, DEFAULT_RETRY_POLICY, { warn: () => undefined }, method);
  const calls: number[] = [];
  for (let number = 1n; number <= 40n; number += 1n) {
    const bundle = await source.fetch(number);
    calls.push(...(bundle.traces ?? []).map((trace) => trace.calls.length));
  }
  const methods = new Set([...chain.recording.requests.keys()].map((key) => JSON.parse(key)[0] as string));
  return { calls, methods };
}

test('parity reads trace_block only and finds the calls callTracer finds; none reads no trace', async () => {
  const found = await readTraces(undefined);
  expect(found.methods.has('debug_traceBlockByNumber')).toBe(true);
  expect(
    found.calls.some((count) => count > 1),
    'the demo has internal calls',
  ).toBe(true);

  const parity = await readTraces('parity');
  expect(parity.methods.has('trace_block')).toBe(true);
  expect(parity.methods.has('debug_traceBlockByNumber')).toBe(false);
  expect(parity.calls).toEqual(found.calls);

  const none = await readTraces('none');
  expect(none.methods.has('trace_block') || none.methods.has('debug_traceBlockByNumber')).toBe(false);
  expect(none.calls).toEqual([]);
}, 120_000);
