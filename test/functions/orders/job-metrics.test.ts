/**
 * The metrics an operator reads for the functions no HTTP request starts (shared/observability/
 * job-metrics.ts): the embedded-metric-format record each invocation of ExpireOrders and
 * DetectDeposits prints, for real work against the embedded table. Checked as CloudWatch reads it:
 * namespace, dimension set (service, job), every metric's unit, and values that match what the run did
 * (orders expired, deposits counted, records failed, a run that threw).
 */
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_SERVICE_NAME = 'chain-data-api';

import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { DETECT_DEPOSITS_COUNTS, handler as detectDeposits } from '../../../functions/orders/detect-deposits';
import { EXPIRE_ORDERS_COUNTS, handler as expireOrders } from '../../../functions/orders/expire-orders';
import { encodeBlocksIngested, encodeBlocksOrphaned } from '../../../shared/ingest/queue-messages';
import { resetClock, setClock } from '../../../shared/orders/clock';
import { captureEmf, throttleSwitch } from '../../support/emf';
import { useTestTable } from '../../support/table';
import { getOrder, postOrder, blockPaying, ethOrder } from './fixtures';

useTestTable('job-metrics');

const throttle = throttleSwitch();
const emf = captureEmf();
afterEach(() => resetClock());

/** The one record of `job` printed since the test started, checked for its shape; its values by name. */
function jobRecord(job: string, counted: readonly string[]): Record<string, number> {
  const matching = emf.records().filter((record) => record.job === job);
  expect(matching).toHaveLength(1);
  const record = matching[0]!;
  const [directive] = record._aws.CloudWatchMetrics;
  expect(directive.Namespace).toBe('ChainDataApi');
  expect(directive.Dimensions).toEqual([['service', 'job']]);
  expect(record.service).toBe('chain-data-api');
  expect(Object.fromEntries(directive.Metrics.map((metric) => [metric.Name, metric.Unit]))).toEqual({
    Duration: 'Milliseconds',
    Failed: 'Count',
    DynamoDBCalls: 'Count',
    DynamoDBReadUnits: 'Count',
    DynamoDBWriteUnits: 'Count',
    ...Object.fromEntries(counted.map((name) => [name, 'Count'])),
  });
  return Object.fromEntries(directive.Metrics.map((metric) => [metric.Name, record[metric.Name] as number]));
}

let messageCount = 0;
function sqsEvent(bodies: readonly string[]): SQSEvent {
  return {
    Records: bodies.map((body) => {
      messageCount += 1;
      return {
        messageId: `job-metrics-${messageCount}`,
        receiptHandle: `receipt-${messageCount}`,
        body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '0',
          SenderId: 'AROAEXAMPLE:IngestChain31337',
          ApproximateFirstReceiveTimestamp: '0',
          MessageGroupId: '31337',
          MessageDeduplicationId: `dedup-${messageCount}`,
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:DepositEvents.fifo',
        awsRegion: 'us-east-1',
      };
    }),
  };
}

describe('job metrics (EMF)', () => {
  it('ExpireOrders: the orders it examined and expired, and the writes that cost', async () => {
    const orders = [(await postOrder(ethOrder())).body.data, (await postOrder(ethOrder())).body.data];
    setClock(() => Math.max(...orders.map((order) => order.expiredAt)));
    const result = await expireOrders();
    expect(result.expired).toBeGreaterThanOrEqual(2);
    const values = jobRecord('ExpireOrders', EXPIRE_ORDERS_COUNTS);
    expect(values).toMatchObject({
      Failed: 0,
      OrdersExpired: result.expired,
      OrdersExamined: result.examined,
      OrdersSkipped: result.skipped,
    });
    expect(values.DynamoDBCalls).toBeGreaterThanOrEqual(result.expired);
    expect(values.DynamoDBWriteUnits).toBeGreaterThan(0);
    expect(values.Duration).toBeGreaterThan(0);
    for (const order of orders) expect((await getOrder(order.id)).body.data.order.status).toBe('expired');

    // A second sweep finds nothing left: its record says so.
    emf.clear();
    await expireOrders();
    expect(jobRecord('ExpireOrders', EXPIRE_ORDERS_COUNTS)).toMatchObject({ Failed: 0, OrdersExpired: 0 });
  });

  it('ExpireOrders: a run that throws is published as Failed', async () => {
    throttle.on = true;
    await expect(expireOrders()).rejects.toThrow();
    expect(jobRecord('ExpireOrders', EXPIRE_ORDERS_COUNTS)).toMatchObject({ Failed: 1, OrdersExpired: 0 });
  });

  it('DetectDeposits: records, blocks, deposits counted and orders paid; a reorg orphans the deposit', async () => {
    const order = (await postOrder(ethOrder())).body.data;
    const paying = blockPaying(order.globalAddress, 1000n, order.createdAt + 1000);
    const response = await detectDeposits(sqsEvent(encodeBlocksIngested([paying]).map((message) => message.body)));
    expect(response.batchItemFailures).toEqual([]);
    expect(jobRecord('DetectDeposits', DETECT_DEPOSITS_COUNTS)).toMatchObject({
      Failed: 0,
      Records: 1,
      RecordsFailed: 0,
      BlocksScanned: 1,
      DepositsCounted: 1,
      DepositsKeptForRefund: 0,
      OrdersPaid: 1,
      BlocksOrphaned: 0,
      DepositsOrphaned: 0,
    });

    emf.clear();
    const orphaned = encodeBlocksOrphaned({ chainId: 31337, blocks: [{ number: paying.block.number, hash: paying.block.hash }] });
    await detectDeposits(sqsEvent(orphaned.map((message) => message.body)));
    expect(jobRecord('DetectDeposits', DETECT_DEPOSITS_COUNTS)).toMatchObject({
      BlocksOrphaned: 1,
      DepositsOrphaned: 1,
      DepositsCounted: 0,
    });
  });

  it('DetectDeposits: a deposit after expiry is kept for a refund; a record that fails is counted', async () => {
    const order = (await postOrder(ethOrder())).body.data;
    const late = blockPaying(order.globalAddress, 1000n, order.expiredAt + 1000);
    await detectDeposits(sqsEvent([...encodeBlocksIngested([late]).map((message) => message.body), 'not a message']));
    expect(jobRecord('DetectDeposits', DETECT_DEPOSITS_COUNTS)).toMatchObject({
      Failed: 0,
      Records: 2,
      RecordsFailed: 1,
      DepositsCounted: 0,
      DepositsKeptForRefund: 1,
      OrdersPaid: 0,
    });
  });
});
