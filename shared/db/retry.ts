/**
 * The table layer's one retry policy, and every setting of the DynamoDB client that decides how a
 * failed or slow call ends. Two layers of retries, each stated once:
 *  - the AWS SDK retries a failed call (throttling, 5xx, timeouts, connection resets) up to
 *    `SDK_RETRY.maxAttempts` times (the first try included) in the SDK's `standard` mode: jittered
 *    exponential backoff (base 100 ms, 500 ms after throttling) and a retry quota that stops retrying
 *    when most calls of the process fail. Each attempt may take `requestTimeoutMs` (connecting
 *    `connectionTimeoutMs`) before it is abandoned as a `TimeoutError` and retried;
 *  - the table layer retries what DynamoDB answered but did not do: a batch's unprocessed items or
 *    keys, and a transaction cancelled only by a conflict with another transaction, up to
 *    RETRY.maxRounds times, waiting `backoff(round)` between rounds.
 * What is still failing after both ends the request as a 503 with Retry-After (`isTableBusy`,
 * shared/http/middleware/error-responder.ts), never a 500. Bound: 3 attempts of at most 2 s plus the
 * backoff stay under the route functions' 15 s timeout, so the client gets that 503, not a Lambda timeout.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export const SDK_RETRY = {
  maxAttempts: 3,
  retryMode: 'standard',
  /** TCP (and TLS) connection to DynamoDB. */
  connectionTimeoutMs: 1_000,
  /**
   * The same against the embedded table: its one thread, busy with a batch of hundreds of calls, accepts
   * new connections late. At 1 s a dataset build of five chains at once on a slow 2-core host failed
   * every attempt of some calls (test/scripts/bench/dataset/build-resume.test.ts, 1 run in 2).
   */
  localConnectionTimeoutMs: 10_000,
  /** One attempt, request sent to response read. DynamoDB answers in milliseconds; 2 s is a hung call. */
  requestTimeoutMs: 2_000,
  /**
   * The same against the embedded table (DYNAMODB_ENDPOINT set): one single-threaded process serving a
   * whole ingest can take seconds per batch, which is slow, not hung.
   */
  localRequestTimeoutMs: 30_000,
  /**
   * Sockets the client keeps open (the SDK's default pool holds 50). The ingest's commit of a Base block
   * sends a few hundred calls at once (position lookups, item and state writes); a call past the pool
   * waits for a socket, one more round trip in sequence (5-10 ms in AWS) on the block's commit path.
   * A route function sends a few calls at once and opens no more than it uses.
   */
  maxSockets: 256,
} as const;

/** The DynamoDBClient settings of SDK_RETRY (`local`: the client talks to the embedded table). */
export function sdkRetrySettings(local: boolean) {
  return {
    maxAttempts: SDK_RETRY.maxAttempts,
    retryMode: SDK_RETRY.retryMode,
    requestHandler: {
      connectionTimeout: local ? SDK_RETRY.localConnectionTimeoutMs : SDK_RETRY.connectionTimeoutMs,
      requestTimeout: local ? SDK_RETRY.localRequestTimeoutMs : SDK_RETRY.requestTimeoutMs,
      // Without it the SDK only logs a breached requestTimeout and keeps waiting.
      throwOnRequestTimeout: true,
      httpAgent: { keepAlive: true, maxSockets: SDK_RETRY.maxSockets },
      httpsAgent: { keepAlive: true, maxSockets: SDK_RETRY.maxSockets },
    },
  };
}

export const RETRY = {
  /** Rounds of a batch's leftovers, or attempts of a conflicting transaction, before giving up. */
  maxRounds: 10,
  baseMs: 20,
  capMs: 2_000,
} as const;

/** Exponential backoff with full jitter before retry `round` (1-based). */
export function backoff(round: number): Promise<void> {
  const ceiling = Math.min(RETRY.capMs, RETRY.baseMs * 2 ** round);
  return sleep(Math.round(ceiling / 2 + (Math.random() * ceiling) / 2));
}

/** Thrown when retries are exhausted: the caller's request fails rather than losing a write. */
export class RetriesExhaustedError extends Error {
  constructor(what: string) {
    super(`${what} after ${RETRY.maxRounds} rounds`);
    this.name = 'RetriesExhaustedError';
  }
}

/** Error names of a table that is busy or unreachable for now (after the SDK's own retries). */
const BUSY_NAMES = new Set([
  'RetriesExhaustedError',
  // Throttling (the SDK's own list of throttling codes DynamoDB answers).
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  // A single-item write that met a transaction on its item; a transaction that met another.
  'TransactionConflictException',
  // Timeouts and DynamoDB's own failures.
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalServerError',
  'ServiceUnavailable',
]);
const BUSY_CANCELLATION_CODES = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * True for an error that says "the table cannot do this right now, try again shortly": throttling,
 * conflicts with concurrent transactions, timeouts, network failures and DynamoDB 5xx, once the SDK's and
 * the table layer's retries are spent. A request failing this way changed nothing it did not commit
 * (every multi-item write of a request is one transaction), so the client may simply retry it.
 */
export function isTableBusy(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { name, code, $metadata, CancellationReasons } = error as {
    name?: string;
    code?: string;
    $metadata?: { httpStatusCode?: number };
    CancellationReasons?: { Code?: string }[];
  };
  if (name && BUSY_NAMES.has(name)) return true;
  if (code && NETWORK_CODES.has(code)) return true;
  if (name === 'TransactionCanceledException') {
    const codes = (CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
    return codes.some((reasonCode) => BUSY_CANCELLATION_CODES.has(reasonCode)) && !codes.includes('ConditionalCheckFailed');
  }
  const status = $metadata?.httpStatusCode;
  return status !== undefined && status >= 500 && (error as { $fault?: string }).$fault === 'server';
}
