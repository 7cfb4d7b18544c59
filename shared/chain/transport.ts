/**
 * What the JSON-RPC transport does about real providers' batch behaviour, as viem's http transport
 * `fetchFn` hook: viem batches the calls of one tick (at most the configured batch size) and hands
 * the HTTP request to this function, which
 *
 *  - sends it in chunks of the size the node accepts (`BatchSizeLimit`), halving that size when the
 *    node refuses a batch (HTTP 413, a JSON-RPC error such as "batch size too large" instead of the
 *    array, or that error in the entries; any single error object answering a batch of several calls,
 *    whatever its words, unless they name a method or a rate limit) and re-sending what was refused; the smaller size is kept
 *    for the process and logged once per change. At size 1 calls go as plain JSON-RPC objects, so a
 *    node that serves no batches at all is read too;
 *  - hands viem exactly one answer per call, in call order: an entry that is missing, duplicated or of
 *    an unknown id is never taken as an answer. Missing calls are sent again (a few rounds), then the
 *    whole HTTP request fails as a transport fault (retried by the caller's `withBackoff`);
 *  - when a whole batch is refused in a way that names a method ("method not found", HTTP 404 / 405
 *    / 501 ...), splits it in halves until the refused call is alone, so that the refusal reaches that
 *    call only and the others get their answers;
 *  - gives a call whose own answer is over the size limit, in a request of several calls, a JSON-RPC
 *    error of its own (the others keep their answers);
 *  - passes every other failure (429 / 503 with their Retry-After, 5xx, malformed JSON, resets,
 *    timeouts) to viem as it came, so that the caller sees viem's own HttpRequestError /
 *    RpcRequestError with the status and headers.
 *
 * Nothing here retries a fault with a delay: `withBackoff` (retry.ts) owns retries.
 */
import { isBatchLimitMessage, isBatchRefusedMessage, isRateLimitStatus, looksLikeMethodRefusal } from './rpc-errors';

export interface TransportLog {
  warn(message: string, details?: Record<string, unknown>): void;
}

/** Rounds of re-sending calls the node left unanswered before the HTTP request fails as a fault. */
export const MISSING_ANSWER_ROUNDS = 3;

/**
 * Largest HTTP response read (viem's own default is 10 MiB, less than one block's callTracer answer
 * on a busy chain). A batch answered with more is sent again in smaller batches; a single call's
 * answer over it is a fault.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** An answer over the size limit. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
}

/** The batch size the node accepts: starts at the configured size, halves on each refusal (down to 1). */
export class BatchSizeLimit {
  private size: number;

  constructor(
    initial: number,
    private readonly log: TransportLog,
  ) {
    this.size = Math.max(1, Math.floor(initial));
  }

  get current(): number {
    return this.size;
  }

  /** The node refused a batch of `refused` calls: the size becomes at most half of it. */
  shrink(refused: number, reason: string, toOne = false): void {
    const next = toOne ? 1 : Math.max(1, Math.floor(Math.min(this.size, refused) / 2));
    if (next >= this.size) return;
    const previous = this.size;
    this.size = next;
    this.log.warn('the RPC node refused a batch: smaller batches from now on', { previous, batchSize: next, reason });
  }
}

interface RpcCall {
  id: number | string;
  method?: string;
  [key: string]: unknown;
}

interface RpcAnswer {
  id?: unknown;
  error?: { code?: unknown; message?: unknown };
  [key: string]: unknown;
}

/** A batch whose answers stayed incomplete: a transport fault (viem wraps it in an HttpRequestError). */
export class IncompleteBatchError extends Error {
  override name = 'IncompleteBatchError';
}

type ChunkResult =
  | { kind: 'answers'; answers: RpcAnswer[] }
  | { kind: 'failed'; response: Response }
  | { kind: 'tooBig'; reason: string; toOne: boolean };

/** `text` undefined: the answer was over the size limit (`tooLarge` says so). */
type Post = (payload: unknown) => Promise<{ response: Response; text: string | undefined; tooLarge?: ResponseTooLargeError }>;

