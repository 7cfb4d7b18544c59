/**
 * The field rules for contract answers (shared/chain/token-metadata.ts), on raw return data: what a
 * real token can answer to name(), symbol(), decimals(), totalSupply(), tokenURI() and uri().
 */
import { encodeAbiParameters, stringToHex, type Hex } from 'viem';
import { describe, expect, test } from 'vitest';
import {
  abiDynamicBytes,
  cutUtf8,
  decodeAddress,
  decodeBool,
  decodeDecimals,
  decodeSupply,
  decodeTokenText,
  decodeTokenUri,
  MAX_TOKEN_URI_BYTES,
} from '../../../shared/chain/token-metadata';

const abiString = (text: string): Hex => encodeAbiParameters([{ type: 'string' }], [text]);
const word = (value: bigint): string => value.toString(16).padStart(64, '0');
/** An ABI string whose content is these raw bytes. */
const abiBytes = (hex: string): Hex => `0x${word(32n)}${word(BigInt(hex.length / 2))}${hex.padEnd(Math.ceil(hex.length / 64) * 64, '0')}`;

describe('name() and symbol()', () => {
  test.each([
    ['an ABI string', abiString('Demo Token'), 'Demo Token'],
    ['a bytes32 (MKR style), NULs after the text', stringToHex('MKR', { size: 32 }), 'MKR'],
    ['an empty answer', '0x', null],
    ['a revert', null, null],
    ['an empty ABI string', abiString(''), null],
    ['7 bytes of garbage', '0x01020304050607', null],
    ['a length word of 2^255', `0x${word(32n)}${word(2n ** 255n)}${'41'.repeat(32)}`, null],
    ['a length beyond the answer', `0x${word(32n)}${word(33n)}${'41'.repeat(32)}`, null],
    ['an offset of 2^64', `0x${word(2n ** 64n)}${word(3n)}`, null],
    ['an offset beyond the answer', `0x${word(4096n)}${word(3n)}`, null],
    ['NUL characters inside', abiString('Ze\u0000ro\u0000'), 'Zero'],
    ['only NULs', stringToHex('\u0000\u0000', { size: 32 }), null],
    ['a string longer than the ABI padding says (extra words are ignored)', `${abiString('ok')}${'ff'.repeat(40)}`, 'ok'],
  ] as const)('%s', (_label, answer, expected) => {
    expect(decodeTokenText(answer as Hex | null)).toEqual({ value: expected, truncated: false });
  });

  test('invalid UTF-8: the fallback given (Blockscout: a name is the address prefix, a symbol null)', () => {
    expect(decodeTokenText(abiBytes('fffe41'), '0xabcd')).toEqual({ value: '0xabcd', truncated: false });
    expect(decodeTokenText(abiBytes('c0af'))).toEqual({ value: null, truncated: false });
    // A lone surrogate encoded in UTF-8 (ED A0 80) is not valid UTF-8 either.
    expect(decodeTokenText(abiBytes('eda080'))).toEqual({ value: null, truncated: false });
  });

  test('over 255 bytes: cut on a character boundary, with the flag', () => {
    expect(decodeTokenText(abiString('A'.repeat(500_000)))).toEqual({ value: 'A'.repeat(255), truncated: true });
    const cut = decodeTokenText(abiString('é'.repeat(200)));
    expect(cut).toEqual({ value: 'é'.repeat(127), truncated: true });
    expect(Buffer.byteLength(cut.value!)).toBe(254);
    expect(cutUtf8('a😀😀', 5)).toEqual({ value: 'a😀', truncated: true });
    expect(decodeTokenText(abiString('x'.repeat(255)))).toEqual({ value: 'x'.repeat(255), truncated: false });
  });

  test('the hand check agrees with viem on well-formed strings', () => {
    for (const text of ['', 'a', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(33), 'ü€😀'.repeat(20)]) {
      const bytes = abiDynamicBytes(Buffer.from(abiString(text).slice(2), 'hex'));
      expect(Buffer.from(bytes!).toString('utf8')).toBe(text);
    }
  });
});

describe('decimals(), totalSupply(), supportsInterface(), ownerOf()', () => {
  test.each([
    ['18', `0x${word(18n)}`, 18],
    ['0', `0x${word(0n)}`, 0],
    ['255', `0x${word(255n)}`, 255],
    ['300', `0x${word(300n)}`, null],
    ['2^60 (above 2^53: no precision lost, no throw)', `0x${word(2n ** 60n)}`, null],
    ['2^256 - 1', `0x${'f'.repeat(64)}`, null],
    ['a short answer', '0x12', null],
    ['an empty answer', '0x', null],
    ['a revert', null, null],
    ['a word and trailing bytes', `0x${word(6n)}ffff`, 6],
  ] as const)('decimals: %s', (_label, answer, expected) => {
    expect(decodeDecimals(answer as Hex | null)).toBe(expected);
  });

  test('totalSupply: the exact uint256 as a decimal string', () => {
    expect(decodeSupply(`0x${'f'.repeat(64)}`)).toBe((2n ** 256n - 1n).toString());
    expect(decodeSupply(`0x${word(2n ** 200n)}`)).toBe((2n ** 200n).toString());
    expect(decodeSupply('0x')).toBeNull();
    expect(decodeSupply(null)).toBeNull();
  });

  test('supportsInterface: true only for 1', () => {
    expect(decodeBool(`0x${word(1n)}`)).toBe(true);
    expect(decodeBool(`0x${word(2n)}`)).toBe(false);
    expect(decodeBool('0x01')).toBe(false);
    expect(decodeBool(null)).toBe(false);
  });

  test('ownerOf: the low 20 bytes, lowercase', () => {
    expect(decodeAddress(`0x${'0'.repeat(24)}${'AB'.repeat(20)}`)).toBe(`0x${'ab'.repeat(20)}`);
    expect(decodeAddress('0x')).toBeNull();
  });
});

describe('tokenURI() and uri()', () => {
  test('an ABI string, bounded; bytes32 and garbage are no URI', () => {
    expect(decodeTokenUri(abiString('ipfs://cid/1.json'))).toBe('ipfs://cid/1.json');
    expect(decodeTokenUri(stringToHex('ipfs://x', { size: 32 }))).toBeNull();
    expect(decodeTokenUri('0x01020304050607')).toBeNull();
    expect(decodeTokenUri(abiBytes('ff'))).toBeNull();
    expect(decodeTokenUri(abiString('a'.repeat(MAX_TOKEN_URI_BYTES)))).toBe('a'.repeat(MAX_TOKEN_URI_BYTES));
    expect(decodeTokenUri(abiString('a'.repeat(MAX_TOKEN_URI_BYTES + 1)))).toBeNull();
    // 4-byte characters: the bound is on bytes, not on JavaScript string length.
    expect(decodeTokenUri(abiString('😀'.repeat(MAX_TOKEN_URI_BYTES / 4 + 1)))).toBeNull();
  });
});
