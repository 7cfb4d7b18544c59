/**
 * SQS consumer (consumers row DeliverWebhooks of shared/jobs.ts): each record is one webhook's items of
 * one block; it is POSTed to the webhook's receiver (shared/insights/webhook-delivery.ts). A failed
 * delivery is reported failed (`batchItemFailures`) with its visibility timeout set to the backoff
 * (ChangeMessageVisibility), so the queue holds it back that long; after DELIVERY_MAX_RECEIVES receives
 * it goes to the dead-letter queue (an alarm). A webhook failing long enough is suspended, and its
 * deliveries dropped. Receivers are strangers' URLs: loadDeliverySettings allows loopback only against
 * a local table, never in AWS.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { delayMessage } from '../../shared/aws/delay-message';
import { loadDeliveriesQueueUrl, loadDeliverySettings } from '../../shared/insights/webhook-config';
import { deliver } from '../../shared/insights/webhook-delivery';
import { decodeDelivery } from '../../shared/insights/webhook-queue';
import { countJobWork, runJob } from '../../shared/observability/job-metrics';
import { logger } from '../../shared/observability/logger';

export const DELIVER_WEBHOOKS_COUNTS = ['Records', 'RecordsFailed', 'Delivered', 'Retried', 'Dropped', 'Suspended'] as const;

const settings = loadDeliverySettings();
const queueUrl = loadDeliveriesQueueUrl();
const sqs = new SQSClient({});
const COUNT_OF = { delivered: 'Delivered', retry: 'Retried', dropped: 'Dropped', suspended: 'Suspended' } as const;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> =>
  runJob('DeliverWebhooks', DELIVER_WEBHOOKS_COUNTS, async () => {
    const failures: { itemIdentifier: string }[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        let delivery;
        try {
          delivery = decodeDelivery(record.body);
        } catch (error) {
          logger.error('webhook delivery dropped: not readable', { messageId: record.messageId, error });
          return;
        }
        try {
          const attempt = Number(record.attributes.ApproximateReceiveCount ?? '1');
          const result = await deliver(delivery, settings, attempt);
          countJobWork(COUNT_OF[result.outcome]);
          if (result.outcome !== 'retry') return;
          failures.push({ itemIdentifier: record.messageId });
          await delayMessage(sqs, queueUrl, record.receiptHandle, result.retryInMs);
        } catch (error) {
          logger.error('webhook delivery not handled', { messageId: record.messageId, webhookId: delivery.webhookId, error });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    countJobWork('Records', event.Records.length);
    countJobWork('RecordsFailed', failures.length);
    return { batchItemFailures: failures };
  });
