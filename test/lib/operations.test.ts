/**
 * The operator's view in the template: the alarm topic (and its email subscription by context), an
 * alarm per dead-letter or failure queue, per scheduled function's errors, one alarm over every chain
 * each for the ingest's lag, failures and stopped ingest (Metrics Insights grouped by chainId) and for stalled
 * schedules (ticks delivered short of what the schedules make: missing data breaching), on the age of
 * the oldest message of each queue between functions (deposits left unprocessed), per API's
 * 5xx and p99 latency, per function's throttles (not the single-writer jobs'), the table's throttles
 * and system errors, each notifying the topic; the failure destination of the scheduled jobs; the
 * dashboard (with each chain's lag and the queues' oldest message age).
 * Names and thresholds come from context (cdk.json defaults, overrides here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_OPERATIONS } from '../../lib/operations';
import { fallbackFunctionId, functionIdOfRoute, jobInstances } from '../../lib/service-stack';
import { consumers, jobs } from '../../shared/jobs';
import { API_NAMES, routes } from '../../shared/routes';
import { actionsOf, ofType, type Resources, removeSyntheses, resourcesOf, statementsOf, synthesise } from './support/template';

const CHAINS = [{ chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453' }];
const jobFunctions = jobs.flatMap((job) => jobInstances(job, CHAINS).map((instance) => ({ ...instance, job })));
/** Functions serving routes: one per handler file and APIs (functionIdOfRoute). */
const routeFunctionIds = [...new Set(routes.map((route) => functionIdOfRoute(routes, route)))];
const functionIds = [
  ...routeFunctionIds,
  ...API_NAMES.map(fallbackFunctionId),
  ...jobFunctions.map((fn) => fn.id),
  ...consumers.map((consumer) => consumer.id),
];
const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

afterAll(() => removeSyntheses());

/** The logical id of the one resource of `type` whose id starts with `prefix` followed by CDK's hash. */
function logicalId(resources: Resources, type: string, prefix: string): string {
  const ids = ofType(resources, type)
    .map(([id]) => id)
    .filter((id) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id));
  expect(ids, prefix).toHaveLength(1);
  return ids[0]!;
}

function alarmsByName(resources: Resources): Map<string, Record<string, any>> {
  return new Map(ofType(resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => [alarm.Properties.AlarmName, alarm.Properties]));
}

