import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { CHECKSUM_GENERATION, checksummed, normalizeAddress } from '../../../shared/chain/address';

describe('normalizeAddress', () => {
  it('gives the lowercase form of an address in any casing', () => {
    expect(normalizeAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
  });

  it.each([
    '',
    '0x',
    '5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
    '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae',
    '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaedd',
    '0xZaaeb6053f3e94c9b9a09f33669435e7ef1beaed',
  ])('refuses %j', (text) => {
    expect(() => normalizeAddress(text)).toThrow(/not an address/);
  });
});

describe('checksummed', () => {
  it("gives the EIP-55 examples' mixed case from any casing", () => {
    // The examples of EIP-55 itself.
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(checksummed(address.toLowerCase())).toBe(address);
      expect(checksummed(address.toUpperCase().replace('0X', '0x'))).toBe(address);
    }
  });

  it('stays right past two generations of its memo (entries dropped and computed again)', () => {
    const addresses = Array.from({ length: 2 * CHECKSUM_GENERATION + 500 }, () => `0x${randomBytes(20).toString('hex')}`);
    for (const address of addresses) expect(checksummed(address)).toBe(getAddress(address));
    // The first ones have left the memo by now; the last ones are in it.
    for (const address of [...addresses.slice(0, 50), ...addresses.slice(-50)]) expect(checksummed(address)).toBe(getAddress(address));
  });
});
