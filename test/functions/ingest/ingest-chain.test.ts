/**
 * The scheduled ingest Lambda against a real anvil and the embedded DynamoDB. Its RPC URL comes from
 * SSM through Powertools' getParameter and the real AWS SDK, pointed (AWS_ENDPOINT_URL_SSM) at a tiny
 * local SSM endpoint that serves one SecureString parameter and records what was asked. Its listener
 * publishes the ingested blocks through the real SQS client to a tiny local SQS endpoint (the JSON
 * protocol's SendMessage, answering the body's MD5 as SQS does) that records the messages.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { createWalletClient, http as viemHttp, parseEther, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { readCursor } from '../../../shared/ingest/manifest';
import type { QueueMessage } from '../../../shared/ingest/queue-listener';
import { decodeListenerMessage } from '../../../shared/ingest/queue-messages';
import { tableSnapshot } from '../../support/table';
import { useTestTable } from '../../support/table';
import { expectImmutableItems, publicClient, readChainTruth } from '../../shared/ingest/support/truth';

const table = useTestTable('lambda');
const CHAIN_ID = 31337;
const PARAMETER = '/chain-data/rpc-url/31337';
let anvil: Anvil;
let ssm: http.Server;
let sqs: http.Server;
let queueUrl: string;
const ssmRequests: { target: string; body: Record<string, unknown> }[] = [];
const sqsMessages: (QueueMessage & { target: string })[] = [];
let handler: (event: unknown, context?: Context) => Promise<{ advanced: number; reorgs: number; cursor: number | null }>;

const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as Context;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  const wallet = createWalletClient({
    chain: { ...anvilChain, id: CHAIN_ID },
    transport: viemHttp(anvil.rpcUrl),
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]),
  });
  const hashes: Hash[] = [];
  for (let i = 1; i <= 7; i += 1)
    hashes.push(
      await wallet.sendTransaction({ to: privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]).address, value: parseEther('0.1') * BigInt(i) }),
    );
  await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: hashes.at(-1)!, pollingInterval: 20 });

  ssm = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
      const target = String(request.headers['x-amz-target'] ?? '');
      ssmRequests.push({ target, body });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ Parameter: { Name: body.Name, Type: 'SecureString', Value: anvil.rpcUrl, Version: 1 } }));
    });
  });
  await new Promise<void>((resolve) => ssm.listen(0, '127.0.0.1', resolve));

  sqs = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as QueueMessage;
      sqsMessages.push({ target: String(request.headers['x-amz-target'] ?? ''), ...body });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(
        JSON.stringify({
          MessageId: `message-${sqsMessages.length}`,
          MD5OfMessageBody: createHash('md5').update(body.MessageBody).digest('hex'),
          SequenceNumber: String(sqsMessages.length).padStart(20, '0'),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => sqs.listen(0, '127.0.0.1', resolve));
  const sqsEndpoint = `http://127.0.0.1:${(sqs.address() as AddressInfo).port}`;
  queueUrl = `${sqsEndpoint}/000000000000/DepositEvents.fifo`;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SQS: sqsEndpoint,
    DEPOSIT_EVENTS_QUEUE_URL: queueUrl,
    AWS_ENDPOINT_URL_SSM: `http://127.0.0.1:${(ssm.address() as AddressInfo).port}`,
    CHAIN_ID: String(CHAIN_ID),
    RPC_URL_PARAMETER: PARAMETER,
    INGEST_MAX_BLOCKS: '3',
    POWERTOOLS_METRICS_NAMESPACE: 'ChainDataApiTest',
  });
  ({ handler } = await import('../../../functions/ingest/ingest-chain'));
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => ssm?.close(() => resolve()));
  await new Promise<void>((resolve) => sqs?.close(() => resolve()));
  await anvil?.stop();
});

test('each run ingests at most INGEST_MAX_BLOCKS blocks from the cursor, up to the head', async () => {
  expect(await handler({}, context(300_000))).toEqual({ advanced: 3, reorgs: 0, cursor: 2 });
  expect(await handler({}, context(300_000))).toEqual({ advanced: 3, reorgs: 0, cursor: 5 });
  expect(await handler({}, context(300_000))).toEqual({ advanced: 2, reorgs: 0, cursor: 7 });
  expect(await handler({}, context(300_000))).toEqual({ advanced: 0, reorgs: 0, cursor: 7 });
  await expectImmutableItems(process.env.TABLE_NAME!, await readChainTruth(anvil.rpcUrl, 0, 7));

  // The RPC URL was read once (cached), decrypted.
  expect(ssmRequests).toEqual([{ target: 'AmazonSSM.GetParameter', body: { Name: PARAMETER, WithDecryption: true } }]);

  // Every batch's blocks went to the queue (one SendMessage per ingest batch here: small blocks), in
  // order, in the chain's message group, each with its own deduplication id.
  expect(sqsMessages.length).toBeGreaterThanOrEqual(3);
  expect(new Set(sqsMessages.map((message) => message.target))).toEqual(new Set(['AmazonSQS.SendMessage']));
  expect(sqsMessages.every((message) => message.QueueUrl === queueUrl && message.MessageGroupId === String(CHAIN_ID))).toBe(true);
  expect(new Set(sqsMessages.map((message) => message.MessageDeduplicationId)).size).toBe(sqsMessages.length);
  const published = sqsMessages.map((message) => decodeListenerMessage(message.MessageBody));
  expect(
    published.flatMap((message) => (message.kind === 'blocksIngested' ? message.events.map((event) => event.block.number) : [])),
  ).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  const transfers = published.flatMap((message) =>
    message.kind === 'blocksIngested' ? message.events.flatMap((event) => event.nativeTransfers) : [],
  );
  expect(transfers.map((transfer) => BigInt(transfer.value))).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n].map((i) => parseEther('0.1') * i));

  // The Lambda detects no deposit itself (no orders code in it): the orders group consumes the queue.
  expect((await tableSnapshot(table.name)).filter((item) => String(item.pk).startsWith('ORDER'))).toEqual([]);
});

/** One more block on anvil: a transfer to self of `value` wei, mined. */
async function mineOneBlock(value: bigint): Promise<void> {
  const wallet = createWalletClient({
    chain: { ...anvilChain, id: CHAIN_ID },
    transport: viemHttp(anvil.rpcUrl),
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]),
  });
  await publicClient(anvil.rpcUrl).waitForTransactionReceipt({
    hash: await wallet.sendTransaction({ to: wallet.account.address, value }),
    pollingInterval: 20,
  });
}