describe('operations with cdk.json defaults (one chain)', () => {
  let resources: Resources;
  let alarms: Map<string, Record<string, any>>;
  let topicId: string;
  let synthesised: ReturnType<typeof synthesise>;

  beforeAll(() => {
    synthesised = synthesise({ chains: CHAINS });
    ({ resources } = synthesised);
    alarms = alarmsByName(resources);
    topicId = logicalId(resources, 'AWS::SNS::Topic', 'OperationsAlarmTopic');
  });

  it('has one alarm topic, publishable by CloudWatch alarms of this account only, over TLS only, and no subscription', () => {
    expect(ofType(resources, 'AWS::SNS::Topic')).toHaveLength(1);
    expect(ofType(resources, 'AWS::SNS::Subscription')).toEqual([]);
    const [[, policy]] = ofType(resources, 'AWS::SNS::TopicPolicy');
    expect(policy.Properties.Topics).toEqual([{ Ref: topicId }]);
    const statements = policy.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const allow = statements.find((statement: any) => statement.Effect === 'Allow');
    expect(allow).toMatchObject({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish', Resource: { Ref: topicId } });
    expect(allow.Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(JSON.stringify(allow.Condition.ArnLike['aws:SourceArn'])).toContain(':alarm:*');
  });

  it('names every alarm after the stack and sends its alarm and OK transitions to the topic', () => {
    expect(alarms.size).toBeGreaterThan(0);
    for (const [name, alarm] of alarms) {
      expect(name.startsWith('TestStack-'), name).toBe(true);
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
      // Missing data is no traffic, not a breach; but for IngestStalled, where no data is the failure.
      expect(alarm.TreatMissingData, name).toBe(name === 'TestStack-IngestStalled' ? 'breaching' : 'notBreaching');
      expect(alarm.AlarmDescription).toBeTruthy();
    }
  });

  it('alarms when any dead-letter or failure queue holds a message', () => {
    const queues = [
      'DepositEventsDeadLetters',
      'NftMetadataDeadLetters',
      'WebhookEventsDeadLetters',
      'WebhookDeliveriesDeadLetters',
      ...new Set(jobFunctions.map(({ job }) => `${job.id}Failures`)),
    ];
    for (const queue of queues) {
      const alarm = alarms.get(`TestStack-DeadLetters-${queue}`);
      expect(alarm, queue).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
      });
      const queueId = logicalId(resources, 'AWS::SQS::Queue', queue);
      expect(alarm!.Dimensions).toEqual([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }]);
    }
    expect([...alarms.keys()].filter((name) => name.includes('-DeadLetters-'))).toHaveLength(queues.length);
  });

  it('records every failed run of a scheduled job in its failure queue (no retry: the next tick is the retry)', () => {
    for (const { id, job } of jobFunctions) {
      const queueId = logicalId(resources, 'AWS::SQS::Queue', `${job.id}Failures`);
      const [[, config]] = ofType(resources, 'AWS::Lambda::EventInvokeConfig').filter(
        ([, candidate]) => candidate.Properties.FunctionName.Ref === id,
      );
      expect(config.Properties).toMatchObject({
        MaximumRetryAttempts: 0,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
      });
      const queue = resources[queueId].Properties;
      expect(queue).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
      // The role may send there, and do nothing else with the queue.
      const onQueue = statementsOf(resources, id).filter((statement) =>
        resourcesOf(statement).some((arn) => JSON.stringify(arn) === JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] })),
      );
      expect(onQueue.flatMap(actionsOf), id).toEqual(['sqs:SendMessage']);
    }
  });

  it('alarms on the errors of every scheduled function', () => {
    for (const { id } of jobFunctions) {
      expect(alarms.get(`TestStack-JobErrors-${id}`), id).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }],
        Statistic: 'Sum',
        Threshold: 3,
      });
    }
  });

  /** The one Metrics Insights query of an alarm (its only metric, returning data). */
  const insightsQuery = (alarm: Record<string, any>) => {
    expect(alarm.Metrics).toHaveLength(1);
    expect(alarm.Metrics[0].ReturnData).not.toBe(false);
    expect(alarm.MetricName).toBeUndefined();
    return { expression: alarm.Metrics[0].Expression as string, period: alarm.Metrics[0].Period as number };
  };

  it('alarms, in one alarm over every chain, when a chain’s ingest stays behind the head by the threshold or more all period', () => {
    const alarm = alarms.get('TestStack-IngestLag')!;
    expect(alarm).toMatchObject({ Threshold: 100, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 });
    // Each chain's series on its own (GROUP BY chainId: the alarm's contributors), its least lag of the period.
    expect(insightsQuery(alarm)).toEqual({
      expression: `SELECT MIN(LagBlocks) FROM SCHEMA("ChainDataApi", chainId, service) WHERE service = 'ingest' GROUP BY chainId`,
      period: 300,
    });
    expect(alarm.AlarmDescription).toContain('100 or more blocks behind');
    expect([...alarms.keys()].filter((name) => name.includes('IngestLag'))).toEqual(['TestStack-IngestLag']);
  });

  it('alarms, in one alarm over every chain, when a chain’s ingest stopped writing (a reorg deeper than its window: metric IngestStopped)', () => {
    const alarm = alarms.get('TestStack-IngestStopped')!;
    expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', AlarmActions: [{ Ref: topicId }] });
    expect(insightsQuery(alarm)).toEqual({
      expression: `SELECT MAX(IngestStopped) FROM SCHEMA("ChainDataApi", chainId, service) WHERE service = 'ingest' GROUP BY chainId`,
      period: 300,
    });
    expect(alarm.AlarmDescription).toContain('INGEST_MAX_REORG_DEPTH');
    expect([...alarms.keys()].filter((name) => name.includes('IngestStopped'))).toEqual(['TestStack-IngestStopped']);
  });

  it('alarms, in one alarm over every chain, when a chain’s ingest failed 3 or more rounds or runs in a period (a chain whose every run fails publishes no lag)', () => {
    const alarm = alarms.get('TestStack-IngestFailed')!;
    expect(alarm).toMatchObject({
      Threshold: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
    // Each chain's series on its own (GROUP BY chainId: the alarm's contributors), its failures of the period summed.
    expect(insightsQuery(alarm)).toEqual({
      expression: `SELECT SUM(IngestFailed) FROM SCHEMA("ChainDataApi", chainId, service) WHERE service = 'ingest' GROUP BY chainId`,
      period: 300,
    });
    expect(alarm.AlarmDescription).toContain('failed 3+ rounds or runs in 5 min');
    expect([...alarms.keys()].filter((name) => name.endsWith('-IngestFailed'))).toEqual(['TestStack-IngestFailed']);
  });

  it('alarms when the chains’ schedules deliver fewer ticks than they make for 3 periods (a stopped schedule publishes nothing: missing data breaches)', () => {
    const alarm = alarms.get('TestStack-IngestStalled')!;
    // One chain, rate(1 minute), 5-minute periods: 5 ticks a period; it fires below 5 - 2.5.
    expect(alarm).toMatchObject({
      Threshold: 2.5,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 3,
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
    // Every one of the periods must be short (no "M out of N").
    expect(alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods).toBe(3);
    const expression = alarm.Metrics.find((entry: any) => entry.Expression);
    expect(expression.Expression).toBe('FILL(attempts, 0) - FILL(failed, 0)');
    const [groupId, group] = ofType(resources, 'AWS::Scheduler::ScheduleGroup')[0];
    expect(groupId).toMatch(/^IngestChainSchedulesGroup/);
    const metrics = Object.fromEntries(
      alarm.Metrics.filter((entry: any) => entry.MetricStat).map((entry: any) => [entry.Id, entry.MetricStat]),
    );
    for (const [id, metricName] of [
      ['attempts', 'InvocationAttemptCount'],
      ['failed', 'TargetErrorCount'],
    ]) {
      expect(metrics[id], id).toMatchObject({
        Metric: {
          Namespace: 'AWS/Scheduler',
          MetricName: metricName,
          Dimensions: [{ Name: 'ScheduleGroup', Value: group.Properties.Name }],
        },
        Stat: 'Sum',
        Period: 300,
      });
    }
    expect(alarm.AlarmDescription).toContain('for 3 periods of 5 min');
    expect([...alarms.keys()].filter((name) => name.includes('-IngestStalled'))).toEqual(['TestStack-IngestStalled']);
  });

  it('alarms when a message of the deposit events queue waits unprocessed 900 s (order deposits not detected)', () => {
    const queueId = logicalId(resources, 'AWS::SQS::Queue', 'DepositEvents');
    expect(resources[queueId].Properties.FifoQueue).toBe(true);
    const alarm = alarms.get('TestStack-QueueAge-DepositEvents');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 900,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
    expect(alarm!.AlarmDescription).toContain('order deposits');
    // The queues themselves only: their dead-letter queues have their own alarms (DeadLetters-).
    expect([...alarms.keys()].filter((name) => name.includes('-QueueAge-')).sort()).toEqual([
      'TestStack-QueueAge-DepositEvents',
      'TestStack-QueueAge-NftMetadata',
      'TestStack-QueueAge-WebhookDeliveries',
      'TestStack-QueueAge-WebhookEvents',
    ]);
  });

  it('alarms when an NFT metadata fetch request waits 24 h (its own threshold: a token’s retries wait up to 12 h by design)', () => {
    const queueId = logicalId(resources, 'AWS::SQS::Queue', 'NftMetadata');
    expect(resources[queueId].Properties.FifoQueue).toBeUndefined();
    const alarm = alarms.get('TestStack-QueueAge-NftMetadata');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 24 * 3600,
      AlarmActions: [{ Ref: topicId }],
    });
    expect(alarm!.AlarmDescription).toContain('NFT metadata');
    expect(alarms.get('TestStack-DeadLetters-NftMetadataDeadLetters')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
    });
  });

  it('alarms on 5xx answers and on p99 latency of each API', () => {
    for (const api of API_NAMES) {
      const apiId = logicalId(resources, 'AWS::ApiGatewayV2::Api', `${pascal(api)}Api`);
      expect(alarms.get(`TestStack-Api5xx-${pascal(api)}`), api).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: '5xx',
        Dimensions: [{ Name: 'ApiId', Value: { Ref: apiId } }],
        Statistic: 'Sum',
        Threshold: 5,
      });
      expect(alarms.get(`TestStack-ApiLatencyP99-${pascal(api)}`), api).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        Dimensions: [{ Name: 'ApiId', Value: { Ref: apiId } }],
        ExtendedStatistic: 'p99',
        Threshold: 5000,
        EvaluationPeriods: 3,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
  });

  it('alarms on throttles: of the route functions together (the throttled invocations of the account), of every other function but the single-writer jobs (throttled by design)', () => {
    expect(alarms.get('TestStack-Throttles-Routes')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(alarms.get('TestStack-Throttles-Routes')).not.toHaveProperty('Dimensions');
    // The order expiry (one writer, reserved 1) is throttled by design; the ingest (3 per chain) is not.
    const singleWriters = jobFunctions.filter(({ job }) => !job.perChain && job.reservedConcurrency !== undefined).map(({ id }) => id);
    expect(singleWriters).toEqual(['ExpireOrders']);
    expect(alarms.get('TestStack-Throttles-IngestChain')).toMatchObject({ MetricName: 'Throttles', Threshold: 1 });
    for (const id of functionIds) {
      const alarm = alarms.get(`TestStack-Throttles-${id}`);
      if (singleWriters.includes(id) || routeFunctionIds.includes(id)) {
        expect(alarm, id).toBeUndefined();
        continue;
      }
      expect(alarm, id).toMatchObject({
        MetricName: 'Throttles',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }],
        Threshold: 1,
      });
    }
  });

  it('alarms on throttled requests and system errors of the table, summed over every operation the service sends', () => {
    for (const [name, metricName] of [
      ['TableThrottles', 'ThrottledRequests'],
      ['TableSystemErrors', 'SystemErrors'],
    ]) {
      const alarm = alarms.get(`TestStack-${name}`)!;
      expect(alarm.Threshold).toBe(1);
      const metrics: any[] = alarm.Metrics.filter((entry: any) => entry.MetricStat);
      expect(metrics.map((entry) => entry.MetricStat.Metric.MetricName)).toEqual(TABLE_OPERATIONS.map(() => metricName));
      expect(metrics.map((entry) => entry.MetricStat.Metric.Dimensions.find((d: any) => d.Name === 'Operation').Value).sort()).toEqual(
        [...TABLE_OPERATIONS].sort(),
      );
      for (const entry of metrics)
        expect(entry.MetricStat.Metric.Dimensions).toContainEqual({ Name: 'TableName', Value: { Ref: 'Table' } });
      const sum = alarm.Metrics.find((entry: any) => entry.Expression);
      expect(sum.ReturnData).not.toBe(false);
    }
  });

  it('outputs the alarm topic and the dashboard name', () => {
    const outputs = synthesised.template.toJSON().Outputs;
    expect(outputs.AlarmTopicArn.Value).toEqual({ Ref: topicId });
    expect(outputs.DashboardName.Value).toBe('TestStack');
  });

  it('has one dashboard named after the stack, with each API, the ingest and its lag per chain, the queues and the table', () => {
    const dashboards = ofType(resources, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const [[, dashboard]] = dashboards;
    expect(dashboard.Properties.DashboardName).toBe('TestStack');
    // The body is a Fn::Join of JSON text and references: put the references' ids in, then read it.
    const parts: unknown[] = dashboard.Properties.DashboardBody['Fn::Join'][1];
    const text = parts.map((part: any) => (typeof part === 'string' ? part : (part.Ref ?? part['Fn::GetAtt']?.join('.') ?? '?'))).join('');
    const body = JSON.stringify(JSON.parse(text));
    for (const text of [
      '"5xx"',
      '"4xx"',
      '"Count"',
      '"Latency"',
      '"p99"',
      'BlocksIngested',
      'IngestFailed',
      '"chainId","8453"',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
      // The ingest schedules' ticks (EventBridge Scheduler, what IngestStalled counts).
      'InvocationAttemptCount',
      'TargetErrorCount',
      'ThrottledRequests',
      'ConsumedWriteCapacityUnits',
      'alarm',
      // The functions' per-route metrics, one line per route.
      `{ChainDataApi,service,route} MetricName=\\"Requests5xx\\" service=\\"chain-data-api\\"`,
      'MetricName=\\"Latency\\"',
      'MetricName=\\"DynamoDBWriteUnits\\"',
      // The order jobs' metrics, one line per job.
      `{ChainDataApi,service,job} MetricName=\\"OrdersExpired\\" service=\\"chain-data-api\\"`,
      'MetricName=\\"DepositsCounted\\"',
      'MetricName=\\"RecordsFailed\\"',
    ]) {
      expect(body, text).toContain(text);
    }
    for (const api of API_NAMES) expect(body).toContain(logicalId(resources, 'AWS::ApiGatewayV2::Api', `${pascal(api)}Api`));

    const widgets: { properties: Record<string, any> }[] = JSON.parse(text).widgets;
    const widget = (title: string) => widgets.find((candidate) => candidate.properties.title?.startsWith(title))!.properties;
    // Next to the blocks ingested: each chain's lag (blocks left, seconds right), with the IngestLag threshold drawn.
    const lag = widget('Ingest: lag behind the head');
    expect(lag.metrics).toEqual([
      ['ChainDataApi', 'LagBlocks', 'chainId', '8453', 'service', 'ingest', { label: 'LagBlocks 8453', stat: 'Maximum' }],
      ['ChainDataApi', 'LagSeconds', 'chainId', '8453', 'service', 'ingest', { label: 'LagSeconds 8453', stat: 'Maximum', yAxis: 'right' }],
    ]);
    expect(lag.annotations.horizontal).toEqual([{ value: 100, label: 'IngestLag threshold', yAxis: 'left' }]);
    const ingestWidgets = widgets.map((candidate) => candidate.properties.title).filter((title) => title?.startsWith('Ingest:'));
    expect(ingestWidgets.indexOf(lag.title)).toBe(ingestWidgets.findIndex((title) => title.startsWith('Ingest: blocks ingested')) + 1);
    // The age of each queue's oldest message, with the QueueAge threshold drawn.
    const age = widget('Queues: oldest message age');
    expect(age.metrics).toEqual(
      ['DepositEvents', 'NftMetadata', 'WebhookEvents', 'WebhookDeliveries'].map((queue) => [
        'AWS/SQS',
        'ApproximateAgeOfOldestMessage',
        'QueueName',
        `${logicalId(resources, 'AWS::SQS::Queue', queue)}.QueueName`,
        { label: queue, stat: 'Maximum' },
      ]),
    );
    expect(age.annotations.horizontal).toEqual([{ value: 900, label: 'QueueAge threshold', yAxis: 'left' }]);
  });
});

