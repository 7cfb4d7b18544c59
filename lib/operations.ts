/**
 * An operator's view of a deployment: CloudWatch alarms on what needs a person, an SNS topic they
 * notify (with an optional email subscription), and one dashboard of the main figures. Every name and
 * threshold comes from context (settings.ts `OperationsSettings`); README "Operations runbook" says
 * what each alarm means and what to do. The number of alarms does not grow with the chains: the ingest
 * is one function, and its per-chain alarms are each one alarm over every chain (a Metrics Insights
 * query grouped by `chainId`, whose contributors name the chains in alarm).
 *
 * Alarms (each `<prefix><Name>`, the prefix `<stackName>-` by default):
 * - `DeadLetters-<Queue>`: a dead-letter queue (a queue row's, or a job's failure queue) holds messages;
 * - `JobErrors-<FunctionId>`: failed runs of a scheduled function (the ingest of every chain, the order expiry);
 * - `IngestLag`: a chain's ingest `ingestLagThresholdBlocks` or more behind the head all period (per chain);
 * - `IngestStopped`: a chain's ingest stopped writing: a reorg deeper than its window
 *   (`INGEST_MAX_REORG_DEPTH`), or a block to undo whose write manifest expired
 *   (`INGEST_MANIFEST_RETENTION_DAYS`), which needs an operator; the chain's status endpoint says why (per chain);
 * - `IngestFailed`: a chain's ingest failed `jobErrorsThreshold` or more rounds or runs in a period (per
 *   chain): a chain whose every run fails publishes no lag, so `IngestLag` cannot see it;
 * - `IngestStalled`: the chains' schedules delivered fewer ticks than they make for `ingestStalledPeriods`
 *   periods in a row (a schedule disabled or gone, or its ticks failing: no run, so no lag published either);
 * - `QueueAge-<Queue>`: the oldest message of a queue between functions (`DepositEvents`: blocks whose order
 *   deposits are not yet detected; `NftMetadata`: NFT metadata fetches) has waited `queueAgeThresholdSeconds`
 *   (a queue row's `ageAlarmSeconds` when its consumer delays retries on purpose);
 * - `Api5xx-<Api>` and `ApiLatencyP99-<Api>`: 5xx answers and p99 latency of each HTTP API;
 * - `Throttles-<FunctionId>`: throttled invocations of every function but the single-writer jobs (their
 *   overlapping ticks are throttled by design; their failures and expired ticks reach the failure queue);
 * - `TableThrottles` and `TableSystemErrors`: throttled requests and system errors of the table.
 */
import { ArnFormat, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { ApiName } from '../shared/http/groups';
import type { Job } from '../shared/jobs';
import type { ApiFunction } from './api-function';
import { type ChainSchedules, ticksPerPeriod } from './ingest-schedules';
import type { ChainSetting, OperationsSettings } from './settings';

/** The table operations the service sends (no Scan, no PartiQL): the per-operation metrics the table alarms add up. */
export const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
] as const;

/** Namespace of the functions' own metrics (shared/observability/metrics.ts; the ingest's are per chain). */
export const METRICS_NAMESPACE = 'ChainDataApi';

/** What the alarms and the dashboard watch: the service stack's own tables of its resources. */
export interface WatchedResources {
  readonly table: Table;
  readonly apis: ReadonlyMap<ApiName, { api: HttpApi }>;
  /** Every function, by function id. */
  readonly functions: ReadonlyMap<string, ApiFunction>;
  /** The function serving each route row (route id -> function id). */
  readonly routeFunctionIds: ReadonlyMap<string, string>;
  /** The scheduled functions, by function id; a per-chain job's with its chains and their schedules. */
  readonly jobFunctions: ReadonlyMap<string, { job: Job; chains?: readonly ChainSetting[]; schedules?: ChainSchedules }>;
  /** The queues between functions, by queue id. */
  readonly queues: ReadonlyMap<string, Queue>;
  /** The QueueAge threshold of a queue whose messages wait longer by design (shared/jobs.ts `ageAlarmSeconds`), by queue id. */
  readonly queueAgeAlarmSeconds?: ReadonlyMap<string, number>;
  /** Every queue where failures end, by construct id. */
  readonly deadLetterQueues: ReadonlyMap<string, Queue>;
  /** POWERTOOLS_SERVICE_NAME of the functions: the `service` dimension of their per-route metrics. */
  readonly settings: { readonly serviceName: string };
}

