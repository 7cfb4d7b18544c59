/**
 * The NFT metadata fetcher of a local run (`npm start`, tests): the queue AWS has (SQS NftMetadata and
 * its consumer FetchNftMetadata), in process. It is the `MetadataQueue` the ingest's listener
 * (shared/nft-metadata/listener.ts) and, once registered with `useLocalMetadataQueue`, the refresh
 * routes send to; each request is handled by the very code the Lambda runs
 * (shared/nft-metadata/process.ts), at most `concurrency` at a time, through the in-process queue of
 * local-queue.ts: a retry waits as the Lambda's does (the request is sent again after `retryInMs`); a
 * request whose handling throws (the table unreachable) is tried again after ERROR_RETRY_MS; at most
 * QUEUE_MAX_RECEIVE_COUNT receives in all, as SQS's redrive would, then dropped with a line printed.
 *
 * Imported once the service is up: it loads the table layer (shared/db/client.ts binds the DynamoDB
 * endpoint when first imported).
 */
import type { IngestListener } from '../../shared/ingest/listeners';
import { type FetcherSettings, loadLocalFetcherSettings, QUEUE_MAX_RECEIVE_COUNT } from '../../shared/nft-metadata/config';
import type { Resolve } from '../../shared/egress/lookup';
import { nftMetadataListener } from '../../shared/nft-metadata/listener';
import { processMetadataRequest, type ProcessOutcome } from '../../shared/nft-metadata/process';
import { type LocalQueue, startLocalQueue } from './local-queue';
import { type MetadataQueue, type MetadataRequest, useLocalMetadataQueue } from '../../shared/nft-metadata/queue';

/** Pause before a request whose handling threw is tried again. */
const ERROR_RETRY_MS = 2_000;

export interface LocalMetadataWorkerOptions {
  /** Default: loadLocalFetcherSettings() (the environment, NFT_METADATA_ALLOW_LOOPBACK honoured). */
  settings?: FetcherSettings;
  /** Requests handled at once (default 4). */
  concurrency?: number;
  /** Register it as this process's queue for the refresh routes (default true). */
  register?: boolean;
  /** Where final failures are reported (default console.log); undefined output stays silent. */
  print?: ((line: string) => void) | null;
  /** DNS for the fetches (tests). */
  resolve?: Resolve;
  /** How long after a token's last attempt a refresh is ignored (default REFRESH_COOLDOWN_MS; tests shorten it). */
  refreshCooldownMs?: number;
  /** Called with each request's outcome (tests). */
  onOutcome?: (request: MetadataRequest, outcome: ProcessOutcome | { outcome: 'error'; detail: string }) => void;
}

export interface LocalMetadataWorker extends MetadataQueue {
  /** The ingest listener that queues the instances a batch wrote (npm start hands it to the ingest). */
  listener: IngestListener;
  /** Resolves once nothing is queued, running or waiting for a retry. */
  idle(): Promise<void>;
  /** Stops taking requests, drops waiting retries, waits for the running ones; unregisters it. */
  stop(): Promise<void>;
}

export function startLocalMetadataWorker(options: LocalMetadataWorkerOptions = {}): LocalMetadataWorker {
  const settings = options.settings ?? loadLocalFetcherSettings();
  const print = options.print === undefined ? (line: string) => console.log(line) : options.print;
  const queue: LocalQueue<MetadataRequest> = startLocalQueue<MetadataRequest>({
    concurrency: options.concurrency ?? 4,
    maxReceives: QUEUE_MAX_RECEIVE_COUNT,
    errorRetryMs: ERROR_RETRY_MS,
    handle: async (request) => {
      const outcome = await processMetadataRequest(request, {
        settings,
        queue: worker,
        ...(options.resolve ? { resolve: options.resolve } : {}),
        ...(options.refreshCooldownMs === undefined ? {} : { refreshCooldownMs: options.refreshCooldownMs }),
      });
      options.onOutcome?.(request, outcome);
      if (outcome.outcome === 'retry') return { retryInMs: outcome.retryInMs };
      if (outcome.outcome === 'failed' && request.kind === 'token')
        print?.(`nft-metadata: token ${request.tokenId} of ${request.contract} (chain ${request.chainId}) failed: ${outcome.detail}`);
      return {};
    },
    onError: (request, detail) => options.onOutcome?.(request, { outcome: 'error', detail }),
    onDropped: (request, receives, detail) =>
      print?.(`nft-metadata: request dropped after ${receives} tries: ${JSON.stringify(request)}${detail ? `: ${detail}` : ''}`),
  });

  const worker: LocalMetadataWorker = {
    send: queue.send,
    listener: undefined as unknown as IngestListener,
    idle: queue.idle,
    stop: async () => {
      await queue.stop();
      if (options.register ?? true) useLocalMetadataQueue(undefined);
    },
  };
  worker.listener = nftMetadataListener(worker);
  if (options.register ?? true) useLocalMetadataQueue(worker);
  return worker;
}
