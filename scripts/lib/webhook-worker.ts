/**
 * Webhook delivery of a local run (`npm start`, tests): what AWS does with the WebhookEvents and
 * WebhookDeliveries queues and their consumers (MatchWebhooks, DeliverWebhooks), in process. Its
 * `listener` is the ingest listener that matches each block (shared/insights/webhook-dispatch.ts); the
 * deliveries it makes are sent by the very code the Lambda runs (shared/insights/webhook-delivery.ts),
 * at most `concurrency` at a time; a retry waits `retryInMs` as the queue would hold the message back,
 * at most DELIVERY_MAX_RECEIVES attempts, then the delivery is dropped with a line printed (the
 * dead-letter queue's part).
 *
 * Imported once the service is up: it loads the table layer (shared/db/client.ts binds the DynamoDB
 * endpoint when first imported).
 */
import type { IngestListener } from '../../shared/ingest/listeners';
import { loadDeliverySettings } from '../../shared/insights/webhook-config';
import { type DeliveryOutcome, type DeliverySettings, deliver } from '../../shared/insights/webhook-delivery';
import { webhookDispatchListener } from '../../shared/insights/webhook-dispatch';
import type { Delivery, DeliveryQueue } from '../../shared/insights/webhook-queue';
import { DELIVERY_MAX_RECEIVES } from '../../shared/jobs';

/** Pause before a delivery whose handling threw (the table unreachable) is tried again. */
const ERROR_RETRY_MS = 2_000;

export interface LocalWebhookWorkerOptions {
  /** Default: loadDeliverySettings() (the environment, WEBHOOK_ALLOW_LOOPBACK honoured against the local table). */
  settings?: DeliverySettings;
  concurrency?: number;
  /** How long the matcher keeps a chain's filters (ms; default 1 s locally: a new webhook works at once). */
  filterCacheMs?: number;
  print?: ((line: string) => void) | null;
  onOutcome?: (delivery: Delivery, outcome: DeliveryOutcome | { outcome: 'error'; detail: string }) => void;
}

export interface LocalWebhookWorker extends DeliveryQueue {
  listener: IngestListener;
  /** Resolves once nothing is queued, running or waiting for a retry. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function startLocalWebhookWorker(options: LocalWebhookWorkerOptions = {}): LocalWebhookWorker {
  const settings = options.settings ?? loadDeliverySettings();
  const concurrency = options.concurrency ?? 8;
  const print = options.print === undefined ? (line: string) => console.log(line) : options.print;
  type Entry = { delivery: Delivery; receives: number };
  const queued: Entry[] = [];
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
  const later = (entry: Entry, ms: number) => {
    if (entry.receives >= DELIVERY_MAX_RECEIVES) {
      print?.(
        `webhooks: a delivery to ${entry.delivery.webhookId} dropped after ${entry.receives} attempts (the dead-letter queue in AWS)`,
      );
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) queued.push(entry);
      pump();
    }, ms);
    timers.add(timer);
  };
  const handle = async (entry: Entry) => {
    const attempt = entry.receives + 1;
    try {
      const outcome = await deliver(entry.delivery, settings, attempt);
      options.onOutcome?.(entry.delivery, outcome);
      if (outcome.outcome === 'retry') later({ delivery: entry.delivery, receives: attempt }, outcome.retryInMs);
      else if (outcome.outcome === 'suspended') print?.(`webhooks: ${entry.delivery.webhookId} suspended: ${outcome.reason}`);
    } catch (error) {
      options.onOutcome?.(entry.delivery, { outcome: 'error', detail: error instanceof Error ? error.message : String(error) });
      later({ delivery: entry.delivery, receives: attempt }, ERROR_RETRY_MS);
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

  const worker: LocalWebhookWorker = {
    send: async (deliveries) => {
      if (stopped) return;
      for (const delivery of deliveries) queued.push({ delivery, receives: 0 });
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
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      queued.length = 0;
      while (running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      settleIdle();
    },
  };
  worker.listener = webhookDispatchListener({ queue: worker, filterCacheMs: options.filterCacheMs ?? 1_000 });
  return worker;
}
