/**
 * What the fetcher does with one request (queue.ts), the same in the Lambda (functions/nft-metadata/
 * fetch-nft-metadata.ts) and in `npm start`'s in-process worker (scripts/lib/nft-metadata-worker.ts).
 *
 * A `token` request reads the instance (G3) with its fetched state (G7, `fetched`) and fetches the instance's
 * CURRENT token URI (so a reorg or a new URI since the request was sent is honoured) when:
 *  - the state is absent or about another URI (new token, or its URI changed: fetched again);
 *  - the state is `pending` (an earlier attempt failed and this is the retry);
 *  - the request is a refresh sent after the state's last attempt, and that attempt is at least
 *    REFRESH_COOLDOWN_MS older than the refresh.
 * It is skipped otherwise (already fetched or failed: at least once delivery and the ingest's repeated
 * notices cost one read), and when the instance is gone or its URI is not on the web.
 *
 * The states (G7, FetchedNftMetadata), written whole onto the instance after each attempt, conditional
 * on the state read before it (two deliveries of one request never both count an attempt) and on the
 * instance still having the URI fetched (a reorg or a new URI in between refuses the write):
 *   (none) --fetch ok--> fetched
 *          --retryable failure, attempts < max--> pending (error, attempts) --retry after a backoff--> ...
 *          --permanent failure, or the max-th attempt--> failed (error)
 * A retry waits NFT_METADATA_RETRY_SECONDS x 4^(attempts - 1) (at most 12 h): the caller delays the
 * request by `retryInMs` (SQS: the message's visibility timeout; locally: a timer). A document fetched
 * earlier for the same URI is kept while a refresh of it is pending or fails.
 *
 * A `contract` request (a refresh of every instance) reads a page of the contract's G3 partition after
 * `after` and sends one `token` refresh per instance, then a `contract` request for the next page.
 */
import { queryPage } from '../db/operations';
import { nftKeys } from '../table/keys';
import type { FetchedNftMetadata, NftInstanceRecord } from '../table/records';
import { type FetcherSettings, MAX_STORED_DOCUMENT_BYTES, REFRESH_COOLDOWN_MS, retryDelayMs } from './config';
import type { Resolve } from '../egress/lookup';
import { type FetchResult, fetchMetadataDocument } from './fetch';
import { MESSAGE_VERSION, type MetadataQueue, type MetadataRequest } from './queue';
import { readInstance, writeFetched } from './store';
import { expandIdInDocument, targetUrl, webScheme } from './uri';

/** Instances a `contract` request turns into `token` requests at a time. */
export const EXPAND_PAGE_SIZE = 500;

export interface ProcessContext {
  settings: FetcherSettings;
  /** Where a contract refresh sends its token requests. */
  queue: MetadataQueue;
  now?: () => number;
  /** DNS for the fetch (tests). */
  resolve?: Resolve;
  /** Default REFRESH_COOLDOWN_MS (tests shorten it). */
  refreshCooldownMs?: number;
}

export type ProcessOutcome =
  | { outcome: 'fetched' | 'failed' | 'skipped' | 'expanded'; detail?: string }
  /** Deliver the request again in `retryInMs` (after a failed attempt worth retrying). */
  | { outcome: 'retry'; retryInMs: number; detail: string };

export async function processMetadataRequest(request: MetadataRequest, context: ProcessContext): Promise<ProcessOutcome> {
  return request.kind === 'contract' ? expandContract(request, context) : fetchToken(request, context);
}

