/**
 * Settings of the NFT metadata fetcher, from the environment (validated with the platform's readEnv):
 *  - NFT_METADATA_IPFS_GATEWAY (https://ipfs.io/ipfs/) and NFT_METADATA_ARWEAVE_GATEWAY
 *    (https://arweave.net/): where ipfs:// and ar:// URIs are fetched, and how the explorer (and
 *    insights with `resolve_metadata_links=true`) shows ipfs:// and ar:// media URLs;
 *  - NFT_METADATA_CONNECT_TIMEOUT_MS (3000), NFT_METADATA_TIMEOUT_MS (10000: the whole fetch, redirects
 *    included), NFT_METADATA_MAX_BYTES (1 MiB, the body read at most), NFT_METADATA_MAX_ATTEMPTS (5),
 *    NFT_METADATA_RETRY_SECONDS (30: the wait after a first failed attempt, x4 after each further one);
 *  - NFT_METADATA_QUEUE_URL: the queue of fetch requests (set by the stack; `npm start` runs the
 *    fetcher in process instead).
 *
 * NFT_METADATA_ALLOW_LOOPBACK is NOT read here: `loadFetcherSettings` (the Lambda's) never lets loopback
 * addresses or plain http:// through. Only `loadLocalFetcherSettings` (npm start, tests) reads it.
 */
import * as v from 'valibot';
import { readEnv } from '../config';
import { DEFAULT_GATEWAYS, type Gateways } from './uri';

/** Redirects followed at most, each one checked like the first URL. */
export const MAX_REDIRECTS = 3;
/** A fetched document stored larger than this (JSON text) is refused: DynamoDB items stay small. */
export const MAX_STORED_DOCUMENT_BYTES = 64 * 1024;
/** Longest wait before a retry: SQS's longest visibility timeout (12 hours). */
export const MAX_RETRY_DELAY_SECONDS = 12 * 3600;
/**
 * Receives of one queue message before SQS moves it to the dead-letter queue: above the most attempts
 * a token may have (NFT_METADATA_MAX_ATTEMPTS at most MAX_ATTEMPTS_LIMIT), so a token's own count
 * ends its retries first, and the queue's redrive only catches a fetcher that crashes on a message.
 */
export const QUEUE_MAX_RECEIVE_COUNT = 10;
export const MAX_ATTEMPTS_LIMIT = 8;
/** A refresh of a token fetched or tried less than this long before it was asked for is not fetched again. */
export const REFRESH_COOLDOWN_MS = 60_000;

