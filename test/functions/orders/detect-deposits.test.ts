/**
 * The DetectDeposits SQS consumer fed what the ingest Lambda publishes: a real ingest against anvil
 * with the queue listener (recording `send`) writes into this file's table and the recorded messages
 * become SQS events for the handler; a twin table gets the same chain ingested with the in-process
 * `orderDepositListener` (as the CLI and `npm start` wire it), and the same orders copied. After every
 * step the orders' partitions of both tables are equal; every batch delivered twice changes nothing;
 * a record that fails is reported in batchItemFailures with the later records of its chain.
 */
process.env.ORDER_CHAINS = '1,31337';

import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createWalletClient, defineChain, http, parseEther, type Abi, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { handler } from '../../../functions/orders/detect-deposits';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { putItem } from '../../../shared/db/operations';
import { ingestRange } from '../../../shared/ingest/ingest';
import { type QueueMessage, queueListener } from '../../../shared/ingest/queue-listener';
import { decodeListenerMessage } from '../../../shared/ingest/queue-messages';
import { orderDepositListener } from '../../../shared/orders/deposits';
import { publicClient } from '../../shared/ingest/support/truth';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { MAINNET_USDC, orderBody, postOrder } from './fixtures';

const table = useTestTable('detect-deposits');
const TWIN = `${table.name}-in-process`;
const CHAIN_ID = 31337;
const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/DepositEvents.fifo';
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
let anvil: Anvil;
let artifacts: DemoArtifacts;
let wallet: ReturnType<typeof createWalletClient>;
let token: Address;
let splitter: Address;

const published: QueueMessage[] = [];
const queue = queueListener(QUEUE_URL, async (message) => {
  published.push(message);
});
let messageCount = 0;

