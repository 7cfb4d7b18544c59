/**
 * A queue consumer's backoff: the message it reports failed comes back after `retryInMs` (its visibility
 * timeout, at most SQS's 12 hours) instead of the queue's. A failure to delay is logged, not thrown: the
 * message then comes back after the queue's own visibility timeout.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '../observability/logger';

const MAX_VISIBILITY_SECONDS = 12 * 3600;

export async function delayMessage(sqs: SQSClient, queueUrl: string, receiptHandle: string, retryInMs: number): Promise<void> {
  await sqs
    .send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(MAX_VISIBILITY_SECONDS, Math.ceil(retryInMs / 1000)),
      }),
    )
    .catch((error: unknown) => logger.warn('could not delay the retry: it comes back after the queue’s visibility timeout', { error }));
}
