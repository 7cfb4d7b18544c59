/**
 * The JSON-RPC client of a chain: a viem public client over HTTP with batch JSON-RPC (concurrent
 * requests of one tick travel in one HTTP request, which is how the ingest reads many balances at a
 * block on a chain without Multicall3). The transport itself does not retry: every caller wraps a
 * unit of work in `withBackoff` (retry.ts) so one policy, with validation of the answers, governs
 * all retries.
 */
import { createPublicClient, http, type PublicClient } from 'viem';

export interface ChainClientOptions {
  /** Per HTTP request; a request that takes longer fails (and is retried by the caller). Default 10 s. */
  timeoutMs?: number;
  /** Most JSON-RPC calls in one batch request. Default 100. */
  batchSize?: number;
}

export type ChainClient = PublicClient;

export function createChainClient(rpcUrl: string, options: ChainClientOptions = {}): ChainClient {
  return createPublicClient({
    transport: http(rpcUrl, {
      batch: { batchSize: options.batchSize ?? 100, wait: 0 },
      retryCount: 0,
      timeout: options.timeoutMs ?? 10_000,
    }),
  }) as ChainClient;
}
