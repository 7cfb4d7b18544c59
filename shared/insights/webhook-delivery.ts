/**
 * Delivering one webhook's items to its receiver: in AWS DeliverWebhooks, fed by the WebhookDeliveries
 * standard queue (MatchWebhooks sends to it); locally an in-process worker. One delivery is one POST of
 * Insight's payload (webhook-payload.ts), signed with the webhook's secret.
 *
 * - The receiver is a stranger's URL (shared/egress/): https only (http and loopback only in local runs),
 *   every address its host resolves to checked and connected to as checked, redirects not followed (a 3xx
 *   is a failure), `timeoutMs` (3 s) for the whole request, 2xx is success, the answer's body not read.
 * - A failure counts on the webhook's item (`failures`, since `failingSince`) and is retried with backoff
 *   (`retryInMs`: the queue holds the message back). Once a webhook has failed `suspendAfterFailures`
 *   times in a row over at least `suspendAfterMs`, it is suspended (`suspended_at`, `suspended_reason`),
 *   and its deliveries are dropped until a PATCH resumes it; a success clears the count.
 * - A webhook deleted, disabled or suspended gets nothing: its deliveries are dropped.
 * - A delivery still failing when the queue's receives run out goes to its dead-letter queue (an alarm).
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { getItem, updateItem } from '../db/operations';
import { type AddressPolicy, refusedAddress } from '../egress/addresses';
import { checkedLookup, EgressError, type Resolve, systemResolve } from '../egress/lookup';
import { checkedUrl } from '../egress/url';
import { webhookKeys } from '../table/keys';
import type { Delivery } from './webhook-queue';
import { payloadBody, signatureOf, type WebhookItem, type WebhookTopic } from './webhook-payload';

export interface DeliverySettings {
  egress: AddressPolicy & { allowHttp: boolean };
  /** The whole request, connection included (Insight's receivers have 3 s). */
  timeoutMs: number;
  suspendAfterFailures: number;
  suspendAfterMs: number;
  /** The wait before the second attempt; doubled after each further one, at most 15 minutes. */
  retryBaseMs: number;
  resolve?: Resolve;
}

export type SendOutcome = { ok: true; status: number } | { ok: false; reason: string };

export type DeliveryOutcome =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'dropped'; reason: string }
  | { outcome: 'suspended'; reason: string }
  | { outcome: 'retry'; retryInMs: number; reason: string };

const MAX_RETRY_MS = 15 * 60_000;
const USER_AGENT = 'chain-data-api-webhooks/1.0';

interface StoredWebhook {
  id: string;
  project: string;
  webhookUrl: string;
  secret: string;
  disabled: boolean;
  suspendedAt: string | null;
  failures?: number;
  failingSince?: number;
}

/** Sends `delivery` to its webhook once (`attempt`: 1 for the first try), and says what became of it. */
export async function deliver(delivery: Delivery, settings: DeliverySettings, attempt: number, at = Date.now()): Promise<DeliveryOutcome> {
  const key = webhookKeys.webhook(delivery.project, delivery.webhookId);
  const webhook = await getItem<StoredWebhook>(key, { consistent: true });
  if (!webhook) return { outcome: 'dropped', reason: 'the webhook was deleted' };
  if (webhook.disabled) return { outcome: 'dropped', reason: 'the webhook is disabled' };
  if (webhook.suspendedAt) return { outcome: 'dropped', reason: 'the webhook is suspended' };
  const sent = await sendSigned(webhook.webhookUrl, webhook.id, webhook.secret, delivery.topic, delivery.items, settings, at);
  if (sent.ok) {
    if ((webhook.failures ?? 0) > 0)
      await updateItem({ Key: key, UpdateExpression: 'REMOVE failures, failingSince', ConditionExpression: 'attribute_exists(pk)' });
    return { outcome: 'delivered', status: sent.status };
  }
  const counted = await updateItem<{ failures: number; failingSince: number }>({
    Key: key,
    UpdateExpression: 'ADD failures :one SET failingSince = if_not_exists(failingSince, :at)',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':one': 1, ':at': at },
    ReturnValues: 'ALL_NEW',
  });
  if (!counted.applied) return { outcome: 'dropped', reason: 'the webhook was deleted' };
  const { failures, failingSince } = counted.attributes!;
  if (failures >= settings.suspendAfterFailures && at - failingSince >= settings.suspendAfterMs) {
    const reason = `${failures} deliveries failed in a row since ${new Date(failingSince).toISOString()}; the last: ${sent.reason}`;
    await updateItem({
      Key: key,
      UpdateExpression: 'SET suspendedAt = :at, suspendedReason = :why REMOVE failures, failingSince',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': new Date(at).toISOString(), ':why': reason.slice(0, 500) },
    });
    return { outcome: 'suspended', reason };
  }
  return { outcome: 'retry', retryInMs: Math.min(MAX_RETRY_MS, settings.retryBaseMs * 2 ** Math.max(0, attempt - 1)), reason: sent.reason };
}

/** One signed POST of `items` to `url` (Insight's headers and signature); the test ping sends its own this way. */
export function sendSigned(
  url: string,
  webhookId: string,
  secret: string,
  topic: WebhookTopic,
  items: readonly WebhookItem[],
  settings: Pick<DeliverySettings, 'egress' | 'timeoutMs' | 'resolve'>,
  at = Date.now(),
): Promise<SendOutcome> {
  const body = payloadBody(topic, items, at);
  return post(
    url,
    body,
    { 'x-webhook-id': webhookId, 'x-webhook-signature': signatureOf(secret, body), 'content-type': 'application/json' },
    settings,
  );
}

/** POSTs `body` to a stranger's URL under the egress rules; never throws. */
export function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  settings: Pick<DeliverySettings, 'egress' | 'timeoutMs' | 'resolve'>,
): Promise<SendOutcome> {
  const checked = checkedUrl(url, settings.egress.allowHttp);
  if (!checked.ok) return Promise.resolve({ ok: false, reason: `refused: ${checked.reason}` });
  const target = new URL(checked.url);
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(hostname) !== 0;
  if (literal) {
    const refused = refusedAddress(hostname, settings.egress);
    if (refused) return Promise.resolve({ ok: false, reason: `refused address: ${refused}` });
  }
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      agent: false,
      ...(literal ? {} : { lookup: checkedLookup(settings.egress, settings.resolve ?? systemResolve) }),
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': USER_AGENT },
    });
    const timer = setTimeout(() => settle({ ok: false, reason: `no answer within ${settings.timeoutMs} ms` }), settings.timeoutMs);
    request.on('error', (error) =>
      settle({ ok: false, reason: error instanceof EgressError ? error.message : `connection failed: ${error.message}` }),
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      // The answer's body is not read: a receiver's 2xx is all a delivery needs.
      settle(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, reason: `HTTP ${status}` });
    });
    request.end(body);
  });
}
