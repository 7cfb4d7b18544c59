/**
 * SQS consumer (consumers row DetectDeposits of shared/jobs.ts): the ingest Lambdas publish every
 * ingested and orphaned block to the FIFO queue DepositEvents (message group = chain id); this
 * function hands each message to order deposit detection (`orderDepositListener`, as the CLI and
 * `npm start` call it in process) and reports the records that failed (`batchItemFailures`): they
 * and the later records of their chain return to the queue, and after 5 receives go to the DLQ.
 * Each batch publishes its metrics (shared/observability/job-metrics.ts): records received and
 * failed, blocks scanned and orphaned, deposits counted, kept for a refund and orphaned, orders paid.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueueRecords } from '../../shared/ingest/queue-consumer';
import { countJobWork, runJob } from '../../shared/observability/job-metrics';
import { orderDepositListener } from '../../shared/orders/deposits';

/** What a batch did, published as counts of the `DetectDeposits` job (0 when nothing happened). */
export const DETECT_DEPOSITS_COUNTS = [
  'Records',
  'RecordsFailed',
  'BlocksScanned',
  'BlocksOrphaned',
  'DepositsCounted',
  'DepositsKeptForRefund',
  'DepositsOrphaned',
  'OrdersPaid',
] as const;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> =>
  runJob('DetectDeposits', DETECT_DEPOSITS_COUNTS, async () => {
    const response = await deliverQueueRecords(event.Records, orderDepositListener);
    countJobWork('Records', event.Records.length);
    countJobWork('RecordsFailed', response.batchItemFailures.length);
    return response;
  });
