/**
 * The fetch requests and how they travel: in AWS through the SQS standard queue NftMetadata
 * (shared/jobs.ts; NFT_METADATA_QUEUE_URL) to its consumer FetchNftMetadata; locally (`npm start`,
 * tests) to an in-process worker registered with `useLocalMetadataQueue`. A request is one message:
 *  - `token`: fetch one instance's metadata (from its current token URI, read when it runs); with
 *    `refresh` (when a refresh was asked for, ms) even when it was fetched or failed before;
 *  - `contract`: a refresh of every instance of a contract, expanded by the consumer into `token`
 *    requests a page of instances at a time (`after`: the last token id done), so the refresh route
 *    only sends one message whatever the collection's size.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';

export const MESSAGE_VERSION = 1;

export type MetadataRequest =
  | { v: typeof MESSAGE_VERSION; kind: 'token'; chainId: number; contract: string; tokenId: string; refresh?: number }
  | { v: typeof MESSAGE_VERSION; kind: 'contract'; chainId: number; contract: string; refresh: number; after?: string };

const integer = v.pipe(v.number(), v.integer(), v.minValue(0));
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-f]{40}$/));
const tokenId = v.pipe(v.string(), v.regex(/^[0-9]{1,78}$/));
const requestSchema = v.variant('kind', [
  v.object({
    v: v.literal(MESSAGE_VERSION),
    kind: v.literal('token'),
    chainId: integer,
    contract: address,
    tokenId,
    refresh: v.optional(integer),
  }),
  v.object({
    v: v.literal(MESSAGE_VERSION),
    kind: v.literal('contract'),
    chainId: integer,
    contract: address,
    refresh: integer,
    after: v.optional(tokenId),
  }),
]);

/** Parses a message body; throws (naming the problem) when it is not a request of this format. */
export function decodeMetadataRequest(body: string): MetadataRequest {
  const result = v.safeParse(requestSchema, JSON.parse(body));
  if (!result.success) {
    const issues = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`).join('; ');
    throw new Error(`not an NFT metadata request: ${issues}`);
  }
  return result.output as MetadataRequest;
}

/** Where fetch requests go. */
export interface MetadataQueue {
  send(requests: readonly MetadataRequest[]): Promise<void>;
}

/** SQS takes at most 10 messages per SendMessageBatch. */
const SEND_BATCH = 10;
/** SendMessageBatch calls in flight at once. */
const SEND_CONCURRENCY = 8;

/** The SQS transport: SendMessageBatch, 10 requests a call, every entry checked (a failed entry throws). */
export function sqsMetadataQueue(queueUrl: string, client: SQSClient = new SQSClient({})): MetadataQueue {
  return {
    send: async (requests) => {
      const batches: MetadataRequest[][] = [];
      for (let start = 0; start < requests.length; start += SEND_BATCH) batches.push(requests.slice(start, start + SEND_BATCH));
      let next = 0;
      const worker = async () => {
        while (next < batches.length) {
          const batch = batches[next]!;
          next += 1;
          const answer = await client.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: batch.map((request, index) => ({ Id: String(index), MessageBody: JSON.stringify(request) })),
            }),
          );
          const failed = answer.Failed ?? [];
          if (failed.length > 0)
            throw new Error(
              `SQS refused ${failed.length} NFT metadata requests: ${failed.map((entry) => `${entry.Code} ${entry.Message ?? ''}`).join('; ')}`,
            );
        }
      };
      await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, batches.length) }, worker));
    },
  };
}

let local: MetadataQueue | undefined;
/** One SQS client per queue URL and container. */
const sqsQueues = new Map<string, MetadataQueue>();

/** Registers the in-process queue of a local run (`npm start`, tests); undefined removes it. */
export function useLocalMetadataQueue(queue: MetadataQueue | undefined): void {
  local = queue;
}

/**
 * The queue of this process: SQS when `queueUrl` is set (the stack sets NFT_METADATA_QUEUE_URL), else
 * the local in-process queue registered now (`npm start`), else none (a local run without the fetcher:
 * the tests' local gateway, `sam local invoke`).
 */
export function metadataQueue(queueUrl: string | undefined): MetadataQueue | undefined {
  if (!queueUrl) return local;
  const queue = sqsQueues.get(queueUrl) ?? sqsMetadataQueue(queueUrl);
  sqsQueues.set(queueUrl, queue);
  return queue;
}