const gateway = (fallback: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.url('must be an http(s) URL'),
      v.regex(/^https?:\/\//i, 'must be an http(s) URL'),
      v.check((url) => !/[?#]/.test(url), 'must not hold a query or fragment (the path is appended)'),
      v.transform((url) => (url.endsWith('/') ? url : `${url}/`)),
    ),
    fallback,
  );

const whole = (fallback: number, min: number, max: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, `must be a whole number from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `must be a whole number from ${min} to ${max}`),
      v.maxValue(max, `must be a whole number from ${min} to ${max}`),
    ),
    String(fallback),
  );

const gatewaySchema = v.object({
  NFT_METADATA_IPFS_GATEWAY: gateway(DEFAULT_GATEWAYS.ipfs),
  NFT_METADATA_ARWEAVE_GATEWAY: gateway(DEFAULT_GATEWAYS.arweave),
});

const fetcherSchema = v.object({
  ...gatewaySchema.entries,
  NFT_METADATA_CONNECT_TIMEOUT_MS: whole(3_000, 100, 60_000),
  NFT_METADATA_TIMEOUT_MS: whole(10_000, 100, 120_000),
  NFT_METADATA_MAX_BYTES: whole(1024 * 1024, 1024, 16 * 1024 * 1024),
  NFT_METADATA_MAX_ATTEMPTS: whole(5, 1, MAX_ATTEMPTS_LIMIT),
  NFT_METADATA_RETRY_SECONDS: whole(30, 0, 3600),
});

const queueSchema = v.object({
  NFT_METADATA_QUEUE_URL: v.optional(v.union([v.literal(''), v.pipe(v.string(), v.url('must be the queue URL'))]), ''),
});

const localSchema = v.object({ NFT_METADATA_ALLOW_LOOPBACK: v.optional(v.picklist(['0', '1'], 'must be 0 or 1'), '0') });

/** The gateways alone: what the API groups need to show media URLs. */
export function loadGateways(env: Record<string, string | undefined> = process.env): Gateways {
  const raw = readEnv(gatewaySchema, env);
  return { ipfs: raw.NFT_METADATA_IPFS_GATEWAY, arweave: raw.NFT_METADATA_ARWEAVE_GATEWAY };
}

export interface FetchLimits {
  connectTimeoutMs: number;
  /** The whole fetch of one token: every redirect, the body included. */
  totalTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Loopback addresses (127/8, ::1) allowed: local runs and tests only. */
  allowLoopback: boolean;
  /** Plain http:// allowed: local runs and tests only. */
  allowHttp: boolean;
  /** Addresses let through whatever range they are in (addresses.ts `exceptions`): tests only, no setting fills it. */
  exceptions?: readonly string[];
}

export interface FetcherSettings {
  gateways: Gateways;
  limits: FetchLimits;
  /** Attempts at one token URI before it is `failed`. */
  maxAttempts: number;
  /** The wait before the second attempt, in ms; x4 before each later one (at most 12 hours). */
  retryBaseMs: number;
}

/** The fetcher's settings as the Lambda reads them: loopback and plain http:// are never allowed, whatever the environment says. */
export function loadFetcherSettings(env: Record<string, string | undefined> = process.env): FetcherSettings {
  const raw = readEnv(fetcherSchema, env);
  return {
    gateways: { ipfs: raw.NFT_METADATA_IPFS_GATEWAY, arweave: raw.NFT_METADATA_ARWEAVE_GATEWAY },
    limits: {
      connectTimeoutMs: raw.NFT_METADATA_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: raw.NFT_METADATA_TIMEOUT_MS,
      maxBytes: raw.NFT_METADATA_MAX_BYTES,
      maxRedirects: MAX_REDIRECTS,
      allowLoopback: false,
      allowHttp: false,
    },
    maxAttempts: raw.NFT_METADATA_MAX_ATTEMPTS,
    retryBaseMs: raw.NFT_METADATA_RETRY_SECONDS * 1000,
  };
}

/**
 * The settings of a fetcher on this machine (`npm start`, tests): as the Lambda's, plus
 * NFT_METADATA_ALLOW_LOOPBACK=1 (set by `npm start`) letting loopback addresses and plain http://
 * through, so a metadata server on 127.0.0.1 can be read.
 */
export function loadLocalFetcherSettings(env: Record<string, string | undefined> = process.env): FetcherSettings {
  const settings = loadFetcherSettings(env);
  const local = readEnv(localSchema, env).NFT_METADATA_ALLOW_LOOPBACK === '1';
  return { ...settings, limits: { ...settings.limits, allowLoopback: local, allowHttp: local } };
}

/** The queue of fetch requests (NFT_METADATA_QUEUE_URL), or undefined when unset (local runs: the in-process fetcher). */
export function loadMetadataQueueUrl(env: Record<string, string | undefined> = process.env): string | undefined {
  return readEnv(queueSchema, env).NFT_METADATA_QUEUE_URL || undefined;
}

/** The wait before attempt `attempts + 1`, after `attempts` failed ones (1 or more), in ms. */
export function retryDelayMs(settings: Pick<FetcherSettings, 'retryBaseMs'>, attempts: number): number {
  return Math.min(settings.retryBaseMs * 4 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_SECONDS * 1000);
}
