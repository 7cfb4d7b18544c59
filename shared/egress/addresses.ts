/**
 * The addresses the service never connects to when it reaches URLs strangers chose (the NFT metadata
 * fetcher's token URIs, webhook receivers): every address a host resolves to (each DNS answer, each
 * redirect's host) is checked here before the connection is opened, and the connection goes to the
 * checked address itself (lookup.ts), so a name that resolves to a public address once and to
 * 169.254.169.254 the next time (DNS rebinding) cannot slip through.
 *
 * Refused: private (10/8, 172.16/12, 192.168/16), loopback (127/8, ::1), link-local (169.254/16, the
 * cloud metadata endpoint 169.254.169.254 among them; fe80::/10), carrier-grade NAT (100.64/10),
 * multicast (224/4, ff00::/8), unspecified ("this network" 0/8, ::), the reserved 240/4 with the
 * broadcast address, unique local fc00::/7, and the special-purpose blocks no public server lives in
 * (IETF protocol assignments, documentation, benchmarking, 6to4 relay, discard-only, Teredo). An IPv6
 * address that carries an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, the deprecated IPv4-compatible
 * ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by that IPv4 address.
 *
 * Node's `net.BlockList` holds the ranges (no CIDR arithmetic of our own). `allowLoopback` (only ever
 * set by `npm start` and tests: NFT_METADATA_ALLOW_LOOPBACK, WEBHOOK_ALLOW_LOOPBACK, never in AWS) lets 127/8 and ::1 through.
 */
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

interface Range {
  block: BlockList;
  reason: string;
  loopback?: true;
}

function range(address: string, prefix: number, family: 'ipv4' | 'ipv6', reason: string, loopback?: true): Range {
  const block = new BlockList();
  block.addSubnet(address, prefix, family);
  return { block, reason, ...(loopback ? { loopback } : {}) };
}

const V4: readonly Range[] = [
  range('0.0.0.0', 8, 'ipv4', 'unspecified ("this network", 0.0.0.0/8)'),
  range('10.0.0.0', 8, 'ipv4', 'private (10.0.0.0/8)'),
  range('100.64.0.0', 10, 'ipv4', 'carrier-grade NAT (100.64.0.0/10)'),
  range('127.0.0.0', 8, 'ipv4', 'loopback (127.0.0.0/8)', true),
  range('169.254.0.0', 16, 'ipv4', 'link-local (169.254.0.0/16, the cloud metadata endpoint among them)'),
  range('172.16.0.0', 12, 'ipv4', 'private (172.16.0.0/12)'),
  range('192.0.0.0', 24, 'ipv4', 'IETF protocol assignments (192.0.0.0/24)'),
  range('192.0.2.0', 24, 'ipv4', 'documentation (192.0.2.0/24)'),
  range('192.88.99.0', 24, 'ipv4', '6to4 relay anycast (192.88.99.0/24)'),
  range('192.168.0.0', 16, 'ipv4', 'private (192.168.0.0/16)'),
  range('198.18.0.0', 15, 'ipv4', 'benchmarking (198.18.0.0/15)'),
  range('198.51.100.0', 24, 'ipv4', 'documentation (198.51.100.0/24)'),
  range('203.0.113.0', 24, 'ipv4', 'documentation (203.0.113.0/24)'),
  range('224.0.0.0', 4, 'ipv4', 'multicast (224.0.0.0/4)'),
  range('240.0.0.0', 4, 'ipv4', 'reserved (240.0.0.0/4, the broadcast address 255.255.255.255 among them)'),
];

const V6: readonly Range[] = [
  range('::', 128, 'ipv6', 'unspecified (::)'),
  range('::1', 128, 'ipv6', 'loopback (::1)', true),
  range('100::', 64, 'ipv6', 'discard-only (100::/64)'),
  range('2001::', 32, 'ipv6', 'Teredo (2001::/32)'),
  range('2001:db8::', 32, 'ipv6', 'documentation (2001:db8::/32)'),
  range('fc00::', 7, 'ipv6', 'unique local (fc00::/7)'),
  range('fe80::', 10, 'ipv6', 'link-local (fe80::/10)'),
  range('fec0::', 10, 'ipv6', 'site-local (fec0::/10)'),
  range('ff00::', 8, 'ipv6', 'multicast (ff00::/8)'),
];

/** IPv6 prefixes whose addresses carry an IPv4 address, with where its 32 bits sit (in 16-bit groups). */
const EMBEDDING: readonly { range: Range; groups: [number, number] }[] = [
  { range: range('::ffff:0:0', 96, 'ipv6', 'IPv4-mapped'), groups: [6, 7] },
  { range: range('::', 96, 'ipv6', 'IPv4-compatible'), groups: [6, 7] },
  { range: range('64:ff9b::', 96, 'ipv6', 'NAT64'), groups: [6, 7] },
  { range: range('2002::', 16, 'ipv6', '6to4'), groups: [1, 2] },
];

const UNSPECIFIED_OR_LOOPBACK = range('::', 127, 'ipv6', ':: and ::1').block;

/** The eight 16-bit groups of an IPv6 address in any valid text form (dotted IPv4 tail, zone included). */
const ipv6Groups = (address: string): number[] => ipaddr.IPv6.parse(address).parts;

export interface AddressPolicy {
  /** Let 127.0.0.0/8 and ::1 through (local runs and tests only). */
  allowLoopback: boolean;
  /**
   * Addresses let through whatever range they are in, exactly as written: tests only (a server on
   * 127.0.0.2 while the rest of loopback stays refused); no setting fills it.
   */
  exceptions?: readonly string[];
}

/**
 * Why `address` (an IP address, v4 or v6, as DNS or a URL gives it) must not be connected to, or null
 * when it may be. Anything that is not an IP address at all is refused.
 */
export function refusedAddress(address: string, policy: AddressPolicy): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (policy.exceptions?.includes(bare)) return null;
  const family = isIP(bare);
  if (family === 4) return refusedIn(V4, bare, 'ipv4', policy);
  if (family !== 6) return `not an IP address: ${address}`;
  // :: and ::1 are IPv4-compatible in form only: judged as themselves.
  if (UNSPECIFIED_OR_LOOPBACK.check(bare, 'ipv6')) return refusedIn(V6, bare, 'ipv6', policy);
  const embedding = EMBEDDING.find((candidate) => candidate.range.block.check(bare, 'ipv6'));
  if (embedding) {
    const groups = ipv6Groups(bare);
    const [high, low] = embedding.groups.map((index) => groups[index] ?? 0) as [number, number];
    const v4 = [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
    const reason = refusedIn(V4, v4, 'ipv4', policy);
    return reason ? `${reason}, as the ${embedding.range.reason} IPv6 address ${bare}` : null;
  }
  return refusedIn(V6, bare, 'ipv6', policy);
}

function refusedIn(ranges: readonly Range[], address: string, family: 'ipv4' | 'ipv6', policy: AddressPolicy): string | null {
  const hit = ranges.find((candidate) => candidate.block.check(address, family));
  if (!hit || (hit.loopback && policy.allowLoopback)) return null;
  return `${address} is ${hit.reason}`;
}
