/**
 * The queue listener's messages, recorded by the `send` function it is given (the SQS transport is
 * shared/ingest/sqs-send.ts; test/functions/ingest/ingest-chain.test.ts runs it against a local SQS
 * endpoint): one message group per chain, every message within SQS's 256 KiB, calls split in order,
 * deduplication ids that repeat for the same call and differ for any other.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NativeTransfer } from '../../../shared/ingest/derive';
import type { BlockIngestedEvent } from '../../../shared/ingest/listeners';
import { type QueueMessage, queueListener } from '../../../shared/ingest/queue-listener';
import { decodeListenerMessage, type ListenerMessage, MAX_MESSAGE_BYTES } from '../../../shared/ingest/queue-messages';
import type { BlockRecord, TokenTransferRecord } from '../../../shared/table/records';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/DepositEvents.fifo';
const hex = (seed: string, bytes: number) =>
  `0x${createHash('sha256')
    .update(seed)
    .digest('hex')
    .repeat(Math.ceil(bytes / 32))
    .slice(0, bytes * 2)}`;

function block(chainId: number, number: number, fork = ''): BlockRecord {
  return {
    kind: 'block',
    chainId,
    number,
    hash: hex(`block ${number}${fork}`, 32),
    parentHash: hex(`block ${number - 1}${fork}`, 32),
    timestamp: 1_700_000_000 + number * 2,
    nonce: '0x0000000000000000',
    sha3Uncles: hex('uncles', 32),
    mixHash: hex(`mix ${number}`, 32),
    miner: hex('miner', 20),
    stateRoot: hex(`state ${number}`, 32),
    transactionsRoot: hex(`txs ${number}`, 32),
    receiptsRoot: hex(`receipts ${number}`, 32),
    logsBloom: hex(`bloom ${number}`, 256),
    size: 123_456,
    extraData: hex('extra', 32),
    difficulty: '0',
    totalDifficulty: null,
    transactionCount: 1000,
    gasLimit: 30_000_000,
    gasUsed: 29_999_999,
    baseFeePerGas: '1234567890',
    withdrawalsRoot: hex(`withdrawals ${number}`, 32),
    withdrawalCount: 16,
    blobGasUsed: 0,
    excessBlobGas: 0,
  };
}

/** A block with `erc20` ERC-20 transfers and `native` native transfers spread over its transactions. */
function event(
  chainId: number,
  number: number,
  erc20: number,
  native: number,
  options: { fork?: string; mode?: 'advance' | 'repair' } = {},
) {
  const record = block(chainId, number, options.fork);
  const position = (index: number) => ({
    chainId,
    blockNumber: number,
    blockHash: record.hash,
    blockTimestamp: record.timestamp,
    transactionHash: hex(`tx ${number} ${index}`, 32),
    transactionIndex: index,
  });
  const erc20Transfers: TokenTransferRecord[] = Array.from({ length: erc20 }, (_, i) => ({
    kind: 'tokenTransfer',
    ...position(i % 400),
    logIndex: i,
    batchIndex: 0,
    token: hex('token', 20),
    tokenStandard: 'ERC-20',
    from: hex(`from ${i}`, 20),
    to: hex(`to ${i}`, 20),
    amount: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
    tokenId: null,
    transferType: 'transfer',
    operator: null,
    methodSelector: '0xa9059cbb',
  }));
  const nativeTransfers: NativeTransfer[] = Array.from({ length: native }, (_, i) => ({
    transactionHash: hex(`tx ${number} ${i % 400}`, 32),
    transactionIndex: i % 400,
    internalIndex: i % 3 === 0 ? null : i,
    from: hex(`from ${i}`, 20),
    to: hex(`to ${i}`, 20),
    value: '1000000000000000000000',
  }));
  return {
    chainId,
    block: record,
    mode: options.mode ?? 'advance',
    nativeTransfers,
    erc20Transfers,
    transactions: [],
    logs: [],
  } satisfies BlockIngestedEvent;
}

