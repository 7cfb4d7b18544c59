/**
 * The JSON-RPC client of a chain: a viem public client over HTTP with batch JSON-RPC (concurrent
 * requests of one tick travel in one HTTP request, which is how the ingest reads many balances at a
 * block on a chain without Multicall3). The transport itself does not retry: every caller wraps a
 * unit of work in `withBackoff` (retry.ts) so one policy, with validation of the answers, governs
 * all retries. Its `fetchFn` (transport.ts) fits the batches to the node's limit and hands viem one
 * answer per call or a fault. `getChainId`, the first request of every process, goes through
 * `withBackoff` too (a 429 on it must not end the process).
 */
import { createPublicClient, http, type PublicClient } from 'viem';
import { getChainId } from 'viem/actions';
import { logger } from '../observability/logger';
import { DEFAULT_RETRY_POLICY, errorMessage, withBackoff, type RetryPolicy } from './retry';
import { BatchSizeLimit, batchingFetch, DEFAULT_MAX_RESPONSE_BYTES, type TransportLog } from './transport';

/** JSON-RPC calls per batch request at start; halved on each refusal of the node (transport.ts). */
export const DEFAULT_RPC_BATCH_SIZE = 100;

export interface ChainClientOptions {
  /** Per HTTP request; a request that takes longer fails (and is retried by the caller). Default 10 s. */
  timeoutMs?: number;
  /** Most JSON-RPC calls in one batch request at start. Default DEFAULT_RPC_BATCH_SIZE (100). */
  batchSize?: number;
  /** Largest answer read. Default DEFAULT_MAX_RESPONSE_BYTES (64 MiB). */
  maxResponseBytes?: number;
  /** Retries of `getChainId` (the other calls are retried by their callers). Default DEFAULT_RETRY_POLICY. */
  retry?: RetryPolicy;
  /** Where a smaller batch size and getChainId's retries are reported. Default the process logger. */
  log?: TransportLog;
}

export type ChainClient = PublicClient;

export function createChainClient(rpcUrl: string, options: ChainClientOptions = {}): ChainClient {
  const log: TransportLog = options.log ?? { warn: (message, details) => logger.warn(message, details ?? {}) };
  const limit = new BatchSizeLimit(options.batchSize ?? DEFAULT_RPC_BATCH_SIZE, log);
  const client = createPublicClient({
    transport: http(rpcUrl, {
      batch: { batchSize: Math.max(1, options.batchSize ?? DEFAULT_RPC_BATCH_SIZE), wait: 0 },
      retryCount: 0,
      timeout: options.timeoutMs ?? 10_000,
      // transport.ts reads and bounds every answer itself.
      maxResponseBodySize: false,
      fetchFn: batchingFetch(limit, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
    }),
  });
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  return client.extend((base) => ({
    getChainId: () =>
      withBackoff(
        'eth_chainId',
        policy,
        () => getChainId(base),
        (error, attempt) => log.warn('retrying eth_chainId', { attempt, error: errorMessage(error) }),
      ),
  })) as unknown as ChainClient;
}
