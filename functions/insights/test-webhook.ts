/** I12e. POST /insights/v1/webhooks/test: send a sample delivery (signed with `test123`) to a URL (secret key required). */
import { httpHandler } from '../../shared/http/handler';
import { secretKeyOf } from '../../shared/http/secret-key';
import { loadDeliverySettings, loadWebhookSettings } from '../../shared/insights/webhook-config';
import { noWebhookQuery, testWebhookBody, testWebhookResponse } from '../../shared/insights/webhook-schemas';
import { testWebhook } from '../../shared/insights/webhooks';

const settings = loadWebhookSettings();
const delivery = loadDeliverySettings();

export const handler = httpHandler({
  group: 'insights',
  query: noWebhookQuery,
  body: testWebhookBody,
  response: testWebhookResponse,
  handle: async ({ body, headers }) => ({ body: await testWebhook(secretKeyOf(headers), body, settings, delivery) }),
});
