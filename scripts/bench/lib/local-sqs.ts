/**
 * A local stand-in for SQS queues and their Lambda event source mappings, for the Lambda harness:
 * - the queues' HTTP endpoint (LocalSqs, one for all of them, routing by QueueUrl) answers the JSON
 *   protocol's SendMessage, SendMessageBatch (1-10 entries, 256 KiB at most) and ChangeMessageVisibility
 *   as SQS does (the MD5 of the body, a FIFO queue's sequence number), so the real SQS clients of the
 *   ingest's queue listener (shared/ingest/sqs-send.ts), of webhook matching (its deliveries) and of a
 *   consumer's backoff (shared/aws/delay-message.ts) reach it through AWS_ENDPOINT_URL_SQS;
 * - a standard queue (`fifo: false`): no order and no deduplication, every message on its own; a message
 *   whose consumer changed its visibility while it was in flight and then reported it failed shows again
 *   when the change said (a consumer's backoff), not after the queue's visibility timeout;
 * - FIFO: a message whose deduplication id was sent within the last 5 minutes is accepted and dropped;
 *   a group's messages are received in order, and never while one of its messages is in flight;
 * - the event source mapping, as the AWS Lambda documentation describes it ("Using Lambda with Amazon
 *   SQS", "Lambda parameters for Amazon SQS event source mappings", "Configuring scaling behavior for
 *   SQS event source mappings"): Lambda's pollers read the queue and invoke the function
 *   synchronously, once per batch; a batch is up to BatchSize messages (default 10, at most 10 for a
 *   FIFO queue; here the consumer's batchSize of shared/jobs.ts); a FIFO queue has no batching window
 *   (MaximumBatchingWindowInSeconds is not supported for FIFO queues), so what a poll returns is
 *   delivered at once; a batch may hold several message groups, in order, and a FIFO mapping runs at
 *   most one invocation per message group; received messages stay in the queue, hidden for the
 *   visibility timeout, and are deleted only when the invocation succeeds; with ReportBatchItemFailures
 *   the failed records (for FIFO: the first failed one and every later one of its group) come back
 *   once the visibility timeout has passed, and an invocation that fails retries its whole batch, all
 *   before any later message of the group; a message received maxReceiveCount times goes to the
 *   dead-letter queue. At low traffic Lambda keeps as few as 2 concurrent pollers (standard queues use
 *   long polling until the queue is active).
 * - the poll modelled: `pollers` (default 2) loops, each a ReceiveMessage with long polling
 *   (WaitTimeSeconds 20: it answers as soon as a message is visible, empty after 20 s), then the
 *   synchronous invocation of the consumer with what it got, then the next poll. The consumer is a
 *   function; in the harness an invoke of the DetectDeposits handler in its own local execution
 *   environment (lib/local-lambda.ts: a process, cold on its first batch, kept warm after). Not
 *   modelled: the network time of the ReceiveMessage and DeleteMessageBatch round trips (milliseconds
 *   within a region).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export interface QueuedMessage {
  messageId: string;
  group: string;
  deduplicationId: string;
  body: string;
  sequence: number;
  sentAt: number;
  receives: number;
  visibleAt: number;
  /** When the consumer took it (its batch answered without it failing). */
  doneAt?: number;
  /** Set by ChangeMessageVisibility while in flight: when it shows again if its batch fails it. */
  visibleUntil?: number;
}

export interface LocalQueueOptions {
  /** A FIFO queue (the default): groups in order, deduplication; a standard queue: neither. */
  fifo?: boolean;
  consumer: (event: SQSEvent) => Promise<SQSBatchResponse>;
  batchSize?: number;
  maxReceiveCount?: number;
  visibilityTimeoutMs?: number;
  deduplicationWindowMs?: number;
  /** Pollers of the event source mapping, each a long-poll loop (default 2, Lambda's fewest at low traffic). */
  pollers?: number;
  /** ReceiveMessage's WaitTimeSeconds, ms (default 20,000: the longest long poll). */
  waitTimeMs?: number;
}

/** SQS's longest long poll (ReceiveMessage WaitTimeSeconds 20). */
export const LONG_POLL_MS = 20_000;

/**
 * What one ReceiveMessage of a FIFO queue returns (pure): up to `batchSize` visible messages in send
 * order, none of a group that has a message in flight (`busyGroups`) or whose first waiting message is
 * still hidden (a group's order is kept: nothing behind a hidden message is received).
 */
