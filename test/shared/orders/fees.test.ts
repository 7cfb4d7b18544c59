import { describe, expect, it } from 'vitest';
import { finalFeeBps, standardFee, whaleDiscountBps } from '../../../shared/orders/fees';

const tokens = (whole: bigint, decimals = 18): bigint => whole * 10n ** BigInt(decimals);

describe('whaleDiscountBps', () => {
  it.each([
    [0n, 18, 0],
    [tokens(100_000n) - 1n, 18, 0],
    [tokens(100_000n), 18, 5000],
    [tokens(500_000n) - 1n, 18, 5000],
    [tokens(500_000n), 18, 7500],
    [tokens(1_000_000n) - 1n, 18, 7500],
    [tokens(1_000_000n), 18, 10000],
    [tokens(100_000n, 6), 6, 5000],
    [tokens(100_000n, 6) - 1n, 6, 0],
    [tokens(1_000_000n, 30), 30, 10000],
    [tokens(1_000_000n, 30) - 1n, 30, 7500],
  ])('balance %s with %i decimals -> %i bps', (balance, decimals, expected) => {
    expect(whaleDiscountBps(balance, decimals)).toBe(expected);
  });
});

describe('finalFeeBps', () => {
  it.each([
    [80, 0, 0, 80],
    [80, 5000, 0, 40],
    [80, 7500, 0, 20],
    [80, 10000, 0, 0],
    [80, 0, 30, 50],
    [80, 5000, 30, 10],
    [80, 5000, 40, 0],
    [80, 5000, 41, 0],
    [80, 0, 10000, 0],
    [81, 5000, 0, 41],
    [99, 7500, 1, 24],
  ])('service %i, whale %i, partner %i -> %i', (service, whale, partner, expected) => {
    expect(finalFeeBps(service, whale, partner)).toBe(expected);
  });
});

describe('standardFee', () => {
  it('formats the balance in whole tokens and carries every part', () => {
    expect(
      standardFee({ serviceFeeBps: 80, tokenToCheckBalance: '0xabc', balance: 123_456_789n, decimals: 6, partnerDiscountBps: 5 }),
    ).toEqual({
      type: 'standard_fee',
      feeVersion: 1,
      tokenToCheckBalance: '0xabc',
      recipientBalance: '123.456789',
      serviceFeeBps: 80,
      serviceWhaleDiscountBps: 0,
      servicePartnerDiscountBps: 5,
      finalFeeBps: 75,
    });
  });
});
