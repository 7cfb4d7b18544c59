/**
 * Functions that no HTTP request starts, the counterpart of the route table: scheduled jobs, the
 * queues between functions, and the queues' consumers. The CDK stack creates one function per job
 * (per configured chain for `perChain` jobs) with an EventBridge schedule, one SQS FIFO queue (and its
 * dead-letter queue) per queue row, and one function per consumer fed by its queue; it grants each
 * function exactly `table`, and a job `sqs:SendMessage` on the queues it `publishesTo` only.
 */
import { CHAIN_DATA, type TableAccess } from './routes';

export interface Job {
  /** PascalCase id: the function's construct id (suffixed with the chain id for per-chain jobs). */
  id: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  /** EventBridge schedule expression, e.g. `rate(1 minute)`. */
  schedule: string;
  table: TableAccess;
  /**
   * One function per chain listed in the stack's `chains` context (chainId and the SSM parameter that
   * holds its RPC URL); the function gets CHAIN_ID and RPC_URL_PARAMETER and may read that parameter.
   */
  perChain: boolean;
  /** At most this many concurrent invocations (1 for a job that must have a single writer). */
  reservedConcurrency?: number;
  timeoutSeconds: number;
  memorySize?: number;
  summary: string;
  /** Queues (ids of `queues`) the job sends to: it gets their URL in their `urlVariable` and sqs:SendMessage on them. */
  publishesTo?: readonly string[];
}

/** An SQS FIFO queue between functions, with its dead-letter queue. */
export interface Queue {
  /** PascalCase id: the queue's construct id (its DLQ is `<id>DeadLetters`). */
  id: string;
  /** The environment variable that carries the queue's URL to the jobs that publish to it. */
  urlVariable: string;
  /** Receives of a message before it moves to the dead-letter queue. */
  maxReceiveCount: number;
  summary: string;
}

/** A function fed by a queue (an SQS event source mapping with ReportBatchItemFailures). */
export interface QueueConsumer {
  id: string;
  /** Handler module, relative to the repository root; it exports `handler` and answers `batchItemFailures`. */
  handler: string;
  /** Id of the queue (`queues`) it consumes. */
  queue: string;
  table: TableAccess;
  /** Most messages per invocation (a FIFO queue allows up to 10). */
  batchSize: number;
  timeoutSeconds: number;
  memorySize?: number;
  summary: string;
}

/** A function a state machine invokes: neither scheduled nor behind an API. */
export interface Worker {
  id: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  table: TableAccess;
  timeoutSeconds: number;
  memorySize?: number;
  summary: string;
}

/**
 * The parallel backfill's worker (lib/backfill.ts: a Step Functions state machine plans a chain's
 * backfill with it, then runs it once per shard in a Distributed Map). One function for every chain
 * (CHAIN_RPC_PARAMETERS names each chain's RPC URL parameter); created when the stack has chains.
 */
export const backfillWorker: Worker = {
  id: 'BackfillChain',
  handler: 'functions/ingest/backfill-chain.ts',
  // PutItem (the plan, a staged segment's DONE item, in a transaction with a ConditionCheckItem on the
  // plan), BatchWriteItem (the blocks' order-free items and the staged chunks), DeleteItem (a segment it
  // staged after the ingest numbered it); chain items only, as the ingest.
  table: { read: true, write: ['PutItem', 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'], writeKeys: CHAIN_DATA },
  timeoutSeconds: 900,
  memorySize: 1769,
  summary: 'Backfill worker: plan a chain backfill, or stage the segments of one shard (chain reads recorded, order-free items written)',
};

export const queues: readonly Queue[] = [
  {
    id: 'DepositEvents',
    urlVariable: 'DEPOSIT_EVENTS_QUEUE_URL',
    maxReceiveCount: 5,
    summary: 'Ingested and orphaned blocks of every chain (message group = chain id), for order deposit detection',
  },
];

export const consumers: readonly QueueConsumer[] = [
  {
    id: 'DetectDeposits',
    handler: 'functions/orders/detect-deposits.ts',
    queue: 'DepositEvents',
    // Queries O4 (GSI1) and O7; deposit items and order updates in TransactWriteItems (Put, Update,
    // Delete) and alone (DeleteItem when a reorg undoes an uncounted deposit), all in the order's
    // partition: a deposit moves an order to quoting_after_deposit, which its checkout session ignores.
    // The first deposit of an order removes the retention ttl of its list pointers and its session too.
    table: {
      read: true,
      write: ['PutItem', 'UpdateItem', 'DeleteItem'],
      writeKeys: ['ORDER#*', 'ORDERS', 'ORDERS#CREATOR#*', 'CHECKOUT#*'],
    },
    batchSize: 10,
    timeoutSeconds: 60,
    summary: 'Detect order deposits in the blocks the ingest published (and undo those of orphaned blocks)',
  },
];

export const jobs: readonly Job[] = [
  {
    id: 'ExpireOrders',
    handler: 'functions/orders/expire-orders.ts',
    schedule: 'rate(1 minute)',
    // Queries the O5 expiry ranges; conditional UpdateItem per order (in a transaction with its checkout session).
    table: { read: true, write: ['UpdateItem'], writeKeys: ['ORDER#*', 'CHECKOUT#*'] },
    perChain: false,
    reservedConcurrency: 1,
    timeoutSeconds: 60,
    summary: 'Persist `expired` for orders still waiting for their deposit past expiredAt',
  },
  {
    id: 'IngestChain',
    handler: 'functions/ingest/ingest-chain.ts',
    schedule: 'rate(1 minute)',
    // BatchWriteItem for block items and manifests; UpdateItem/PutItem/DeleteItem alone and inside
    // TransactWriteItems (balance transitions, NFT owner moves) and for the conditional cursor update.
    // Chain items (`C#<chainId>#...`), the chain registry and more: any partition key but the service's records.
    table: { read: true, write: ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], writeKeys: CHAIN_DATA },
    perChain: true,
    // One writer per chain: the cursor's conditional update would refuse a second one anyway.
    reservedConcurrency: 1,
    timeoutSeconds: 300,
    memorySize: 1024,
    summary: 'Ingest the next blocks of one chain (at most INGEST_MAX_BLOCKS per run) from its cursor, handling reorgs',
    // Its listener publishes every ingested and orphaned block there (shared/ingest/queue-listener.ts).
    publishesTo: ['DepositEvents'],
  },
];
