/**
 * The local chain step of `npm start` (scripts/lib/local-chain.ts), run in-process against the real
 * local service on free ports with a temporary DATA_DIR: a real anvil, the demo, the real ingest into
 * the embedded DynamoDB, and every check made over HTTP as an API user would. Then restarts on the
 * same DATA_DIR: clean, after an abrupt end of anvil, and with the saved chain gone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../scripts/lib/anvil';
import { startLocalService, type LocalService } from '../../scripts/lib/gateway';
import { ANVIL_STATE_FILE, startLocalChain, type LocalChain } from '../../scripts/lib/local-chain';

const CHAIN_ID = 31337;
const TABLE = 'local-chain-test';
const ENV = { ANVIL_PORT: '0', DEMO_ACTIVITY_INTERVAL_MS: '0' };

let dataDir: string;
let dynamodbPort: number;
let service: LocalService | undefined;
let chain: LocalChain | undefined;
let printed: string[] = [];
const extraAnvils: Anvil[] = [];

/** Starts the service (same DynamoDB port on restarts: this process's table client keeps its endpoint) and the chain step. */
async function start(options: { env?: Record<string, string> } = {}): Promise<void> {
  service = await startLocalService({ dataDir, tableName: TABLE, dynamodbPort, onHandlerError: (error) => console.error(error) });
  dynamodbPort = Number(new URL(service.dynamodbEndpoint).port);
  printed = [];
  chain = await startLocalChain(service, { env: options.env ?? ENV, print: (line) => printed.push(line), stateSaveIntervalMs: 3_600_000 });
}

async function stop(): Promise<void> {
  await chain?.stop();
  await service?.stop();
  chain = undefined;
  service = undefined;
}

async function api<T = any>(pathAndQuery: string): Promise<T> {
  const response = await fetch(`${service!.urls.base}${pathAndQuery}`);
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as T;
}

function rpc(rpcUrl: string) {
  return createPublicClient({ transport: http(rpcUrl), cacheTime: 0 });
}

/** Sends ether from bob to carol and returns the block it landed in. */
async function sendTransaction(rpcUrl: string): Promise<{ hash: Hash; blockNumber: number; blockHash: string }> {
  const chainDef = defineChain({
    id: CHAIN_ID,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]), chain: chainDef, transport: http(rpcUrl) });
  const hash = await wallet.sendTransaction({ to: privateKeyToAccount(ANVIL_PRIVATE_KEYS[4]).address, value: parseEther('0.01') });
  const receipt = await rpc(rpcUrl).waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return { hash, blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash };
}

