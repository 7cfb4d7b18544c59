/**
 * A local stand-in for an SQS FIFO queue and its Lambda event source mapping, for the Lambda harness:
 * - the queue's HTTP endpoint answers the JSON protocol's SendMessage as SQS does (the MD5 of the body,
 *   a sequence number), so the real SQS client of the ingest's queue listener (shared/ingest/sqs-send.ts)
 *   publishes to it through AWS_ENDPOINT_URL_SQS;
 * - FIFO: a message whose deduplication id was sent within the last 5 minutes is accepted and dropped;
 *   the messages of a group are delivered in order, one batch of a group at a time;
 * - the mapping hands batches of up to `batchSize` records of one group to the consumer handler (in this
 *   process) as soon as they are sent, reads its `batchItemFailures`: the failed records and the later
 *   ones of the batch come back after the visibility timeout, and a record received `maxReceiveCount`
 *   times goes to the dead-letter list.
 * In AWS the mapping's long polling adds some tens of milliseconds between a send and the consumer.
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
}

export interface LocalFifoOptions {
  consumer: (event: SQSEvent) => Promise<SQSBatchResponse>;
  batchSize?: number;
  maxReceiveCount?: number;
  visibilityTimeoutMs?: number;
  deduplicationWindowMs?: number;
}

export class LocalFifoQueue {
  /** Every message accepted (not deduplicated), in send order. */
  readonly messages: QueuedMessage[] = [];
  readonly deadLetters: QueuedMessage[] = [];
  /** Sends dropped as duplicates within the deduplication window. */
  deduplicated = 0;
  /** Batches handed to the consumer, and the records it reported failed. */
  batches = 0;
  failedRecords = 0;
  consumerErrors: string[] = [];
  private readonly waiting: QueuedMessage[] = [];
  private readonly lockedGroups = new Set<string>();
  private readonly seen = new Map<string, number>();
  private server: Server | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();
  private closed = false;
  endpoint = '';
  queueUrl = '';

  constructor(private readonly options: LocalFifoOptions) {}

  async start(name = 'DepositEvents.fifo'): Promise<void> {
    this.server = createServer(async (request, response) => {
      try {
        const body = JSON.parse(await readBody(request)) as Record<string, string>;
        const target = String(request.headers['x-amz-target'] ?? '');
        if (target !== 'AmazonSQS.SendMessage') {
          response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
          response.end(JSON.stringify({ __type: 'com.amazonaws.sqs#UnsupportedOperation', message: `${target} is not served here` }));
          return;
        }
        const sent = this.send(body.MessageGroupId ?? '', body.MessageDeduplicationId ?? '', body.MessageBody ?? '');
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(
          JSON.stringify({
            MessageId: sent.messageId,
            MD5OfMessageBody: createHash('md5')
              .update(body.MessageBody ?? '')
              .digest('hex'),
            SequenceNumber: String(sent.sequence).padStart(20, '0'),
          }),
        );
      } catch (error) {
        response.writeHead(500);
        response.end(String(error));
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.queueUrl = `${this.endpoint}/000000000000/${name}`;
  }

  /** Waits for every batch in flight and every visible message to be consumed (at most `timeoutMs`). */
  async drain(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while ((this.waiting.length > 0 || this.inFlight.size > 0) && Date.now() < until) {
      this.pump();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private send(group: string, deduplicationId: string, body: string): QueuedMessage {
    const now = Date.now();
    const window = this.options.deduplicationWindowMs ?? 300_000;
    const earlier = this.seen.get(deduplicationId);
    const sequence = this.messages.length + this.deduplicated + 1;
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
    this.pump();
    return message;
  }

  /** Hands each unlocked group's first visible messages to the consumer. */
  private pump(): void {
    if (this.closed) return;
    const groups = [...new Set(this.waiting.map((message) => message.group))];
    const now = Date.now();
    let nextVisible = Number.POSITIVE_INFINITY;
    for (const group of groups) {
      if (this.lockedGroups.has(group)) continue;
      const ofGroup = this.waiting.filter((message) => message.group === group);
      if (ofGroup[0]!.visibleAt > now) {
        nextVisible = Math.min(nextVisible, ofGroup[0]!.visibleAt);
        continue;
      }
      const batch = ofGroup.slice(0, this.options.batchSize ?? 10);
      this.lockedGroups.add(group);
      const delivery = this.deliver(group, batch).finally(() => {
        this.inFlight.delete(delivery);
        this.lockedGroups.delete(group);
        this.pump();
      });
      this.inFlight.add(delivery);
    }
    if (Number.isFinite(nextVisible)) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.pump(), Math.max(10, nextVisible - now));
    }
  }

  private async deliver(group: string, batch: QueuedMessage[]): Promise<void> {
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
          ApproximateFirstReceiveTimestamp: String(Date.now()),
          MessageGroupId: group,
          MessageDeduplicationId: message.deduplicationId,
          SequenceNumber: String(message.sequence).padStart(20, '0'),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:DepositEvents.fifo',
        awsRegion: 'us-east-1',
      }),
    );
    let failed: Set<string>;
    try {
      const response = await this.options.consumer({ Records });
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      // A consumer that throws fails the whole batch.
      this.consumerErrors.push(error instanceof Error ? error.message : String(error));
      failed = new Set(batch.map((message) => message.messageId));
    }
    this.failedRecords += failed.size;
    const now = Date.now();
    const visibility = this.options.visibilityTimeoutMs ?? 2_000;
    for (const message of batch) {
      if (!failed.has(message.messageId)) {
        message.doneAt = now;
        this.waiting.splice(this.waiting.indexOf(message), 1);
      } else if (message.receives >= (this.options.maxReceiveCount ?? 5)) {
        this.deadLetters.push(message);
        this.waiting.splice(this.waiting.indexOf(message), 1);
      } else message.visibleAt = now + visibility;
    }
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
