/**
 * RPC faults between the ingest and a real anvil, injected by a local proxy: HTTP 429, requests that
 * never get an answer (client timeout), malformed JSON, and receipts of another block. The ingest
 * retries with backoff and ends with exactly the right table; when the faults never stop it throws
 * and neither the cursor nor the table moves.
 */
import { createWalletClient, http, parseEther, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { RetriesExhaustedError, type RetryPolicy } from '../../../shared/chain/retry';
import { ingestRange } from '../../../shared/ingest/ingest';
import { readCursor } from '../../../shared/ingest/manifest';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { startRpcProxy, type RpcProxy } from './support/proxy';
import { expectImmutableItems, expectStateMatchesChain, publicClient, readChainTruth } from './support/truth';

const table = useTestTable('faults');
const CHAIN_ID = 31337;
// More attempts than faults injected in a row (11): the prefetched blocks share each batch request.
const FAST_RETRIES: RetryPolicy = { attempts: 14, baseDelayMs: 20, maxDelayMs: 200 };
let anvil: Anvil;
let proxy: RpcProxy;
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));

async function activity(count: number): Promise<void> {
  const wallet = createWalletClient({ chain: { ...anvilChain, id: CHAIN_ID }, transport: http(anvil.rpcUrl) });
  const client = publicClient(anvil.rpcUrl);
  const wait = async (hash: Promise<Hash>) => client.waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  const { DemoToken } = await loadContracts();
  const deployed = await wait(
    wallet.deployContract({ abi: DemoToken.abi, bytecode: DemoToken.bytecode, args: [accounts[0].address], account: accounts[0] }),
  );
  const token = deployed.contractAddress as Address;
  for (let i = 0; i < count; i += 1) {
    const to = accounts[1 + (i % 4)].address;
    await wait(wallet.sendTransaction({ to, value: parseEther('0.01') * BigInt(i + 1), account: accounts[0] }));
    await wait(
      wallet.writeContract({ address: token, abi: DemoToken.abi, functionName: 'mint', args: [to, BigInt(i + 1)], account: accounts[0] }),
    );
  }
}

const ingestVia = (url: string, to: number, retry = FAST_RETRIES) =>
  ingestRange({ chainId: CHAIN_ID, client: createChainClient(url, { timeoutMs: 500 }), retry, from: 0, to });

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  proxy = await startRpcProxy(anvil.rpcUrl);
  await activity(4);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

describe('faults that stop after a while', () => {
  test('429s, timeouts, malformed JSON and receipts of the wrong block are retried; the table ends exactly right', async () => {
    Object.assign(proxy.plan, { hang: 2, http429: 3, malformedJson: 3, wrongBlockReceipts: 3 });
    const head = Number(await publicClient(anvil.rpcUrl).getBlockNumber());
    const result = await ingestVia(proxy.url, head);
    expect(result.advanced).toBe(head + 1);
    expect(proxy.served).toMatchObject({ hang: 2, http429: 3, malformedJson: 3, wrongBlockReceipts: 3 });
    const truth = await readChainTruth(anvil.rpcUrl, 0, head);
    await expectImmutableItems(table.name, truth);
    await expectStateMatchesChain(table.name, truth, anvil.rpcUrl);
    expect(await readCursor(CHAIN_ID)).toMatchObject({ blockNumber: head, blockHash: truth.blocks.at(-1)!.hash });
  });
});

describe('faults that never stop', () => {
  test.each([
    ['every request answered with 429', { http429: Number.POSITIVE_INFINITY }],
    ['receipts always of another block', { wrongBlockReceipts: Number.POSITIVE_INFINITY }],
    ['every answer malformed', { malformedJson: Number.POSITIVE_INFINITY }],
  ])('%s: the ingest throws, the cursor and the table stay as they were', async (_name, faults) => {
    await activity(1);
    const head = Number(await publicClient(anvil.rpcUrl).getBlockNumber());
    const cursorBefore = await readCursor(CHAIN_ID);
    expect(cursorBefore!.blockNumber).toBeLessThan(head);
    const before = await tableSnapshot(table.name);
    Object.assign(proxy.plan, { http429: 0, hang: 0, malformedJson: 0, wrongBlockReceipts: 0 }, faults);
    try {
      await expect(ingestVia(proxy.url, head, { attempts: 4, baseDelayMs: 20, maxDelayMs: 100 })).rejects.toBeInstanceOf(
        RetriesExhaustedError,
      );
    } finally {
      Object.assign(proxy.plan, { http429: 0, hang: 0, malformedJson: 0, wrongBlockReceipts: 0 });
    }
    expect(await readCursor(CHAIN_ID)).toEqual(cursorBefore);
    expect(await tableSnapshot(table.name)).toEqual(before);
    // Once the node behaves, the same ingest carries on from the cursor.
    const result = await ingestVia(proxy.url, head);
    expect(result.advanced).toBe(head - cursorBefore!.blockNumber);
    await expectImmutableItems(table.name, await readChainTruth(anvil.rpcUrl, 0, head));
  });
});

describe('a node that traces one block at a time, slowly', () => {
  test('the ingest reads traces one at a time once one is slow, instead of timing out on a queue of them', async () => {
    // 4 prefetched blocks' traces at once take 4 x 400 ms at the node: more than the client's 1 s.
    const slow = await startRpcProxy(anvil.rpcUrl, { serialTraceMs: 400 });
    const warnings: string[] = [];
    try {
      const head = Number(await publicClient(anvil.rpcUrl).getBlockNumber());
      const result = await inTable(`${table.name}-slow-traces`, () =>
        ingestRange({
          chainId: CHAIN_ID,
          client: createChainClient(slow.url, { timeoutMs: 1_000 }),
          retry: { attempts: 6, baseDelayMs: 20, maxDelayMs: 200 },
          log: { info: () => undefined, warn: (message) => void warnings.push(message) },
          from: 0,
          to: head,
        }),
      );
      expect(result.advanced).toBe(head + 1);
      expect(warnings.filter((message) => message.includes('one block at a time'))).toHaveLength(1);
    } finally {
      await slow.close();
    }
  }, 120_000);
});
