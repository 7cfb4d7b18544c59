/**
 * Settings of Insight's webhooks, from the environment (validated with the platform's readEnv): the
 * routes' limits and receivers (loadWebhookSettings), delivery's timeouts, retries and suspension
 * (loadDeliverySettings), and the deliveries' queue (loadDeliveriesQueueUrl). Each handler module parses
 * them once, at cold start.
 */
import * as v from 'valibot';
import { readEnv } from '../config';
import { countSetting } from './config';
import { WEBHOOK_TIMEOUT_MS } from './limits';
import type { DeliverySettings } from './webhook-delivery';
import type { WebhookSettings } from './webhooks';

const webhookSchema = v.object({
  WEBHOOKS_PER_PROJECT: countSetting(100),
  WEBHOOK_API_REQUESTS_PER_MINUTE: countSetting(120),
  /** Local runs and tests only (`npm start` sets it): receivers on loopback, over plain http://. */
  WEBHOOK_ALLOW_LOOPBACK: v.optional(v.picklist(['0', '1'], 'must be 0 or 1'), '0'),
});

/**
 * Settings of the webhook routes: WEBHOOKS_PER_PROJECT (default 100) webhooks a project may have,
 * WEBHOOK_API_REQUESTS_PER_MINUTE (default 120) requests a secret key may send a minute (429 beyond),
 * WEBHOOK_ALLOW_LOOPBACK=1 (local runs only, with DYNAMODB_ENDPOINT set) receivers on 127.0.0.1 over http://.
 */
export function loadWebhookSettings(env: Record<string, string | undefined> = process.env): WebhookSettings {
  const raw = readEnv(webhookSchema, env);
  // Honoured against a local table only: in AWS (no DYNAMODB_ENDPOINT) receivers are public https:// hosts, whatever the variable says.
  const local = raw.WEBHOOK_ALLOW_LOOPBACK === '1' && Boolean(env.DYNAMODB_ENDPOINT);
  return {
    limits: { requestsPerMinute: raw.WEBHOOK_API_REQUESTS_PER_MINUTE },
    maxWebhooksPerProject: raw.WEBHOOKS_PER_PROJECT,
    egress: { allowLoopback: local, allowHttp: local },
  };
}

const deliverySchema = v.object({
  WEBHOOK_SUSPEND_AFTER_FAILURES: countSetting(10),
  WEBHOOK_SUSPEND_AFTER_SECONDS: v.optional(
    v.pipe(v.string(), v.regex(/^[0-9]{1,6}$/, 'must be a whole number of seconds (0-999999)'), v.transform(Number)),
    '600',
  ),
  WEBHOOK_RETRY_SECONDS: countSetting(5),
});

/**
 * Settings of webhook delivery: a webhook failing WEBHOOK_SUSPEND_AFTER_FAILURES (default 10) deliveries in
 * a row over at least WEBHOOK_SUSPEND_AFTER_SECONDS (default 600) is suspended; a failed delivery is tried
 * again after WEBHOOK_RETRY_SECONDS (default 5), doubled after each further failure (at most 15 minutes);
 * receivers as the webhook routes allow them (loadWebhookSettings' egress).
 */
export function loadDeliverySettings(env: Record<string, string | undefined> = process.env): DeliverySettings {
  const raw = readEnv(deliverySchema, env);
  return {
    egress: loadWebhookSettings(env).egress,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
    suspendAfterFailures: raw.WEBHOOK_SUSPEND_AFTER_FAILURES,
    suspendAfterMs: raw.WEBHOOK_SUSPEND_AFTER_SECONDS * 1000,
    retryBaseMs: raw.WEBHOOK_RETRY_SECONDS * 1000,
  };
}

/** WEBHOOK_DELIVERIES_QUEUE_URL, set by the stack on MatchWebhooks and DeliverWebhooks. */
export function loadDeliveriesQueueUrl(env: Record<string, string | undefined> = process.env): string {
  return readEnv(v.object({ WEBHOOK_DELIVERIES_QUEUE_URL: v.pipe(v.string(), v.url()) }), env).WEBHOOK_DELIVERIES_QUEUE_URL;
}
