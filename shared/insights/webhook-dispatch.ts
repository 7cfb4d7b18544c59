/**
 * The webhooks' side of the ingest's block stream: a listener (shared/ingest/listeners.ts) that matches
 * every ingested block's transactions and logs against the chain's webhooks and hands each webhook its
 * items to deliver (webhook-delivery.ts); in AWS it runs in MatchWebhooks, fed by the WebhookEvents FIFO
 * queue (the ingest publishes each block's activity there), locally in process.
 *
 * - Filters: the chain's H4 items and the chain-less ones, read once per `filterCacheMs` (30 s by
 *   default: a new or changed webhook takes effect within it), indexed (webhook-matching.ts).
 * - Reorgs: what a block sent to a webhook is recorded (H5) for the reorg window before it is handed
 *   on; a block the ingest orphans sends those items again, `status: "reverted"`, with their ids.
 * - At least once, as every listener: a failure throws, the queue delivers the block again, and the
 *   records and deliveries are made again with the same keys and ids.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { queryAll, rangeQuery, writeItems } from '../db/operations';
import type { BlockIngestedEvent, BlocksOrphanedEvent, IngestListener } from '../ingest/listeners';
import { type TableItem, webhookKeys } from '../table/keys';
import { type WebhookFilterEntry, WebhookIndex } from './webhook-matching';
import { itemsOf, topicOf, type WebhookItem, type WebhookTopic } from './webhook-payload';
import type { Delivery, DeliveryQueue } from './webhook-queue';

export interface DispatchOptions {
  queue: DeliveryQueue;
  /** How long a container keeps a chain's filters (ms). */
  filterCacheMs?: number;
  /** Days the H5 records of a block are kept past its timestamp (the reorg window: the ingest's manifest retention). */
  retentionDays?: number;
  now?: () => number;
}

/** Items of one delivery at most, and its JSON bytes at most (an SQS message holds 256 KiB). */
const MAX_ITEMS_PER_DELIVERY = 100;
const MAX_DELIVERY_BYTES = 192 * 1024;
const DEFAULT_FILTER_CACHE_MS = 30_000;
const DEFAULT_RETENTION_DAYS = 7;

export function webhookDispatchListener(options: DispatchOptions): IngestListener {
  const cacheMs = options.filterCacheMs ?? DEFAULT_FILTER_CACHE_MS;
  const now = options.now ?? Date.now;
  const retentionSeconds = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * 86_400;
  const indexes = new Map<number, { index: WebhookIndex; projects: Map<string, string>; readAt: number }>();

  const indexOf = async (chainId: number) => {
    const cached = indexes.get(chainId);
    if (cached && now() - cached.readAt < cacheMs) return cached;
    const [own, any] = await Promise.all([
      queryAll<Record<string, unknown>>(rangeQuery(webhookKeys.filterRange(chainId))),
      queryAll<Record<string, unknown>>(rangeQuery(webhookKeys.filterRange('any'))),
    ]);
    const entries: WebhookFilterEntry[] = [...own.items, ...any.items].map((item) => ({
      webhookId: String(item.webhookId),
      project: String(item.project),
      filters: item.filters as WebhookFilterEntry['filters'],
      disabled: item.disabled === true,
    }));
    const fresh = {
      index: new WebhookIndex(entries, chainId),
      projects: new Map(entries.map((entry) => [entry.webhookId, entry.project])),
      readAt: now(),
    };
    indexes.set(chainId, fresh);
    return fresh;
  };

  return {
    blocksIngested: async (events: readonly BlockIngestedEvent[]) => {
      for (const event of events) {
        const { index, projects } = await indexOf(event.chainId);
        const matches = index.match(event);
        if (matches.size === 0) continue;
        const deliveries: Delivery[] = [];
        const records: TableItem[] = [];
        for (const [webhookId, matched] of matches) {
          const project = projects.get(webhookId)!;
          const parts = deliveriesOf(project, webhookId, itemsOf(matched, 'new'));
          deliveries.push(...parts);
          for (const [part, delivery] of parts.entries())
            records.push({
              ...webhookKeys.sent(event.chainId, event.block.number, event.block.hash, webhookId, part),
              entity: 'webhookSent',
              project,
              webhookId,
              topic: delivery.topic,
              // The items as sent (their data is the block's: gone from the table once a reorg undoes it), deflated.
              packedItems: deflateRawSync(Buffer.from(JSON.stringify(delivery.items))),
              ttl: event.block.timestamp + retentionSeconds,
            });
        }
        await writeItems({ put: records });
        await options.queue.send(deliveries);
      }
    },
    blocksOrphaned: async (event: BlocksOrphanedEvent) => {
      for (const block of event.blocks) {
        const { items } = await queryAll<Record<string, unknown>>({
          ...rangeQuery(webhookKeys.sentRange(event.chainId, block.number, block.hash)),
          ConsistentRead: true,
        });
        const deliveries = items.map(
          (item): Delivery => ({
            v: 1,
            project: String(item.project),
            webhookId: String(item.webhookId),
            topic: item.topic as WebhookTopic,
            items: (JSON.parse(inflateRawSync(item.packedItems as Uint8Array).toString('utf8')) as WebhookItem[]).map((sent) => ({
              ...sent,
              status: 'reverted',
            })),
          }),
        );
        if (deliveries.length > 0) await options.queue.send(deliveries);
      }
    },
  };
}

/** A webhook's items of one block as deliveries: one topic each, at most MAX_ITEMS_PER_DELIVERY items and MAX_DELIVERY_BYTES. */
export function deliveriesOf(project: string, webhookId: string, items: readonly WebhookItem[]): Delivery[] {
  const deliveries: Delivery[] = [];
  for (const topic of ['v1.events', 'v1.transactions'] as const) {
    let current: WebhookItem[] = [];
    let size = 0;
    for (const item of items.filter((candidate) => topicOf(candidate) === topic)) {
      const itemSize = Buffer.byteLength(JSON.stringify(item));
      if (current.length > 0 && (current.length >= MAX_ITEMS_PER_DELIVERY || size + itemSize > MAX_DELIVERY_BYTES)) {
        deliveries.push({ v: 1, project, webhookId, topic, items: current });
        current = [];
        size = 0;
      }
      current.push(item);
      size += itemSize;
    }
    if (current.length > 0) deliveries.push({ v: 1, project, webhookId, topic, items: current });
  }
  return deliveries;
}
