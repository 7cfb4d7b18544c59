/**
 * Webhook delivery end to end on the real demo chain: the real ingest hands its blocks to the webhooks'
 * listener (as npm start does; in AWS through the WebhookEvents queue), which matches them and hands the
 * deliveries to the worker that POSTs them (the code DeliverWebhooks runs) to a receiver on 127.0.0.1.
 * Checked against the chain's own logs and transactions: every matching event and transaction delivered
 * (none that does not match), signed as Insight signs, decoded with the filter's ABI; a receiver that is
 * down and then up gets everything; a slow one is suspended, and a PATCH resumes it; an orphaned block's
 * items come again `reverted`; hostile receivers are refused at delivery.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  pad,
  parseAbiItem,
  type PublicClient,
  toEventSelector,
  toFunctionSelector,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS } from '../../../scripts/lib/anvil';
import { startLocalWebhookWorker, type LocalWebhookWorker } from '../../../scripts/lib/webhook-worker';
import { createChainClient } from '../../../shared/chain/client';
import { getItem, updateItem } from '../../../shared/db/operations';
import { webhookKeys } from '../../../shared/table/keys';
import { ingestRange, registerChain } from '../../../shared/ingest/ingest';
import { createApiKey } from '../../../shared/insights/api-keys';
import { type DeliverySettings, post } from '../../../shared/insights/webhook-delivery';
import { itemId } from '../../../shared/insights/webhook-payload';
import {
  createWebhook,
  listWebhooks,
  TEST_SECRET,
  testWebhook,
  updateWebhook,
  type WebhookSettings,
} from '../../../shared/insights/webhooks';
import { startDemoChain, type DemoChain } from '../../support/demo-chain';
import { useTestTable } from '../../support/table';

useTestTable('webhook-delivery');
const CHAIN_ID = 31337;
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const TRANSFER_TOPIC = toEventSelector(TRANSFER);
const TRANSFER_CALL = toFunctionSelector('function transfer(address to, uint256 amount)');
const TRANSFER_ABI = JSON.stringify(TRANSFER);
const TRANSFER_CALL_ABI = JSON.stringify(parseAbiItem('function transfer(address to, uint256 amount)'));

const delivery: DeliverySettings = {
  egress: { allowLoopback: true, allowHttp: true },
  timeoutMs: 500,
  suspendAfterFailures: 3,
  suspendAfterMs: 0,
  retryBaseMs: 20,
};
const routes: WebhookSettings = {
  limits: { requestsPerMinute: 10_000 },
  maxWebhooksPerProject: 100,
  egress: { allowLoopback: true, allowHttp: true },
};

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const received: Received[] = [];
/** How the receiver answers a path (default 200). */
const behaviour = new Map<string, (request: Received, response: ServerResponse) => void>();

let demo: DemoChain;
let chain: PublicClient;
let server: Server;
let base = '';
let key = '';
let worker: LocalWebhookWorker;
const hooks: Record<string, { id: string; secret: string }> = {};

async function ingest(): Promise<void> {
  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(demo.anvil.rpcUrl), listeners: [worker.listener] });
  await worker.idle();
}

async function hook(name: string, filters: unknown): Promise<void> {
  const created = await createWebhook(key, { webhook_url: `${base}/${name}`, filters, name }, routes);
  hooks[name] = { id: created.id, secret: created.webhook_secret };
}

/** The items a webhook's receiver was sent (every request to its path). */
function itemsOf(name: string): { id: string; status: string; type: string; data: any }[] {
  return received.filter((request) => request.path === `/${name}`).flatMap((request) => JSON.parse(request.body).data);
}

