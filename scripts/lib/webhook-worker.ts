/**
 * Webhook delivery of a local run (`npm start`, tests): what AWS does with the WebhookEvents and
 * WebhookDeliveries queues and their consumers (MatchWebhooks, DeliverWebhooks), in process. Its
 * `listener` is the ingest listener that matches each block (shared/insights/webhook-dispatch.ts); the
 * deliveries it makes are sent by the very code the Lambda runs (shared/insights/webhook-delivery.ts),
 * through the in-process queue of local-queue.ts: at most `concurrency` at a time, a retry after
 * `retryInMs` as the queue would hold the message back, at most DELIVERY_MAX_RECEIVES attempts, then the
 * delivery dropped with a line printed (the dead-letter queue's part).
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
import { startLocalQueue } from './local-queue';

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
  const print = options.print === undefined ? (line: string) => console.log(line) : options.print;
  const queue = startLocalQueue<Delivery>({
    concurrency: options.concurrency ?? 8,
    maxReceives: DELIVERY_MAX_RECEIVES,
    errorRetryMs: ERROR_RETRY_MS,
    handle: async (delivery, attempt) => {
      const outcome = await deliver(delivery, settings, attempt);
      options.onOutcome?.(delivery, outcome);
      if (outcome.outcome === 'suspended') print?.(`webhooks: ${delivery.webhookId} suspended: ${outcome.reason}`);
      return outcome.outcome === 'retry' ? { retryInMs: outcome.retryInMs } : {};
    },
    onError: (delivery, detail) => options.onOutcome?.(delivery, { outcome: 'error', detail }),
    onDropped: (delivery, receives) =>
      print?.(`webhooks: a delivery to ${delivery.webhookId} dropped after ${receives} attempts (the dead-letter queue in AWS)`),
  });
  const worker: LocalWebhookWorker = { ...queue, listener: undefined as unknown as IngestListener };
  worker.listener = webhookDispatchListener({ queue: worker, filterCacheMs: options.filterCacheMs ?? 1_000 });
  return worker;
}
