/**
 * SQS consumer (consumers row DetectDeposits of shared/jobs.ts): the ingest Lambdas publish every
 * ingested and orphaned block to the FIFO queue DepositEvents (message group = chain id); this
 * function hands each message to order deposit detection (`orderDepositListener`, as the CLI and
 * `npm start` call it in process) and reports the records that failed (`batchItemFailures`): they
 * and the later records of their chain return to the queue, and after 5 receives go to the DLQ.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueueRecords } from '../../shared/ingest/queue-consumer';
import { orderDepositListener } from '../../shared/orders/deposits';

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => deliverQueueRecords(event.Records, orderDepositListener);