describe('operations settings from context', () => {
  it('subscribes the alarm email, and takes names and thresholds from context', () => {
    const { resources } = synthesise(
      {
        chains: CHAINS,
        alarmEmail: 'ops@example.com',
        alarmNamePrefix: 'prod-',
        dashboardName: 'chain-data-prod',
        alarmPeriodMinutes: '1',
        deadLetterThreshold: '10',
        api5xxThreshold: '50',
        apiLatencyP99ThresholdMs: '2000',
        apiLatencyEvaluationPeriods: '5',
        jobErrorsThreshold: '2',
        ingestLagThresholdBlocks: '25',
        ingestStalledPeriods: '10',
        queueAgeThresholdSeconds: '3600',
        lambdaThrottlesThreshold: '7',
        tableThrottlesThreshold: '20',
        tableSystemErrorsThreshold: '4',
      },
      { routes: routes.filter((route) => route.id === 'ListOrders') },
    );
    const [[, subscription]] = ofType(resources, 'AWS::SNS::Subscription');
    expect(subscription.Properties).toMatchObject({ Protocol: 'email', Endpoint: 'ops@example.com' });
    const alarms = alarmsByName(resources);
    for (const name of alarms.keys()) expect(name.startsWith('prod-'), name).toBe(true);
    expect(alarms.get('prod-DeadLetters-DepositEventsDeadLetters')).toMatchObject({ Threshold: 10, Period: 60 });
    expect(alarms.get('prod-Api5xx-Orders')).toMatchObject({ Threshold: 50, Period: 60 });
    expect(alarms.get('prod-ApiLatencyP99-Base')).toMatchObject({ Threshold: 2000, EvaluationPeriods: 5 });
    expect(alarms.get('prod-JobErrors-IngestChain')).toMatchObject({ Threshold: 2 });
    expect(alarms.get('prod-IngestLag')).toMatchObject({ Threshold: 25 });
    expect(alarms.get('prod-IngestLag')!.Metrics[0].Period).toBe(60);
    expect(alarms.get('prod-IngestFailed')).toMatchObject({ Threshold: 2 });
    expect(alarms.get('prod-IngestFailed')!.Metrics[0].Period).toBe(60);
    // One chain, 1-minute periods: 1 tick a period; it fires below 0.5 (none delivered), 10 periods in a row.
    expect(alarms.get('prod-IngestStalled')).toMatchObject({
      Threshold: 0.5,
      EvaluationPeriods: 10,
      TreatMissingData: 'breaching',
    });
    expect(alarms.get('prod-QueueAge-DepositEvents')).toMatchObject({ Threshold: 3600, Period: 60 });
    expect(alarms.get('prod-Throttles-Routes')).toMatchObject({ Threshold: 7 });
    expect(alarms.get('prod-TableThrottles')).toMatchObject({ Threshold: 20 });
    expect(alarms.get('prod-TableSystemErrors')).toMatchObject({ Threshold: 4 });
    expect(ofType(resources, 'AWS::CloudWatch::Dashboard')[0][1].Properties.DashboardName).toBe('chain-data-prod');
  });

  it.each([
    [{ alarmEmail: 'not-an-email' }, /alarmEmail/],
    [{ alarmPeriodMinutes: 0 }, /alarmPeriodMinutes/],
    [{ api5xxThreshold: 'many' }, /api5xxThreshold/],
    [{ dashboardName: 'has spaces' }, /dashboardName/],
    [{ queueAgeThresholdSeconds: 0 }, /queueAgeThresholdSeconds/],
    // Longer than the queues keep a message (4 days): it could never fire.
    [{ queueAgeThresholdSeconds: 4 * 24 * 3600 + 1 }, /queueAgeThresholdSeconds.*at most 345600/],
    [{ ingestStalledPeriods: 0 }, /ingestStalledPeriods/],
    [{ ingestStalledPeriods: 'three' }, /ingestStalledPeriods/],
    // CloudWatch evaluates at most a day of periods under an hour, a week of longer ones.
    [{ ingestStalledPeriods: 289 }, /ingestStalledPeriods.*alarmPeriodMinutes.*\(1445 min\) must be at most a day/],
    [{ alarmPeriodMinutes: 60, ingestStalledPeriods: 169 }, /ingestStalledPeriods.*\(10140 min\)/],
  ])('rejects the invalid setting %j with a message naming it', (context, message) => {
    expect(() => synthesise(context, { routes: [], jobs: [] })).toThrow(message);
  });

  it('accepts the longest IngestStalled window CloudWatch evaluates (a day of 5-minute periods, a week of hourly ones)', () => {
    expect(() => synthesise({ ingestStalledPeriods: 288 }, { routes: [], jobs: [] })).not.toThrow();
    expect(() => synthesise({ alarmPeriodMinutes: 60, ingestStalledPeriods: 168 }, { routes: [], jobs: [] })).not.toThrow();
  });

  it('counts the ticks of every chain in IngestStalled: half a schedule’s worth short fires it, whatever the number of chains', () => {
    const chains = Array.from({ length: 55 }, (_, i) => ({ chainId: 1000 + i, rpcUrlParameter: `/chain-data-api/rpc/${1000 + i}` }));
    const { resources } = synthesise({ chains }, { routes: [] });
    const alarms = alarmsByName(resources);
    // 55 schedules of rate(1 minute): 275 ticks in 5 minutes; one schedule stopped leaves 270.
    expect(alarms.get('TestStack-IngestStalled')).toMatchObject({ Threshold: 272.5, ComparisonOperator: 'LessThanThreshold' });
    expect(alarms.get('TestStack-IngestStalled')!.AlarmDescription).toContain('The 55 chains');
    // Still one alarm of each kind for the ingest, whatever the number of chains.
    const ingestAlarms = [...alarms.keys()].filter((name) => /Ingest/.test(name)).sort();
    expect(ingestAlarms).toEqual([
      'TestStack-DeadLetters-IngestChainFailures',
      'TestStack-IngestFailed',
      'TestStack-IngestLag',
      'TestStack-IngestStalled',
      'TestStack-IngestStopped',
      'TestStack-JobErrors-IngestChain',
      'TestStack-Throttles-IngestChain',
    ]);
  });

  it('accepts a short IngestStalled window (Scheduler counts a tick when it delivers it, not when a 15-minute run ends)', () => {
    expect(() => synthesise({ chains: CHAINS, alarmPeriodMinutes: 1 }, { routes: [] })).not.toThrow();
    // Without an ingest nothing is counted: the order expiry (no chain) has no IngestStalled alarm.
    const { resources } = synthesise({ alarmPeriodMinutes: 1 }, { routes: [], jobs: jobs.filter((job) => !job.perChain) });
    expect([...alarmsByName(resources).keys()].filter((name) => name.includes('Ingest'))).toEqual([]);
  });
});
