/** Address and calldata helpers: one lowercase form for keys and records. */
import { isAddress, size, slice, zeroAddress, type Address, type Hex } from 'viem';

export const ZERO_ADDRESS = zeroAddress;

/** Lowercase 0x-address, the form every record and key uses. */
export function normalizeAddress(address: string): Address {
  if (!isAddress(address, { strict: false })) throw new Error(`not an address: ${address}`);
  return address.toLowerCase() as Address;
}

export function isZeroAddress(address: string | null | undefined): boolean {
  return !address || address.toLowerCase() === ZERO_ADDRESS;
}

/** The 4-byte function selector of calldata (lowercase), or null when the data is shorter than 4 bytes. */
export function selectorOf(input: Hex | undefined | null): Hex | null {
  if (!input || input === '0x' || size(input) < 4) return null;
  return slice(input, 0, 4).toLowerCase() as Hex;
}

/** Size of hex data in bytes. */
export function byteLength(data: Hex | undefined | null): number {
  return data && data !== '0x' ? size(data) : 0;
}
