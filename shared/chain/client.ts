/**
 * The JSON-RPC client of a chain: a viem public client over HTTP with batch JSON-RPC (concurrent
 * requests of one tick travel in one HTTP request, which is how the ingest reads many balances at a
 * block on a chain without Multicall3). The transport itself does not retry: every caller wraps a
 * unit of work in `withBackoff` (retry.ts) so one policy, with validation of the answers, governs
 * all retries. Its `fetchFn` (transport.ts) fits the batches to the node's limit and hands viem one
 * answer per call or a fault. `getChainId`, the first request of every process, goes through
 * `withBackoff` too (a 429 on it must not end the process).
 *
 * A request about a large block may need longer than the client's timeout (a node's answer for a
 * block of thousands of transactions, its traces above all, takes tens of seconds): `requestWithin`
 * sends one request with a timeout of the caller's choosing (fetch-block.ts sizes it to the block and
 * lets it grow with each timed-out attempt, so a fixed timeout never repeats forever). It goes
 * as an HTTP request of its own (a block's slow answer holds no other call back), through the same
 * fetch (batch limits, answer size limit).
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

/** Longest timeout of one request: below undici's own 300 s limits on an answer's headers and body. */
export const MAX_RPC_TIMEOUT_MS = 280_000;
/** The client's timeout when none is configured. */
export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

/** A JSON-RPC request as viem's `client.request` takes it. */
export type RawRequest = { method: string; params?: unknown };

export type ChainClient = PublicClient & {
  /** The client's own per-request timeout (ms); absent on clients built elsewhere (tests' custom transports). */
  readonly timeoutMs?: number;
  /**
   * One JSON-RPC request with its own timeout (ms, capped at MAX_RPC_TIMEOUT_MS); absent on clients built
   * elsewhere, whose callers then use `request` (their own timeout, if any).
   */
  requestWithin?: (request: RawRequest, timeoutMs: number) => Promise<unknown>;
};

/** `client.requestWithin` when the client has it, else its plain `request`. */
export function requestWithin(client: ChainClient, request: RawRequest, timeoutMs: number): Promise<unknown> {
  if (client.requestWithin) return client.requestWithin(request, timeoutMs);
  return client.request(request as never) as Promise<unknown>;
}

export function createChainClient(rpcUrl: string, options: ChainClientOptions = {}): ChainClient {
  const log: TransportLog = options.log ?? { warn: (message, details) => logger.warn(message, details ?? {}) };
  const limit = new BatchSizeLimit(options.batchSize ?? DEFAULT_RPC_BATCH_SIZE, log);
  const fetchFn = batchingFetch(limit, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  const timeoutMs = Math.min(MAX_RPC_TIMEOUT_MS, options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS);
  const client = createPublicClient({
    transport: http(rpcUrl, {
      batch: { batchSize: Math.max(1, options.batchSize ?? DEFAULT_RPC_BATCH_SIZE), wait: 0 },
      retryCount: 0,
      timeout: timeoutMs,
      // transport.ts reads and bounds every answer itself.
      maxResponseBodySize: false,
      fetchFn,
    }),
  });
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  return client.extend((base) => ({
    timeoutMs,
    requestWithin: (request: RawRequest, within: number): Promise<unknown> => {
      // A request of its own (no batch: a slow answer holds no other call back), through the same fetch.
      const alone = createPublicClient({
        transport: http(rpcUrl, {
          batch: false,
          retryCount: 0,
          timeout: Math.min(MAX_RPC_TIMEOUT_MS, Math.max(1, Math.ceil(within))),
          maxResponseBodySize: false,
          fetchFn,
        }),
      });
      return alone.request(request as never) as Promise<unknown>;
    },
    getChainId: () =>
      withBackoff(
        'eth_chainId',
        policy,
        () => getChainId(base),
        (error, attempt) => log.warn('retrying eth_chainId', { attempt, error: errorMessage(error) }),
      ),
  })) as unknown as ChainClient;
}