beforeAll(async () => {
  demo = await startDemoChain({ chainId: CHAIN_ID });
  chain = createPublicClient({ transport: http(demo.anvil.rpcUrl) });
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const answer = behaviour.get(entry.path);
      if (answer) answer(entry, response);
      else response.writeHead(200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await registerChain(CHAIN_ID, 0);
  key = (await createApiKey({ project: 'hooks' })).key;
  const token = demo.manifest.contracts.token.toLowerCase();
  await hook('token-events', {
    'v1.events': { chain_ids: [String(CHAIN_ID)], addresses: [token], signatures: [{ sig_hash: TRANSFER_TOPIC, abi: TRANSFER_ABI }] },
  });
  await hook('token-calls', {
    'v1.transactions': { to_addresses: [token], signatures: [{ sig_hash: TRANSFER_CALL, abi: TRANSFER_CALL_ABI }] },
  });
  await hook('to-alice', {
    'v1.events': { signatures: [{ sig_hash: TRANSFER_TOPIC, abi: TRANSFER_ABI, params: { to: demo.manifest.accounts.alice } }] },
  });
  worker = startLocalWebhookWorker({ settings: delivery, filterCacheMs: 0, print: null });
  await ingest();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  server?.close();
  await demo?.stop();
});

const verify = (name: string) => {
  for (const request of received.filter((entry) => entry.path === `/${name}`)) {
    expect(request.headers['x-webhook-id']).toBe(hooks[name]!.id);
    const expected = createHmac('sha256', hooks[name]!.secret).update(request.body).digest('hex');
    expect(request.headers['x-webhook-signature']).toBe(expected);
    expect(request.headers['content-type']).toBe('application/json');
  }
};

describe('matching against the chain', () => {
  it("delivers every Transfer the token emitted, once, decoded, signed with the webhook's secret", async () => {
    const token = demo.manifest.contracts.token;
    const logs = await chain.getLogs({ address: token, event: TRANSFER, fromBlock: 0n });
    expect(logs.length).toBeGreaterThan(3);
    const items = itemsOf('token-events');
    expect(items.map((item) => item.id).sort()).toEqual(
      logs.map((log) => itemId(CHAIN_ID, log.blockHash!, { logIndex: log.logIndex! })).sort(),
    );
    for (const item of items) {
      expect(item).toMatchObject({ status: 'new', type: 'event' });
      const log = logs.find(
        (candidate) => candidate.transactionHash === item.data.transaction_hash && candidate.logIndex === item.data.log_index,
      )!;
      expect(item.data).toMatchObject({
        chain_id: String(CHAIN_ID),
        block_number: Number(log.blockNumber),
        address: token.toLowerCase(),
        topics: log.topics,
      });
      expect(item.data.decoded).toEqual({
        name: 'Transfer',
        indexed_params: { from: log.args.from!.toLowerCase(), to: log.args.to!.toLowerCase() },
        non_indexed_params: { value: log.args.value!.toString() },
      });
    }
    const requests = received.filter((entry) => entry.path === '/token-events');
    for (const request of requests) expect(JSON.parse(request.body)).toMatchObject({ topic: 'v1.events', timestamp: expect.any(Number) });
    verify('token-events');
  });

  it('delivers every transfer() call to the token as a transaction, decoded, and nothing else', async () => {
    const token = demo.manifest.contracts.token.toLowerCase();
    const head = Number(await chain.getBlockNumber());
    const blocks = await Promise.all(
      Array.from({ length: head + 1 }, (_, n) => chain.getBlock({ blockNumber: BigInt(n), includeTransactions: true })),
    );
    const calls = blocks
      .flatMap((block) => block.transactions)
      .filter((tx) => tx.to?.toLowerCase() === token && tx.input.startsWith(TRANSFER_CALL));
    expect(calls.length).toBeGreaterThan(0);
    const items = itemsOf('token-calls');
    expect(items.map((item) => item.data.hash).sort()).toEqual(calls.map((tx) => tx.hash).sort());
    for (const item of items) {
      expect(item.type).toBe('transaction');
      expect(item.data.decoded.name).toBe('transfer');
      expect(item.data.function_selector).toBe(TRANSFER_CALL);
    }
    expect(
      received.filter((entry) => entry.path === '/token-calls').every((entry) => JSON.parse(entry.body).topic === 'v1.transactions'),
    ).toBe(true);
    verify('token-calls');
  });

  it('matches params on the decoded values: the ERC-20 Transfers to alice, of any token, and no other', async () => {
    const alice = demo.manifest.accounts.alice;
    const logs = (await chain.request({
      method: 'eth_getLogs',
      params: [{ fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER_TOPIC, null, pad(alice).toLowerCase() as `0x${string}`] }],
    })) as { blockHash: string; logIndex: string; topics: string[] }[];
    // ERC-20 only: an ERC-721 Transfer indexes its third argument, which the filter's ABI does not.
    const erc20 = logs.filter((log) => log.topics.length === 3);
    expect(erc20.length).toBeGreaterThan(0);
    expect(erc20.length).toBeLessThan(logs.length);
    expect(
      itemsOf('to-alice')
        .map((item) => item.id)
        .sort(),
    ).toEqual(erc20.map((log) => itemId(CHAIN_ID, log.blockHash, { logIndex: Number(log.logIndex) })).sort());
  });
});

