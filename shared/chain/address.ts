/** Address and calldata helpers: one lowercase form for keys and records. */
import { checksumAddress, size, slice, zeroAddress, type Address, type Hex } from 'viem';

export const ZERO_ADDRESS = zeroAddress;

/** A 0x-address in any casing (viem's `isAddress` without its checksum test, and without its cache). */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Lowercase 0x-address, the form every record and key uses. */
export function normalizeAddress(address: string): Address {
  if (!ADDRESS.test(address)) throw new Error(`not an address: ${address}`);
  return address.toLowerCase() as Address;
}

/**
 * How many checksummed addresses a generation of the memo below holds. Two generations are kept: a
 * page's few hundred addresses stay in memory across the requests of a warm function.
 */
export const CHECKSUM_GENERATION = 4096;
let recentChecksums = new Map<string, Address>();
let olderChecksums = new Map<string, Address>();

/**
 * The EIP-55 form of a well-formed 0x-address (viem's `checksumAddress`), memoised.
 *
 * Not viem's `getAddress` on the serving path: viem's own caches (an LRU of 8,192 entries on a
 * `Map`, moved on every hit) slow down once a warm process has filled them - measured on the
 * bench's full-scale table, a page of 30 NFT collections spent 6 ms more in `getAddress` after
 * the process had served a few hundred pages. This memo never deletes an entry: when the recent
 * generation is full it becomes the older one and the oldest is dropped whole.
 */
export function checksummed(address: string): Address {
  const lower = address.toLowerCase();
  let value = recentChecksums.get(lower);
  if (value) return value;
  value = olderChecksums.get(lower) ?? checksumAddress(lower as Address);
  if (recentChecksums.size >= CHECKSUM_GENERATION) {
    olderChecksums = recentChecksums;
    recentChecksums = new Map();
  }
  recentChecksums.set(lower, value);
  return value;
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
