/**
 * Running totals as stored (shared/table/records.ts): short attribute names holding big-endian bytes,
 * read back exactly, with the decimal strings of entries written before still read.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeTotal,
  encodeTotal,
  legacyRunningTotalAttribute,
  runningTotalAttribute,
  runningTotalOf,
  SUMMED_FIELDS,
} from '../../../shared/table/records';

describe('running totals', () => {
  it('round-trip every size a uint256 sum can take, zero and 2^256 - 1 included', () => {
    for (const total of [0n, 1n, 255n, 256n, 21_000n, 10n ** 18n, 123_456_789_012_345_678_901_234_567_890n, 2n ** 256n - 1n, 2n ** 300n]) {
      const bytes = encodeTotal(total);
      expect(bytes[0] !== 0 || bytes.length === 1, `no leading zero byte for ${total}`).toBe(true);
      expect(decodeTotal(bytes)).toBe(total);
    }
    expect(encodeTotal(2n ** 256n - 1n)).toHaveLength(32);
    expect(() => encodeTotal(-1n)).toThrow(/never negative/);
  });

  it('take fewer bytes than the decimal strings under the old names', () => {
    const total = 1_234_567_890_123_456_789_012n; // 1,234 ether in wei
    const packed = runningTotalAttribute('value').length + encodeTotal(total).length;
    const before = legacyRunningTotalAttribute('value').length + total.toString().length;
    expect(packed).toBeLessThanOrEqual(before / 2);
  });

  it('are read from either form, and from nothing else', () => {
    for (const field of new Set(Object.values(SUMMED_FIELDS).flat())) {
      expect(runningTotalOf({ [runningTotalAttribute(field)]: encodeTotal(42n) }, field)).toBe(42n);
      expect(runningTotalOf({ [legacyRunningTotalAttribute(field)]: '42' }, field)).toBe(42n);
      expect(runningTotalOf({}, field)).toBeUndefined();
    }
    expect(decodeTotal('4.2')).toBeUndefined();
    expect(decodeTotal(42)).toBeUndefined();
    expect(new Set([...new Set(Object.values(SUMMED_FIELDS).flat())].map(runningTotalAttribute)).size).toBe(3);
  });
});
