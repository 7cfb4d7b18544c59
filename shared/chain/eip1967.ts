/**
 * EIP-1967 proxies: the storage slot holding the implementation address
 * (`bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1)`) and the event a proxy emits when
 * it changes (`Upgraded(address indexed implementation)`).
 */
import { isZeroAddress } from './address';

export const EIP1967_IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';

/** topic0 of `Upgraded(address)`. */
export const UPGRADED_TOPIC = '0xbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0225b39da2e5c2d3b';

/**
 * The implementation address a slot value holds: its low 20 bytes, lowercase; null when the slot is
 * empty (zero). A value that is not a 32-byte word (a node's odd answer) is null too.
 */
export function implementationFromSlot(word: string | null | undefined): string | null {
  if (!word || !/^0x[0-9a-fA-F]{1,64}$/.test(word)) return null;
  const address = `0x${word.slice(2).padStart(64, '0').slice(24).toLowerCase()}`;
  return isZeroAddress(address) ? null : address;
}
