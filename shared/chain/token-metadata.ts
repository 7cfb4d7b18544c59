/**
 * One rule per field for what a contract answers to the token reads (raw return data, see read.ts):
 * the same bytes give the same stored value whichever way they were read (Multicall3 or eth_call),
 * and no answer, however large or malformed, throws or yields an unbounded value. The rules are
 * documented in docs/decisions/ingest.md ("Untrusted contract answers").
 */
import { hexToBytes, type Hex } from 'viem';

/** Longest stored token name or symbol, in UTF-8 bytes (Blockscout's limit). */
export const MAX_TOKEN_TEXT_BYTES = 255;
/** Longest stored token URI, in UTF-8 bytes: with 64 KB of metadata JSON the instance item stays far below 400 KB. */
export const MAX_TOKEN_URI_BYTES = 128 * 1024;

/** A contract's answer: its return data, or null when the call reverted (or failed in the EVM). */
export type RawAnswer = Hex | null;

export interface TokenText {
  value: string | null;
  /** The answer was longer than the limit and `value` is its first bytes (cut on a character boundary). */
  truncated: boolean;
}

const NONE: TokenText = { value: null, truncated: false };
const WORD = 32;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes of an answer, or null when reverted. */
function bytesOf(answer: RawAnswer): Uint8Array | null {
  if (answer === null) return null;
  try {
    return hexToBytes(answer);
  } catch {
    return null;
  }
}

/** The 32-byte word at `offset` as an unsigned integer. */
function wordAt(bytes: Uint8Array, offset: number): bigint {
  let value = 0n;
  for (let i = offset; i < offset + WORD; i += 1) value = (value << 8n) | BigInt(bytes[i] ?? 0);
  return value;
}

/**
 * The bytes of an ABI-encoded `string` / `bytes` return value, checked by hand: the offset word and
 * the length word must point inside the answer (any size, even 2^255, is compared as a bigint before
 * anything is sliced). null when they do not.
 */
export function abiDynamicBytes(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length < 2 * WORD) return null;
  const size = BigInt(bytes.length);
  const offset = wordAt(bytes, 0);
  if (offset + BigInt(WORD) > size) return null;
  const length = wordAt(bytes, Number(offset));
  const start = offset + BigInt(WORD);
  if (start + length > size) return null;
  return bytes.subarray(Number(start), Number(start + length));
}

/** UTF-8 text without NUL characters, or null when the bytes are not valid UTF-8. */
function utf8WithoutNul(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes).replaceAll('\u0000', '');
  } catch {
    return null;
  }
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
export function cutUtf8(text: string, maxBytes: number): TokenText {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return { value: text, truncated: false };
  let end = maxBytes;
  // Back to the first byte of a character (continuation bytes are 10xxxxxx).
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { value: encoded.subarray(0, end).toString('utf8'), truncated: true };
}

/**
 * `name()` / `symbol()`: an ABI string, or a bytes32 when the answer is exactly 32 bytes (old tokens:
 * MKR, SAI); empty, reverted, or malformed (offsets or length outside the answer) -> null. The bytes
 * must be valid UTF-8 (else `invalid`, see below); NUL characters are removed (as Blockscout does);
 * text over 255 bytes is cut with `truncated`; an empty result is null.
 * `invalid`: what an invalid UTF-8 answer stores (Blockscout: a name becomes the first 6 characters
 * of the contract address, a symbol null).
 */
export function decodeTokenText(answer: RawAnswer, invalid: string | null = null): TokenText {
  const bytes = bytesOf(answer);
  if (!bytes || bytes.length === 0) return NONE;
  const content = bytes.length === WORD ? bytes : abiDynamicBytes(bytes);
  if (!content) return NONE;
  const text = utf8WithoutNul(content);
  if (text === null) return invalid === null ? NONE : { value: invalid, truncated: false };
  if (text === '') return NONE;
  return cutUtf8(text, MAX_TOKEN_TEXT_BYTES);
}

/** The first word of an answer as an unsigned integer; null when reverted or shorter than a word. */
export function decodeUint(answer: RawAnswer): bigint | null {
  const bytes = bytesOf(answer);
  if (!bytes || bytes.length < WORD) return null;
  return wordAt(bytes, 0);
}

/** `decimals()`: 0-255 (whatever uint size the contract declares); anything else null. */
export function decodeDecimals(answer: RawAnswer): number | null {
  const value = decodeUint(answer);
  return value !== null && value <= 255n ? Number(value) : null;
}

/** `totalSupply()` (and `totalSupply(id)`): the exact uint256 as a decimal string; null when absent. */
export function decodeSupply(answer: RawAnswer): string | null {
  return decodeUint(answer)?.toString() ?? null;
}

/** `supportsInterface(id)`: true only for a word equal to 1. */
export function decodeBool(answer: RawAnswer): boolean {
  return decodeUint(answer) === 1n;
}

/** `ownerOf(id)`: the low 20 bytes of the first word, lowercase hex; null when absent. */
export function decodeAddress(answer: RawAnswer): string | null {
  const value = decodeUint(answer);
  if (value === null) return null;
  return `0x${(value & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;
}

/**
 * `tokenURI(id)` / `uri(id)`: an ABI string only; malformed or invalid UTF-8 -> null; NULs removed;
 * over MAX_TOKEN_URI_BYTES -> null (a cut URI would name another resource).
 */
export function decodeTokenUri(answer: RawAnswer): string | null {
  const bytes = bytesOf(answer);
  if (!bytes) return null;
  const content = abiDynamicBytes(bytes);
  if (!content || content.length > 4 * MAX_TOKEN_URI_BYTES) return null;
  const text = utf8WithoutNul(content);
  if (text === null || text === '' || Buffer.byteLength(text) > MAX_TOKEN_URI_BYTES) return null;
  return text;
}
