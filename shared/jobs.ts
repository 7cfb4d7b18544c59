/**
 * Functions that no HTTP request starts, the counterpart of the route table: scheduled jobs, the
 * queues between functions, and the queues' consumers. The CDK stack creates one function per job: an
 * EventBridge rule runs it on `schedule`, or, for a `perChain` job, one EventBridge Scheduler schedule
 * per configured chain runs the same function with that chain in its event. It also creates one SQS
 * FIFO queue (and its dead-letter queue) per queue row, and one function per consumer fed by its queue;
 * it grants each function exactly `table`, and a job, consumer or route `sqs:SendMessage` on the queues
 * it `publishesTo` only.
 */
import { QUEUE_MAX_RECEIVE_COUNT } from './nft-metadata/config';
import { CHAIN_DATA, type TableAccess } from './routes';

export interface Job {
  /** PascalCase id: the function's construct (and CloudFormation logical) id. */
  id: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  /**
   * EventBridge schedule expression, e.g. `rate(1 minute)`; a `perChain` job's must be a `rate(...)`
   * in minutes or hours (its IngestStalled alarm counts the ticks a period should hold).
   */
  schedule: string;
  table: TableAccess;
  /**
   * One function for every chain listed in the stack's `chains` context, run by one schedule per chain
   * whose event names the chain: `{ chainId, rpcUrlParameter, blockTimeMs?, firstBlock?, traceMethod? }`
   * (the optional fields when the chain's context entry sets them). The function gets no CHAIN_ID or
   * RPC_URL_PARAMETER and may read every chain's RPC URL parameter. Not deployed without chains; its
   * memory is the `ingestMemorySize` context (lib/settings.ts), not `memorySize`.
   */
  perChain: boolean;
  /**
   * At most this many concurrent invocations (1 for a job that must have a single writer); for a
   * `perChain` job, per chain: the function's reserved concurrency is this times the chains.
   */
  reservedConcurrency?: number;
  timeoutSeconds: number;
  /** MB; default 512 (DEFAULT_JOB_MEMORY_SIZE). Ignored for a `perChain` job (context `ingestMemorySize`). */
  memorySize?: number;
  /**
   * A `perChain` job's own memory, MB, in place of its chains' ingest memory: one function of this memory
   * serves every chain (a job that reads no node, whose memory follows its own work).
   */
  perChainMemorySize?: number;
  /** Deployed only when the stack's cold history tier is on (context `coldAfterDays`; docs/decisions/cold-history.md). */
  coldTier?: boolean;
  summary: string;
  /** Queues (ids of `queues`) the job sends to: it gets their URL in their `urlVariable` and sqs:SendMessage on them. */
  publishesTo?: readonly string[];
}