/** How long blocks past the cold window may stay uncompacted before ColdHistoryBehind fires: a day. */
export const COLD_HISTORY_BEHIND_SECONDS = 86_400;

export interface OperationsProps {
  stack: WatchedResources;
  settings: OperationsSettings;
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

export class Operations extends Construct {
  readonly topic: Topic;
  readonly alarms = new Map<string, Alarm>();
  readonly dashboard: Dashboard;
  private readonly prefix: string;
  private readonly period: Duration;
  private readonly settings: OperationsSettings;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const { stack, settings } = props;
    this.settings = settings;
    this.prefix = settings.alarmNamePrefix ?? `${Stack.of(this).stackName}-`;
    this.period = Duration.minutes(settings.alarmPeriodMinutes);

    this.topic = new Topic(this, 'AlarmTopic', { displayName: `${Stack.of(this).stackName} alarms`, enforceSSL: true });
    // The topic has a policy (enforceSSL), which replaces SNS's default one: CloudWatch must be let in by name.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarms',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
          ArnLike: {
            'aws:SourceArn': Stack.of(this).formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (settings.alarmEmail) this.topic.addSubscription(new EmailSubscription(settings.alarmEmail));

    for (const [queueId, queue] of stack.deadLetterQueues) {
      this.alarm(`DeadLetters-${queueId}`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: this.period }),
        threshold: settings.deadLetterThreshold,
        description: `${queueId} holds failed messages or runs: read them, fix the cause, then redrive or purge (README, Operations runbook)`,
      });
    }

    for (const functionId of stack.jobFunctions.keys()) {
      this.alarm(`JobErrors-${functionId}`, {
        metric: stack.functions.get(functionId)!.function.metricErrors({ statistic: 'Sum', period: this.period }),
        threshold: settings.jobErrorsThreshold,
        description: `${functionId} failed ${settings.jobErrorsThreshold}+ runs in ${settings.alarmPeriodMinutes} min: see its log group`,
      });
    }

    const ingests = [...stack.jobFunctions].filter(([, entry]) => entry.chains !== undefined && !entry.job.coldTier);
    // The cold history job (with the tier on): the oldest block it has still to compact, past the window.
    // Its items expire the margin after the window, so a day behind is the time to act.
    const coldJobs = [...stack.jobFunctions].filter(([, entry]) => entry.job.coldTier);
    if (coldJobs.length > 0) {
      this.alarm('ColdHistoryBehind', {
        metric: this.perChain('ColdHistoryBehindSeconds', 'MIN', 'cold-history'),
        threshold: COLD_HISTORY_BEHIND_SECONDS,
        description: `A chain's cold history job has left blocks past the window uncompacted for a day or more (the alarm's contributors name the chains, by chainId); their items expire COLD_MARGIN_DAYS after the window, and then only the cold backfill gives them back: see ${coldJobs.map(([functionId]) => functionId).join(', ')}'s errors, duration and log (README, Operations runbook)`,
      });
    }
    // One alarm each over every chain: Metrics Insights queries grouped by chainId evaluate each chain's
    // series on its own (the alarm's contributors, `aws cloudwatch describe-alarm-contributors`, name the
    // chains in alarm), where a metric-math alarm could combine at most 10 metrics.
    if (ingests.length > 0) {
      const functionIds = ingests.map(([functionId]) => functionId).join(', ');
      this.alarm('IngestLag', {
        metric: this.perChain('LagBlocks', 'MIN'),
        threshold: settings.ingestLagThresholdBlocks,
        description: `A chain's ingest stayed ${settings.ingestLagThresholdBlocks} or more blocks behind the node's head for a whole period (the alarm's contributors name the chains, by chainId): see ${functionIds}'s errors and duration, the node, the table's throttles (README, Operations runbook)`,
      });
      // A reorg deeper than the window, or a block to undo whose manifest expired: every run of that chain stops before writing (metric IngestStopped).
      this.alarm('IngestStopped', {
        metric: this.perChain('IngestStopped', 'MAX'),
        threshold: 1,
        description: `A chain's ingest stopped writing (the alarm's contributors name the chains, by chainId): a reorg deeper than INGEST_MAX_REORG_DEPTH, or a block to undo whose manifest expired (INGEST_MANIFEST_RETENTION_DAYS) (the API serves the old branch, marked stopped in the chain's status): see ${functionIds}'s log, then roll back by hand or raise the window (README, Operations runbook)`,
      });
      // Failed rounds and failed runs (metric IngestFailed): a chain whose every run fails publishes no
      // LagBlocks, so it is absent from IngestLag's groups; JobErrors counts the function's failures of
      // every chain together.
      this.alarm('IngestFailed', {
        metric: this.perChain('IngestFailed', 'SUM'),
        threshold: settings.jobErrorsThreshold,
        description: `A chain's ingest failed ${settings.jobErrorsThreshold}+ rounds or runs in ${settings.alarmPeriodMinutes} min (the alarm's contributors name the chains, by chainId): see ${functionIds}'s log for that chainId (the node, its RPC URL parameter, the queue, the table) (README, Operations runbook)`,
      });
    }

    // A stopped schedule starts no run, so nothing is published (no lag, no error): count the ticks the
    // schedules delivered instead (EventBridge Scheduler's metrics of the group, published as it invokes,
    // whatever a run then takes). Each chain's schedule makes `ticks` a period; the alarm fires when the
    // deliveries fall short of that by half a schedule's worth or more, every period of the window (one
    // schedule stopped, or every tick failing), and when there is no data at all (every schedule gone).
    for (const [functionId, { job, chains, schedules }] of ingests) {
      const ticks = ticksPerPeriod(job.schedule, this.period);
      if (ticks < 1) {
        throw new Error(
          `Invalid stack settings: context \`alarmPeriodMinutes\` (${settings.alarmPeriodMinutes}) must be at least the interval of ${functionId}'s schedules (${job.schedule}), or IngestStalled counts no whole tick a period`,
        );
      }
      const expected = ticks * chains!.length;
      // One alarm per ingest function: the job's own keeps the plain name, a function of chains of their
      // own memory (IngestChain3538: lib/service-stack.ts jobInstances) is named after it.
      this.alarm(functionId === job.id ? 'IngestStalled' : `IngestStalled-${functionId}`, {
        metric: new MathExpression({
          expression: 'FILL(attempts, 0) - FILL(failed, 0)',
          usingMetrics: {
            attempts: schedules!.group.metricAttempts({ statistic: 'Sum', period: this.period }),
            failed: schedules!.group.metricTargetErrors({ statistic: 'Sum', period: this.period }),
          },
          label: 'ticks delivered',
          period: this.period,
        }),
        threshold: expected - ticks / 2,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: settings.ingestStalledPeriods,
        treatMissingData: TreatMissingData.BREACHING,
        description: `The ${chains!.length} chains' schedules of ${functionId} delivered fewer than ${expected - ticks / 2} of their ${expected} ticks a period, for ${settings.ingestStalledPeriods} periods of ${settings.alarmPeriodMinutes} min: a schedule disabled or gone, or its ticks failing (the invoke role, the function gone); no run means no lag or error published for that chain (README, Operations runbook)`,
      });
    }

    // A message waits while its consumer fails, is throttled or is stuck on an earlier message of its group (FIFO).
    // A queue whose consumer delays messages on purpose (NftMetadata: a token's retries wait up to 12 h) has its own threshold.
    for (const [queueId, queue] of stack.queues) {
      const threshold = stack.queueAgeAlarmSeconds?.get(queueId) ?? settings.queueAgeThresholdSeconds;
      this.alarm(`QueueAge-${queueId}`, {
        metric: queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: this.period }),
        threshold,
        description: `A message of ${queueId} has waited ${threshold}+ s unprocessed (for DepositEvents: order deposits not yet detected; for NftMetadata: NFT metadata not fetched, beyond a token's retries): see its consumer's errors, throttles and failed records (README, Operations runbook)`,
      });
    }

    for (const [api, { api: httpApi }] of stack.apis) {
      this.alarm(`Api5xx-${pascal(api)}`, {
        metric: httpApi.metricServerError({ statistic: 'Sum', period: this.period }),
        threshold: settings.api5xxThreshold,
        description: `The ${api} API answered ${settings.api5xxThreshold}+ 5xx in ${settings.alarmPeriodMinutes} min: see its access log and the functions' errors`,
      });
      this.alarm(`ApiLatencyP99-${pascal(api)}`, {
        metric: httpApi.metricLatency({ statistic: 'p99', period: this.period }),
        threshold: settings.apiLatencyP99ThresholdMs,
        evaluationPeriods: settings.apiLatencyEvaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `p99 latency of the ${api} API above ${settings.apiLatencyP99ThresholdMs} ms for ${settings.apiLatencyEvaluationPeriods} periods`,
      });
    }

    // Route functions share one alarm: a throttled route is the account's concurrency running out, which
    // hits them all at once (and the API answers it as a 5xx, Api5xx); one alarm per route function cost
    // a CloudFormation resource each (the stack's 500-resource limit). Jobs and consumers keep theirs.
    const routeFunctions = new Set(stack.routeFunctionIds.values());
    this.alarm('Throttles-Routes', {
      metric: new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period: this.period }),
      threshold: settings.lambdaThrottlesThreshold,
      description: `Lambda throttled invocations in this account and region (every route function counts): the account's concurrency is exhausted (raise the quota or lower the API throttles)`,
    });
    for (const [functionId, fn] of stack.functions) {
      if (routeFunctions.has(functionId)) continue;
      // A single-writer job's own reservation throttles its overlapping ticks by design; a per-chain job's
      // (3 x the chains, one pool for all of them) leaves room for every chain's run, its handover and the minute's tick, so a throttle there is news.
      const job = stack.jobFunctions.get(functionId)?.job;
      if (job && !job.perChain && job.reservedConcurrency !== undefined) continue;
      this.alarm(`Throttles-${functionId}`, {
        metric: fn.function.metricThrottles({ statistic: 'Sum', period: this.period }),
        threshold: settings.lambdaThrottlesThreshold,
        description: `${functionId} was throttled: the account's concurrency is exhausted (raise the quota or reserve concurrency)`,
      });
    }

    this.alarm('TableThrottles', {
      metric: stack.table.metricThrottledRequestsForOperations({ operations: [...TABLE_OPERATIONS], period: this.period }),
      threshold: settings.tableThrottlesThreshold,
      description: 'DynamoDB throttled requests of the table (a hot partition, or on-demand scaling behind a sudden peak)',
    });
    this.alarm('TableSystemErrors', {
      metric: stack.table.metricSystemErrorsForOperations({ operations: [...TABLE_OPERATIONS], period: this.period }),
      threshold: settings.tableSystemErrorsThreshold,
      description: 'DynamoDB answered requests of the table with 500s (the SDK retried them; check the AWS Health Dashboard)',
    });

    const dashboardName = settings.dashboardName ?? Stack.of(this).stackName;
    this.dashboard = this.createDashboard(stack, dashboardName);
    new CfnOutput(Stack.of(this), 'AlarmTopicArn', { value: this.topic.topicArn, description: 'SNS topic every alarm notifies' });
    new CfnOutput(Stack.of(this), 'DashboardName', { value: dashboardName, description: 'CloudWatch dashboard of the deployment' });
  }

  private alarm(
    name: string,
    options: {
      metric: IMetric;
      threshold: number;
      description: string;
      evaluationPeriods?: number;
      comparisonOperator?: ComparisonOperator;
      treatMissingData?: TreatMissingData;
    },
  ): Alarm {
    const alarm = new Alarm(this, name.replace(/[^A-Za-z0-9]/g, ''), {
      alarmName: `${this.prefix}${name}`,
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data is no traffic, no failure: not a breach (but for IngestStalled, where no data is the failure).
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.set(name, alarm);
    return alarm;
  }

  private createDashboard(stack: WatchedResources, dashboardName: string): Dashboard {
    const period = this.period;
    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName, defaultInterval: Duration.hours(3) });
    const apis = [...stack.apis];

    dashboard.addWidgets(
      new TextWidget({
        markdown: `# ${Stack.of(this).stackName}\nRequests, errors and p99 latency per API; the ingest per chain (progress, lag); queues (dead letters, oldest message age); the table. What each alarm means: README, "Operations runbook".`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      ...apis.map(
        ([api, { api: httpApi }]) =>
          new GraphWidget({
            title: `${api} API: requests, 4xx, 5xx`,
            left: [
              httpApi.metricCount({ statistic: 'Sum', period, label: 'requests' }),
              httpApi.metricClientError({ statistic: 'Sum', period, label: '4xx' }),
              httpApi.metricServerError({ statistic: 'Sum', period, label: '5xx' }),
            ],
            width: 8,
          }),
      ),
    );
    dashboard.addWidgets(
      ...apis.map(
        ([api, { api: httpApi }]) =>
          new GraphWidget({
            title: `${api} API: latency (ms)`,
            left: [
              httpApi.metricLatency({ statistic: 'p99', period, label: 'p99' }),
              httpApi.metricLatency({ statistic: 'p50', period, label: 'p50' }),
              httpApi.metricIntegrationLatency({ statistic: 'p99', period, label: 'integration p99' }),
            ],
            width: 8,
          }),
      ),
    );

    const ingestChains = [...stack.jobFunctions.values()].flatMap((entry) => entry.chains ?? []);
    const chainMetric = (metricName: string, chainId: number, statistic = 'Sum') =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: 'ingest', chainId: String(chainId) },
        statistic,
        period,
        label: `${metricName} ${chainId}`,
      });
    const jobs = [...stack.jobFunctions.keys()].map((id) => ({ id, fn: stack.functions.get(id)!.function }));
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Ingest: blocks ingested per chain (its progress; 0 while the chain head stands still)',
        left: ingestChains.map((chain) => chainMetric('BlocksIngested', chain.chainId)),
        width: 6,
      }),
      new GraphWidget({
        title: 'Ingest: lag behind the head per chain, blocks (max; seconds on the right)',
        left: ingestChains.map((chain) => chainMetric('LagBlocks', chain.chainId, 'Maximum')),
        right: ingestChains.map((chain) => chainMetric('LagSeconds', chain.chainId, 'Maximum')),
        leftAnnotations: [{ value: this.settings.ingestLagThresholdBlocks, label: 'IngestLag threshold' }],
        width: 6,
      }),
      new GraphWidget({
        title: 'Ingest: failed runs and reorgs per chain',
        left: ingestChains.map((chain) => chainMetric('IngestFailed', chain.chainId)),
        right: ingestChains.map((chain) => chainMetric('Reorgs', chain.chainId)),
        width: 6,
      }),
      new GraphWidget({
        title: 'Scheduled jobs: errors and duration p99 (ms)',
        left: jobs.map(({ id, fn }) => fn.metricErrors({ statistic: 'Sum', period, label: `${id} errors` })),
        right: jobs.map(({ id, fn }) => fn.metricDuration({ statistic: 'p99', period, label: `${id} p99` })),
        width: 6,
      }),
    );
    // The per-chain schedules (EventBridge Scheduler): ticks attempted against failed and dropped, what IngestStalled counts.
    const scheduled = [...stack.jobFunctions].filter(([, entry]) => entry.schedules !== undefined);
    if (scheduled.length > 0) {
      dashboard.addWidgets(
        ...scheduled.map(
          ([functionId, { schedules, chains }]) =>
            new GraphWidget({
              title: `${functionId} schedules (${chains!.length} chains): ticks attempted, failed, dropped`,
              left: [schedules!.group.metricAttempts({ statistic: 'Sum', period, label: 'attempted' })],
              right: [
                schedules!.group.metricTargetErrors({ statistic: 'Sum', period, label: 'failed' }),
                schedules!.group.metricDropped({ statistic: 'Sum', period, label: 'dropped (to the failure queue)' }),
              ],
              width: 24,
              height: 4,
            }),
        ),
      );
    }

    const queues = [...stack.queues];
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Dead-letter and failure queues: messages visible',
        left: [...stack.deadLetterQueues].map(([id, queue]) =>
          queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period, label: id }),
        ),
        width: 8,
      }),
      new GraphWidget({
        title: 'Queues: oldest message age (s), e.g. how far deposit detection is behind the ingest',
        left: queues.map(([id, queue]) => queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period, label: id })),
        leftAnnotations: [{ value: this.settings.queueAgeThresholdSeconds, label: 'QueueAge threshold' }],
        width: 8,
      }),
      new GraphWidget({
        title: 'Lambda: errors and throttles of every function of the stack',
        left: [this.search('Errors'), this.search('Throttles')],
        width: 8,
      }),
    );

    dashboard.addWidgets(
      new GraphWidget({
        title: 'Table: consumed capacity units',
        left: [
          stack.table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period, label: 'read units' }),
          stack.table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period, label: 'write units' }),
        ],
        width: 8,
      }),
      // One graph each: the two sums are built of metrics with the same ids (one per operation).
      new GraphWidget({
        title: 'Table: throttled requests',
        left: [stack.table.metricThrottledRequestsForOperations({ operations: [...TABLE_OPERATIONS], period })],
        width: 8,
      }),
      new GraphWidget({
        title: 'Table: system errors',
        left: [stack.table.metricSystemErrorsForOperations({ operations: [...TABLE_OPERATIONS], period })],
        width: 8,
      }),
    );
    // The functions' own per-route metrics (shared/observability/route-metrics.ts): one line per route.
    const service = stack.settings.serviceName;
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Routes: p99 latency (ms)',
        left: [this.routeSearch(service, 'Latency', 'p99')],
        width: 8,
      }),
      new GraphWidget({
        title: 'Routes: 5xx and 4xx answers',
        left: [this.routeSearch(service, 'Requests5xx', 'Sum'), this.routeSearch(service, 'Requests4xx', 'Sum')],
        width: 8,
      }),
      new GraphWidget({
        title: 'Routes: DynamoDB calls and capacity units per request',
        left: [this.routeSearch(service, 'DynamoDBCalls', 'Average')],
        right: [this.routeSearch(service, 'DynamoDBReadUnits', 'Average'), this.routeSearch(service, 'DynamoDBWriteUnits', 'Average')],
        width: 8,
      }),
    );
    // The order jobs' own metrics (shared/observability/job-metrics.ts): one line per job and metric.
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Order jobs: orders expired, deposits counted, orders paid',
        left: [
          this.jobSearch(service, 'OrdersExpired'),
          this.jobSearch(service, 'DepositsCounted'),
          this.jobSearch(service, 'DepositsKeptForRefund'),
          this.jobSearch(service, 'OrdersPaid'),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Order jobs: failed runs, failed records, orphaned deposits',
        left: [this.jobSearch(service, 'Failed'), this.jobSearch(service, 'RecordsFailed'), this.jobSearch(service, 'DepositsOrphaned')],
        width: 8,
      }),
      new GraphWidget({
        title: 'Order jobs: DynamoDB calls and write units',
        left: [this.jobSearch(service, 'DynamoDBCalls')],
        right: [this.jobSearch(service, 'DynamoDBWriteUnits')],
        width: 8,
      }),
    );
    dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: [...this.alarms.values()], width: 24 }));
    return dashboard;
  }

  /**
   * A Metrics Insights query over the ingest's metric of every chain (namespace ChainDataApi, dimensions
   * service=ingest and chainId), one series per chain: `aggregate` of its data points in each period.
   */
  private perChain(metricName: string, aggregate: 'MIN' | 'MAX' | 'SUM', service = 'ingest'): MathExpression {
    return new MathExpression({
      expression: `SELECT ${aggregate}(${metricName}) FROM SCHEMA("${METRICS_NAMESPACE}", chainId, service) WHERE service = '${service}' GROUP BY chainId`,
      usingMetrics: {},
      label: `${metricName} per chain`,
      period: this.period,
    });
  }

  /** One line per route of the functions' per-route metric (namespace ChainDataApi, dimensions service and route). */
  private routeSearch(service: string, metricName: string, statistic: string): MathExpression {
    return new MathExpression({
      expression: `SEARCH('{ChainDataApi,service,route} MetricName="${metricName}" service="${service}"', '${statistic}', ${this.period.toSeconds()})`,
      usingMetrics: {},
      label: metricName,
      period: this.period,
    });
  }

  /** One line per job of a job metric, summed per period (namespace ChainDataApi, dimensions service and job). */
  private jobSearch(service: string, metricName: string): MathExpression {
    return new MathExpression({
      expression: `SEARCH('{ChainDataApi,service,job} MetricName="${metricName}" service="${service}"', 'Sum', ${this.period.toSeconds()})`,
      usingMetrics: {},
      label: metricName,
      period: this.period,
    });
  }

  /** One line per function of this stack (their generated names start with the stack name): a dashboard-only SEARCH. */
  private search(metricName: string): MathExpression {
    return new MathExpression({
      expression: `SEARCH('{AWS/Lambda,FunctionName} MetricName="${metricName}" "${Stack.of(this).stackName}-"', 'Sum', ${this.period.toSeconds()})`,
      usingMetrics: {},
      label: metricName,
      period: this.period,
    });
  }
}