/** The body as text, failing once it passes `maxBytes` (without reading the rest). */
async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(`the RPC answer has ${declared} bytes, over the limit of ${maxBytes}`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(`the RPC answer has more than ${maxBytes} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** viem's `fetchFn` for a transport whose batches adapt to `limit`. */
export function batchingFetch(limit: BatchSizeLimit, maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES, fetchImpl: typeof fetch = fetch) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const calls = parseBatch(init?.body);
    if (!calls) {
      const response = await fetchImpl(url, init);
      return passThrough(response, await readLimited(response, maxResponseBytes));
    }
    const post: Post = async (payload) => {
      const response = await fetchImpl(url, { ...init, body: JSON.stringify(payload) });
      try {
        return { response, text: await readLimited(response, maxResponseBytes) };
      } catch (error) {
        if (error instanceof ResponseTooLargeError) return { response, text: undefined, tooLarge: error };
        throw error;
      }
    };
    const outcome = await sendAll(calls, limit, post);
    if ('response' in outcome) return outcome.response;
    return new Response(JSON.stringify(outcome.answers), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

function parseBatch(body: unknown): RpcCall[] | undefined {
  if (typeof body !== 'string' || !body.startsWith('[')) return undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
    if (!parsed.every((call) => typeof call === 'object' && call !== null && (typeof call.id === 'number' || typeof call.id === 'string')))
      return undefined;
    if (new Set(parsed.map((call: RpcCall) => call.id)).size !== parsed.length) return undefined;
    return parsed as RpcCall[];
  } catch {
    return undefined;
  }
}

async function sendAll(calls: RpcCall[], limit: BatchSizeLimit, post: Post): Promise<{ answers: RpcAnswer[] } | { response: Response }> {
  const answered = new Map<unknown, RpcAnswer>();
  let pending = calls;
  let missingRounds = 0;
  while (pending.length > 0) {
    const size = limit.current;
    const chunks: RpcCall[][] = [];
    for (let start = 0; start < pending.length; start += size) chunks.push(pending.slice(start, start + size));
    const results = await Promise.all(chunks.map((chunk) => sendChunk(chunk, limit, post, calls.length === 1)));
    let refused = false;
    for (const [position, result] of results.entries()) {
      if (result.kind === 'failed') return { response: result.response };
      if (result.kind === 'tooBig') {
        refused = true;
        limit.shrink(chunks[position]!.length, result.reason, result.toOne);
        continue;
      }
      const own = new Set(chunks[position]!.map((call) => call.id));
      for (const [id, answer] of answersById(result.answers, own)) answered.set(id, answer);
    }
    const before = pending.length;
    pending = pending.filter((call) => !answered.has(call.id));
    // Refused batches are sent again at the smaller size (the size cannot shrink forever);
    // unanswered calls a few times, then the request fails as a fault.
    if (!refused && pending.length > 0) {
      missingRounds += 1;
      if (missingRounds > MISSING_ANSWER_ROUNDS) {
        throw new IncompleteBatchError(
          `the node left ${pending.length} of ${calls.length} calls of a batch unanswered (${before} were pending)`,
        );
      }
    }
  }
  return { answers: calls.map((call) => answered.get(call.id)!) };
}

/**
 * One answer per own id; an id answered twice is ambiguous (not taken), an unknown id ignored; an
 * entry carrying a batch-limit error is no answer (it is sent again at the smaller size).
 */
function answersById(answers: RpcAnswer[], own: Set<unknown>): Map<unknown, RpcAnswer> {
  const seen = new Map<unknown, RpcAnswer | null>();
  for (const answer of answers) {
    if (typeof answer !== 'object' || answer === null || !own.has(answer.id)) continue;
    seen.set(answer.id, seen.has(answer.id) ? null : answer);
  }
  const result = new Map<unknown, RpcAnswer>();
  for (const [id, answer] of seen) if (answer) result.set(id, answer);
  return result;
}

function errorText(data: unknown, text: string): string {
  const error = (data as RpcAnswer | undefined)?.error;
  if (error && typeof error === 'object')
    return `${String(error.message ?? '')} ${JSON.stringify((error as { data?: unknown }).data ?? '')}`;
  if (typeof error === 'string') return error;
  return text.slice(0, 500);
}

function rpcErrorCode(data: unknown): number | undefined {
  const code = (data as RpcAnswer | undefined)?.error?.code;
  return typeof code === 'number' ? code : undefined;
}

const isErrorObject = (data: unknown): data is RpcAnswer =>
  typeof data === 'object' &&
  data !== null &&
  !Array.isArray(data) &&
  typeof (data as RpcAnswer).error === 'object' &&
  (data as RpcAnswer).error !== null;

/** A JSON-RPC rate limit (429, -32005, or its words): "come back later", never a batch refusal. */
function isRateLimitAnswer(data: RpcAnswer): boolean {
  const code = rpcErrorCode(data);
  return (
    code === 429 || code === -32005 || /rate.?limit|too many requests|capacity|quota|compute units/.test(errorText(data, '').toLowerCase())
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The entries' batch-limit errors, when every error entry of the answer says so. */
function batchLimitEntries(answers: unknown[]): { reason: string; toOne: boolean } | undefined {
  const limited = answers.filter((answer) => isErrorObject(answer) && isBatchLimitMessage(errorText(answer, '')));
  if (limited.length === 0) return undefined;
  const reason = errorText(limited[0], '').trim();
  return { reason, toOne: isBatchRefusedMessage(reason) };
}

async function sendChunk(chunk: RpcCall[], limit: BatchSizeLimit, post: Post, alone: boolean): Promise<ChunkResult> {
  const single = chunk.length === 1 && limit.current === 1;
  const { response, text: read, tooLarge } = await post(single ? chunk[0] : chunk);
  if (read === undefined) {
    if (chunk.length > 1) return { kind: 'tooBig', reason: 'answer over the response size limit', toOne: false };
    // One call's answer over the limit (a callTracer answer of a huge block): a fault of that call
    // only, as its own JSON-RPC error (retried by its caller), while the other calls of the request
    // keep their answers; a request of that call alone fails as it came.
    if (alone) throw tooLarge;
    return {
      kind: 'answers',
      answers: [{ jsonrpc: '2.0', id: chunk[0]!.id, error: { code: -32603, message: String(tooLarge?.message) } }],
    };
  }
  const text = read;
  const data = parseJson(text);
  const message = errorText(data, text);
  const refusesBatch = chunk.length > 1 || !single;

  if (refusesBatch && !isRateLimitStatus(response.status)) {
    if (response.status === 413) return { kind: 'tooBig', reason: `HTTP 413 ${message.trim()}`.trim(), toOne: false };
    const whole = isErrorObject(data)
      ? data
      : Array.isArray(data) && data.length === 1 && chunk.length > 1 && isErrorObject(data[0])
        ? data[0]
        : undefined;
    if (whole && isBatchLimitMessage(errorText(whole, ''))) {
      const reason = errorText(whole, '').trim();
      return { kind: 'tooBig', reason, toOne: isBatchRefusedMessage(reason) };
    }
    // A bare error object answering a batch of several calls (`{"id":null,"error":{"code":-32600,
    // "message":"invalid request"}}`): the node refused the batch as such, whatever the words, so it
    // shrinks like a batch limit; unless the words name a method (split below), it is a rate limit
    // (retried) or an outage (5xx: retried).
    if (
      chunk.length > 1 &&
      isErrorObject(data) &&
      response.status < 500 &&
      !isRateLimitAnswer(data) &&
      !looksLikeMethodRefusal(response.status, rpcErrorCode(data), message)
    ) {
      return { kind: 'tooBig', reason: `a single error for a batch: ${errorText(data, '').trim()}`, toOne: false };
    }
    if (Array.isArray(data) && chunk.length > 1) {
      const limited = batchLimitEntries(data);
      // Some answered, the rest refused as over the limit: keep the answers, resend the rest smaller.
      if (limited) {
        const answers = data.filter((answer) => !(isErrorObject(answer) && isBatchLimitMessage(errorText(answer, '')))) as RpcAnswer[];
        if (answers.length === 0) return { kind: 'tooBig', ...limited };
        limit.shrink(chunk.length, limited.reason, limited.toOne);
        return { kind: 'answers', answers };
      }
    }
  }

  // A whole batch refused in words that name a method: halve it until the refusal is one call's.
  if (chunk.length > 1 && (!response.ok || !Array.isArray(data)) && !isRateLimitStatus(response.status)) {
    if (looksLikeMethodRefusal(response.status, rpcErrorCode(data), message)) {
      const half = Math.ceil(chunk.length / 2);
      const parts = await Promise.all([
        sendChunk(chunk.slice(0, half), limit, post, false),
        sendChunk(chunk.slice(half), limit, post, false),
      ]);
      const failed = parts.find((part) => part.kind !== 'answers');
      if (failed) return failed;
      return { kind: 'answers', answers: parts.flatMap((part) => (part.kind === 'answers' ? part.answers : [])) };
    }
  }

  const lone = chunk.length === 1;
  const id = chunk[0]!.id;
  if (!response.ok) {
    // A lone call of a larger request: its refusal is its own answer (the others keep theirs). A
    // request of one call gets the response as it came (status and headers for the caller). An error
    // object under a 5xx that is no refusal (an outage) stays a failure of the request: as an entry it
    // would lose its status and be read by its words alone.
    if (lone && !alone && !isRateLimitStatus(response.status)) {
      if (isErrorObject(data) && (response.status < 500 || looksLikeMethodRefusal(response.status, rpcErrorCode(data), message))) {
        return { kind: 'answers', answers: [{ ...data, id }] };
      }
      if (looksLikeMethodRefusal(response.status, undefined, message)) {
        return {
          kind: 'answers',
          answers: [{ jsonrpc: '2.0', id, error: { code: -32603, message: `HTTP ${response.status}: ${message.trim()}` } }],
        };
      }
    }
    return { kind: 'failed', response: passThrough(response, text) };
  }
  if (Array.isArray(data)) {
    if (lone && data.length === 1 && isErrorObject(data[0])) return { kind: 'answers', answers: [{ ...data[0], id }] };
    return { kind: 'answers', answers: data as RpcAnswer[] };
  }
  // A lone call answered with a plain object (sent plain, or a server that unwraps a batch of one).
  if (lone && typeof data === 'object' && data !== null && (isErrorObject(data) || (data as RpcAnswer).id === id)) {
    return { kind: 'answers', answers: [{ ...(data as RpcAnswer), id }] };
  }
  // Not JSON, or one object for a batch (a whole-batch error): viem reports it as it came.
  return { kind: 'failed', response: passThrough(response, text) };
}

function passThrough(response: Response, text: string): Response {
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}