describe('receivers that fail', () => {
  const sendTokens = async (count: number) => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[1] as `0x${string}`),
      transport: http(demo.anvil.rpcUrl),
    });
    for (let i = 0; i < count; i++)
      await chain.waitForTransactionReceipt({
        hash: await wallet.writeContract({
          address: demo.manifest.contracts.token,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [demo.manifest.accounts.bob, BigInt(i + 1)],
          chain: null,
        }),
      });
  };

  it('a receiver that is down, then up, gets everything (retried with backoff)', async () => {
    const token = demo.manifest.contracts.token.toLowerCase();
    let refused = 0;
    behaviour.set('/flaky', (_request, response) => {
      // (Fewer failures in a row than suspendAfterFailures: it is down, not gone.)
      if (refused < 2) {
        refused += 1;
        response.writeHead(503).end();
      } else response.writeHead(200).end();
    });
    await hook('flaky', { 'v1.events': { addresses: [token] } });
    const from = await chain.getBlockNumber();
    await sendTokens(3);
    await ingest();
    const logs = await chain.getLogs({ address: demo.manifest.contracts.token, fromBlock: from + 1n });
    expect(logs).toHaveLength(3);
    const delivered = received
      .filter((entry) => entry.path === '/flaky')
      .slice(refused)
      .flatMap((entry) => JSON.parse(entry.body).data);
    expect(refused).toBe(2);
    expect(new Set(delivered.map((item: { id: string }) => item.id))).toEqual(
      new Set(logs.map((log) => itemId(CHAIN_ID, log.blockHash!, { logIndex: log.logIndex! }))),
    );
    const [stored] = await listWebhooks(key, hooks.flaky!.id, routes);
    expect(stored!.suspended_at).toBeNull();
  });

  it('a receiver slower than the timeout is suspended after repeated failures; a PATCH resumes it', async () => {
    behaviour.set('/slow', (_request, response) => {
      setTimeout(() => response.writeHead(200).end(), 1_500);
    });
    await hook('slow', { 'v1.events': { addresses: [demo.manifest.contracts.token.toLowerCase()] } });
    await sendTokens(1);
    await ingest();
    const [suspended] = await listWebhooks(key, hooks.slow!.id, routes);
    expect(suspended!.suspended_at).toEqual(expect.any(String));
    expect(suspended!.suspended_reason).toMatch(/3 deliveries failed in a row.*no answer within 500 ms/);
    // Suspended: the next block's items are not sent to it.
    const before = received.filter((entry) => entry.path === '/slow').length;
    await sendTokens(1);
    await ingest();
    expect(received.filter((entry) => entry.path === '/slow').length).toBe(before);
    // Failing again before the PATCH: the count the PATCH must clear with the suspension.
    await updateItem({
      Key: webhookKeys.webhook('hooks', hooks.slow!.id),
      UpdateExpression: 'SET failures = :n, failingSince = :t',
      ExpressionAttributeValues: { ':n': 2, ':t': 1 },
    });
    const resumed = await updateWebhook(key, hooks.slow!.id, { name: 'slow, resumed' }, routes);
    expect(resumed.suspended_at).toBeNull();
    expect(resumed.suspended_reason).toBeNull();
    const stored = await getItem<Record<string, unknown>>(webhookKeys.webhook('hooks', hooks.slow!.id), { consistent: true });
    expect(stored).not.toHaveProperty('failures');
    expect(stored).not.toHaveProperty('failingSince');
  });
});

