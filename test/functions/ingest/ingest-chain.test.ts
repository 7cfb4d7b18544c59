/**
 * The scheduled ingest Lambda against a real anvil and the embedded DynamoDB. It is invoked as each
 * chain's schedule invokes it, with the chain in its event, and a Lambda context whose deadline is a few
 * seconds away (INGEST_SAFETY_MARGIN_MS 1 s): it follows the head until then and hands over. Its RPC URL
 * comes from SSM through Powertools' getParameter and the real AWS SDK, pointed (AWS_ENDPOINT_URL_SSM)
 * at a tiny local SSM endpoint that serves one SecureString parameter and records what was asked. Its
 * listener publishes the ingested blocks through the real SQS client to a tiny local SQS endpoint
 * (the JSON protocol's SendMessage, answering the body's MD5 as SQS does) that records the messages.
 */
import type { Context } from 'aws-lambda';
import { createWalletClient, http as viemHttp, parseEther, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { IngestChainResult, keptChains as KeptChains } from '../../../functions/ingest/ingest-chain';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { readLease } from '../../../shared/ingest/lease';
import { readCursor } from '../../../shared/ingest/manifest';
import { decodeListenerMessage } from '../../../shared/ingest/queue-messages';
import { tableSnapshot, useTestTable } from '../../support/table';
import { expectImmutableItems, publicClient, readChainTruth } from '../../shared/ingest/support/truth';
import { startSqsStub, startSsmStub, stubEnvironment, type SqsStub, type SsmStub } from './support/aws-stubs';

const table = useTestTable('lambda');
const CHAIN_ID = 31337;
const PARAMETER = '/chain-data/rpc-url/31337';
const EVENT = { chainId: CHAIN_ID, rpcUrlParameter: PARAMETER, blockTimeMs: 200 };
let anvil: Anvil;
let ssm: SsmStub;
let sqs: SqsStub;
let handler: (event: unknown, context: Context) => Promise<IngestChainResult>;
let keptChains: typeof KeptChains;
/** The RPC URL behind each SSM parameter (default: the anvil of CHAIN_ID). */
const rpcUrls = new Map<string, () => string>();

let requests = 0;
/** A Lambda context whose invocation ends `remainingMs` from now. */
const context = (remainingMs: number) => {
  const deadline = Date.now() + remainingMs;
  requests += 1;
  return { awsRequestId: `request-${requests}`, getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
};

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

  ssm = await startSsmStub((name) => (rpcUrls.get(name) ?? (() => anvil.rpcUrl))());
  sqs = await startSqsStub();
  Object.assign(process.env, {
    ...stubEnvironment(ssm, sqs),
    INGEST_MAX_BLOCKS: '3',
    INGEST_SAFETY_MARGIN_MS: '1000',
    INGEST_LEASE_TTL_MS: '2000',
    INGEST_HANDOVER_WAIT_MS: '3000',
    POWERTOOLS_METRICS_NAMESPACE: 'ChainDataApiTest',
  });
  ({ handler, keptChains } = await import('../../../functions/ingest/ingest-chain'));
}, 60_000);