/** An SQS queue between functions, with its dead-letter queue. */
export interface Queue {
  /** PascalCase id: the queue's construct id (its DLQ is `<id>DeadLetters`). */
  id: string;
  /**
   * FIFO (the default: ordered per message group, deduplicated by the publisher's ids) or a standard
   * queue (`false`: unordered, at least once, and a message's visibility can be pushed back one by one,
   * which a consumer uses to wait before retrying it).
   */
  fifo?: boolean;
  /** The environment variable that carries the queue's URL to the functions that publish to it (and to its consumer). */
  urlVariable: string;
  /** Receives of a message before it moves to the dead-letter queue. */
  maxReceiveCount: number;
  /**
   * The QueueAge alarm's threshold for this queue, seconds, when its messages may wait longer by design
   * (a consumer's backoff); default the `queueAgeThresholdSeconds` context.
   */
  ageAlarmSeconds?: number;
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
  /** At most this many concurrent invocations by the event source mapping (2-1000; a standard queue only). */
  maxConcurrency?: number;
  timeoutSeconds: number;
  memorySize?: number;
  summary: string;
  /** Queues (ids of `queues`) it sends to, its own included: their URL in their `urlVariable` and sqs:SendMessage on them. */
  publishesTo?: readonly string[];
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

/**
 * The cold history job's group worker (docs/decisions/cold-history.md, the fan-out): CompactColdHistory
 * invokes it once for each group of a span's ranges, all of a span's groups at once, and moves the cold
 * cursor when every one has ended. One function for every chain; created with the cold tier on (context
 * `coldAfterDays`) when the stack has chains. It reads no node.
 */
export const coldHistoryGroupWorker: Worker = {
  id: 'CompactColdHistoryGroup',
  handler: 'functions/ingest/compact-cold-history-group.ts',
  // Reads the span's manifests and the group's listed items; writes the group's pointers (BatchWriteItem). Chain items only.
  table: { read: true, write: ['BatchWriteItem'], writeKeys: CHAIN_DATA },
  timeoutSeconds: 900,
  // One group of an hour of Base held whole: about 2.3 GB (cold-history.md).
  memorySize: 3008,
  summary: "Cold history group worker: compact one group of a span's ranges into the cold store and write their pointers",
};

/** Receives of a webhook delivery before it moves to its dead-letter queue (its retries wait 5 s, doubling, at most 15 min: about 2 h). */
export const DELIVERY_MAX_RECEIVES = 12;

export const queues: readonly Queue[] = [
  {
    id: 'DepositEvents',
    urlVariable: 'DEPOSIT_EVENTS_QUEUE_URL',
    maxReceiveCount: 5,
    summary: 'Ingested and orphaned blocks of every chain (message group = chain id), for order deposit detection',
  },
  {
    id: 'NftMetadata',
    fifo: false,
    urlVariable: 'NFT_METADATA_QUEUE_URL',
    // Above the most attempts a token URI gets (NFT_METADATA_MAX_ATTEMPTS, at most 8, counted on its
    // item): the item's count ends a token's retries; this only stops a message its consumer crashes on.
    maxReceiveCount: QUEUE_MAX_RECEIVE_COUNT,
    // A token waits up to 12 h between attempts (the consumer delays the message: its backoff).
    ageAlarmSeconds: 24 * 3600,
    summary:
      'NFT metadata fetch requests: instances the ingest wrote whose token URI is on the web, and the refresh routes (a token, or a whole contract)',
  },
  {
    id: 'WebhookEvents',
    urlVariable: 'WEBHOOK_EVENTS_QUEUE_URL',
    maxReceiveCount: 5,
    summary:
      'Ingested and orphaned blocks of every chain with their transactions and logs (message group = chain id), for webhook matching',
  },
  {
    id: 'WebhookDeliveries',
    fifo: false,
    urlVariable: 'WEBHOOK_DELIVERIES_QUEUE_URL',
    maxReceiveCount: DELIVERY_MAX_RECEIVES,
    // A delivery waits up to 15 minutes between attempts (the consumer delays the message: its backoff).
    ageAlarmSeconds: 3600,
    summary: "One webhook's items of one block to deliver (signed POST to the receiver); retried with backoff, then dead-lettered",
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
  {
    id: 'FetchNftMetadata',
    handler: 'functions/nft-metadata/fetch-nft-metadata.ts',
    queue: 'NftMetadata',
    // Reads G3 instances (GetItem, a contract's partition for a contract refresh); writes their G7
    // state (`fetched`: an UpdateItem conditional on the state it read and on the token URI), nothing
    // else: no other attribute of an instance, no other item.
    table: { read: true, write: ['UpdateItem'], writeKeys: ['C#*#NFT#*'], writeAttributes: ['pk', 'sk', 'tokenUri', 'fetched'] },
    batchSize: 10,
    // Politeness to the origin servers and gateways: at most 5 invocations x 10 fetches at once.
    maxConcurrency: 5,
    // A batch's fetches run at once, each at most NFT_METADATA_TIMEOUT_MS (10 s by default, 120 s at most).
    timeoutSeconds: 180,
    summary: 'Fetch NFT metadata from the web (untrusted servers: checked addresses, timeouts, size cap, redirects) and store it (G7)',
    // A contract refresh is expanded into one request per token, sent back to the same queue.
    publishesTo: ['NftMetadata'],
  },
  {
    id: 'MatchWebhooks',
    handler: 'functions/insights/match-webhooks.ts',
    queue: 'WebhookEvents',
    // Queries H4 (a chain's filters and the chain-less ones) and H5 (a block's sent items, on a reorg);
    // writes H5 (BatchWriteItem, with a TTL), nothing else.
    table: { read: true, write: ['BatchWriteItem'], writeKeys: ['WEBHOOK-SENT#*'] },
    batchSize: 10,
    timeoutSeconds: 60,
    summary: 'Match the blocks the ingest published against the webhooks filters, record what each block sent, and queue the deliveries',
    publishesTo: ['WebhookDeliveries'],
  },
  {
    id: 'DeliverWebhooks',
    handler: 'functions/insights/deliver-webhooks.ts',
    queue: 'WebhookDeliveries',
    // Reads H1; counts failures and suspends on H1 (UpdateItem), nothing else.
    table: { read: true, write: ['UpdateItem'], writeKeys: ['WEBHOOKS#*'] },
    batchSize: 10,
    maxConcurrency: 20,
    // A batch's deliveries run at once, each at most 3 s.
    timeoutSeconds: 30,
    summary: "POST each delivery to its webhook's receiver (signed; strangers' URLs: checked addresses, 3 s, no redirects), retry, suspend",
    // Its own queue's URL, for ChangeMessageVisibility (a retry's backoff).
    publishesTo: ['WebhookDeliveries'],
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
    // Per chain: the run that follows the chain's head (it holds the chain's lease in the table), the tick
    // that waits to take the lease over when that run hands it on near its end, and the minute's tick that
    // finds the chain taken and returns at once: every chain's schedule ticks in the same second, so a
    // reservation of 2 a chain would throttle some of those ticks whenever a chain is in its handover.
    reservedConcurrency: 3,
    // A run follows its chain's head for most of 15 minutes, then hands over to the next tick.
    timeoutSeconds: 900,
    summary: 'Ingest one chain (the chain in the event): follow its head from its cursor under the chain lease, handling reorgs',
    // Its listeners publish every ingested and orphaned block (shared/ingest/queue-listener.ts) and the
    // NFT instances whose metadata is on the web and not yet fetched (shared/nft-metadata/listener.ts).
    publishesTo: ['DepositEvents', 'NftMetadata', 'WebhookEvents'],
  },
  {
    id: 'CompactColdHistory',
    handler: 'functions/ingest/compact-cold-history.ts',
    // Back to back while a chain is behind (a run ends before its 15 minutes; reserved concurrency one a
    // chain, so a tick that finds its chain's run going is throttled and dropped: no retries, below).
    schedule: 'rate(5 minutes)',
    // Reads the manifests, the listed items and the block-by-time index; writes the pointers (BatchWriteItem)
    // and moves the chain's cold cursor (conditional UpdateItem). Chain items only.
    table: { read: true, write: ['UpdateItem', 'BatchWriteItem'], writeKeys: CHAIN_DATA },
    perChain: true,
    coldTier: true,
    reservedConcurrency: 1,
    timeoutSeconds: 900,
    // A span's group of ranges is held whole: an hour of Base in 16 groups about 2.3 GB (cold-history.md).
    perChainMemorySize: 3008,
    summary: "Compact one chain's history older than the cold window into the cold store, span after span from its cold cursor",
  },
];