async function fetchToken(request: Extract<MetadataRequest, { kind: 'token' }>, context: ProcessContext): Promise<ProcessOutcome> {
  const now = context.now ?? Date.now;
  const { settings } = context;
  const ref = { chainId: request.chainId, contract: request.contract, tokenId: request.tokenId };
  const instance = await readInstance(ref);
  if (!instance) return { outcome: 'skipped', detail: 'no such instance (not ingested, or undone by a reorg)' };
  const uri = instance.tokenUri;
  if (!uri || webScheme(uri) === null) return { outcome: 'skipped', detail: 'its token URI is not on the web' };
  const metadata = instance.fetched;
  const same = metadata?.tokenUri === uri ? metadata : undefined;
  let attempts = 0;
  if (same && same.status !== 'pending') {
    if (request.refresh === undefined) return { outcome: 'skipped', detail: `already ${same.status}` };
    if (same.attemptedAt >= request.refresh) return { outcome: 'skipped', detail: 'this refresh already ran' };
    const cooldown = context.refreshCooldownMs ?? REFRESH_COOLDOWN_MS;
    if (request.refresh - same.attemptedAt < cooldown)
      return { outcome: 'skipped', detail: `tried less than ${cooldown / 1000} s before the refresh` };
  } else if (same) {
    attempts = same.attempts;
  }

  const target = targetUrl(uri, {
    gateways: settings.gateways,
    allowHttp: settings.limits.allowHttp,
    tokenId: instance.tokenId,
    erc1155: instance.tokenStandard === 'ERC-1155',
  });
  let result: FetchResult = target.ok
    ? await fetchMetadataDocument(target.url, settings.limits, context.resolve ? { resolve: context.resolve } : {})
    : { ok: false, retryable: false, reason: target.reason };
  let metadataJson: string | null = null;
  if (result.ok) {
    const fetched = result.kind === 'json' ? result.document : { [result.media === 'image' ? 'image' : 'animation_url']: uri };
    const document = instance.tokenStandard === 'ERC-1155' ? expandIdInDocument(fetched, instance.tokenId) : fetched;
    metadataJson = JSON.stringify(document);
    if (Buffer.byteLength(metadataJson) > MAX_STORED_DOCUMENT_BYTES)
      result = { ok: false, retryable: false, reason: `the document is larger than ${MAX_STORED_DOCUMENT_BYTES} bytes of JSON` };
  }
  attempts += 1;
  const retry = !result.ok && result.retryable && attempts < settings.maxAttempts;
  const record: FetchedNftMetadata = {
    tokenUri: uri,
    status: result.ok ? 'fetched' : retry ? 'pending' : 'failed',
    metadataJson: result.ok ? metadataJson : (same?.metadataJson ?? null),
    error: result.ok ? null : result.reason.slice(0, 512),
    attempts,
    attemptedAt: Math.max(now(), (metadata?.attemptedAt ?? 0) + 1),
    fetchedAt: result.ok ? now() : (same?.fetchedAt ?? null),
    sourceUrl: result.ok ? result.url : target.ok ? target.url : null,
  };
  if (!(await writeFetched(ref, record, metadata)))
    return { outcome: 'skipped', detail: 'another attempt finished first, or the instance changed (a new URI, a reorg)' };
  if (result.ok) return { outcome: 'fetched' };
  if (retry) return { outcome: 'retry', retryInMs: retryDelayMs(settings, attempts), detail: result.reason };
  return { outcome: 'failed', detail: result.reason };
}

async function expandContract(request: Extract<MetadataRequest, { kind: 'contract' }>, context: ProcessContext): Promise<ProcessOutcome> {
  const pk = nftKeys.instance(request.chainId, request.contract, 0n).pk;
  const page = await queryPage<NftInstanceRecord>({
    KeyConditionExpression: request.after === undefined ? 'pk = :pk' : 'pk = :pk AND sk > :after',
    ExpressionAttributeValues: {
      ':pk': pk,
      ...(request.after === undefined ? {} : { ':after': nftKeys.instance(request.chainId, request.contract, request.after).sk }),
    },
    ProjectionExpression: '#kind, tokenId, tokenUri, updatedAtBlock',
    ExpressionAttributeNames: { '#kind': 'kind' },
    Limit: EXPAND_PAGE_SIZE,
  });
  const tokens = page.items.filter((item) => item.kind === 'nftInstance' && item.updatedAtBlock !== undefined && webScheme(item.tokenUri));
  const last = page.items.at(-1);
  await context.queue.send([
    ...tokens.map(
      (item): MetadataRequest => ({
        v: MESSAGE_VERSION,
        kind: 'token',
        chainId: request.chainId,
        contract: request.contract,
        tokenId: item.tokenId,
        refresh: request.refresh,
      }),
    ),
    ...(page.lastKey && last ? [{ ...request, after: last.tokenId }] : []),
  ]);
  return { outcome: 'expanded', detail: `${tokens.length} tokens${page.lastKey ? ', more to come' : ''}` };
}