afterAll(async () => {
  await ssm?.close();
  await sqs?.close();
  await anvil?.stop();
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

describe('the event', () => {
  test.each([
    [{}, /chainId: Invalid key: Expected "chainId" but received undefined|chainId/],
    [{ chainId: '31337', rpcUrlParameter: PARAMETER }, /chainId: must be a number/],
    [{ chainId: 0, rpcUrlParameter: PARAMETER }, /chainId: Invalid value: Expected >=1/],
    [{ chainId: 1.5, rpcUrlParameter: PARAMETER }, /chainId: must be a whole number/],
    [{ chainId: CHAIN_ID, rpcUrlParameter: '' }, /rpcUrlParameter: must not be empty/],
    [{ chainId: CHAIN_ID, rpcUrlParameter: PARAMETER, traceMethod: 'prestate' }, /traceMethod: must be callTracer, parity or none/],
    [{ chainId: CHAIN_ID, rpcUrlParameter: PARAMETER, blockTimeMs: 10 }, /blockTimeMs: Invalid value: Expected >=50/],
    [{ chainId: CHAIN_ID, rpcUrlParameter: PARAMETER, firstBlock: -1 }, /firstBlock: Invalid value: Expected >=0/],
    [{ chainId: CHAIN_ID, rpcUrlParameter: PARAMETER, chainID: 1 }, /chainID: Invalid key/],
    [null, /Invalid ingest event null/],
  ])('%j is refused with an error naming the bad field, before anything is read or written', async (event, message) => {
    const asked = ssm.requests.length;
    const error = await handler(event, context(5_000)).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('InvalidIngestEventError');
    expect((error as Error).message).toMatch(/^Invalid ingest event /);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('expected {"chainId": number, "rpcUrlParameter": string');
    expect(ssm.requests.length).toBe(asked);
    expect(await readCursor(CHAIN_ID)).toBeUndefined();
  });
});

test('an invocation follows the chain from its cursor until its deadline nears, then releases the lease', async () => {
  const invocation = context(2_500);
  const first = await handler(EVENT, invocation);
  expect(first).toMatchObject({
    chainId: CHAIN_ID,
    role: 'followed',
    advanced: 8,
    reorgs: 0,
    cursor: 7,
    ended: 'released',
    tookOver: false,
  });
  expect(first.reason).toBe('handover time reached');
  // The holder: the request id and a random part (a duplicate delivery shares the request id).
  expect(await readLease(CHAIN_ID)).toMatchObject({
    holder: expect.stringMatching(new RegExp(`^${invocation.awsRequestId}:[0-9a-f-]{36}$`)),
    blockNumber: 7,
    releasedAt: expect.any(Number),
  });
  expect(await handler(EVENT, context(1_500))).toMatchObject({ role: 'followed', advanced: 0, reorgs: 0, cursor: 7, ended: 'released' });
  await expectImmutableItems(process.env.TABLE_NAME!, await readChainTruth(anvil.rpcUrl, 0, 7));

  // The RPC URL was read once (cached), decrypted.
  expect(ssm.requests).toEqual([{ target: 'AmazonSSM.GetParameter', body: { Name: PARAMETER, WithDecryption: true } }]);

  // Every batch's blocks went to the queue (in rounds of at most INGEST_MAX_BLOCKS, one SendMessage
  // per ingest batch here: small blocks), in order, in the chain's message group, each with its own
  // deduplication id.
  const messages = sqs.messages;
  expect(messages.length).toBeGreaterThanOrEqual(3);
  expect(new Set(messages.map((message) => message.target))).toEqual(new Set(['AmazonSQS.SendMessage']));
  expect(messages.every((message) => message.QueueUrl === sqs.queueUrl && message.MessageGroupId === String(CHAIN_ID))).toBe(true);
  expect(new Set(messages.map((message) => message.MessageDeduplicationId)).size).toBe(messages.length);
  const published = messages.map((message) => decodeListenerMessage(message.MessageBody));
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

test('a block mined while an invocation follows is ingested and published as it appears, one message per block', async () => {
  const count = sqs.messages.length;
  const running = handler(EVENT, context(5_000));
  const minedAt: number[] = [];
  for (const value of [11n, 12n]) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await mineOneBlock(value);
    minedAt.push(Date.now());
  }
  expect(await running).toMatchObject({ role: 'followed', advanced: 2, cursor: 9, ended: 'released' });
  const sent = sqs.messages.slice(count);
  expect(sent.map((message) => decodeListenerMessage(message.MessageBody))).toMatchObject([
    { kind: 'blocksIngested', events: [{ block: { number: 8 } }] },
    { kind: 'blocksIngested', events: [{ block: { number: 9 } }] },
  ]);
  // Each within about the block time (200 ms here) of its mining, not at the end of the run.
  for (const [index, message] of sent.entries()) expect(message.at - minedAt[index]!).toBeLessThan(1_000);
});

test('an invocation with too little time left takes no lease and starts no block', async () => {
  await mineOneBlock(1n);
  const before = await readCursor(CHAIN_ID);
  const skipped = await handler(EVENT, context(900));
  expect(skipped).toMatchObject({ role: 'skipped', advanced: 0, ended: 'not held' });
  expect(skipped.reason).toMatch(/too little time left/);
  expect(await readCursor(CHAIN_ID)).toEqual(before);
  expect(await handler(EVENT, context(1_500))).toMatchObject({ role: 'followed', advanced: 1, cursor: 10 });
  expect(decodeListenerMessage(sqs.messages.at(-1)!.MessageBody)).toMatchObject({
    kind: 'blocksIngested',
    events: [{ block: { number: 10 } }],
  });
});

test('a round whose publish fails keeps its cursor and is tried again within the invocation, which publishes the block once SQS takes it', async () => {
  await mineOneBlock(2n);
  const before = await readCursor(CHAIN_ID);
  const count = sqs.messages.length;
  sqs.reject('rejected by the test');
  const running = handler(EVENT, context(4_000));
  await new Promise((resolve) => setTimeout(resolve, 700));
  expect(await readCursor(CHAIN_ID)).toEqual(before);
  sqs.accept();
  const result = await running;
  expect(result).toMatchObject({ role: 'followed', advanced: 1, cursor: 11, ended: 'released' });
  expect(result.failedRounds).toBeGreaterThanOrEqual(1);
  expect(sqs.messages).toHaveLength(count + 1);
  expect(decodeListenerMessage(sqs.messages.at(-1)!.MessageBody)).toMatchObject({
    kind: 'blocksIngested',
    events: [{ block: { number: 11 } }],
  });
});

test('an invocation whose rounds keep failing throws at the third in a row, keeps its cursor and releases the lease; the next publishes the same block again', async () => {
  await mineOneBlock(5n);
  const before = await readCursor(CHAIN_ID);
  sqs.reject('rejected by the test');
  try {
    await expect(handler(EVENT, context(6_000))).rejects.toThrow(/rejected by the test/);
  } finally {
    sqs.accept();
  }
  expect(await readCursor(CHAIN_ID)).toEqual(before);
  // Released, not left to expire: the next invocation takes the chain at once.
  expect((await readLease(CHAIN_ID))?.releasedAt).toEqual(expect.any(Number));
  const count = sqs.messages.length;
  expect(await handler(EVENT, context(1_500))).toMatchObject({ role: 'followed', advanced: 1, cursor: 12, failedRounds: 0 });
  expect(sqs.messages).toHaveLength(count + 1);
  expect(decodeListenerMessage(sqs.messages.at(-1)!.MessageBody)).toMatchObject({
    kind: 'blocksIngested',
    events: [{ block: { number: 12 } }],
  });
});

test('each invocation publishes, per chain, its blocks per second and how far it is behind the head (blocks, seconds)', async () => {
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
    // An invocation that follows nothing publishes nothing.
    await handler(EVENT, context(900));
    expect(records()).toEqual([]);
    // Caught up.
    await handler(EVENT, context(1_500));
    const caughtUp = records().at(-1)!;
    expect(caughtUp).toMatchObject({
      service: 'ingest',
      chainId: String(CHAIN_ID),
      LagBlocks: 0,
      LagSeconds: 0,
      BlocksIngested: 2,
      IngestFailed: 0,
    });
    expect(caughtUp.BlocksPerSecond).toBeGreaterThan(0);
  } finally {
    write.mockRestore();
  }
});

test('coin balances follow INGEST_COIN_BALANCES: kept by default (equal to the chain), none when it is off', async () => {
  const { getItem } = await import('../../../shared/db/operations');
  const { coinBalanceKey } = await import('../../../shared/table/address-state');
  const wallet = createWalletClient({
    chain: { ...anvilChain, id: CHAIN_ID },
    transport: viemHttp(anvil.rpcUrl),
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]),
  });
  const payTo = async (to: `0x${string}`) =>
    publicClient(anvil.rpcUrl).waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to, value: 12_345n }),
      pollingInterval: 20,
    });
  const kept = '0x00000000000000000000000000000000c0ffee01' as const;
  await payTo(kept);
  await handler(EVENT, context(1_500));
  const item = await getItem<{ value: string }>(coinBalanceKey(CHAIN_ID, kept));
  expect(item?.value).toBe(String(await publicClient(anvil.rpcUrl).getBalance({ address: kept })));

  // A handler module loaded with the switch off (its configuration is read once per cold start).
  vi.resetModules();
  process.env.INGEST_COIN_BALANCES = 'off';
  try {
    const off = (await import('../../../functions/ingest/ingest-chain')).handler as typeof handler;
    const skipped = '0x00000000000000000000000000000000c0ffee02' as const;
    await payTo(skipped);
    expect(await off(EVENT, context(1_500))).toMatchObject({ role: 'followed', advanced: 1 });
    expect(await getItem(coinBalanceKey(CHAIN_ID, skipped))).toBeUndefined();
  } finally {
    delete process.env.INGEST_COIN_BALANCES;
  }
});

