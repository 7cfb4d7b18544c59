/**
 * What a webhook receiver gets, as thirdweb documents Insight's deliveries:
 *
 *   POST <webhook_url>
 *   x-webhook-id: <webhook id>
 *   x-webhook-signature: hex(HMAC-SHA256(webhook_secret, <the raw body>))
 *   { "topic": "v1.events" | "v1.transactions", "timestamp": <unix seconds>,
 *     "data": [{ "data": <event or transaction>, "status": "new" | "reverted", "type": "event" | "transaction", "id": <64 hex> }] }
 *
 * `data.data` is the record as Insight's `/v1/events` and `/v1/transactions` show it (serialise.ts), with
 * `decoded` when the matched signature had an ABI. An item's `id` is the SHA-256 of the chain, the block
 * hash and the record's place in the block: the same event has the same id in every delivery (a retry,
 * its `reverted` after a reorg), and a receiver deduplicates by it (and `status`).
 */
import { createHash, createHmac } from 'node:crypto';
import type { DecodedCall, DecodedEvent } from './decode';
import { serialiseEvent, serialiseTransaction } from './serialise';
import type { WebhookMatch } from './webhook-matching';

export type WebhookTopic = 'v1.events' | 'v1.transactions';
export type WebhookStatus = 'new' | 'reverted';

export interface WebhookItem {
  data: Record<string, unknown>;
  status: WebhookStatus;
  type: 'event' | 'transaction';
  id: string;
}

export interface WebhookPayload {
  topic: WebhookTopic;
  timestamp: number;
  data: WebhookItem[];
}

export const topicOf = (item: Pick<WebhookItem, 'type'>): WebhookTopic => (item.type === 'event' ? 'v1.events' : 'v1.transactions');

/** The stable id of a record of a block: the same in every delivery of it. */
export function itemId(chainId: number, blockHash: string, place: { logIndex: number } | { transactionHash: string }): string {
  const where = 'logIndex' in place ? `log:${place.logIndex}` : `tx:${place.transactionHash}`;
  return createHash('sha256').update(`${chainId}|${blockHash}|${where}`).digest('hex');
}

/** The items of a webhook's matches in one block. */
export function itemsOf(matches: readonly WebhookMatch[], status: WebhookStatus): WebhookItem[] {
  return matches.map((match) => {
    if (match.type === 'event') {
      const { log, decoded } = match;
      return {
        data: { ...serialiseEvent(log), ...(decoded ? { decoded: eventDecoding(decoded) } : {}) },
        status,
        type: 'event',
        id: itemId(log.chainId, log.blockHash, { logIndex: log.logIndex }),
      };
    }
    const { transaction, decoded } = match;
    return {
      data: { ...serialiseTransaction(transaction), ...(decoded ? { decoded: callDecoding(decoded) } : {}) },
      status,
      type: 'transaction',
      id: itemId(transaction.chainId, transaction.blockHash, { transactionHash: transaction.hash }),
    };
  });
}

const eventDecoding = (decoded: DecodedEvent) => ({
  name: decoded.name,
  indexed_params: decoded.indexed_params,
  non_indexed_params: decoded.non_indexed_params,
});
const callDecoding = (decoded: DecodedCall) => ({ name: decoded.name, inputs: decoded.inputs });

/** The raw body of one delivery request. */
export function payloadBody(topic: WebhookTopic, items: readonly WebhookItem[], at = Date.now()): string {
  const payload: WebhookPayload = { topic, timestamp: Math.floor(at / 1000), data: [...items] };
  return JSON.stringify(payload);
}

/** `x-webhook-signature`: the HMAC-SHA256 of the raw body with the webhook's secret, lowercase hex. */
export function signatureOf(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}
