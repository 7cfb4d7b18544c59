/** Request and response schemas of Insight's webhook routes (I12), as `@thirdweb-dev/insight` 1.1.x types them. */
import * as v from 'valibot';
import { createWebhookInput, testWebhookInput, updateWebhookInput } from './webhooks';

export const webhookSchema = v.strictObject({
  id: v.string(),
  team_id: v.string(),
  project_id: v.string(),
  name: v.nullable(v.string()),
  webhook_url: v.string(),
  webhook_secret: v.string(),
  filters: v.unknown(),
  suspended_at: v.nullable(v.string()),
  suspended_reason: v.nullable(v.string()),
  disabled: v.boolean(),
  created_at: v.string(),
  updated_at: v.nullable(v.string()),
});

const webhookId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{1,64}$/, 'webhook_id must be a webhook id'));

export const webhookPath = v.strictObject({ webhook_id: webhookId });
export const listWebhooksQuery = v.strictObject({ webhook_id: v.optional(webhookId) });
export const noWebhookQuery = v.strictObject({});
export const createWebhookBody = createWebhookInput;
export const updateWebhookBody = updateWebhookInput;
/**
 * Any JSON object (the filters are checked by the domain, which answers `valid: false` rather than a 400).
 * Valibot drops inherited names (`__proto__`, `constructor`) from what it outputs: the handler passes the
 * parsed body as sent, so that they are reported as the unknown fields they are.
 */
export const testWebhookBody = testWebhookInput;
export const testWebhookResponse = v.strictObject({ success: v.boolean() });
export const validateFiltersBody = v.record(v.string(), v.unknown());

export const webhookResponse = v.strictObject({ data: webhookSchema });
export const webhookListResponse = v.strictObject({ data: v.array(webhookSchema) });
export const validateFiltersResponse = v.strictObject({
  valid: v.boolean(),
  error: v.optional(v.string()),
  details: v.optional(v.array(v.strictObject({ code: v.string(), message: v.string(), path: v.array(v.union([v.string(), v.number()])) }))),
});
