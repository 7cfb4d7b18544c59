/**
 * Retry with exponential backoff (viem's `withRetry` underneath): every RPC unit of work of the
 * ingest (a block's data, a round of reads at a block) goes through here. Errors that no retry can
 * cure (the node does not serve the method, the call reverts) are rethrown at once. A 429 or 503
 * that carries Retry-After waits at least that long (capped at MAX_RETRY_AFTER_MS, rpc-errors.ts).
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  HttpRequestError,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  RpcRequestError,
  UnsupportedProviderMethodError,
  withRetry,
} from 'viem';
import { isRateLimitStatus, looksLikeMethodRefusal, MAX_RETRY_AFTER_MS, parseRetryAfter } from './rpc-errors';

export interface RetryPolicy {
  /** Attempts in all (the first try included). */
  attempts: number;
  /** Delay before the second attempt; doubles each time. */
  baseDelayMs: number;
  /** Upper bound of one delay. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 8, baseDelayMs: 250, maxDelayMs: 8_000 };

/** Thrown when a unit of work still fails after every attempt; `cause` is the last error. */
export class RetriesExhaustedError extends Error {
  constructor(
    readonly label: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`${label}: failed after ${attempts} attempts: ${errorMessage(cause)}`, { cause });
    this.name = 'RetriesExhaustedError';
  }
}

export async function withBackoff<T>(
  label: string,
  policy: RetryPolicy,
  work: () => Promise<T>,
  onRetry?: (error: unknown, attempt: number) => void,
): Promise<T> {
  try {
    return await withRetry(work, {
      retryCount: Math.max(0, policy.attempts - 1),
      delay: ({ count, error }) => retryDelayMs(policy, count, error),
      shouldRetry: ({ error, count }) => {
        if (isPermanentRpcError(error)) return false;
        onRetry?.(error, count + 1);
        return true;
      },
    });
  } catch (error) {
    if (isPermanentRpcError(error)) throw error;
    throw new RetriesExhaustedError(label, policy.attempts, error);
  }
}

/**
 * The wait before retry number `count + 1`: the policy's backoff, or longer when the node answered
 * 429 / 503 with Retry-After (or a JSON-RPC rate limit with a backoff hint).
 */
export function retryDelayMs(policy: RetryPolicy, count: number, error: unknown): number {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** count);
  const asked = retryAfterMs(error);
  return asked === undefined ? backoff : Math.max(backoff, asked);
}

/** How long the node asked to wait: Retry-After of a 429 / 503, or Infura's `data.rate.backoff_seconds`; capped. */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  if (!(error instanceof BaseError)) return undefined;
  let asked: number | undefined;
  error.walk((cause) => {
    if (cause instanceof HttpRequestError || cause instanceof RpcRequestError) {
      if (isRateLimitStatus(cause.status)) asked = parseRetryAfter(cause.headers?.get('retry-after'), now);
      const hint =
        cause instanceof RpcRequestError
          ? (cause.data as { rate?: { backoff_seconds?: unknown } } | undefined)?.rate?.backoff_seconds
          : undefined;
      if (asked === undefined && typeof hint === 'number' && hint >= 0) asked = Math.min(MAX_RETRY_AFTER_MS, hint * 1000);
      return true;
    }
    return false;
  });
  return asked;
}

/**
 * The node refuses the method itself: retrying cannot help (capability fallbacks look for this).
 * Codes -32601 / -32004 / 4200 always; -32600, -32000, -32603 and HTTP 4xx / 5xx answers by their
 * message (rpc-errors.ts): "header not found" or "missing trie node" under -32000 is the node's
 * state, retried; a batch or rate limit is never a refusal.
 */
export function isMethodUnsupportedError(error: unknown): boolean {
  if (error instanceof BaseError) {
    let refused = false;
    error.walk((cause) => {
      if (
        cause instanceof MethodNotFoundRpcError ||
        cause instanceof MethodNotSupportedRpcError ||
        cause instanceof UnsupportedProviderMethodError
      ) {
        refused = looksLikeMethodRefusal(undefined, -32601, '');
        return true;
      }
      if (cause instanceof RpcRequestError) {
        refused = looksLikeMethodRefusal(cause.status, cause.code, cause.details);
        return true;
      }
      if (cause instanceof HttpRequestError) {
        refused = looksLikeMethodRefusal(cause.status, undefined, cause.details);
        return true;
      }
      return false;
    });
    return refused;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return looksLikeMethodRefusal(undefined, typeof code === 'number' ? code : undefined, errorMessage(error));
}

/** A contract call reverted: an answer, not a fault of the transport. */
export function isRevertError(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(error.walk((cause) => cause instanceof ContractFunctionRevertedError));
}

function isPermanentRpcError(error: unknown): boolean {
  return isMethodUnsupportedError(error) || isRevertError(error);
}

export function errorMessage(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage || error.message;
  return error instanceof Error ? error.message : String(error);
}
