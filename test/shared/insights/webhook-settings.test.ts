/** The webhook routes' settings: loopback receivers only against a local table, limits from the environment. */
import { expect, it } from 'vitest';
import { loadWebhookSettings } from '../../../shared/insights/webhook-config';

it('lets receivers on loopback over http:// only with WEBHOOK_ALLOW_LOOPBACK=1 against a local table (never in AWS)', () => {
  expect(loadWebhookSettings({ WEBHOOK_ALLOW_LOOPBACK: '1', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).egress).toEqual({
    allowLoopback: true,
    allowHttp: true,
  });
  // In AWS there is no DYNAMODB_ENDPOINT: the variable changes nothing.
  expect(loadWebhookSettings({ WEBHOOK_ALLOW_LOOPBACK: '1' }).egress).toEqual({ allowLoopback: false, allowHttp: false });
  expect(loadWebhookSettings({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).egress).toEqual({ allowLoopback: false, allowHttp: false });
});

it('reads the limits, and refuses a bad value with a message naming it', () => {
  expect(loadWebhookSettings({})).toMatchObject({ maxWebhooksPerProject: 100, limits: { requestsPerMinute: 120 } });
  expect(loadWebhookSettings({ WEBHOOKS_PER_PROJECT: '5', WEBHOOK_API_REQUESTS_PER_MINUTE: '7' })).toMatchObject({
    maxWebhooksPerProject: 5,
    limits: { requestsPerMinute: 7 },
  });
  expect(() => loadWebhookSettings({ WEBHOOKS_PER_PROJECT: '0' })).toThrow(/WEBHOOKS_PER_PROJECT/);
  expect(() => loadWebhookSettings({ WEBHOOK_ALLOW_LOOPBACK: 'yes' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK/);
});
