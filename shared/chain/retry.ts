/**
 * Retry with exponential backoff (viem's `withRetry` underneath): every RPC unit of work of the
 * ingest (a block's data, a round of reads at a block) goes through here. Errors that no retry can
 * cure (the node does not serve the method, the call reverts) are rethrown at once.
 */
import { BaseError, ContractFunctionRevertedError, MethodNotFoundRpcError, MethodNotSupportedRpcError, withRetry } from 'viem';

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
      delay: ({ count }) => Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** count),
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

/** The node refuses the method itself: retrying cannot help (capability fallbacks look for this). */
export function isMethodUnsupportedError(error: unknown): boolean {
  if (error instanceof BaseError) {
    const found = error.walk((cause) => cause instanceof MethodNotFoundRpcError || cause instanceof MethodNotSupportedRpcError);
    if (found) return true;
  }
  const message = errorMessage(error).toLowerCase();
  return /method .*(not found|not supported|does not exist|not available|unsupported)|(not found|unsupported|unknown) method|tracer .*not (found|supported)|namespace .*(disabled|not enabled)/.test(
    message,
  );
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
