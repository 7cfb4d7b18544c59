/**
 * Token URIs and the URLs inside metadata documents, as the NFT metadata fetcher and the APIs read them:
 *  - which token URIs are fetched from the web: `ipfs://` (and a bare CIDv0 `Qm…`, as Blockscout reads
 *    it), `ar://`, `https://`, and `http://` where plain HTTP is allowed (local runs only); `data:` URIs
 *    are the ingest's (shared/chain/decode.ts), anything else is not fetched;
 *  - the URL fetched: `ipfs://<cid>/<path>` (also `ipfs://ipfs/<cid>/…`) through the IPFS gateway
 *    (NFT_METADATA_IPFS_GATEWAY), `ar://<id>/<path>` through the Arweave gateway
 *    (NFT_METADATA_ARWEAVE_GATEWAY), with an ERC-1155 URI's `{id}` replaced by the token id as 64
 *    lowercase hex digits, zero-padded (EIP-1155 "Metadata"; the ingest already expands it in the URI it
 *    stores, so this only matters for a URI that still carries one);
 *  - media URLs (`image`, `animation_url`, ...) resolved through the same gateways for display.
 */
import { checkedUrl, type TargetUrl } from '../egress/url';

export interface Gateways {
  /** Base URL an IPFS path is appended to, ending with `/` (default https://ipfs.io/ipfs/). */
  ipfs: string;
  /** Base URL an Arweave transaction id is appended to, ending with `/` (default https://arweave.net/). */
  arweave: string;
}

export const DEFAULT_GATEWAYS: Gateways = { ipfs: 'https://ipfs.io/ipfs/', arweave: 'https://arweave.net/' };

/** A token URI longer than this is not fetched (real ones are a few hundred characters at most). */
export const MAX_FETCHED_URI_LENGTH = 4096;

/** A CIDv0 as some contracts return it bare: base58btc, 46 characters, starting `Qm`. */
const BARE_CID_V0 = /^Qm[1-9A-HJ-NP-Za-km-z]{44}$/;

export type UriScheme = 'ipfs' | 'ar' | 'https' | 'http';

/** The web scheme of a token URI the fetcher may fetch, or null (data:, none, unknown schemes). */
export function webScheme(uri: string | null | undefined): UriScheme | null {
  if (!uri) return null;
  const text = uri.trim();
  if (text.length === 0 || text.length > MAX_FETCHED_URI_LENGTH) return null;
  if (BARE_CID_V0.test(text)) return 'ipfs';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  return scheme === 'ipfs' || scheme === 'ar' || scheme === 'https' || scheme === 'http' ? scheme : null;
}

/**
 * The URL to fetch for a token URI: gateways applied, `{id}` expanded for ERC-1155 ids. Refuses what is
 * not fetched: an unknown scheme, plain `http://` unless `allowHttp`, a URI that is not a valid URL.
 */
export function targetUrl(
  tokenUri: string,
  options: { gateways: Gateways; allowHttp: boolean; tokenId?: bigint | string; erc1155?: boolean },
): TargetUrl {
  let text = tokenUri.trim();
  if (options.erc1155 && options.tokenId !== undefined) text = text.replaceAll('{id}', hexTokenId(options.tokenId));
  const scheme = webScheme(text);
  if (scheme === null) {
    if (text.length > MAX_FETCHED_URI_LENGTH)
      return { ok: false, reason: `the token URI is longer than ${MAX_FETCHED_URI_LENGTH} characters` };
    if (/^data:/i.test(text)) return { ok: false, reason: 'a data: URI is read by the ingest, not fetched' };
    return { ok: false, reason: `the token URI's scheme is not fetched (ipfs://, ar://, https:// only): ${text.slice(0, 64)}` };
  }
  if (scheme === 'http' && !options.allowHttp)
    return { ok: false, reason: 'plain http:// is not fetched (https://, ipfs:// or ar:// only)' };
  const url = scheme === 'ipfs' || scheme === 'ar' ? throughGateway(text, options.gateways) : text;
  if (url === null) return { ok: false, reason: `the token URI names no content: ${text.slice(0, 64)}` };
  return checkedUrl(url, options.allowHttp);
}

/** `ipfs://…` or `ar://…` (or a bare CIDv0) as a gateway URL; null when it names nothing. */
function throughGateway(uri: string, gateways: Gateways): string | null {
  if (BARE_CID_V0.test(uri)) return `${gateways.ipfs}${uri}`;
  const match = /^(ipfs|ar):\/\/(.*)$/is.exec(uri);
  if (!match) return null;
  const scheme = match[1]!.toLowerCase();
  let path = match[2]!.replace(/^\/+/, '');
  if (scheme === 'ipfs') path = path.replace(/^ipfs\//i, '');
  if (path.length === 0) return null;
  return `${scheme === 'ipfs' ? gateways.ipfs : gateways.arweave}${path}`;
}

/**
 * A media URL from a metadata document as a browser can load it: `ipfs://` (and a bare CIDv0) through
 * the IPFS gateway, `ar://` through the Arweave gateway, anything else as given (images are never
 * proxied or fetched).
 */
export function resolveMediaUrl(value: string, gateways: Gateways): string {
  const scheme = webScheme(value);
  if (scheme !== 'ipfs' && scheme !== 'ar') return value;
  return throughGateway(value.trim(), gateways) ?? value;
}

/**
 * EIP-1155: every `{id}` in the document's string values replaced by the token id as 64 lowercase hex
 * digits (as Blockscout does). The document is a fresh copy.
 */
export function expandIdInDocument(document: Record<string, unknown>, tokenId: bigint | string): Record<string, unknown> {
  const hex = hexTokenId(tokenId);
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replaceAll('{id}', hex);
    if (Array.isArray(value)) return value.map(visit);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, visit(inner)]));
    return value;
  };
  return visit(document) as Record<string, unknown>;
}

/** EIP-1155's substitution for `{id}`: the id as 64 lowercase hex digits, zero-padded (as shared/chain/decode.ts expandErc1155Uri). */
export function hexTokenId(tokenId: bigint | string): string {
  return BigInt(tokenId).toString(16).padStart(64, '0');
}