test('a run with too little time left starts no block', async () => {
  await mineOneBlock(1n);
  const before = await readCursor(CHAIN_ID);
  expect(await handler({}, context(30_000))).toEqual({ advanced: 0, reorgs: 0, cursor: 7 });
  expect(await readCursor(CHAIN_ID)).toEqual(before);
  expect(await handler({}, context(300_000))).toEqual({ advanced: 1, reorgs: 0, cursor: 8 });
  expect(decodeListenerMessage(sqsMessages.at(-1)!.MessageBody)).toMatchObject({
    kind: 'blocksIngested',
    events: [{ block: { number: 8 } }],
  });
});

test('a run whose publish fails throws and keeps its cursor; the next run publishes the same blocks again', async () => {
  await mineOneBlock(2n);
  const before = await readCursor(CHAIN_ID);
  const listening = sqs.listeners('request');
  sqs.removeAllListeners('request');
  sqs.on('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
    response.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'rejected by the test' }));
  });
  await expect(handler({}, context(300_000))).rejects.toThrow(/rejected by the test/);
  expect(await readCursor(CHAIN_ID)).toEqual(before);
  sqs.removeAllListeners('request');
  for (const listener of listening) sqs.on('request', listener as never);
  const count = sqsMessages.length;
  expect(await handler({}, context(300_000))).toEqual({ advanced: 1, reorgs: 0, cursor: 9 });
  expect(sqsMessages).toHaveLength(count + 1);
  expect(decodeListenerMessage(sqsMessages.at(-1)!.MessageBody)).toMatchObject({
    kind: 'blocksIngested',
    events: [{ block: { number: 9 } }],
  });
});

test('each run publishes, per chain, its blocks per second and how far it is behind the head (blocks, seconds)', async () => {
  const printed: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    printed.push(String(chunk));
    return true;
  });
  const records = () =>
    printed
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"_aws"') && line.includes('LagBlocks'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  try {
    await mineOneBlock(3n);
    await mineOneBlock(4n);
    // Out of time before any block: two blocks behind, some seconds apart.
    await handler({}, context(30_000));
    const [behind] = records();
    expect(behind).toMatchObject({ service: 'ingest', chainId: String(CHAIN_ID), LagBlocks: 2, BlocksIngested: 0 });
    expect(behind!.LagSeconds).toBeGreaterThanOrEqual(0);
    // Caught up.
    await handler({}, context(300_000));
    const caughtUp = records().at(-1)!;
    expect(caughtUp).toMatchObject({ LagBlocks: 0, LagSeconds: 0, BlocksIngested: 2 });
    expect(caughtUp.BlocksPerSecond).toBeGreaterThan(0);
  } finally {
    write.mockRestore();
  }
});