function recorder(options: { failAt?: number } = {}) {
  const sent: QueueMessage[] = [];
  const send = async (message: QueueMessage) => {
    if (sent.length === options.failAt) throw new Error('SQS is unavailable');
    sent.push(message);
  };
  return { sent, send, decoded: () => sent.map((message) => decodeListenerMessage(message.MessageBody)) };
}

const sizes = (sent: QueueMessage[]) => sent.map((message) => Buffer.byteLength(message.MessageBody, 'utf8'));
const ingestedEvents = (messages: ListenerMessage[]) =>
  messages.flatMap((message) => (message.kind === 'blocksIngested' ? message.events : []));

/** A block's activity: `transactions` transactions with two logs each, one transaction carrying `hugeInput` bytes of calldata. */
function activity(chainId: number, number: number, transactions: number, hugeInput = 0): BlockIngestedEvent {
  const record = block(chainId, number);
  const txs = Array.from({ length: transactions }, (_, i) => ({
    kind: 'transaction',
    chainId,
    hash: hex(`tx ${number} ${i}`, 32),
    blockNumber: number,
    blockHash: record.hash,
    transactionIndex: i,
    from: hex(`from ${i}`, 20),
    to: hex(`to ${i}`, 20),
    input: i === 0 && hugeInput > 0 ? hex('huge', hugeInput) : hex(`input ${i}`, 600),
    inputOmitted: false,
    logsBloom: hex(`bloom ${i}`, 256),
  })) as unknown as BlockIngestedEvent['transactions'];
  const logs = txs.flatMap((tx, i) =>
    [0, 1].map((k) => ({
      kind: 'log',
      chainId,
      blockNumber: number,
      blockHash: record.hash,
      transactionHash: tx.hash,
      transactionIndex: i,
      logIndex: 2 * i + k,
      address: hex(`token ${i % 7}`, 20),
      data: hex(`data ${i} ${k}`, 64),
      dataOmitted: false,
      topics: [hex('Transfer', 32), hex(`a ${i}`, 32), hex(`b ${i}`, 32)],
    })),
  ) as unknown as BlockIngestedEvent['logs'];
  return { ...event(chainId, number, 3, 2), transactions: txs, logs };
}

describe('queueListener, content', () => {
  it("'activity' carries a block's transactions and logs (a Base block in parts, in order) and no transfers; 'transfers' the reverse", async () => {
    const base = activity(8453, 500, 250);
    const activityQueue = recorder();
    await queueListener(QUEUE_URL, activityQueue.send, { content: 'activity' }).blocksIngested([base]);
    expect(activityQueue.sent.length).toBeGreaterThan(1);
    for (const size of sizes(activityQueue.sent)) expect(size).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const parts = ingestedEvents(activityQueue.decoded());
    expect(parts.flatMap((part) => part.transactions)).toEqual(base.transactions);
    expect(parts.flatMap((part) => part.logs)).toEqual(base.logs);
    expect(parts.flatMap((part) => [...part.nativeTransfers, ...part.erc20Transfers])).toEqual([]);

    const transfersQueue = recorder();
    await queueListener(QUEUE_URL, transfersQueue.send).blocksIngested([base]);
    const carried = ingestedEvents(transfersQueue.decoded());
    expect(carried.flatMap((part) => [...part.transactions, ...part.logs])).toEqual([]);
    expect(carried.flatMap((part) => part.erc20Transfers)).toEqual(base.erc20Transfers);
    expect(carried.flatMap((part) => part.nativeTransfers)).toEqual(base.nativeTransfers);
  });

  it('a transaction too large for a message travels without its calldata (inputOmitted), the rest of the block as it is', async () => {
    const big = activity(8453, 501, 3, 300 * 1024);
    const queue = recorder();
    await queueListener(QUEUE_URL, queue.send, { content: 'activity' }).blocksIngested([big]);
    for (const size of sizes(queue.sent)) expect(size).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const transactions = ingestedEvents(queue.decoded()).flatMap((part) => part.transactions);
    expect(transactions).toEqual([{ ...big.transactions[0]!, input: null, inputOmitted: true }, ...big.transactions.slice(1)]);
    expect(ingestedEvents(queue.decoded()).flatMap((part) => part.logs)).toEqual(big.logs);
  });
});

