/** I12f. POST /insights/service/webhooks/filters/validate: whether a filters object is one a webhook may have (secret key required). */
import { httpHandler } from '../../shared/http/handler';
import { secretKeyOf } from '../../shared/http/secret-key';
import { loadWebhookSettings } from '../../shared/insights/webhook-config';
import { noWebhookQuery, validateFiltersBody, validateFiltersResponse } from '../../shared/insights/webhook-schemas';
import { validateFilters } from '../../shared/insights/webhooks';

const settings = loadWebhookSettings();

export const handler = httpHandler({
  group: 'insights',
  query: noWebhookQuery,
  body: validateFiltersBody,
  response: validateFiltersResponse,
  // The body as parsed (event.body), not valibot's copy: see validateFiltersBody.
  handle: async ({ event, headers }) => ({ body: await validateFilters(secretKeyOf(headers), event.body, settings) }),
});
