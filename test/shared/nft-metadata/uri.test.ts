/**
 * Token URIs as the fetcher reads them (shared/nft-metadata/uri.ts): which are fetched, through which
 * gateway, ERC-1155 `{id}` as 64 lowercase hex digits (EIP-1155), media URLs resolved for display.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAYS, expandIdInDocument, hexTokenId, resolveMediaUrl, targetUrl, webScheme } from '../../../shared/nft-metadata/uri';

const gateways = { ipfs: 'http://127.0.0.1:9/ipfs/', arweave: 'https://arweave.example/' };
const CID = 'QmVCu8NRuKUb64jDQqg3fsPrXa19W37Y7Cx2Vo8C5fdZe5';

describe('webScheme', () => {
  it('names the web schemes the fetcher fetches, and nothing else', () => {
    expect(webScheme('ipfs://bafy/1.json')).toBe('ipfs');
    expect(webScheme(`  ${CID}  `)).toBe('ipfs');
    expect(webScheme('ar://tx/1')).toBe('ar');
    expect(webScheme('HTTPS://example.com/1')).toBe('https');
    expect(webScheme('http://example.com/1')).toBe('http');
    for (const uri of [
      'data:application/json,{}',
      'ftp://x/1',
      'file:///etc/passwd',
      'javascript:alert(1)',
      '',
      null,
      undefined,
      'Qm123',
      `https://x/${'a'.repeat(5000)}`,
    ])
      expect(webScheme(uri), String(uri).slice(0, 40)).toBeNull();
  });
});

describe('targetUrl', () => {
  const options = { gateways, allowHttp: false };
  it('goes through the IPFS gateway for ipfs://, ipfs://ipfs/ and a bare CIDv0; through the Arweave gateway for ar://', () => {
    expect(targetUrl('ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/7.json', { ...options, allowHttp: true })).toEqual(
      {
        ok: true,
        url: 'http://127.0.0.1:9/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/7.json',
      },
    );
    expect(targetUrl(`ipfs://ipfs/${CID}`, { gateways: DEFAULT_GATEWAYS, allowHttp: false })).toEqual({
      ok: true,
      url: `https://ipfs.io/ipfs/${CID}`,
    });
    expect(targetUrl(CID, { gateways: DEFAULT_GATEWAYS, allowHttp: false })).toEqual({ ok: true, url: `https://ipfs.io/ipfs/${CID}` });
    expect(targetUrl('ar://abc123/meta.json', options)).toEqual({ ok: true, url: 'https://arweave.example/abc123/meta.json' });
    expect(targetUrl('ipfs://', options)).toMatchObject({ ok: false, reason: expect.stringMatching(/names no content/) });
  });

  it('expands an ERC-1155 {id} to 64 lowercase hex digits, zero-padded', () => {
    expect(hexTokenId(255n)).toBe(`${'0'.repeat(62)}ff`);
    expect(targetUrl('https://meta.example/{id}.json', { ...options, tokenId: '255', erc1155: true })).toEqual({
      ok: true,
      url: `https://meta.example/${'0'.repeat(62)}ff.json`,
    });
    // Only ERC-1155 expands it: in an ERC-721 URI `{id}` is just text (percent-encoded by the URL parser).
    expect(targetUrl('https://meta.example/{id}.json', { ...options, tokenId: '255' })).toEqual({
      ok: true,
      url: 'https://meta.example/%7Bid%7D.json',
    });
  });

  it('refuses plain http:// unless allowed, data: URIs, other schemes, credentials and over-long URIs', () => {
    expect(targetUrl('http://meta.example/1', options)).toEqual({
      ok: false,
      reason: 'plain http:// is not fetched (https://, ipfs:// or ar:// only)',
    });
    expect(targetUrl('http://meta.example/1', { ...options, allowHttp: true })).toEqual({ ok: true, url: 'http://meta.example/1' });
    expect(targetUrl('data:application/json,{}', options)).toEqual({ ok: false, reason: 'a data: URI is read by the ingest, not fetched' });
    expect(targetUrl('ftp://meta.example/1', options)).toMatchObject({ ok: false, reason: expect.stringMatching(/scheme is not fetched/) });
    expect(targetUrl('https://user:secret@meta.example/1', options)).toEqual({
      ok: false,
      reason: 'a URL with credentials is not fetched',
    });
    expect(targetUrl(`https://meta.example/${'a'.repeat(5000)}`, options)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/longer than 4096/),
    });
    // A gateway URL is checked like any other: plain http gateways need allowHttp.
    expect(targetUrl('ipfs://bafy/1', options)).toEqual({ ok: false, reason: 'http:// is not fetched (https only)' });
  });
});

describe('media URLs and documents', () => {
  it('resolves ipfs:// and ar:// through the gateways and leaves everything else as given', () => {
    expect(resolveMediaUrl('ipfs://bafy/1.png', DEFAULT_GATEWAYS)).toBe('https://ipfs.io/ipfs/bafy/1.png');
    expect(resolveMediaUrl('ipfs://ipfs/bafy/1.png', DEFAULT_GATEWAYS)).toBe('https://ipfs.io/ipfs/bafy/1.png');
    expect(resolveMediaUrl('ar://tx/1.png', DEFAULT_GATEWAYS)).toBe('https://arweave.net/tx/1.png');
    for (const value of ['https://cdn.example/1.png', 'data:image/svg+xml;base64,PHN2Zz4=', 'not a url'])
      expect(resolveMediaUrl(value, DEFAULT_GATEWAYS)).toBe(value);
  });

  it('replaces {id} in every string value of an ERC-1155 document (EIP-1155), in a copy', () => {
    const document = { name: 'Item {id}', image: 'ipfs://bafy/{id}.png', properties: { files: [{ uri: 'https://x/{id}' }] }, count: 3 };
    const hex = `${'0'.repeat(63)}a`;
    expect(expandIdInDocument(document, '10')).toEqual({
      name: `Item ${hex}`,
      image: `ipfs://bafy/${hex}.png`,
      properties: { files: [{ uri: `https://x/${hex}` }] },
      count: 3,
    });
    expect(document.name).toBe('Item {id}');
  });
});
