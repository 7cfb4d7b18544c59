/**
 * Scheduled functions: the counterpart of the route table for work that no HTTP request starts.
 * The CDK stack creates one function per job (per configured chain for `perChain` jobs) with an
 * EventBridge schedule, and grants it exactly `table`.
 */
import type { TableAccess } from './routes';

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
}

export const jobs: readonly Job[] = [
  {
    id: 'ExpireOrders',
    handler: 'functions/orders/expire-orders.ts',
    schedule: 'rate(1 minute)',
    // Queries the O5 expiry ranges; conditional UpdateItem per order (in a transaction with its checkout session).
    table: { read: true, write: ['UpdateItem'] },
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
    table: { read: true, write: ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] },
    perChain: true,
    // One writer per chain: the cursor's conditional update would refuse a second one anyway.
    reservedConcurrency: 1,
    timeoutSeconds: 300,
    memorySize: 1024,
    summary: 'Ingest the next blocks of one chain (at most INGEST_MAX_BLOCKS per run) from its cursor, handling reorgs',
  },
];