export function receiveBatch(
  waiting: readonly QueuedMessage[],
  now: number,
  batchSize: number,
  busyGroups: ReadonlySet<string>,
): QueuedMessage[] {
  const blocked = new Set(busyGroups);
  const batch: QueuedMessage[] = [];
  for (const message of [...waiting].sort((a, b) => a.sequence - b.sequence)) {
    if (batch.length >= batchSize) break;
    if (blocked.has(message.group)) continue;
    if (message.visibleAt > now) {
      blocked.add(message.group);
      continue;
    }
    batch.push(message);
  }
  return batch;
}

/**
 * What the mapping does with a batch once the invocation ended (pure): `failed` holds the ids the
 * consumer reported (batchItemFailures), or every id when the invocation failed. For a FIFO queue the
 * first failed record and every later record of its group are not deleted (they come back in order
 * after the visibility timeout); the others are deleted; a message received `maxReceiveCount` times goes
 * to the dead-letter queue instead of coming back.
 */
export function settleBatch(
  batch: readonly QueuedMessage[],
  failed: ReadonlySet<string>,
  options: { now: number; visibilityTimeoutMs: number; maxReceiveCount: number },
): { deleted: QueuedMessage[]; retried: { message: QueuedMessage; visibleAt: number }[]; deadLetters: QueuedMessage[] } {
  const failedGroups = new Set<string>();
  const deleted: QueuedMessage[] = [];
  const retried: { message: QueuedMessage; visibleAt: number }[] = [];
  const deadLetters: QueuedMessage[] = [];
  for (const message of batch) {
    if (failed.has(message.messageId)) failedGroups.add(message.group);
    if (!failedGroups.has(message.group)) deleted.push(message);
    else if (message.receives >= options.maxReceiveCount) deadLetters.push(message);
    else retried.push({ message, visibleAt: options.now + options.visibilityTimeoutMs });
  }
  return { deleted, retried, deadLetters };
}

export class LocalQueue {
  /** Every message accepted (not deduplicated), in send order. */
  readonly messages: QueuedMessage[] = [];
  readonly deadLetters: QueuedMessage[] = [];
  /** Sends dropped as duplicates within the deduplication window. */
  deduplicated = 0;
  /** Batches handed to the consumer, the records it reported failed, ReceiveMessage calls (and the empty ones). */
  batches = 0;
  failedRecords = 0;
  receives = 0;
  emptyReceives = 0;
  /** Per batch: when its first message was sent, when its poll returned, when the consumer answered (epoch ms), its size. */
  readonly deliveries: { firstSentAt: number; receivedAt: number; answeredAt: number; size: number }[] = [];
  consumerErrors: string[] = [];
  private readonly waiting: QueuedMessage[] = [];
  private readonly busyGroups = new Set<string>();
  private readonly seen = new Map<string, number>();
  private ownEndpoint: LocalSqs | undefined;
  private readonly wakers = new Set<() => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private pollerLoops: Promise<void>[] = [];
  private inFlight = 0;
  private closed = false;
  /** ChangeMessageVisibility calls (a consumer's backoff). */
  visibilityChanges = 0;
  endpoint = '';
  queueUrl = '';
  name = '';
  readonly fifo: boolean;

  constructor(private readonly options: LocalQueueOptions) {
    this.fifo = options.fifo ?? true;
  }

  /** Serves the queue alone, on an endpoint of its own (several queues share one: LocalSqs). */
  async start(name = 'DepositEvents.fifo'): Promise<void> {
    this.ownEndpoint = new LocalSqs();
    await this.ownEndpoint.start();
    this.ownEndpoint.add(name, this);
  }

  /** Takes the queue's URL on an endpoint and starts the event source mapping's pollers (LocalSqs.add). */
  attach(endpoint: string, name: string): void {
    this.endpoint = endpoint;
    this.name = name;
    this.queueUrl = `${endpoint}/000000000000/${name}`;
    this.pollerLoops = Array.from({ length: Math.max(1, this.options.pollers ?? 2) }, () => this.poller());
  }

