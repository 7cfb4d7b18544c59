/** I12d. DELETE /insights/v1/webhooks/{webhook_id}: delete one of the caller's webhooks; answers the deleted webhook. */
import { httpHandler } from '../../shared/http/handler';
import { secretKeyOf } from '../../shared/http/secret-key';
import { loadWebhookSettings } from '../../shared/insights/webhook-config';
import { noWebhookQuery, webhookPath, webhookResponse } from '../../shared/insights/webhook-schemas';
import { deleteWebhook } from '../../shared/insights/webhooks';

const settings = loadWebhookSettings();

export const handler = httpHandler({
  group: 'insights',
  path: webhookPath,
  query: noWebhookQuery,
  response: webhookResponse,
  handle: async ({ path, headers }) => ({ body: { data: await deleteWebhook(secretKeyOf(headers), path.webhook_id, settings) } }),
});
