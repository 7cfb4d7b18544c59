/** I12b. POST /insights/v1/webhooks: create a webhook for the caller's project (secret key required). */
import { httpHandler } from '../../shared/http/handler';
import { secretKeyOf } from '../../shared/http/secret-key';
import { loadWebhookSettings } from '../../shared/insights/webhook-config';
import { createWebhookBody, noWebhookQuery, webhookResponse } from '../../shared/insights/webhook-schemas';
import { createWebhook } from '../../shared/insights/webhooks';

const settings = loadWebhookSettings();

export const handler = httpHandler({
  group: 'insights',
  query: noWebhookQuery,
  body: createWebhookBody,
  response: webhookResponse,
  handle: async ({ body, headers }) => ({ body: { data: await createWebhook(secretKeyOf(headers), body, settings) } }),
});