  /** One request of the SQS JSON protocol addressed to this queue: its answer, or an error (LocalSqs answers 400). */
  handle(target: string, body: Record<string, unknown>): Record<string, unknown> {
    const now = Date.now();
    if (target === 'AmazonSQS.SendMessage') {
      const sent = this.send(String(body.MessageGroupId ?? ''), String(body.MessageDeduplicationId ?? ''), String(body.MessageBody ?? ''));
      return { MessageId: sent.messageId, MD5OfMessageBody: md5(String(body.MessageBody ?? '')), ...this.sequenceOf(sent) };
    }
    if (target === 'AmazonSQS.SendMessageBatch') {
      const entries = (body.Entries ?? []) as Record<string, string>[];
      if (entries.length === 0 || entries.length > 10)
        throw new LocalSqsError('AWS.SimpleQueueService.TooManyEntriesInBatchRequest', 'a batch holds 1 to 10 entries');
      const bytes = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? ''), 0);
      if (bytes > 256 * 1024)
        throw new LocalSqsError('AWS.SimpleQueueService.BatchRequestTooLong', `the batch is ${bytes} bytes, more than 262,144`);
      return {
        Successful: entries.map((entry) => {
          const sent = this.send(entry.MessageGroupId ?? '', entry.MessageDeduplicationId ?? '', entry.MessageBody ?? '');
          return { Id: entry.Id, MessageId: sent.messageId, MD5OfMessageBody: md5(entry.MessageBody ?? ''), ...this.sequenceOf(sent) };
        }),
        Failed: [],
      };
    }
    if (target === 'AmazonSQS.ChangeMessageVisibility') {
      // (A receipt handle names the message and its receive: receipt-<message id>-<receives>.)
      const handle = String(body.ReceiptHandle ?? '');
      const message = this.waiting.find((candidate) => `receipt-${candidate.messageId}-${candidate.receives}` === handle);
      if (!message) throw new LocalSqsError('ReceiptHandleIsInvalid', `no message in flight has the receipt handle ${handle}`);
      message.visibleUntil = now + Number(body.VisibilityTimeout ?? 0) * 1000;
      this.visibilityChanges += 1;
      return {};
    }
    throw new LocalSqsError('UnsupportedOperation', `${target} is not served here`);
  }

  private sequenceOf(message: QueuedMessage): { SequenceNumber?: string } {
    return this.fifo ? { SequenceNumber: String(message.sequence).padStart(20, '0') } : {};
  }

  /** Waits until no message waits and no batch is in flight (at most `timeoutMs`). */
  async drain(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while ((this.waiting.length > 0 || this.inFlight > 0) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.wake();
    await Promise.allSettled(this.pollerLoops);
    await this.ownEndpoint?.close();
  }

  private send(sentGroup: string, sentDeduplicationId: string, body: string): QueuedMessage {
    const now = Date.now();
    const window = this.options.deduplicationWindowMs ?? 300_000;
    const sequence = this.messages.length + this.deduplicated + 1;
    // A standard queue: no order, no deduplication (each message its own group).
    const group = this.fifo ? sentGroup : `message-${sequence}`;
    const deduplicationId = this.fifo ? sentDeduplicationId : group;
    const earlier = this.seen.get(deduplicationId);
    if (earlier !== undefined && now - earlier < window) {
      this.deduplicated += 1;
      return { messageId: `duplicate-${sequence}`, group, deduplicationId, body, sequence, sentAt: now, receives: 0, visibleAt: now };
    }
    this.seen.set(deduplicationId, now);
    const message: QueuedMessage = {
      messageId: `message-${sequence}`,
      group,
      deduplicationId,
      body,
      sequence,
      sentAt: now,
      receives: 0,
      visibleAt: now,
    };
    this.messages.push(message);
    this.waiting.push(message);
    this.wake();
    return message;
  }

  /** Wakes every long poll waiting (a message was sent, or became visible, or a group was freed). */
  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const waker of wakers) waker();
  }

  /** One ReceiveMessage with long polling: a batch as soon as one is there, empty after `waitTimeMs`. */
  private async receive(): Promise<QueuedMessage[]> {
    this.receives += 1;
    const until = Date.now() + (this.options.waitTimeMs ?? LONG_POLL_MS);
    for (;;) {
      if (this.closed) return [];
      const batch = receiveBatch(this.waiting, Date.now(), this.options.batchSize ?? 10, this.busyGroups);
      if (batch.length > 0) {
        for (const message of batch) this.busyGroups.add(message.group);
        return batch;
      }
      const left = until - Date.now();
      if (left <= 0) {
        this.emptyReceives += 1;
        return [];
      }
      // Sleep until woken, the first hidden message shows again, or the poll's wait ends.
      const hidden = this.waiting.filter((message) => message.visibleAt > Date.now()).map((message) => message.visibleAt);
      const wakeIn = Math.min(left, ...hidden.map((at) => at - Date.now()));
      await new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          this.timers.delete(timer);
          this.wakers.delete(finish);
          resolve();
        };
        const timer = setTimeout(finish, Math.max(1, wakeIn));
        this.timers.add(timer);
        this.wakers.add(finish);
      });
    }
  }

  private async poller(): Promise<void> {
    while (!this.closed) {
      const batch = await this.receive();
      if (batch.length === 0) continue;
      this.inFlight += 1;
      try {
        await this.deliver(batch);
      } finally {
        this.inFlight -= 1;
        for (const message of batch) this.busyGroups.delete(message.group);
        this.wake();
      }
    }
  }

  private async deliver(batch: QueuedMessage[]): Promise<void> {
    const receivedAt = Date.now();
    this.batches += 1;
    for (const message of batch) message.receives += 1;
    const Records = batch.map(
      (message): SQSRecord => ({
        messageId: message.messageId,
        receiptHandle: `receipt-${message.messageId}-${message.receives}`,
        body: message.body,
        attributes: {
          ApproximateReceiveCount: String(message.receives),
          SentTimestamp: String(message.sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(receivedAt),
          ...(this.fifo
            ? {
                MessageGroupId: message.group,
                MessageDeduplicationId: message.deduplicationId,
                SequenceNumber: String(message.sequence).padStart(20, '0'),
              }
            : {}),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${this.name}`,
        awsRegion: 'us-east-1',
      }),
    );
    let failed: Set<string>;
    try {
      const response = await this.options.consumer({ Records });
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      // An invocation that fails (throws, times out, its environment dies) fails the whole batch.
      this.consumerErrors.push(error instanceof Error ? error.message : String(error));
      failed = new Set(batch.map((message) => message.messageId));
    }
    const now = Date.now();
    this.deliveries.push({
      firstSentAt: Math.min(...batch.map((message) => message.sentAt)),
      receivedAt,
      answeredAt: now,
      size: batch.length,
    });
    const settled = settleBatch(batch, failed, {
      now,
      visibilityTimeoutMs: this.options.visibilityTimeoutMs ?? 2_000,
      maxReceiveCount: this.options.maxReceiveCount ?? 5,
    });
    this.failedRecords += settled.retried.length + settled.deadLetters.length;
    const remove = (message: QueuedMessage) => this.waiting.splice(this.waiting.indexOf(message), 1);
    for (const message of settled.deleted) {
      message.doneAt = now;
      remove(message);
    }
    for (const message of settled.deadLetters) {
      this.deadLetters.push(message);
      remove(message);
    }
    // (A message whose consumer changed its visibility shows again when that says.)
    for (const { message, visibleAt } of settled.retried) {
      message.visibleAt = message.visibleUntil ?? visibleAt;
      message.visibleUntil = undefined;
    }
  }
}

class LocalSqsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/**
 * The SQS endpoint of the harness's queues (AWS_ENDPOINT_URL_SQS): one HTTP server answering the JSON
 * protocol for every queue added, each request routed by its QueueUrl's name (the ingest publishes to
 * two queues, and their consumers to a third, through one client endpoint).
 */
export class LocalSqs {
  private readonly queues = new Map<string, LocalQueue>();
  private server: Server | undefined;
  endpoint = '';

  async start(): Promise<void> {
    this.server = createServer(async (request, response) => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(body));
      };
      try {
        const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
        const name =
          String(body.QueueUrl ?? '')
            .split('/')
            .at(-1) ?? '';
        const queue = this.queues.get(name);
        if (!queue) throw new LocalSqsError('AWS.SimpleQueueService.NonExistentQueue', `no queue ${name}`);
        answer(200, queue.handle(String(request.headers['x-amz-target'] ?? ''), body));
      } catch (error) {
        if (error instanceof LocalSqsError) answer(400, { __type: `com.amazonaws.sqs#${error.type}`, message: error.message });
        else answer(500, { __type: 'com.amazonaws.sqs#InternalError', message: String(error) });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `queue` as `name` (its URL on this endpoint) and starts its pollers. */
  add(name: string, queue: LocalQueue): LocalQueue {
    this.queues.set(name, queue);
    queue.attach(this.endpoint, name);
    return queue;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
    request.on('error', reject);
  });
}
