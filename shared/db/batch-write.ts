/**
 * The BatchWriteItem loop of the table layer: requests already cut into chunks of at most 25, sent
 * `concurrency` at a time, each chunk's unprocessed requests sent again after `backoff` until none is
 * left or RETRY.maxRounds rounds have passed. Each item put is sent as the table stores it
 * (table/buckets.ts `storedItem`: long packed bytes deflated), so that deflating is done where it is
 * sent. operations.ts `writeItems` runs it on the calling thread or hands the chunks to the table
 * writers (write-workers.ts), which run this same loop.
 */
import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { storedItem } from '../table/buckets';
import { db } from './client';
import { inParallel } from './in-parallel';
import { backoff, RETRY, RetriesExhaustedError } from './retry';

export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** One call's output as instrument.ts `recordCall` reads it. */
export interface SentCall {
  command: string;
  output: Record<string, unknown>;
}

/** `requests` with each put's item as the table stores it (table/buckets.ts `storedItem`). */
export const asStored = (requests: readonly WriteRequest[]): WriteRequest[] =>
  requests.map((request) => (request.PutRequest?.Item ? { PutRequest: { Item: storedItem(request.PutRequest.Item) } } : request));

/**
 * Sends every chunk to `table`. With `onCall`, each call asks for its consumed capacity and is
 * reported (the writers report their calls to the thread that measures them).
 */
export async function sendWriteChunks(
  table: string,
  chunks: readonly WriteRequest[][],
  concurrency: number,
  onCall?: (call: SentCall) => void,
): Promise<void> {
  await inParallel(chunks, concurrency, async (chunk) => {
    // Items as the table stores them (their packed bytes deflated when long), made here: on the thread that sends.
    let pending = asStored(chunk);
    for (let round = 0; pending.length > 0; round += 1) {
      if (round >= RETRY.maxRounds) throw new RetriesExhaustedError(`BatchWriteItem: ${pending.length} items unprocessed`);
      if (round > 0) await backoff(round);
      const result = await db.send(
        new BatchWriteCommand({ RequestItems: { [table]: pending }, ...(onCall ? { ReturnConsumedCapacity: 'TOTAL' } : {}) }),
      );
      onCall?.({ command: 'BatchWriteCommand', output: { ConsumedCapacity: result.ConsumedCapacity } });
      pending = (result.UnprocessedItems?.[table] ?? []) as WriteRequest[];
    }
  });
}