describe('queueListener', () => {
  it('publishes a small batch as one message of the chain’s group, which decodes to the same events', async () => {
    const { sent, send, decoded } = recorder();
    const events = [event(8453, 10, 3, 2), event(8453, 11, 0, 1), event(8453, 12, 5, 0)];
    await queueListener(QUEUE_URL, send).blocksIngested(events);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      QueueUrl: QUEUE_URL,
      MessageGroupId: '8453',
      MessageDeduplicationId: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(decoded()).toEqual([{ v: 1, kind: 'blocksIngested', chainId: 8453, events }]);
  });

  it('gives the same call the same deduplication id, and any other call another one', async () => {
    const ids = async (call: (listener: ReturnType<typeof queueListener>) => Promise<void> | void) => {
      const { sent, send } = recorder();
      await call(queueListener(QUEUE_URL, send));
      return sent.map((message) => message.MessageDeduplicationId);
    };
    const batch = [event(1, 10, 1, 1), event(1, 11, 1, 1)];
    const first = await ids((listener) => listener.blocksIngested(batch));
    expect(await ids((listener) => listener.blocksIngested(structuredClone(batch)))).toEqual(first); // a retried run
    const others = [
      await ids((listener) => listener.blocksIngested([event(1, 10, 1, 1), event(1, 11, 1, 1, { fork: 'b' })])), // another hash
      await ids((listener) => listener.blocksIngested([event(1, 10, 1, 1)])), // another range
      await ids((listener) => listener.blocksIngested(batch.map((entry) => ({ ...entry, mode: 'repair' as const })))), // a repair run
      await ids((listener) => listener.blocksIngested(batch.map((entry) => ({ ...entry, chainId: 2 })))), // another chain
      await ids((listener) => listener.blocksOrphaned!({ chainId: 1, blocks: batch.map((entry) => entry.block) })), // the orphan of it
    ];
    expect(new Set([...first, ...others.flat()]).size).toBe(1 + others.length);
  });

  it('packs a batch too big for one message into consecutive messages of at most 256 KiB, in block order', async () => {
    const { sent, send, decoded } = recorder();
    // 200 blocks (INGEST_MAX_BLOCKS) of 60 ERC-20 and 20 native transfers: ~7.5 MB in all.
    const events = Array.from({ length: 200 }, (_, i) => event(8453, 1000 + i, 60, 20));
    await queueListener(QUEUE_URL, send).blocksIngested(events);
    expect(sent.length).toBeGreaterThan(20);
    for (const size of sizes(sent)) expect(size).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    // Packed, not one block per message: every message but the last is at least half full.
    for (const size of sizes(sent).slice(0, -1)) expect(size).toBeGreaterThan(MAX_MESSAGE_BYTES / 2);
    expect(ingestedEvents(decoded())).toEqual(events);
    expect(decoded().every((message) => message.kind === 'blocksIngested' && message.part === undefined)).toBe(true);
    expect(new Set(sent.map((message) => message.MessageGroupId))).toEqual(new Set(['8453']));
    expect(new Set(sent.map((message) => message.MessageDeduplicationId)).size).toBe(sent.length);
  });

  it('splits one block bigger than a message into parts that carry its transfers in transaction order', async () => {
    const { sent, send, decoded } = recorder();
    const big = event(8453, 77, 4000, 1500); // ~2.5 MB: thousands of Transfer logs fit in a 30M-gas block
    const events = [event(8453, 76, 2, 2), big, event(8453, 78, 2, 2)];
    await queueListener(QUEUE_URL, send).blocksIngested(events);
    for (const size of sizes(sent)) expect(size).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const messages = decoded();
    const parts = messages.filter((message) => message.kind === 'blocksIngested' && message.part);
    expect(parts.length).toBeGreaterThanOrEqual(10);
    expect(parts.map((message) => message.kind === 'blocksIngested' && message.part)).toEqual(
      parts.map((_, index) => ({ index, count: parts.length })),
    );
    // The neighbours are in messages of their own, before and after the parts.
    expect(messages[0]).toMatchObject({ events: [events[0]] });
    expect(messages.at(-1)).toMatchObject({ events: [events[2]] });
    const partEvents = ingestedEvents(parts);
    for (const part of partEvents)
      expect({ ...part, nativeTransfers: [], erc20Transfers: [] }).toEqual({ ...big, nativeTransfers: [], erc20Transfers: [] });
    // Every transfer once; transaction indexes never go back from one part to the next.
    const sortByIndex = <T extends { transactionIndex: number }>(list: T[]) =>
      [...list].sort((a, b) => a.transactionIndex - b.transactionIndex);
    expect(partEvents.flatMap((part) => part.erc20Transfers)).toEqual(sortByIndex(big.erc20Transfers));
    expect(partEvents.flatMap((part) => part.nativeTransfers)).toEqual(sortByIndex(big.nativeTransfers));
    const boundaries = partEvents.map((part) => {
      const indexes = [...part.nativeTransfers, ...part.erc20Transfers].map((transfer) => transfer.transactionIndex);
      return [Math.min(...indexes), Math.max(...indexes)];
    });
    for (let i = 1; i < boundaries.length; i += 1) expect(boundaries[i]![0]).toBeGreaterThanOrEqual(boundaries[i - 1]![1]!);
    expect(new Set(sent.map((message) => message.MessageDeduplicationId)).size).toBe(sent.length);
  });

  it('chunks a deep reorg’s orphaned blocks in order', async () => {
    const { sent, send, decoded } = recorder();
    const blocks = Array.from({ length: 5000 }, (_, i) => ({ number: 90_000 - i, hash: hex(`orphan ${i}`, 32) }));
    await queueListener(QUEUE_URL, send).blocksOrphaned!({ chainId: 10, blocks });
    expect(sent.length).toBeGreaterThan(1);
    for (const size of sizes(sent)) expect(size).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(decoded().flatMap((message) => (message.kind === 'blocksOrphaned' ? message.event.blocks : []))).toEqual(blocks);
    expect(decoded().every((message) => message.kind === 'blocksOrphaned' && message.event.chainId === 10)).toBe(true);
  });

  it('keeps the order of calls, and stops at a send that fails (the ingest then keeps its cursor)', async () => {
    const { sent, send } = recorder({ failAt: 1 });
    const listener = queueListener(QUEUE_URL, send, { maxBytes: 8 * 1024 });
    await expect(listener.blocksIngested([event(1, 1, 10, 10), event(1, 2, 10, 10)])).rejects.toThrow('SQS is unavailable');
    expect(sent).toHaveLength(1);

    const ordered = recorder();
    const second = queueListener(QUEUE_URL, ordered.send);
    await second.blocksIngested([event(1, 5, 1, 0)]);
    await second.blocksOrphaned!({ chainId: 1, blocks: [{ number: 5, hash: event(1, 5, 0, 0).block.hash }] });
    await second.blocksIngested([event(1, 5, 1, 0, { fork: 'b' })]);
    expect(ordered.decoded().map((message) => message.kind)).toEqual(['blocksIngested', 'blocksOrphaned', 'blocksIngested']);
  });

  it('publishes nothing for an empty call', async () => {
    const { sent, send } = recorder();
    await queueListener(QUEUE_URL, send).blocksIngested([]);
    await queueListener(QUEUE_URL, send).blocksOrphaned!({ chainId: 1, blocks: [] });
    expect(sent).toEqual([]);
  });
});

describe('decodeListenerMessage', () => {
  it('rejects what is not a message of the format, naming the problem', () => {
    expect(() => decodeListenerMessage('{"v":2,"kind":"blocksIngested","chainId":1,"events":[]}')).toThrow(/not a listener message: v/);
    expect(() =>
      decodeListenerMessage('{"v":1,"kind":"blocksOrphaned","chainId":1,"event":{"chainId":1,"blocks":[{"number":1}]}}'),
    ).toThrow(/event\.blocks\.0\.hash/);
    expect(() => decodeListenerMessage('not json')).toThrow();
  });
});
