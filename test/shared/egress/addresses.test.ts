/**
 * The addresses the NFT metadata fetcher refuses (shared/nft-metadata/addresses.ts): every range of the
 * brief, at its edges, in IPv4 and IPv6, IPv4 carried in IPv6 judged as IPv4, and loopback let through
 * only when the local flag says so.
 */
import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../../../shared/egress/addresses';

const strict = { allowLoopback: false };
const local = { allowLoopback: true };
const refused = (address: string, policy = strict) => refusedAddress(address, policy);

describe('refusedAddress', () => {
  it('refuses every private, loopback, link-local, CGNAT, multicast, unspecified and broadcast IPv4 address, edges included', () => {
    const cases: [string, RegExp][] = [
      ['10.0.0.0', /private \(10\.0\.0\.0\/8\)/],
      ['10.255.255.255', /private/],
      ['172.16.0.0', /private \(172\.16\.0\.0\/12\)/],
      ['172.31.255.255', /private/],
      ['192.168.0.1', /private \(192\.168\.0\.0\/16\)/],
      ['192.168.255.255', /private/],
      ['127.0.0.1', /loopback/],
      ['127.255.255.254', /loopback/],
      ['169.254.169.254', /link-local .*metadata/],
      ['169.254.0.0', /link-local/],
      ['169.254.255.255', /link-local/],
      ['100.64.0.0', /carrier-grade NAT/],
      ['100.127.255.255', /carrier-grade NAT/],
      ['224.0.0.1', /multicast/],
      ['239.255.255.255', /multicast/],
      ['0.0.0.0', /unspecified/],
      ['0.1.2.3', /unspecified/],
      ['255.255.255.255', /broadcast/],
      ['240.0.0.1', /reserved/],
      ['192.0.2.1', /documentation/],
      ['198.18.0.1', /benchmarking/],
      ['192.0.0.8', /IETF/],
    ];
    for (const [address, reason] of cases) expect(refused(address), address).toMatch(reason);
  });

  it('lets public IPv4 addresses through, just outside each refused range', () => {
    for (const address of [
      '9.255.255.255',
      '11.0.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '223.255.255.255',
      '1.1.1.1',
      '8.8.8.8',
      '104.16.0.1',
    ])
      expect(refused(address), address).toBeNull();
  });

  it('refuses the IPv6 equivalents: ::1, ::, fc00::/7, fe80::/10, ff00::/8, and documentation and Teredo', () => {
    const cases: [string, RegExp][] = [
      ['::1', /loopback/],
      ['0:0:0:0:0:0:0:1', /loopback/],
      ['::', /unspecified/],
      ['fc00::1', /unique local/],
      ['fd12:3456:789a::1', /unique local/],
      ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', /unique local/],
      ['fe80::1', /link-local/],
      ['febf:ffff::1', /link-local/],
      ['fe80::1%eth0', /link-local/],
      ['ff02::1', /multicast/],
      ['ff00::', /multicast/],
      ['2001:db8::1', /documentation/],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
      ['[::1]', /loopback/],
    ];
    for (const [address, reason] of cases) expect(refused(address), address).toMatch(reason);
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', 'fbff::1', 'fe00::1', '2001:4860:4860::8888'])
      expect(refused(address), address).toBeNull();
  });

  it('judges IPv4-mapped IPv6 (::ffff:a.b.c.d, in either notation) and other IPv4-carrying IPv6 as the IPv4 address', () => {
    expect(refused('::ffff:127.0.0.1')).toMatch(/loopback .*IPv4-mapped/);
    expect(refused('::ffff:7f00:1')).toMatch(/loopback/);
    expect(refused('::ffff:169.254.169.254')).toMatch(/link-local/);
    expect(refused('::ffff:a9fe:a9fe')).toMatch(/link-local/);
    expect(refused('::ffff:10.1.2.3')).toMatch(/private/);
    expect(refused('::ffff:192.168.1.1')).toMatch(/private/);
    expect(refused('::ffff:100.64.0.1')).toMatch(/carrier-grade/);
    expect(refused('::ffff:0.0.0.0')).toMatch(/unspecified/);
    expect(refused('0:0:0:0:0:ffff:7f00:0001')).toMatch(/loopback/);
    expect(refused('::ffff:8.8.8.8')).toBeNull();
    expect(refused('::127.0.0.1')).toMatch(/loopback .*IPv4-compatible/);
    expect(refused('64:ff9b::169.254.169.254')).toMatch(/link-local .*NAT64/);
    expect(refused('64:ff9b::8.8.8.8')).toBeNull();
    expect(refused('2002:c0a8:0101::1')).toMatch(/private .*6to4/);
    expect(refused('2002:0808:0808::1')).toBeNull();
  });

  it('lets loopback through only with allowLoopback, and nothing else it refuses', () => {
    expect(refused('127.0.0.1', local)).toBeNull();
    expect(refused('127.1.2.3', local)).toBeNull();
    expect(refused('::1', local)).toBeNull();
    expect(refused('::ffff:127.0.0.1', local)).toBeNull();
    for (const address of ['169.254.169.254', '10.0.0.1', '0.0.0.0', '::', 'fe80::1', '::ffff:169.254.169.254', '192.168.0.1'])
      expect(refused(address, local), address).not.toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(refused('localhost')).toMatch(/not an IP address/);
    expect(refused('')).toMatch(/not an IP address/);
    expect(refused('1.2.3')).toMatch(/not an IP address/);
  });
});
