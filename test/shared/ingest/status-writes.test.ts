/**
 * The ingest's status item is best effort and says why the ingest stopped, on a real anvil:
 *  - a status write that fails after a batch moved the cursor does not fail the run (the batch is done);
 *  - the node head's timestamp (the lag in seconds) is read with the ingest's retries, not left null by
 *    one failed answer;
 *  - `ingestNext` records `stopped` and the reason when its read of the node's head fails.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import { ChainIngest } from '../../../shared/ingest/ingest';
import { readCursor } from '../../../shared/ingest/manifest';
import { readStoredStatus } from '../../../shared/ingest/status';
import { startRpcProxy } from '../../support/rpc-fault-proxy';
import { useTestTable } from '../../support/table';
import { publicClient } from './support/truth';

const faults = vi.hoisted(() => ({ failStatusWrites: false }));

vi.mock('../../../shared/ingest/status', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../shared/ingest/status')>();
  return {
    ...actual,
    writeChainStatus: (...args: Parameters<typeof actual.writeChainStatus>) =>
      faults.failStatusWrites
        ? Promise.reject(new Error('ProvisionedThroughputExceededException (injected)'))
        : actual.writeChainStatus(...args),
  };
});

useTestTable('status-writes');
const CHAIN_ID = 31337;
const warnings: string[] = [];
const log = { info: () => undefined, warn: (message: string) => void warnings.push(message) };
const fast = { attempts: 4, baseDelayMs: 5, maxDelayMs: 20 };
let anvil: Anvil;

const rpc = (method: string, params: unknown[] = []) =>
  publicClient(anvil.rpcUrl).request({ method: method as never, params: params as never });
const headNumber = async () => Number(await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 }));

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await rpc('anvil_mine', ['0x5']);
}, 60_000);

afterAll(async () => {
  faults.failStatusWrites = false;
  await anvil?.stop();
});

test('a status write that fails after the batch moved the cursor does not fail the run', async () => {
  faults.failStatusWrites = true;
  try {
    const result = await new ChainIngest({
      chainId: CHAIN_ID,
      client: createChainClient(anvil.rpcUrl),
      log,
      traceMethod: 'parity',
    }).ingestRange();
    expect(result.advanced).toBe((await headNumber()) + 1);
  } finally {
    faults.failStatusWrites = false;
  }
  expect((await readCursor(CHAIN_ID))?.blockNumber).toBe(await headNumber());
  expect(warnings.some((warning) => /could not write the chain status/.test(warning))).toBe(true);
  expect(await readStoredStatus(CHAIN_ID)).toBeUndefined();
});

test('the node head’s timestamp is read with retries: one failed answer does not leave it null', async () => {
  await rpc('anvil_mine', ['0x10']);
  const head = await headNumber();
  const proxy = await startRpcProxy(anvil.rpcUrl);
  try {
    // A node behind its peers for a moment: the head's header read once refused.
    proxy.inject({ kind: 'error', code: -32000, message: 'header not found', method: 'eth_getBlockByNumber', block: head, count: 1 });
    const client = createChainClient(proxy.url);
    const ingest = new ChainIngest({ chainId: CHAIN_ID, client, log, traceMethod: 'parity', retry: fast, statusIntervalMs: 0 });
    await ingest.ingestNext(2);
    expect((await readCursor(CHAIN_ID))!.blockNumber).toBeLessThan(head);
    const timestamp = Number((await publicClient(anvil.rpcUrl).getBlock({ blockNumber: BigInt(head) })).timestamp);
    expect(await readStoredStatus(CHAIN_ID)).toMatchObject({ state: 'catching_up', nodeHeadNumber: head, nodeHeadTimestamp: timestamp });
    expect(proxy.served.error).toBe(1);
  } finally {
    await proxy.close();
  }
});

test('ingestNext records `stopped` and why when the node’s head cannot be read', async () => {
  const proxy = await startRpcProxy(anvil.rpcUrl);
  try {
    proxy.inject({ kind: 'refuse', form: 'rpc-32601', method: 'eth_blockNumber', count: Infinity });
    const ingest = new ChainIngest({ chainId: CHAIN_ID, client: createChainClient(proxy.url), log, traceMethod: 'parity', retry: fast });
    await expect(ingest.ingestNext(10)).rejects.toThrow();
  } finally {
    await proxy.close();
  }
  expect(await readStoredStatus(CHAIN_ID)).toMatchObject({ state: 'stopped', reason: expect.stringMatching(/^ingest failed: /) });
});
