/**
 * SQS consumer (consumers row FetchNftMetadata of shared/jobs.ts) of the standard queue NftMetadata:
 * each record is one fetch request (shared/nft-metadata/queue.ts), handled by
 * shared/nft-metadata/process.ts as `npm start`'s in-process worker handles it.
 *
 *  - fetched, failed for good, skipped, or a contract refresh expanded: the record is done (deleted);
 *  - an attempt that failed in a way worth retrying (its item now `pending`, with its attempt count):
 *    the record's visibility timeout is set to the backoff (NFT_METADATA_RETRY_SECONDS x 4^(attempts-1),
 *    at most 12 h: ChangeMessageVisibility) and the record is reported failed (`batchItemFailures`), so
 *    SQS delivers it again after that wait. The item's attempt count ends it (`failed` after
 *    NFT_METADATA_MAX_ATTEMPTS); the queue's redrive (10 receives) moves a record whose handling keeps
 *    crashing (the table unavailable, say) to the dead-letter queue: never an endless loop;
 *  - an unreadable record is logged and dropped.
 * The batch's records run at once. Loopback addresses and plain http:// are never fetched here:
 * `loadFetcherSettings` ignores NFT_METADATA_ALLOW_LOOPBACK (and the stack never sets it).
 * Metrics (shared/observability/job-metrics.ts): records, fetched, failed, retried, skipped, expanded.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { delayMessage } from '../../shared/aws/delay-message';
import { loadFetcherSettings, loadMetadataQueueUrl } from '../../shared/nft-metadata/config';
import { processMetadataRequest } from '../../shared/nft-metadata/process';
import { decodeMetadataRequest, sqsMetadataQueue } from '../../shared/nft-metadata/queue';
import { countJobWork, runJob } from '../../shared/observability/job-metrics';
import { logger } from '../../shared/observability/logger';

/** What a batch did, published as counts of the `FetchNftMetadata` job (0 when nothing happened). */
export const FETCH_NFT_METADATA_COUNTS = ['Records', 'RecordsFailed', 'Fetched', 'Failed', 'Retried', 'Skipped', 'Expanded'] as const;

const settings = loadFetcherSettings();
const queueUrl = loadMetadataQueueUrl();
const sqs = new SQSClient({});

const COUNT_OF = { fetched: 'Fetched', failed: 'Failed', skipped: 'Skipped', expanded: 'Expanded', retry: 'Retried' } as const;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> =>
  runJob('FetchNftMetadata', FETCH_NFT_METADATA_COUNTS, async () => {
    if (!queueUrl) throw new Error('NFT_METADATA_QUEUE_URL is not set: the stack sets it to this function’s own queue');
    const queue = sqsMetadataQueue(queueUrl);
    const failures: { itemIdentifier: string }[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        let request;
        try {
          request = decodeMetadataRequest(record.body);
        } catch (error) {
          logger.error('NFT metadata request dropped: not readable', { messageId: record.messageId, error });
          return;
        }
        try {
          const result = await processMetadataRequest(request, { settings, queue });
          countJobWork(COUNT_OF[result.outcome]);
          if (result.outcome !== 'retry') return;
          failures.push({ itemIdentifier: record.messageId });
          await delayMessage(sqs, queueUrl, record.receiptHandle, result.retryInMs);
        } catch (error) {
          logger.error('NFT metadata request not handled', { messageId: record.messageId, request, error });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    countJobWork('Records', event.Records.length);
    countJobWork('RecordsFailed', failures.length);
    return { batchItemFailures: failures };
  });
