/**
 * The DNS side of a connection to a URL a stranger chose: the host is resolved with node:dns (every
 * address of the answer), each address checked (addresses.ts), one refused address refusing the host,
 * and the socket connects to the checked addresses themselves: the request's `lookup` hands Node
 * exactly those, so DNS rebinding between the check and the connection is impossible.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { type AddressPolicy, refusedAddress } from './addresses';

/** Resolves a host name to every address of its DNS answer (tests substitute their own). */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Why a host was not connected to, and whether a later attempt may succeed (a DNS failure may; a refused address may not). */
export class EgressError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EgressError';
  }
}

/** The addresses of `hostname`, every one checked: refused as a whole when any one is refused. */
export async function checkedAddresses(
  hostname: string,
  policy: AddressPolicy,
  resolve: Resolve = systemResolve,
): Promise<{ address: string; family: number }[]> {
  let answer: { address: string; family: number }[];
  try {
    answer = await resolve(hostname);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new EgressError(`DNS: ${hostname} ${code === 'ENOTFOUND' ? 'not found' : `did not resolve (${code ?? String(error)})`}`, true);
  }
  if (answer.length === 0) throw new EgressError(`DNS: ${hostname} has no address`, true);
  for (const { address } of answer) {
    const refused = refusedAddress(address, policy);
    if (refused) throw new EgressError(`refused address: ${hostname} resolves to ${refused}`, false);
  }
  return answer;
}

/** A `lookup` for http(s).request that connects only to checked addresses (its errors are EgressErrors). */
export function checkedLookup(policy: AddressPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return (name, options, callback) => {
    checkedAddresses(name, policy, resolve).then(
      (addresses) => {
        if (options.all) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}
