/** I12a. GET /insights/v1/webhooks[?webhook_id=]: the caller's project's webhooks (secret key required). */
import { httpHandler } from '../../shared/http/handler';
import { secretKeyOf } from '../../shared/http/secret-key';
import { loadWebhookSettings } from '../../shared/insights/webhook-config';
import { listWebhooksQuery, webhookListResponse } from '../../shared/insights/webhook-schemas';
import { listWebhooks } from '../../shared/insights/webhooks';

const settings = loadWebhookSettings();

export const handler = httpHandler({
  group: 'insights',
  query: listWebhooksQuery,
  response: webhookListResponse,
  handle: async ({ query, headers }) => ({ body: { data: await listWebhooks(secretKeyOf(headers), query.webhook_id, settings) } }),
});
