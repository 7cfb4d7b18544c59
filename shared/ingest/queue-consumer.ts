/**
 * The consuming end of the queue listener (shared/ingest/queue-listener.ts): a function subscribed
 * to the queue hands each SQS record to a listener as the call it carries, and reports the records
 * it could not deliver (`batchItemFailures`, with ReportBatchItemFailures on the event source
 * mapping) so that only those return to the queue.
 *
 * Order: a FIFO queue gives a function a chain's messages in order (message group = chain id). Once
 * a record of a group fails, the later records of that group in the batch are not delivered and are
 * reported too, so the group resumes at the failed one. Other groups go on. A record that keeps
 * failing moves to the dead-letter queue after the queue's maxReceiveCount receives.
 */
import type { IngestListener } from './listeners';
import { logger } from '../observability/logger';
import { decodeListenerMessage } from './queue-messages';

/** The fields of an SQS record (aws-lambda's SQSRecord) the consumer reads. */
export interface QueueRecord {
  messageId: string;
  body: string;
  attributes?: { MessageGroupId?: string };
}

export interface BatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

export async function deliverQueueRecords(records: readonly QueueRecord[], listener: IngestListener): Promise<BatchResponse> {
  const failedGroups = new Set<string>();
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const record of records) {
    const group = record.attributes?.MessageGroupId ?? '';
    if (failedGroups.has(group)) {
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      const message = decodeListenerMessage(record.body);
      if (message.kind === 'blocksIngested') await listener.blocksIngested(message.events);
      else await listener.blocksOrphaned?.(message.event);
    } catch (error) {
      logger.error('queue record not delivered', { messageId: record.messageId, messageGroupId: group, error });
      failedGroups.add(group);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
