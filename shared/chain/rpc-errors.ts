/**
 * How the answers of real JSON-RPC providers are read: which refusal means "this node does not serve
 * the method" (an answer: fall back, never retry), which means "the batch is too big" (send smaller
 * batches), which means "come back later" (Retry-After). Providers word these in many ways and put
 * them under generic codes (-32600 invalid request, -32000 server error, -32603 internal error) or
 * HTTP statuses (400, 403, 404, 405, 500, 501), so the generic ones are read by their message; but
 * an HTTP 5xx (other than 501) is first of all an outage, so there a message counts only in words no
 * outage uses ("disabled", "does not exist", "not supported"), never "not available".
 * docs/decisions/ingest.md ("Retry policy", "Provider limits") lists the forms.
 */

/** JSON-RPC codes that mean the method is not served whatever the message: -32601 (method not found), -32004 (method not supported), 4200 (EIP-1193 unsupported method). */
const UNSUPPORTED_CODES = new Set([-32601, -32004, 4200]);

/**
 * A message about the node's state or load, never a method refusal even under a generic code or with
 * "not found" / "not available" in it ("header not found", "missing trie node", "state not available").
 */
const TRANSIENT_MESSAGE =
  /header not found|missing trie node|trie node [^.]*(not found|missing)|block not found|unknown block|not found block|\b(state|data|receipts?|block) (is )?not (yet )?available|historical state|pruned|not yet (available|indexed|synced)|syncing|timed? ?out|timeout|deadline|rate.?limit|too many requests|request limit|capacity|try again|retry|temporar|overloaded|busy|limit (exceeded|reached)|exceeds? (the )?(max|limit)|too large|batch|connection|reset|internal server error|bad gateway/;

/** How providers say they do not serve a method (Geth, Erigon, Nethermind, Alchemy, Infura, QuickNode, Ankr, public nodes). */
const REFUSAL_MESSAGE = new RegExp(
  [
    // "the method debug_traceBlockByNumber does not exist/is not available" (geth, Erigon, Infura),
    // "Method not found", "method not supported", "Method not allowed" (public nodes), "this method is
    // not whitelisted", "method is disabled", "method not available on your plan"
    String.raw`\bmethods?\b[^.;]{0,80}?\b(not (found|supported|available|allowed|whitelisted|enabled|implemented|permitted)|unsupported|does not exist|doesn't exist|disabled|blocked|forbidden)`,
    // "Unsupported method: trace_block" (Alchemy), "unknown method", "disabled method"
    String.raw`\b(unsupported|unknown|disabled|blocked|unavailable|forbidden|not allowed) (rpc )?methods?\b`,
    // "debug_traceBlockByNumber is not available on the Free tier", "trace_block is not supported"
    String.raw`\b[a-z0-9]+_[a-z0-9]+\b[^.;]{0,40}?\b(is|are)? ?(not (supported|available|allowed|whitelisted|enabled|implemented)|unsupported|disabled|does not exist)`,
    // "the debug namespace is disabled", "trace API not enabled", "tracer not found"
    String.raw`\b(namespace|api|module|tracer|tracing)\b[^.;]{0,40}?\b(not (found|supported|available|enabled|allowed)|unsupported|disabled)`,
    String.raw`\bnot implemented\b`,
  ].join('|'),
);

/**
 * The refusals that an HTTP 5xx (other than 501) may carry besides an explicit code: words that say the
 * method or its namespace is switched off or absent. "Not available" / "unavailable" / "not allowed"
 * are left out: "The API is not available right now" and "upstream api not available" are outages.
 */
const OUTAGE_PROOF_REFUSAL_MESSAGE = new RegExp(
  [
    String.raw`\bmethods?\b[^.;]{0,80}?\b(not (found|supported|enabled|implemented|whitelisted)|unsupported|does not exist|doesn't exist|disabled)`,
    String.raw`\b(unsupported|unknown|disabled) (rpc )?methods?\b`,
    String.raw`\b[a-z0-9]+_[a-z0-9]+\b[^.;]{0,40}?\b(is|are)? ?(not (supported|enabled|implemented)|unsupported|disabled|does not exist)`,
    String.raw`\b(namespace|module|tracer)\b[^.;]{0,40}?\b(not (found|supported|enabled)|unsupported|disabled)`,
    String.raw`\bnot implemented\b`,
  ].join('|'),
);

/** A node's message that its batch was refused as too big (or that it serves no batches). */
const BATCH_LIMIT_MESSAGE =
  /batch[^.;]{0,40}(too (large|big|many|long)|limit|exceed|max|not (supported|allowed|available|enabled|permitted)|disabled|unsupported|over)|(too (many|large)|exceed(s|ed)?|max(imum)?|more than)[^.;]{0,40}\bbatch|response (size )?(is )?too (large|big)/;

/** The node serves no batches at all: go straight to one call per HTTP request. */
const BATCH_REFUSED_MESSAGE = /batch[^.;]{0,30}(not (supported|allowed|available|enabled|permitted)|disabled|unsupported)/;

export function isBatchLimitMessage(message: string): boolean {
  return BATCH_LIMIT_MESSAGE.test(message.toLowerCase());
}

export function isBatchRefusedMessage(message: string): boolean {
  return BATCH_REFUSED_MESSAGE.test(message.toLowerCase());
}

/** 429 Too Many Requests and 503 Service Unavailable: "come back later" (Retry-After). */
export function isRateLimitStatus(status: number | undefined): boolean {
  return status === 429 || status === 503;
}

/**
 * The node (or the provider in front of it) refuses the method itself: by code -32601 / -32004 / 4200;
 * by HTTP 501 Not Implemented; otherwise (codes -32600, -32000, -32603 ..., HTTP 4xx, a JSON-RPC error
 * in a 200) by the message's words. Under any other HTTP 5xx (an outage first of all: a 500 "The API is
 * not available right now", a 502 "upstream api not available") only words no outage uses count
 * (OUTAGE_PROOF_REFUSAL_MESSAGE). Batch limits, rate limits and the node's state are never a refusal.
 */
export function looksLikeMethodRefusal(status: number | undefined, code: number | undefined, message: string): boolean {
  if (isRateLimitStatus(status) || code === 429 || code === -32005) return false;
  const text = message.toLowerCase();
  if (isBatchLimitMessage(text)) return false;
  if (code !== undefined && UNSUPPORTED_CODES.has(code)) return true;
  if (status === 501) return true;
  if (TRANSIENT_MESSAGE.test(text)) return false;
  if (status !== undefined && status >= 500) return OUTAGE_PROOF_REFUSAL_MESSAGE.test(text);
  return REFUSAL_MESSAGE.test(text);
}

/** Longest wait a Retry-After can ask for; a longer one waits this long (and the attempt then counts as usual). */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * A Retry-After header's wait in ms: whole (or decimal) seconds, or an HTTP date; capped at
 * MAX_RETRY_AFTER_MS; 0 for a date in the past; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(MAX_RETRY_AFTER_MS, Math.round(Number(trimmed) * 1000));
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - now));
}
