/**
 * A listener that hands the ingest's calls to a queue instead of running them: in AWS the ingest
 * Lambda publishes every `blocksIngested` / `blocksOrphaned` call to an SQS FIFO queue, which the
 * consumers' functions read (order deposit detection: functions/orders/detect-deposits.ts). It knows
 * nothing of what the consumers do.
 *
 * - Order: every message of a chain has the message group id `<chainId>`, and the messages are sent
 *   one after the other (the next only once the previous was accepted), so a FIFO queue delivers a
 *   chain's calls in the order the ingest made them.
 * - Size and dedup: see shared/ingest/queue-messages.ts (messages of at most 256 KiB, a batch or a
 *   block split in order; a deduplication id per message made from its content).
 * - At least once, like every listener: a send that fails throws, the ingest does not move its
 *   cursor, and the next run publishes the blocks again (the queue drops what it already took within
 *   its 5-minute deduplication window).
 *
 * `send` is the transport (shared/ingest/sqs-send.ts wraps an SQS client; tests record).
 */
import type { BlockIngestedEvent, BlocksOrphanedEvent, IngestListener } from './listeners';
import { type EncodedMessage, encodeBlocksIngested, encodeBlocksOrphaned, MAX_MESSAGE_BYTES } from './queue-messages';

/** What one SQS SendMessage call takes (the fields of SendMessageCommandInput this listener sets). */
export interface QueueMessage {
  QueueUrl: string;
  MessageBody: string;
  MessageGroupId: string;
  MessageDeduplicationId: string;
}

export type SendQueueMessage = (message: QueueMessage) => Promise<unknown>;

/**
 * What of an ingested block a queue's messages carry: its native and ERC-20 `transfers` (order deposit
 * detection), or its `activity`, every transaction and log (webhook delivery). The other lists travel
 * empty: a queue pays for the bytes it carries.
 */
export type QueueContent = 'transfers' | 'activity';

export function queueListener(
  queueUrl: string,
  send: SendQueueMessage,
  options: { maxBytes?: number; content?: QueueContent } = {},
): IngestListener {
  const maxBytes = options.maxBytes ?? MAX_MESSAGE_BYTES;
  const content = options.content ?? 'transfers';
  const carried = (event: BlockIngestedEvent): BlockIngestedEvent =>
    content === 'transfers' ? { ...event, transactions: [], logs: [] } : { ...event, nativeTransfers: [], erc20Transfers: [] };
  const publish = async (chainId: number, messages: readonly EncodedMessage[]) => {
    for (const message of messages) {
      await send({
        QueueUrl: queueUrl,
        MessageBody: message.body,
        MessageGroupId: String(chainId),
        MessageDeduplicationId: message.deduplicationId,
      });
    }
  };
  return {
    blocksIngested: async (events: readonly BlockIngestedEvent[]) => {
      if (events.length > 0) await publish(events[0]!.chainId, encodeBlocksIngested(events.map(carried), maxBytes));
    },
    blocksOrphaned: async (event: BlocksOrphanedEvent) => publish(event.chainId, encodeBlocksOrphaned(event, maxBytes)),
  };
}