/** Polls the insights blocks endpoint until it serves `blockNumber`; fails after `withinMs`. */
async function waitForBlockInApi(blockNumber: number, withinMs: number): Promise<{ block_hash: string }> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const page = await api(`/insights/v1/blocks?chain_id=${CHAIN_ID}&filter_block_number=${blockNumber}`);
    if (page.data.length === 1) return page.data[0];
    if (Date.now() > deadline) throw new Error(`block ${blockNumber} not served within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The newest block the API serves, and the chain's block of that number. */
async function newestBlock(): Promise<{
  api: { block_number: number; block_hash: string };
  chainHash: string | undefined;
  chainHead: number;
}> {
  const page = await api(`/insights/v1/blocks?chain_id=${CHAIN_ID}&sort_order=desc&limit=1`);
  const client = rpc(chain!.rpcUrl);
  const newest = page.data[0];
  const onChain = await client.getBlock({ blockNumber: BigInt(newest.block_number) });
  return { api: newest, chainHash: onChain.hash ?? undefined, chainHead: Number(await client.getBlockNumber()) };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'local-chain-test-'));
  dynamodbPort = 0;
  await start();
}, 120_000);

afterAll(async () => {
  await stop();
  for (const anvil of extraAnvils) await anvil.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the local chain of npm start', () => {
  it('indexes the demo chain and serves it on the explorer and insights URLs, and prints where to look', async () => {
    const manifest = chain!.manifest!;
    const busy = manifest.accounts.busy;
    const output = printed.join('\n');
    expect(output).toContain(chain!.rpcUrl);
    expect(output).toContain(`chain id ${CHAIN_ID}`);
    expect(output).toContain(busy);
    expect(output).toContain(`curl -s '${service!.urls.base}/explorer/addresses/${busy.toLowerCase()}/transactions'`);
    expect(output).toContain(`curl -s '${service!.urls.base}/insights/v1/blocks?chain_id=${CHAIN_ID}`);

    // The busy address: a full explorer page of its transactions, newest first, and a next page.
    const page = await api(`/explorer/addresses/${busy}/transactions`);
    expect(page.items).toHaveLength(50);
    expect(page.next_page_params).not.toBeNull();
    for (const item of page.items) expect([item.from?.hash, item.to?.hash]).toContain(busy);
    const busyTransactions = manifest.transactions.filter((tx) => tx.from === busy || tx.to === busy);
    expect(page.items[0].hash).toBe(busyTransactions[busyTransactions.length - 1].hash);

    // Insights: the newest block is the chain's head, with the chain's hash.
    const newest = await newestBlock();
    expect(newest.api.block_number).toBe(newest.chainHead);
    expect(newest.api.block_hash).toBe(newest.chainHash);
    expect(newest.chainHead).toBeGreaterThanOrEqual(manifest.blocks.last);

    // Token transfers of the demo token, by insights.
    const transfers = await api(`/insights/v1/tokens/transfers/${manifest.contracts.token}?chain_id=${CHAIN_ID}&limit=5`);
    expect(transfers.data).toHaveLength(5);
    expect(transfers.meta.total_items).toBeGreaterThan(60);
  });

  it('serves a block produced after start-up within 5 seconds', async () => {
    const sent = await sendTransaction(chain!.rpcUrl);
    const served = await waitForBlockInApi(sent.blockNumber, 5_000);
    expect(served.block_hash).toBe(sent.blockHash);
  });

  it('restarted on the same DATA_DIR, keeps the same chain and table and goes on following it', async () => {
    const before = await newestBlock();
    await stop();
    await start();
    expect(printed.join('\n')).toContain('restored from');
    expect(printed.join('\n')).not.toContain('deploying the demo contracts');

    const after = await newestBlock();
    expect(after.api).toEqual(before.api);
    expect(after.chainHash).toBe(before.chainHash);
    expect(after.chainHead).toBe(before.chainHead);

    const sent = await sendTransaction(chain!.rpcUrl);
    expect(sent.blockNumber).toBe(before.chainHead + 1);
    expect((await waitForBlockInApi(sent.blockNumber, 5_000)).block_hash).toBe(sent.blockHash);
  });

  it('after anvil ends abruptly, rolls the table back to the chain it saved', async () => {
    // The save refuses while the table's cursor is behind the chain (a block's items are served before its cursor moves).
    await expect.poll(() => chain!.saveState!(), { timeout: 5_000, interval: 100 }).toBe(true);
    const saved = await newestBlock();
    const lost = await sendTransaction(chain!.rpcUrl);
    await waitForBlockInApi(lost.blockNumber, 5_000);
    chain!.anvil!.process.kill('SIGKILL'); // like a Ctrl-C reaching anvil first: nothing saved since
    await stop();

    await start();
    expect(printed.join('\n')).toContain(`rolled the table back to block ${saved.api.block_number}`);
    const after = await newestBlock();
    expect(after.api).toEqual(saved.api);
    expect(after.chainHead).toBe(saved.api.block_number);
    expect((await api(`/insights/v1/blocks?chain_id=${CHAIN_ID}&filter_block_number=${lost.blockNumber}`)).data).toEqual([]);
  });

  it('with the saved chain gone, starts the demo chain afresh instead of serving blocks of a chain that no longer exists', async () => {
    const oldFirstBlock = (await api(`/insights/v1/blocks?chain_id=${CHAIN_ID}&filter_block_number=1`)).data[0];
    await stop();
    await rm(path.join(dataDir, ANVIL_STATE_FILE));
    await start();
    const output = printed.join('\n');
    expect(output).toContain('disagree');
    expect(output).toContain('deploying the demo contracts');

    const firstBlock = (await api(`/insights/v1/blocks?chain_id=${CHAIN_ID}&filter_block_number=1`)).data[0];
    const onChain = await rpc(chain!.rpcUrl).getBlock({ blockNumber: 1n });
    expect(firstBlock.block_hash).toBe(onChain.hash);
    expect(firstBlock.block_hash).not.toBe(oldFirstBlock.block_hash);
    const newest = await newestBlock();
    expect(newest.api.block_number).toBe(newest.chainHead);
    expect(newest.api.block_hash).toBe(newest.chainHash);
    // The busy address shows this chain's demo only: exactly its transactions, not twice as many.
    const busy = chain!.manifest!.accounts.busy;
    const second = await api(
      `/explorer/addresses/${busy}/transactions?${new URLSearchParams(toQuery((await api(`/explorer/addresses/${busy}/transactions`)).next_page_params))}`,
    );
    expect(50 + second.items.length).toBe(chain!.manifest!.expected.transactionCounts[busy]);
  });

  it('with RPC_URL, indexes that chain from START_BLOCK (default: 100 blocks back) and follows it; no anvil of its own, no demo', async () => {
    await stop();
    const other = await startAnvil({ chainId: 31338 });
    extraAnvils.push(other);
    const client = rpc(other.rpcUrl);
    await client.request({ method: 'anvil_mine' as 'eth_chainId', params: ['0x78'] as unknown as undefined }); // 120 blocks
    const previousExplorerChain = process.env.EXPLORER_CHAIN_ID;
    try {
      await expect(start({ env: { RPC_URL: other.rpcUrl, CHAIN_ID: '5' } })).rejects.toThrow(/CHAIN_ID 5 does not match eth_chainId 31338/);
      await service?.stop();
      await start({ env: { RPC_URL: other.rpcUrl } });
      expect(chain!.kind).toBe('rpc');
      expect(chain!.chainId).toBe(31338);
      expect(chain!.anvil).toBeUndefined();
      // Insights re-reads its cached chain registry for an unknown chain at most every 5 s.
      await expect
        .poll(async () => (await fetch(`${service!.urls.base}/insights/v1/blocks?chain_id=31338&limit=1`)).status, {
          timeout: 7_000,
          interval: 250,
        })
        .toBe(200);
      const oldest = await api('/insights/v1/blocks?chain_id=31338&sort_order=asc&limit=1');
      expect(oldest.data[0].block_number).toBe(20);
      expect(oldest.meta.total_items).toBe(101);

      await client.request({ method: 'anvil_mine' as 'eth_chainId', params: ['0x1'] as unknown as undefined });
      const deadline = Date.now() + 5_000;
      let newest = oldest;
      while (Date.now() < deadline) {
        newest = await api('/insights/v1/blocks?chain_id=31338&sort_order=desc&limit=1');
        if (newest.data[0].block_number === 121) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(newest.data[0].block_hash).toBe((await client.getBlock({ blockNumber: 121n })).hash);

      // START_BLOCK chooses where an empty table starts.
      await stop();
      const third = await startAnvil({ chainId: 31339 });
      extraAnvils.push(third);
      await rpc(third.rpcUrl).request({ method: 'anvil_mine' as 'eth_chainId', params: ['0x1e'] as unknown as undefined }); // 30 blocks
      await start({ env: { RPC_URL: third.rpcUrl, START_BLOCK: '25' } });
      // Insights re-reads its cached chain registry for an unknown chain at most every 5 s.
      const served = async () => {
        const response = await fetch(`${service!.urls.base}/insights/v1/blocks?chain_id=31339&sort_order=asc&limit=10`);
        return response.ok
          ? ((await response.json()) as { data: { block_number: number }[] }).data.map((block) => block.block_number)
          : response.status;
      };
      await expect.poll(served, { timeout: 7_000, interval: 250 }).toEqual([25, 26, 27, 28, 29, 30]);
    } finally {
      if (previousExplorerChain === undefined) delete process.env.EXPLORER_CHAIN_ID;
      else process.env.EXPLORER_CHAIN_ID = previousExplorerChain;
    }
  });
});

function toQuery(params: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, String(value)]));
}
