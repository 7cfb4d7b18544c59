/**
 * The NFT metadata fetcher of a local run (`npm start`, tests): the queue AWS has (SQS NftMetadata and
 * its consumer FetchNftMetadata), in process. It is the `MetadataQueue` the ingest's listener
 * (shared/nft-metadata/listener.ts) and, once registered with `useLocalMetadataQueue`, the refresh
 * routes send to; each request is handled by the very code the Lambda runs
 * (shared/nft-metadata/process.ts), at most `concurrency` at a time. A retry waits as the Lambda's
 * does (the request is sent again after `retryInMs`); a request whose handling throws (the table
 * unreachable) is tried again after ERROR_RETRY_MS, at most QUEUE_MAX_RECEIVE_COUNT times in all, as
 * SQS's redrive would, then dropped with a line printed.
 *
 * Imported once the service is up: it loads the table layer (shared/db/client.ts binds the DynamoDB
 * endpoint when first imported).
 */
import type { IngestListener } from '../../shared/ingest/listeners';
import { type FetcherSettings, loadLocalFetcherSettings, QUEUE_MAX_RECEIVE_COUNT } from '../../shared/nft-metadata/config';
import type { Resolve } from '../../shared/egress/lookup';
import { nftMetadataListener } from '../../shared/nft-metadata/listener';
import { processMetadataRequest, type ProcessOutcome } from '../../shared/nft-metadata/process';
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
  const concurrency = options.concurrency ?? 4;
  const print = options.print === undefined ? (line: string) => console.log(line) : options.print;
  const queued: { request: MetadataRequest; receives: number }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let running = 0;
  let stopped = false;
  let waiters: (() => void)[] = [];

  const settleIdle = () => {
    if (queued.length > 0 || running > 0 || timers.size > 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  const later = (entry: { request: MetadataRequest; receives: number }, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) queued.push(entry);
      pump();
    }, ms);
    timers.add(timer);
  };
  const handle = async (entry: { request: MetadataRequest; receives: number }) => {
    try {
      const outcome = await processMetadataRequest(entry.request, {
        settings,
        queue: worker,
        ...(options.resolve ? { resolve: options.resolve } : {}),
        ...(options.refreshCooldownMs === undefined ? {} : { refreshCooldownMs: options.refreshCooldownMs }),
      });
      options.onOutcome?.(entry.request, outcome);
      if (outcome.outcome === 'retry') later({ request: entry.request, receives: entry.receives + 1 }, outcome.retryInMs);
      else if (outcome.outcome === 'failed' && entry.request.kind === 'token')
        print?.(
          `nft-metadata: token ${entry.request.tokenId} of ${entry.request.contract} (chain ${entry.request.chainId}) failed: ${outcome.detail}`,
        );
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      options.onOutcome?.(entry.request, { outcome: 'error', detail });
      if (entry.receives + 1 < QUEUE_MAX_RECEIVE_COUNT) later({ request: entry.request, receives: entry.receives + 1 }, ERROR_RETRY_MS);
      else print?.(`nft-metadata: request dropped after ${QUEUE_MAX_RECEIVE_COUNT} tries: ${JSON.stringify(entry.request)}: ${detail}`);
    }
  };
  const pump = () => {
    while (!stopped && running < concurrency && queued.length > 0) {
      const entry = queued.shift()!;
      running += 1;
      void handle(entry).finally(() => {
        running -= 1;
        pump();
      });
    }
    settleIdle();
  };

  const worker: LocalMetadataWorker = {
    send: async (requests) => {
      if (stopped) return;
      for (const request of requests) queued.push({ request, receives: 0 });
      pump();
    },
    listener: undefined as unknown as IngestListener,
    idle: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        settleIdle();
      }),
    stop: async () => {
      stopped = true;
      queued.length = 0;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        settleIdle();
      });
      if (options.register ?? true) useLocalMetadataQueue(undefined);
    },
  };
  worker.listener = nftMetadataListener(worker);
  if (options.register ?? true) useLocalMetadataQueue(worker);
  return worker;
}