describe('reorgs', () => {
  it("an orphaned block's items are sent again with status reverted and the same ids", async () => {
    const first = itemsOf('token-events')[0]!;
    const block = { number: first.data.block_number as number, hash: first.data.block_hash as string };
    const sentFromBlock = itemsOf('token-events').filter((item) => item.data.block_hash === block.hash);
    const count = received.length;
    await worker.listener.blocksOrphaned!({ chainId: CHAIN_ID, blocks: [block] });
    await worker.idle();
    const again = received
      .slice(count)
      .filter((entry) => entry.path === '/token-events')
      .flatMap((entry) => JSON.parse(entry.body).data);
    expect(again.map((item: { id: string }) => item.id).sort()).toEqual(sentFromBlock.map((item) => item.id).sort());
    expect(again.every((item: { status: string }) => item.status === 'reverted')).toBe(true);
    expect(again.map((item: { data: unknown }) => item.data)).toEqual(sentFromBlock.map((item) => item.data));
  });

  it("a real reorg, found by the ingest: the orphaned blocks' events come again reverted, the new chain's as new", async () => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[1] as `0x${string}`),
      transport: http(demo.anvil.rpcUrl),
    });
    const transfer = async (amount: bigint) =>
      chain.waitForTransactionReceipt({
        hash: await wallet.writeContract({
          address: demo.manifest.contracts.token,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [demo.manifest.accounts.carol, amount],
          chain: null,
        }),
      });
    const snapshot = await chain.request({ method: 'evm_snapshot' } as never);
    const orphaned = [await transfer(101n), await transfer(102n)];
    await ingest();
    const before = received.length;
    // Another history from the snapshot, one block longer: the ingest finds its cursor's block orphaned.
    await chain.request({ method: 'evm_revert', params: [snapshot] } as never);
    const canonical = [await transfer(201n), await transfer(202n), await transfer(203n)];
    await ingest();
    const after = received
      .slice(before)
      .filter((entry) => entry.path === '/token-events')
      .flatMap((entry) => JSON.parse(entry.body).data);
    const idOf = (receipt: (typeof orphaned)[number]) => itemId(CHAIN_ID, receipt.blockHash, { logIndex: receipt.logs[0]!.logIndex });
    expect(
      after
        .filter((item: { status: string }) => item.status === 'reverted')
        .map((item: { id: string }) => item.id)
        .sort(),
    ).toEqual(orphaned.map(idOf).sort());
    expect(
      after
        .filter((item: { status: string }) => item.status === 'new')
        .map((item: { id: string }) => item.id)
        .sort(),
    ).toEqual(canonical.map(idOf).sort());
    verify('token-events');
  });
});

describe('the test ping (POST /v1/webhooks/test)', () => {
  it("sends one sample event or transaction, signed with Insight's test secret, and says whether the receiver took it", async () => {
    for (const type of ['event', 'transaction'] as const) {
      const count = received.length;
      expect(await testWebhook(key, { webhook_url: `${base}/ping`, type }, routes, delivery)).toEqual({ success: true });
      const [request] = received.slice(count);
      expect(request!.path).toBe('/ping');
      expect(request!.headers['x-webhook-signature']).toBe(createHmac('sha256', TEST_SECRET).update(request!.body).digest('hex'));
      const payload = JSON.parse(request!.body);
      expect(payload.topic).toBe(type === 'event' ? 'v1.events' : 'v1.transactions');
      expect(payload.data).toEqual([expect.objectContaining({ type, status: 'new', id: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    }
    behaviour.set('/ping-down', (_request, response) => response.writeHead(500).end());
    expect(await testWebhook(key, { webhook_url: `${base}/ping-down`, type: 'event' }, routes, delivery)).toEqual({ success: false });
  });
});

describe('hostile receivers at delivery', () => {
  const strict = { egress: { allowLoopback: false, allowHttp: false }, timeoutMs: 500 };
  it.each([
    [
      'a name resolving to the instance metadata address',
      'https://metadata.example/hook',
      [{ address: '169.254.169.254', family: 4 }],
      /refused address/,
    ],
    [
      'a name resolving to a private address among public ones',
      'https://mixed.example/hook',
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
      /refused address/,
    ],
    ['a name resolving to loopback', 'https://loop.example/hook', [{ address: '127.0.0.1', family: 4 }], /refused address/],
    ['plain http', 'http://receiver.example/hook', [{ address: '93.184.216.34', family: 4 }], /https/],
  ])('%s is never connected to', async (_name, url, answer, reason) => {
    let asked = 0;
    const resolve = async () => {
      asked += 1;
      return answer;
    };
    const outcome = await post(url, '{}', {}, { ...strict, resolve });
    expect(outcome).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    // A refused scheme is refused before any DNS; a name is resolved once, its answer refused.
    expect(asked).toBe(url.startsWith('http:') ? 0 : 1);
  });

  it('a redirect is a failure, not followed', async () => {
    behaviour.set('/redirect', (_request, response) => response.writeHead(302, { location: `${base}/token-events` }).end());
    const count = received.length;
    const outcome = await post(`${base}/redirect`, '{}', {}, { egress: { allowLoopback: true, allowHttp: true }, timeoutMs: 500 });
    expect(outcome).toEqual({ ok: false, reason: 'HTTP 302' });
    expect(received.slice(count).map((entry) => entry.path)).toEqual(['/redirect']);
  });
});
