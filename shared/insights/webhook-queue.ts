/**
 * The deliveries' queue (SQS standard WebhookDeliveries in AWS; WEBHOOK_DELIVERIES_QUEUE_URL): one message a
 * delivery (webhook-dispatch.ts `Delivery`, at most about 192 KB of items), sent by MatchWebhooks with
 * SendMessageBatch (10 messages and 256 KiB a call at most), read by DeliverWebhooks.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import type { WebhookItem, WebhookTopic } from './webhook-payload';

/** One request's worth of items for one webhook: what the delivery queue carries. */
export interface Delivery {
  v: 1;
  project: string;
  webhookId: string;
  topic: WebhookTopic;
  items: WebhookItem[];
}

export interface DeliveryQueue {
  send(deliveries: readonly Delivery[]): Promise<void>;
}

const SEND_BATCH = 10;
const SEND_BATCH_BYTES = 250 * 1024;

const deliverySchema = v.object({
  v: v.literal(1),
  project: v.string(),
  webhookId: v.string(),
  topic: v.picklist(['v1.events', 'v1.transactions']),
  items: v.array(
    v.object({
      data: v.record(v.string(), v.unknown()),
      status: v.picklist(['new', 'reverted']),
      type: v.picklist(['event', 'transaction']),
      id: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
    }),
  ),
});

/** Parses a message body; throws (naming the problem) when it is not a delivery. */
export function decodeDelivery(body: string): Delivery {
  const result = v.safeParse(deliverySchema, JSON.parse(body));
  if (!result.success) {
    const issues = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`).join('; ');
    throw new Error(`not a webhook delivery: ${issues}`);
  }
  return result.output as Delivery;
}

/** The SQS transport: SendMessageBatch, every entry checked (a failed entry throws: the block is matched again). */
export function sqsDeliveryQueue(queueUrl: string, client: SQSClient = new SQSClient({})): DeliveryQueue {
  return {
    send: async (deliveries) => {
      let batch: string[] = [];
      let bytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const answer = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((body, index) => ({ Id: String(index), MessageBody: body })),
          }),
        );
        const failed = answer.Failed ?? [];
        if (failed.length > 0) throw new Error(`SQS refused ${failed.length} webhook deliveries: ${failed[0]?.Message ?? failed[0]?.Code}`);
        batch = [];
        bytes = 0;
      };
      for (const delivery of deliveries) {
        const body = JSON.stringify(delivery);
        const size = Buffer.byteLength(body);
        if (batch.length >= SEND_BATCH || bytes + size > SEND_BATCH_BYTES) await flush();
        batch.push(body);
        bytes += size;
      }
      await flush();
    },
  };
}
