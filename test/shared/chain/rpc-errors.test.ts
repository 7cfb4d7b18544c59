/**
 * How provider answers are classified (shared/chain/rpc-errors.ts, retry.ts): method refusals in the
 * forms real providers use, the node's transient states under the same generic codes, batch limits,
 * and Retry-After. The errors are viem's own classes, built as viem's http transport builds them.
 */
import {
  HttpRequestError,
  InternalRpcError,
  InvalidInputRpcError,
  InvalidRequestRpcError,
  MethodNotFoundRpcError,
  RpcRequestError,
} from 'viem';
import { describe, expect, test } from 'vitest';
import { isMethodUnsupportedError, retryAfterMs, retryDelayMs, withBackoff } from '../../../shared/chain/retry';
import {
  isBatchLimitMessage,
  isBatchRefusedMessage,
  looksLikeMethodRefusal,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
} from '../../../shared/chain/rpc-errors';

const url = 'http://node.example';
const body = { method: 'debug_traceBlockByNumber', params: [] };

/** A JSON-RPC error answer as viem's transport throws it, wrapped in viem's class for the code. */
function rpcError(code: number, message: string, http?: { status: number; headers?: Record<string, string> }) {
  const request = new RpcRequestError({
    body,
    error: { code, message },
    url,
    ...(http ? { status: http.status, headers: new Headers(http.headers ?? {}) } : {}),
  });
  switch (code) {
    case -32601:
      return new MethodNotFoundRpcError(request, { method: body.method });
    case -32600:
      return new InvalidRequestRpcError(request);
    case -32603:
      return new InternalRpcError(request);
    case -32000:
      return new InvalidInputRpcError(request);
    default:
      return request;
  }
}

const httpError = (status: number, details: string, headers: Record<string, string> = {}) =>
  new HttpRequestError({ body, details, status, headers: new Headers(headers), url });