/** An SQS event of the records Lambda would hand the consumer for these messages. */
function sqsEvent(messages: readonly (QueueMessage | { body: string; group: string })[]): SQSEvent {
  const Records = messages.map((message): SQSRecord => {
    messageCount += 1;
    const body = 'MessageBody' in message ? message.MessageBody : message.body;
    return {
      messageId: `message-${messageCount}`,
      receiptHandle: `receipt-${messageCount}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'AROAEXAMPLE:IngestChain31337',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
        MessageGroupId: 'MessageGroupId' in message ? message.MessageGroupId : message.group,
        MessageDeduplicationId: 'MessageDeduplicationId' in message ? message.MessageDeduplicationId : `dedup-${messageCount}`,
        SequenceNumber: String(messageCount).padStart(20, '0'),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:DepositEvents.fifo',
      awsRegion: 'us-east-1',
    };
  });
  return { Records };
}

/** The orders' partitions and pointers (orders, their deposits), without the write times of transitions. */
async function orderItems(name: string) {
  return (await tableSnapshot(name))
    .filter((item) => String(item.pk).startsWith('ORDER'))
    .map(({ updatedAt: _updatedAt, ...item }) => item);
}

/**
 * Ingests the chain's new blocks into both tables: here through the queue listener and the consumer
 * (each batch of at most 10 records, as Lambda hands a FIFO queue's, delivered twice), in the twin
 * with the in-process listener. Returns this table's ingest result and the messages it published.
 */
async function step(options: { from?: number } = {}) {
  const before = published.length;
  const result = await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), ...options, listeners: [queue] });
  const messages = published.slice(before);
  for (let i = 0; i < messages.length; i += 10) {
    const batch = messages.slice(i, i + 10);
    expect(await handler(sqsEvent(batch))).toEqual({ batchItemFailures: [] });
    const once = await orderItems(table.name);
    expect(await handler(sqsEvent(batch))).toEqual({ batchItemFailures: [] }); // SQS delivers at least once
    expect(await orderItems(table.name)).toEqual(once);
  }
  await inTable(TWIN, () =>
    ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), ...options, listeners: [orderDepositListener] }),
  );
  expect(await orderItems(table.name)).toEqual(await orderItems(TWIN));
  return { result, messages: messages.map((message) => decodeListenerMessage(message.MessageBody)) };
}

/** Creates an order through POST /orders here, and copies its items to the twin table. */
async function createOrder(body: Record<string, unknown>): Promise<{ id: string; globalAddress: Address }> {
  const response = await postOrder(body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const order = response.body.data as { id: string; globalAddress: Address };
  const items = (await tableSnapshot(table.name)).filter((item) => String(item.pk).startsWith('ORDER'));
  await inTable(TWIN, async () => {
    for (const item of items) await putItem({ Item: item });
  });
  return order;
}

const nativeOrder = (srcAmount: bigint) =>
  orderBody({
    srcChain: CHAIN_ID,
    srcTokenAddress: NATIVE,
    srcAmount: srcAmount.toString(),
    metadata: {
      srcToken: { chainId: CHAIN_ID, address: NATIVE, symbol: 'ETH', name: 'Ether', decimals: 18 },
      dstToken: { chainId: 1, address: MAINNET_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    },
  });

const tokenOrder = (srcAmount: bigint) =>
  orderBody({
    srcChain: CHAIN_ID,
    srcTokenAddress: token,
    srcAmount: srcAmount.toString(),
    metadata: {
      srcToken: { chainId: CHAIN_ID, address: token, symbol: 'DEMO', name: 'Demo Token', decimals: 18 },
      dstToken: { chainId: 1, address: MAINNET_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    },
  });

const rpc = (method: string, params: unknown[] = []) =>
  publicClient(anvil.rpcUrl).request({ method: method as never, params: params as never });
const mined = async (hash: Hash | Promise<Hash>) =>
  publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
const sendEth = (to: Address, value: bigint, from = 1) =>
  mined(wallet.sendTransaction({ to, value, account: accounts[from], chain: wallet.chain }));
const write = (address: Address, abi: Abi, functionName: string, args: unknown[], from = 1, value?: bigint) =>
  mined(wallet.writeContract({ address, abi, functionName, args, value, account: accounts[from], chain: wallet.chain } as never));

beforeAll(async () => {
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  wallet = createWalletClient({
    chain: defineChain({
      id: CHAIN_ID,
      name: 'detect-deposits',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    }),
    transport: http(anvil.rpcUrl),
  });
  const deploy = async (name: 'DemoToken' | 'DemoSplitter', args: unknown[]) =>
    (
      await mined(
        wallet.deployContract({
          abi: artifacts[name].abi,
          bytecode: artifacts[name].bytecode,
          args,
          account: accounts[0],
          chain: wallet.chain,
        }),
      )
    ).contractAddress!;
  token = await deploy('DemoToken', [accounts[0].address]);
  splitter = await deploy('DemoSplitter', []);
  await write(token, artifacts.DemoToken.abi as Abi, 'mint', [accounts[1].address, parseEther('1000')], 0);
  await step({ from: 0 });
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

test('the consumer leaves the orders exactly as the in-process listener does, through payments and a reorg', async () => {
  const eth = await createOrder(nativeOrder(parseEther('1')));
  const erc20 = await createOrder(tokenOrder(parseEther('100')));
  const internal = await createOrder(nativeOrder(parseEther('0.5')));
  const orphaned = await createOrder(nativeOrder(parseEther('1')));

  await sendEth(eth.globalAddress, parseEther('0.4'));
  await write(token, artifacts.DemoToken.abi as Abi, 'transfer', [erc20.globalAddress, parseEther('30')]);
  await step();
  await sendEth(eth.globalAddress, parseEther('0.6'), 2);
  await write(splitter, artifacts.DemoSplitter.abi as Abi, 'split', [[internal.globalAddress], [parseEther('0.5')]], 3, parseEther('0.5'));
  await step();

  // A deposit in a block that a reorg then orphans: undone, through a blocksOrphaned message.
  const snapshot = await rpc('evm_snapshot');
  await sendEth(orphaned.globalAddress, parseEther('0.3'));
  await step();
  await rpc('evm_revert', [snapshot]);
  await sendEth(accounts[0].address, 1n, 3);
  await sendEth(accounts[0].address, 1n, 3);
  const { result, messages } = await step();
  expect(result.reorgs).toBe(1);
  expect(messages.map((message) => message.kind)).toContain('blocksOrphaned');
  expect(messages.findIndex((message) => message.kind === 'blocksOrphaned')).toBeLessThan(
    messages.findLastIndex((message) => message.kind === 'blocksIngested'),
  );

  const items = await orderItems(table.name);
  const order = (id: string) => items.find((item) => item.pk === `ORDER#${id}` && item.sk === 'ORDER');
  expect(order(eth.id)).toMatchObject({ status: 'quoting_after_deposit', receivedAmount: parseEther('1').toString() });
  expect(order(erc20.id)).toMatchObject({ status: 'scanning_deposit_transaction', receivedAmount: parseEther('30').toString() });
  expect(order(internal.id)).toMatchObject({ status: 'quoting_after_deposit', receivedAmount: parseEther('0.5').toString() });
  expect(order(orphaned.id)).toMatchObject({ status: 'scanning_deposit_transaction' });
  expect(order(orphaned.id)?.receivedAmount ?? '0').toBe('0');
  expect(items.filter((item) => item.kind === 'orderDeposit')).toHaveLength(4);
});

test('a record that fails is reported with the later records of its chain; other chains go on', async () => {
  const before = await orderItems(table.name);
  const valid = published.at(-1)!; // delivered before: a replay changes nothing
  const otherChain = {
    body: JSON.stringify({
      v: 1,
      kind: 'blocksOrphaned',
      chainId: 999,
      event: { chainId: 999, blocks: [{ number: 5, hash: `0x${'ab'.repeat(32)}` }] },
    }),
    group: '999',
  };
  const event = sqsEvent([
    valid,
    { body: '{"v":1,"kind":"blocksIngested","chainId":31337,"events":[{"block":{}}]}', group: String(CHAIN_ID) },
    valid,
    otherChain,
    { body: 'not json', group: '999' },
  ]);
  const ids = event.Records.map((record) => record.messageId);
  expect(await handler(event)).toEqual({ batchItemFailures: [ids[1], ids[2], ids[4]].map((itemIdentifier) => ({ itemIdentifier })) });
  expect(await orderItems(table.name)).toEqual(before);
});
