/**
 * The per-route metrics an operator reads in CloudWatch: the embedded-metric-format record each HTTP
 * function prints per request, for real requests against the embedded table. Checked as CloudWatch
 * reads it: the namespace, the dimension set (service, route), every metric's unit, and the values
 * (status class, DynamoDB calls and consumed capacity of what the request did).
 */
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_SERVICE_NAME = 'chain-data-api';

import { describe, expect, it } from 'vitest';
import { routeMetricsEnabled } from '../../../shared/observability/route-metrics';
import { requestJson } from '../../../scripts/lib/dispatch';
import { captureEmf, throttleSwitch } from '../../support/emf';
import { useTestTable } from '../../support/table';

useTestTable('route-metrics');

const throttle = throttleSwitch();
const emf = captureEmf();
const records = emf.records;

/** The one record of a request, checked for its shape; its metric values by name. */
function requestRecord(route: string): Record<string, number> {
  const matching = records().filter((record) => record.route === route);
  expect(matching).toHaveLength(1);
  const record = matching[0]!;
  const [directive] = record._aws.CloudWatchMetrics;
  expect(directive.Namespace).toBe('ChainDataApi');
  expect(directive.Dimensions).toEqual([['service', 'route']]);
  expect(record.service).toBe('chain-data-api');
  expect(Object.fromEntries(directive.Metrics.map((metric) => [metric.Name, metric.Unit]))).toEqual({
    Latency: 'Milliseconds',
    Requests2xx: 'Count',
    Requests4xx: 'Count',
    Requests5xx: 'Count',
    DynamoDBCalls: 'Count',
    DynamoDBReadUnits: 'Count',
    DynamoDBWriteUnits: 'Count',
  });
  return Object.fromEntries(directive.Metrics.map((metric) => [metric.Name, record[metric.Name] as number]));
}

describe('per-route metrics (EMF)', () => {
  it('a write: 2xx, one transaction, its write units', async () => {
    const response = await requestJson('orders', 'POST', '/checkout-sessions', { body: { expires_in: 600 } });
    expect(response.status).toBe(200);
    const values = requestRecord('POST /checkout-sessions');
    expect(values).toMatchObject({ Requests2xx: 1, Requests4xx: 0, Requests5xx: 0, DynamoDBCalls: 1, DynamoDBReadUnits: 0 });
    expect(values.DynamoDBWriteUnits).toBeGreaterThanOrEqual(1);
    expect(values.Latency).toBeGreaterThan(0);
  });

  it('a read: one consistent GetItem, one read unit; an unknown id is a 4xx with the same call', async () => {
    const created = await requestJson('orders', 'POST', '/checkout-sessions', { body: {} });
    emf.clear();
    expect((await requestJson('orders', 'GET', `/checkout-sessions/${created.body.data.id}`)).status).toBe(200);
    expect(requestRecord('GET /checkout-sessions/{id}')).toMatchObject({
      Requests2xx: 1,
      Requests4xx: 0,
      Requests5xx: 0,
      DynamoDBCalls: 1,
      DynamoDBReadUnits: 1,
      DynamoDBWriteUnits: 0,
    });
    emf.clear();
    expect((await requestJson('orders', 'GET', '/checkout-sessions/4f0c3c39-8d4c-4e39-9a51-0d6f2b1c7e10')).status).toBe(404);
    expect(requestRecord('GET /checkout-sessions/{id}')).toMatchObject({
      Requests2xx: 0,
      Requests4xx: 1,
      Requests5xx: 0,
      DynamoDBCalls: 1,
    });
  });

  it('a request refused before any table call: 4xx, no DynamoDB calls', async () => {
    expect((await requestJson('orders', 'GET', '/checkout-sessions/not-a-uuid')).status).toBe(400);
    expect(requestRecord('GET /checkout-sessions/{id}')).toMatchObject({ Requests4xx: 1, DynamoDBCalls: 0, DynamoDBReadUnits: 0 });
  });

  it('a busy table: 5xx (503), its route named', async () => {
    throttle.on = true;
    expect((await requestJson('collections', 'GET', '/collections?limit=2')).status).toBe(503);
    expect(requestRecord('GET /collections')).toMatchObject({ Requests2xx: 0, Requests4xx: 0, Requests5xx: 1 });
  }, 20_000);

  it('an unknown route is counted under $default', async () => {
    expect((await requestJson('orders', 'GET', '/no-such-route')).status).toBe(404);
    expect(requestRecord('$default')).toMatchObject({ Requests4xx: 1, DynamoDBCalls: 0 });
  });

  it('is on in Lambda, off elsewhere (npm start, tests), and POWERTOOLS_METRICS_DISABLED decides when set', () => {
    expect(routeMetricsEnabled({ AWS_LAMBDA_FUNCTION_NAME: 'ListBlocks' })).toBe(true);
    expect(routeMetricsEnabled({ AWS_LAMBDA_FUNCTION_NAME: 'ListBlocks', POWERTOOLS_METRICS_DISABLED: 'true' })).toBe(false);
    expect(routeMetricsEnabled({})).toBe(false);
    expect(routeMetricsEnabled({ POWERTOOLS_METRICS_DISABLED: 'false' })).toBe(true);
  });
});
