/** I12c. PATCH /insights/v1/webhooks/{webhook_id}: change, disable, enable or resume one of the caller's webhooks. */
import { httpHandler } from '../../shared/http/handler';
import { secretKeyOf } from '../../shared/http/secret-key';
import { loadWebhookSettings } from '../../shared/insights/webhook-config';
import { noWebhookQuery, updateWebhookBody, webhookPath, webhookResponse } from '../../shared/insights/webhook-schemas';
import { updateWebhook } from '../../shared/insights/webhooks';

const settings = loadWebhookSettings();

export const handler = httpHandler({
  group: 'insights',
  path: webhookPath,
  query: noWebhookQuery,
  body: updateWebhookBody,
  response: webhookResponse,
  handle: async ({ path, body, headers }) => ({
    body: { data: await updateWebhook(secretKeyOf(headers), path.webhook_id, body, settings) },
  }),
});