test('a node of another chain than the event’s is refused before anything is written, naming both chain ids', async () => {
  const OTHER = 5;
  const parameter = '/chain-data/rpc-url/5';
  const messages = sqs.messages.length;
  const error = await handler({ chainId: OTHER, rpcUrlParameter: parameter, blockTimeMs: 200 }, context(2_500)).catch(
    (caught: unknown) => caught as Error,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).name).toBe('WrongChainError');
  expect((error as Error).message).toContain(`chain ${CHAIN_ID} (eth_chainId)`);
  expect((error as Error).message).toContain(`the event's chainId ${OTHER}`);
  expect((error as Error).message).toContain(parameter);
  expect(await readCursor(OTHER)).toBeUndefined();
  expect(await readLease(OTHER)).toBeUndefined();
  expect(sqs.messages).toHaveLength(messages);
  expect((await tableSnapshot(table.name)).filter((item) => String(item.pk).includes(`#${OTHER}#`) || item.chainId === OTHER)).toEqual([]);
  // Nothing of the refused client is kept.
  expect(keptChains()).not.toContain(OTHER);
});

test('two deliveries of one event (the same request id) do not both hold the lease', async () => {
  const duplicate = context(2_500);
  const results = await Promise.all([handler(EVENT, duplicate), handler(EVENT, duplicate)]);
  expect(results.map((result) => result.role).sort()).toEqual(['followed', 'skipped']);
  const skipped = results.find((result) => result.role === 'skipped')!;
  expect(skipped).toMatchObject({ ended: 'not held', heldFrom: null, advanced: 0 });
  expect(skipped.reason).toMatch(new RegExp(`^lease held by ${duplicate.awsRequestId}:`));
});

test('a warm container keeps the client and ingest of the chain it served last only', async () => {
  const OTHER = 31_338;
  const other = await startAnvil({ chainId: OTHER });
  const parameter = `/chain-data/rpc-url/${OTHER}`;
  rpcUrls.set(parameter, () => other.rpcUrl);
  try {
    await handler(EVENT, context(1_500));
    expect(keptChains()).toEqual([CHAIN_ID]);
    expect(await handler({ chainId: OTHER, rpcUrlParameter: parameter, blockTimeMs: 200 }, context(1_500))).toMatchObject({
      chainId: OTHER,
      role: 'followed',
      cursor: 0,
    });
    expect(keptChains()).toEqual([OTHER]);
    // Back to the first chain: its ingest is built again, and carries on from its cursor.
    const before = await readCursor(CHAIN_ID);
    expect(await handler(EVENT, context(1_500))).toMatchObject({ chainId: CHAIN_ID, role: 'followed', cursor: before!.blockNumber });
    expect(keptChains()).toEqual([CHAIN_ID]);
  } finally {
    await other.stop();
  }
}, 30_000);