describe('method refusals', () => {
  test.each([
    ['-32601, geth / Erigon / Infura', rpcError(-32601, 'the method debug_traceBlockByNumber does not exist/is not available')],
    ['-32601, bare', rpcError(-32601, 'Method not found')],
    [
      '-32600, Alchemy',
      rpcError(-32600, 'Unsupported method: debug_traceBlockByNumber. See available methods at https://docs.alchemy.com'),
    ],
    [
      '-32000, a plan without traces',
      rpcError(-32000, 'debug_traceBlockByNumber is not available on the Free tier - upgrade to Pay As You Go'),
    ],
    ['-32000, whitelist', rpcError(-32000, 'this method is not whitelisted')],
    ['-32603, method not supported', rpcError(-32603, 'internal error: method trace_block is not supported by this node')],
    ['-32603, namespace disabled', rpcError(-32603, 'the debug namespace is disabled on this node')],
    ['-32000, tracer not found', rpcError(-32000, 'tracer not found')],
    ['-32601 in an HTTP 403 (public node)', rpcError(-32601, 'Method not allowed', { status: 403 })],
    ['-32600 in an HTTP 400', rpcError(-32600, 'Unsupported method: trace_block', { status: 400 })],
    ['HTTP 404 text', httpError(404, '"Method not found: trace_block"')],
    ['HTTP 405 text', httpError(405, '"Method Not Allowed"')],
    ['HTTP 500 namespace disabled', httpError(500, '"the trace namespace is disabled on this node"')],
    ['HTTP 501 Not Implemented', httpError(501, '"Not Implemented"')],
    ['eth_getBlockReceipts does not exist', rpcError(-32000, 'eth_getBlockReceipts does not exist')],
  ])('%s: unsupported (not retried)', async (_name, error) => {
    expect(isMethodUnsupportedError(error)).toBe(true);
    let attempts = 0;
    await expect(
      withBackoff('x', { attempts: 5, baseDelayMs: 1, maxDelayMs: 1 }, async () => {
        attempts += 1;
        throw error;
      }),
    ).rejects.toBe(error);
    expect(attempts).toBe(1);
  });

  test.each([
    ['-32000 header not found', rpcError(-32000, 'header not found')],
    ['-32000 missing trie node', rpcError(-32000, 'missing trie node 7ab3... (path ) <nil>')],
    ['-32000 a method name with header not found', rpcError(-32000, 'eth_getBlockByNumber: header not found')],
    ['-32603 internal error', rpcError(-32603, 'Internal error')],
    ['-32600 invalid request', rpcError(-32600, 'Invalid Request')],
    ['-32602 invalid params (Alchemy wording)', rpcError(-32602, 'Invalid method parameter(s).')],
    ['-32005 rate limited', rpcError(-32005, 'daily request count exceeded, request rate limited')],
    ['-32000 execution timeout', rpcError(-32000, 'execution timeout')],
    ['trace_block state not available', rpcError(-32000, 'block is not available yet')],
    ['a batch limit under -32600', rpcError(-32600, 'batch size too large')],
    ['429 with "method" in the text', rpcError(429, 'method eth_call rate limited: too many requests', { status: 429 })],
    ['HTTP 503', httpError(503, '"Service Unavailable"')],
    ['HTTP 502', httpError(502, '"Bad Gateway"')],
    ['HTTP 500 plain', httpError(500, '"Internal Server Error"')],
    ['HTTP 403 bad key', httpError(403, '"invalid API key"')],
    [
      'a reset',
      new HttpRequestError({ body, cause: Object.assign(new Error('fetch failed'), { cause: new Error('read ECONNRESET') }), url }),
    ],
  ])('%s: transient (retried)', async (_name, error) => {
    expect(isMethodUnsupportedError(error)).toBe(false);
    let attempts = 0;
    await expect(
      withBackoff('x', { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, async () => {
        attempts += 1;
        throw error;
      }),
    ).rejects.toThrow(/failed after 3 attempts/);
    expect(attempts).toBe(3);
  });

  // A passing outage answered in refusal-like words used to switch traces off for the process.
  test.each([
    ['HTTP 500, -32000 "The API is not available right now"', rpcError(-32000, 'The API is not available right now', { status: 500 })],
    ['HTTP 502 "upstream api not available"', httpError(502, '"upstream api not available"')],
    ['HTTP 500, -32603 "method handler not available"', rpcError(-32603, 'method handler not available', { status: 500 })],
    ['HTTP 504 "trace API unavailable"', httpError(504, '"trace API unavailable, try later"')],
  ])('an outage under HTTP 5xx: %s is transient, not a refusal', (_name, error) => {
    expect(isMethodUnsupportedError(error)).toBe(false);
  });

  test('the same words in a 200 or a 4xx are still a refusal; explicit codes under a 5xx too', () => {
    expect(isMethodUnsupportedError(rpcError(-32000, 'The API is not available right now'))).toBe(true);
    expect(isMethodUnsupportedError(httpError(403, '"upstream api not available"'))).toBe(true);
    expect(isMethodUnsupportedError(rpcError(-32601, 'Method not found', { status: 500 }))).toBe(true);
    expect(looksLikeMethodRefusal(502, -32004, 'whatever')).toBe(true);
    expect(looksLikeMethodRefusal(500, 4200, '')).toBe(true);
    expect(looksLikeMethodRefusal(500, -32000, 'The API is not available right now')).toBe(false);
    expect(looksLikeMethodRefusal(200, -32000, 'The API is not available right now')).toBe(true);
  });

  test('plain errors are read by their message', () => {
    expect(isMethodUnsupportedError(new Error('the method trace_block does not exist/is not available'))).toBe(true);
    expect(isMethodUnsupportedError(new Error('header not found'))).toBe(false);
    expect(looksLikeMethodRefusal(undefined, -32601, '')).toBe(true);
  });
});

describe('batch limits', () => {
  test.each([
    'batch size too large',
    'batch too large',
    'Batch limit exceeded',
    'request exceeds max batch size of 10',
    'batch size exceeds the limit of 10',
    'too many requests in batch',
    'exceeded maximum batch size 50',
    'batch requests are not supported',
    'response too large',
  ])('"%s" is a batch limit', (message) => {
    expect(isBatchLimitMessage(message)).toBe(true);
    expect(looksLikeMethodRefusal(200, -32600, message)).toBe(false);
  });

  test('only "batches not served" goes straight to one call per request', () => {
    expect(isBatchRefusedMessage('batch requests are not supported')).toBe(true);
    expect(isBatchRefusedMessage('Batch requests disabled')).toBe(true);
    expect(isBatchRefusedMessage('batch size too large')).toBe(false);
  });

  test.each(['header not found', 'Method not found', 'execution reverted'])('"%s" is not', (message) => {
    expect(isBatchLimitMessage(message)).toBe(false);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  test('seconds, decimals, HTTP dates, past dates, garbage', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  test('capped at MAX_RETRY_AFTER_MS', () => {
    expect(parseRetryAfter('86400', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
  });

  test('read from the 429 / 503 in an error chain; other statuses and missing headers give the backoff', () => {
    const policy = { attempts: 8, baseDelayMs: 250, maxDelayMs: 8_000 };
    const limited = rpcError(429, 'Too Many Requests', { status: 429, headers: { 'retry-after': '4' } });
    expect(retryAfterMs(limited)).toBe(4_000);
    expect(retryDelayMs(policy, 0, limited)).toBe(4_000);
    // A Retry-After shorter than the backoff waits the backoff.
    expect(retryDelayMs(policy, 5, limited)).toBe(8_000);
    expect(retryAfterMs(httpError(503, '"Service Unavailable"', { 'retry-after': '2' }))).toBe(2_000);
    expect(retryAfterMs(httpError(503, '"Service Unavailable"'))).toBeUndefined();
    expect(retryDelayMs(policy, 1, httpError(503, '"Service Unavailable"'))).toBe(500);
    expect(retryAfterMs(httpError(500, '"boom"', { 'retry-after': '9' }))).toBeUndefined();
    // Infura's rate limit: -32005 with data.rate.backoff_seconds.
    const infura = new RpcRequestError({
      body,
      error: {
        code: -32005,
        message: 'daily request count exceeded, request rate limited',
        data: { rate: { backoff_seconds: 3 } },
      } as never,
      url,
    });
    expect(retryAfterMs(infura)).toBe(3_000);
  });
});
