/**
 * Addresses named by path (or I5a query) parameters: a 0x address, or a human-readable name the
 * ingest registered on the chain (N11: addressKeys.name, token symbols, case-insensitive). Every
 * name of a request is resolved on every requested chain with one BatchGetItem of its item across
 * chains (addressKeys.nameOnChains: one key per name, whatever the number of chains, so no key asked
 * for is missing when the name is registered anywhere). A name without that item (unknown anywhere,
 * or registered by an ingest before the item existed) is then asked per chain, as before. A name
 * unknown on a requested chain, or ambiguous there (two tokens share the symbol), is a 404.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { batchGetItems } from '../db/operations';
import { addressKeys, keyId } from '../table/keys';
import { namesTrackedOnChains } from './chains';
import { InvalidRequestError, NotFoundError } from '../errors';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** A name: 1 to 64 characters, no whitespace, control characters or slashes. */
const NAME = /^[^\s\p{Cc}/]{1,64}$/u;

/** What a request gave for one address parameter. */
export type AddressOrName = { address: string } | { name: string };

export function parseAddressOrName(parameter: string, text: string): AddressOrName {
  if (ADDRESS.test(text)) return { address: text.toLowerCase() };
  if (!NAME.test(text)) throw new InvalidRequestError(`${parameter}: must be a 0x address (40 hex digits) or a registered name`);
  return { name: text };
}

/** Per parameter, the address on each chain (absent for a parameter not given). */
export type ResolvedAddresses<P extends Record<string, AddressOrName | undefined>> = {
  [K in keyof P]: undefined extends P[K] ? Map<number, string> | undefined : Map<number, string>;
};

/** Resolves every parameter on every chain; names take one BatchGetItem in all. */
export async function resolveAddresses<P extends Record<string, AddressOrName | undefined>>(
  parameters: P,
  chainIds: readonly number[],
): Promise<ResolvedAddresses<P>> {
  const resolved: Record<string, Map<number, string>> = {};
  const named = Object.entries(parameters).filter(
    (entry): entry is [string, { name: string }] => entry[1] !== undefined && 'name' in entry[1],
  );
  const addressesOf = await namedAddresses(
    named.map(([, { name }]) => name),
    chainIds,
  );
  for (const [parameter, given] of Object.entries(parameters)) {
    if (!given) continue;
    const byChain = new Map<number, string>();
    for (const chainId of chainIds) {
      if ('address' in given) {
        byChain.set(chainId, given.address);
        continue;
      }
      const [address, ...others] = addressesOf(given.name, chainId);
      if (address === undefined)
        throw new NotFoundError(`${parameter}: no address is registered under the name ${given.name} on chain ${chainId}`);
      if (others.length > 0)
        throw new NotFoundError(
          `${parameter}: the name ${given.name} is ambiguous on chain ${chainId} (${others.length + 1} tokens share it)`,
        );
      byChain.set(chainId, address.toLowerCase());
    }
    resolved[parameter] = byChain;
  }
  // Every given parameter has its map; the others are absent, as the type says.
  return resolved as ResolvedAddresses<P>;
}

/**
 * The addresses each name has on each chain: one BatchGetItem of the names' items across chains. A
 * chain that keeps its names there (chain registry `namesOnChains`) and is missing from a name's item
 * (or the name has none) does not have the name; only for the other chains (registered before the
 * items across chains existed) are the per-chain items asked, in one more BatchGetItem. With
 * `oneRoundTrip` (the token lookup, I6s) those chains' per-chain items are asked in the first
 * BatchGetItem instead, whether or not the item across chains has them: one round trip, a few more keys.
 */
export async function namedAddresses(names: readonly string[], chainIds: readonly number[], options: { oneRoundTrip?: boolean } = {}) {
  const unique = [...new Set(names.map((name) => name.toLowerCase()))];
  const untracked = chainIds.filter((chainId) => !namesTrackedOnChains(chainId));
  const upfront = options.oneRoundTrip ? unique.flatMap((name) => untracked.map((chainId) => addressKeys.name(chainId, name))) : [];
  const across =
    unique.length > 0
      ? await batchGetItems([...unique.map((name) => addressKeys.nameOnChains(name)), ...upfront], {
          concurrency: Math.max(8, Math.ceil((unique.length + upfront.length) / 100)),
        })
      : new Map();
  const byName = new Map<string, Map<number, string[]>>();
  const asked: { name: string; chainId: number }[] = [];
  for (const name of unique) {
    const entries = across.get(keyId(addressKeys.nameOnChains(name)))?.entries as Set<string> | undefined;
    const byChain = new Map<number, string[]>();
    for (const entry of entries ?? []) {
      const [chain, address] = entry.split(':');
      byChain.set(Number(chain), [...(byChain.get(Number(chain)) ?? []), address ?? '']);
    }
    byName.set(name, byChain);
    for (const chainId of untracked) if (!byChain.has(chainId)) asked.push({ name, chainId });
  }
  const perChain =
    options.oneRoundTrip || asked.length === 0
      ? across
      : await batchGetItems(asked.map(({ name, chainId }) => addressKeys.name(chainId, name)));
  for (const { name, chainId } of asked) {
    const addresses = perChain.get(keyId(addressKeys.name(chainId, name)))?.addresses as Set<string> | undefined;
    if (addresses) byName.get(name)?.set(chainId, [...addresses]);
  }
  return (name: string, chainId: number): string[] => byName.get(name.toLowerCase())?.get(chainId) ?? [];
}
