/**
 * SQS consumer (consumers row MatchWebhooks of shared/jobs.ts): the ingest Lambda publishes every ingested
 * and orphaned block with its transactions and logs to the FIFO queue WebhookEvents (message group = chain
 * id); this function matches each against the webhooks' filters (shared/insights/webhook-dispatch.ts),
 * records what each block sent (H5, for reorgs), and queues the deliveries (WebhookDeliveries). A record
 * that fails returns to the queue with the later records of its chain; after 5 receives, to the DLQ.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueueRecords } from '../../shared/ingest/queue-consumer';
import { loadDeliveriesQueueUrl } from '../../shared/insights/webhook-config';
import { webhookDispatchListener } from '../../shared/insights/webhook-dispatch';
import { sqsDeliveryQueue } from '../../shared/insights/webhook-queue';
import { countJobWork, runJob } from '../../shared/observability/job-metrics';

export const MATCH_WEBHOOKS_COUNTS = ['Records', 'RecordsFailed'] as const;

const listener = webhookDispatchListener({ queue: sqsDeliveryQueue(loadDeliveriesQueueUrl()) });

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> =>
  runJob('MatchWebhooks', MATCH_WEBHOOKS_COUNTS, async () => {
    const response = await deliverQueueRecords(event.Records, listener);
    countJobWork('Records', event.Records.length);
    countJobWork('RecordsFailed', response.batchItemFailures.length);
    return response;
  });
