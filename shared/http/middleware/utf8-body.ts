/**
 * Decodes a base64-encoded JSON body strictly as UTF-8, before middy's JSON body parser sees it.
 *
 * API Gateway hands a body to Lambda base64-encoded (`isBase64Encoded: true`) when it does not pass it as
 * text, and so does the local gateway for a JSON body whose bytes are not UTF-8 (scripts/lib/gateway.ts).
 * middy's parser decodes such a body with `Buffer#toString()`, which replaces every invalid sequence by
 * U+FFFD: an overlong `C0 AF`, a stray `FF`, a UTF-8-encoded surrogate `ED A0 80` would all be stored as
 * U+FFFD characters the client never sent. Here they are a 400 naming the JSON path of each string that
 * holds them (or saying that the body is not valid UTF-8 when they lie outside any string); a valid body
 * continues as text, so the parser reads exactly what was sent.
 *
 * A body passed as text (`isBase64Encoded: false`) was decoded before the function got it: its bad bytes,
 * if any, are already U+FFFD, indistinguishable from a U+FFFD the client sent. Lone surrogates that a text
 * body or a JSON escape carries are refused after parsing (storable-strings.ts).
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { RequestValidationError, type RequestIssue } from '../errors';

/** The content types middy's JSON body parser accepts; any other is its 415, untouched here. */
const JSON_CONTENT_TYPE = /^application\/(.+\+)?json($|;.+)/;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export const NOT_UTF8 = 'is not valid UTF-8';
export const BODY_NOT_UTF8 = 'The request body is not valid UTF-8';
export const KEY_NOT_UTF8 = 'has a field name that is not valid UTF-8';
export const BODY_KEY_NOT_UTF8 = 'The request body has a field name that is not valid UTF-8';

export function utf8Body(): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async ({ event }) => {
      if (!event.isBase64Encoded || typeof event.body !== 'string') return;
      if (!JSON_CONTENT_TYPE.test(event.headers?.['content-type'] ?? '')) return;
      const bytes = Buffer.from(event.body, 'base64');
      const text = decodeUtf8(bytes);
      if (text === undefined) throw new RequestValidationError(utf8Issues(bytes));
      event.body = text;
      event.isBase64Encoded = false;
    },
  };
}

/** `bytes` as text, or undefined when they are not UTF-8 (a BOM is kept: JSON.parse refuses it, as before). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

type Frame = { kind: 'object'; key: string | undefined; awaitingKey: boolean } | { kind: 'array'; index: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where JSON bytes that are not UTF-8 hold their bad sequences: one issue per string (its JSON path,
 * dotted as the validator names body fields, array indices as numbers), one per object whose field name
 * holds them, or one for the body when they are outside any string (or the JSON is too broken to say).
 * JSON's structure is ASCII, and every byte of a multi-byte sequence is at least 0x80, so the structure
 * can be read from the bytes without decoding them.
 */
export function utf8Issues(bytes: Uint8Array): RequestIssue[] {
  const issues: RequestIssue[] = [];
  const stack: Frame[] = [];
  const pathOf = (frames: readonly Frame[]) =>
    frames.map((frame) => (frame.kind === 'array' ? String(frame.index) : (frame.key ?? ''))).join('.');
  const bodyIssue = (): RequestIssue[] => [...issues, { part: 'body', key: '', message: BODY_NOT_UTF8 }];
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i]!;
    const top = stack[stack.length - 1];
    if (byte === QUOTE) {
      let end = i + 1;
      while (end < bytes.length && bytes[end] !== QUOTE) end += bytes[end] === BACKSLASH ? 2 : 1;
      if (end >= bytes.length) return bodyIssue();
      const text = decodeUtf8(bytes.subarray(i + 1, end));
      if (top?.kind === 'object' && top.awaitingKey) {
        if (text === undefined) {
          const parent = pathOf(stack.slice(0, -1));
          issues.push(
            parent ? { part: 'body', key: parent, message: KEY_NOT_UTF8 } : { part: 'body', key: '', message: BODY_KEY_NOT_UTF8 },
          );
        }
        top.key = text === undefined ? '' : unescapeJson(text);
      } else if (text === undefined) {
        const path = pathOf(stack);
        issues.push(path ? { part: 'body', key: path, message: NOT_UTF8 } : { part: 'body', key: '', message: BODY_NOT_UTF8 });
      }
      i = end + 1;
      continue;
    }
    if (byte >= 0x80) return bodyIssue();
    if (byte === 0x7b) stack.push({ kind: 'object', key: undefined, awaitingKey: true });
    else if (byte === 0x5b) stack.push({ kind: 'array', index: 0 });
    else if (byte === 0x7d || byte === 0x5d) stack.pop();
    else if (byte === 0x3a && top?.kind === 'object') top.awaitingKey = false;
    else if (byte === 0x2c && top?.kind === 'object') {
      top.awaitingKey = true;
      top.key = undefined;
    } else if (byte === 0x2c && top?.kind === 'array') top.index += 1;
    i += 1;
  }
  return issues.length > 0 ? issues : bodyIssue();
}

/** A JSON string's content (between its quotes) as the parser would read it; as is when it is not valid JSON. */
function unescapeJson(content: string): string {
  try {
    return JSON.parse(`"${content}"`) as string;
  } catch {
    return content;
  }
}
