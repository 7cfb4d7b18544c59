/**
 * The whole service: one DynamoDB table, one function per row of the route table behind three HTTP
 * APIs (base, orders, collections; a platform row's function behind all three, told each API's id),
 * a fallback function per API for unknown routes, one scheduled function per job (each job with an SQS
 * queue for its failed runs; a per-chain job is one function for every configured chain, run by one
 * EventBridge Scheduler schedule per chain, lib/ingest-schedules.ts), one SQS queue (FIFO, or standard
 * for a row with `fifo: false`; with its dead-letter queue) per queue row with the function that
 * consumes it, and the alarms, their SNS topic
 * and a dashboard (operations.ts). Settings come from CDK context
 * (see `settings.ts` and cdk.json); the route and job tables come from shared/.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Token, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  type HttpRoute,
  type HttpRouteIntegration,
  type HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { AttributeType, BillingMode, type CfnTable, ProjectionType, Table, TableClass } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction, IDestination } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { projectionOf, TABLE } from '../shared/table/definition';
import { CORS_ALLOWED_HEADERS, CORS_ALLOWED_METHODS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../shared/http/middleware/cors';
import { apiIdVariable } from '../shared/http/api-name';
import type { ApiName } from '../shared/http/groups';
import {
  consumers as consumerTable,
  type Job,
  backfillWorker,
  coldHistoryGroupWorker,
  jobs as jobTable,
  type Queue as QueueRow,
  type QueueConsumer,
  queues as queueTable,
} from '../shared/jobs';
import { MAX_MESSAGE_BYTES } from '../shared/ingest/queue-messages';
import { API_NAMES, apisOf, FALLBACK_HANDLER, NO_TABLE, type Route, routes as routeTable, type TableAccess } from '../shared/routes';
import { ApiFunction, REPO_ROOT, tableWritersFor } from './api-function';
import { RouteInvoker } from './route-integration';
import { Backfill } from './backfill';
import { ChainSchedules, rateMinutes } from './ingest-schedules';
import { Operations } from './operations';
import { type ChainSetting, DEFAULT_INGEST_MEMORY_SIZE, readSettings, type ServiceSettings } from './settings';
import { createDistribution, createWebAcls, WAF_REGION } from './waf';

export interface ServiceStackProps extends StackProps {
  /** Defaults to the route table of shared/routes.ts (tests pass their own). */
  routes?: readonly Route[];
  /** Defaults to the job table of shared/jobs.ts (tests pass their own). */
  jobs?: readonly Job[];
  /** Default to the queue and consumer tables of shared/jobs.ts. */
  queues?: readonly QueueRow[];
  consumers?: readonly QueueConsumer[];
  /** Defaults to the `chains` context. */
  chains?: readonly ChainSetting[];
  /**
   * With context `waf` on and the stack outside us-east-1: the ARN of each API's web ACL, created by a
   * `WafStack` in us-east-1 (lib/stacks.ts; the stack then needs `crossRegionReferences`). In us-east-1
   * the stack creates them itself.
   */
  webAclArns?: ReadonlyMap<ApiName, string>;
}

/** One JSON line per request in each API's access log. */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
} as const;

/** Memory of a job that does not say (routes use the `routeMemorySize` context). */
export const DEFAULT_JOB_MEMORY_SIZE = 512;

const splitList = (list: string): string[] =>
  list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** Whether a route reads chain history (explorer and insights routes that read the table): with the cold tier on, it reads the cold parts too. */
export const readsHistory = (route: Route): boolean =>
  (route.group === 'explorer' || route.group === 'insights') && route.table.read === true;

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** Construct (and logical) id of the function answering unknown routes of an API, e.g. `BaseRouteNotFound`. */
export const fallbackFunctionId = (api: ApiName): string => `${pascal(api)}RouteNotFound`;

/** Construct id of an API; its URL is the stack output `${pascal(api)}Url`. */
export const apiConstructId = (api: ApiName): string => `${pascal(api)}Api`;
export const apiUrlOutputId = (api: ApiName): string => `${pascal(api)}Url`;

/**
 * The functions a job becomes, with the chains each serves for a per-chain job: one function per memory
 * size of its chains whatever their number (each chain run by a schedule of its own), none for a
 * per-chain job without chains. The chains of `defaultMemory` (the `ingestMemorySize` context, which a
 * chain without its own takes) are the job's own id; a chain of another memory is `<job id><memory>`
 * (IngestChain3538), so a heavy chain's memory is paid for by that chain only.
 */
export function jobInstances(
  job: Job,
  chains: readonly ChainSetting[],
  defaultMemory: number = DEFAULT_INGEST_MEMORY_SIZE,
  coldTier = false,
): { id: string; chains?: readonly ChainSetting[]; memorySize?: number }[] {
  if (job.coldTier && !coldTier) return [];
  if (!job.perChain) return [{ id: job.id }];
  if (chains.length === 0) return [];
  if (job.perChainMemorySize !== undefined) return [{ id: job.id, chains, memorySize: job.perChainMemorySize }];
  const byMemory = new Map<number, ChainSetting[]>();
  for (const chain of chains) {
    const memory = chain.ingestMemorySize ?? defaultMemory;
    byMemory.set(memory, [...(byMemory.get(memory) ?? []), chain]);
  }
  return [...byMemory].map(([memorySize, served]) => ({
    id: memorySize === defaultMemory ? job.id : `${job.id}${memorySize}`,
    chains: served,
    memorySize,
  }));
}

/** Variables of local runs only (`npm start`, tests), never set on a function (checkDeploySizes). */
export const LOCAL_ONLY_ENV = ['NFT_METADATA_ALLOW_LOOPBACK', 'WEBHOOK_ALLOW_LOOPBACK'] as const;

/** Lambda's limit on a function's environment: every variable's name and value together, 4 KB. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

/** IAM's limit on a role's inline policies together: characters, whitespace not counted. */
export const ROLE_POLICY_LIMIT_CHARACTERS = 10_240;

/**
 * What the size check counts for a value only CloudFormation knows (a table name, a queue URL, an API
 * id): more than any of them can be (a queue URL is at most about 160 characters), so a template that
 * passes the check fits in Lambda's limit.
 */
export const UNRESOLVED_VALUE_BYTES = 256;

export class ServiceStack extends Stack {
  readonly settings: ServiceSettings;
  readonly table: Table;
  readonly apis = new Map<ApiName, { api: HttpApi; stage: HttpStage }>();
  /** With context `waf` on: the CloudFront distribution in front of each API (lib/waf.ts). */
  readonly distributions = new Map<ApiName, Distribution>();
  readonly functions = new Map<string, ApiFunction>();
  /** The function serving each route row (route id -> function id; rows sharing a handler share one). */
  readonly routeFunctionIds = new Map<string, string>();
  readonly queues = new Map<string, Queue>();
  /** The QueueAge alarm threshold of the queues whose rows set one (`ageAlarmSeconds`), by queue id. */
  readonly queueAgeAlarmSeconds = new Map<string, number>();
  /** Every queue where failures end (construct id -> queue): each queue row's dead-letter queue, each job's failure queue. */
  readonly deadLetterQueues = new Map<string, Queue>();
  /** Scheduled functions, by function id: the job, and for a per-chain job its chains and their schedules. */
  readonly jobFunctions = new Map<string, { job: Job; chains?: readonly ChainSetting[]; schedules?: ChainSchedules }>();
  /** The backfill state machine, when the stack has chains. */
  backfill?: Backfill;
  /** The cold history's bucket, when the tier is on (context `coldAfterDays`). */
  readonly coldBucket?: Bucket;
  /** The cold history job's group worker (CompactColdHistoryGroup), when the tier is on and the stack has chains. */
  coldGroupWorker?: ApiFunction;
  readonly operations: Operations;
  /** The role the HTTP APIs assume to invoke the route functions (lib/route-integration.ts). */
  readonly invoker: RouteInvoker;
  private readonly queueRows = new Map<string, QueueRow>();

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);
    this.settings = readSettings(this);
    const routes = props.routes ?? routeTable;
    const jobs = props.jobs ?? jobTable;
    const chains = props.chains ?? this.settings.chains;
    const queues = props.queues ?? queueTable;
    const consumers = props.consumers ?? consumerTable;
    checkTables(routes, jobs, chains, this.settings.ingestMemorySize);
    checkQueues(queues, consumers, jobs, routes);
    for (const job of jobs.filter((candidate) => candidate.perChain && chains.length === 0)) {
      Annotations.of(this).addWarningV2(
        `chain-data-api:noChainFor${job.id}`,
        `Job ${job.id} runs once per chain, but the \`chains\` context lists none: it is not deployed`,
      );
    }

    const webAclArns = this.settings.waf.enabled ? this.resolveWebAclArns(props.webAclArns) : undefined;

    this.table = this.createTable();
    if (this.settings.coldHistory) this.coldBucket = this.createColdBucket();
    this.invoker = new RouteInvoker(this, 'RouteInvoker');

    // The queues first: routes, consumers and jobs that publish to one get its URL.
    for (const row of queues) {
      const consumer = consumers.find((candidate) => candidate.queue === row.id);
      this.queues.set(row.id, this.createQueue(row, consumer));
      this.queueRows.set(row.id, row);
      if (row.ageAlarmSeconds !== undefined) this.queueAgeAlarmSeconds.set(row.id, row.ageAlarmSeconds);
    }

    for (const api of API_NAMES) {
      const fallback = this.addFunction(fallbackFunctionId(api), FALLBACK_HANDLER, NO_TABLE, {
        description: `Answers requests that match no route of the ${api} API (404, or 405 with Allow)`,
        environment: { API_NAME: api },
      });
      this.apis.set(api, this.createApi(api, fallback, webAclArns?.get(api)));
    }

    // Rows that name one handler file on the same APIs share one function (functionIdOfRoute), and its
    // integration on each API: one integration and one invoke permission per function and API, not per route.
    const byHandler = new Map<string, ApiFunction>();
    const integrations = new Map<string, HttpRouteIntegration>();
    for (const route of routes) {
      const apis = apisOf(route);
      const shared = apis.length > 1;
      const existing = byHandler.get(functionIdOfRoute(routes, route));
      const fn =
        existing ??
        this.addFunction(route.id, route.handler, route.table, {
          description: route.summary,
          environment: {
            // A function behind several APIs tells them apart by requestContext.apiId (shared/http/api-name.ts).
            ...(shared ? Object.fromEntries(apis.map((api) => [apiIdVariable(api), this.apis.get(api)!.api.apiId])) : {}),
            // Every chain the stack ingests is an order chain (shared/orders/config.ts; ORDER_CHAINS adds to them).
            ...(route.group === 'orders' ? { INGESTED_CHAIN_IDS: chains.map((chain) => chain.chainId).join(',') } : {}),
            // The queues it sends to (the NFT metadata refresh routes: NftMetadata).
            ...this.queueUrls(route.publishesTo),
            // A history range's pages continue into the cold parts (shared/db/cold-query.ts).
            ...(this.coldBucket && readsHistory(route) ? { COLD_BUCKET: this.coldBucket.bucketName } : {}),
          },
          assets: route.assets,
        });
      if (!existing) this.grantSend(fn, route.publishesTo);
      if (!existing && this.coldBucket && readsHistory(route)) this.grantColdParts(fn, 's3:GetObject');
      byHandler.set(functionIdOfRoute(routes, route), fn);
      this.routeFunctionIds.set(route.id, functionIdOfRoute(routes, route));
      for (const api of apis) {
        const functionId = functionIdOfRoute(routes, route);
        const key = `${functionId} ${api}`;
        let integration = integrations.get(key);
        if (!integration) {
          // Invoked with the APIs' one invoker role (lib/route-integration.ts): no permission per function and API.
          integration = this.invoker.integration(`${functionId}${shared ? pascal(api) : ''}Integration`, fn.function);
          integrations.set(key, integration);
        }
        const added = this.apis.get(api)!.api.addRoutes({
          path: route.path,
          methods: [HttpMethod[route.method]],
          integration,
        });
        if (route.method === 'POST') this.limitWrites(api, `${route.method} ${route.path}`, added);
      }
    }

    for (const consumer of consumers) this.addConsumer(consumer, chains);

    // The cold job's group worker, before the job that invokes it.
    if (this.coldBucket && chains.length > 0) this.coldGroupWorker = this.addColdGroupWorker();
    for (const job of jobs) {
      for (const instance of jobInstances(job, chains, this.settings.ingestMemorySize, this.coldBucket !== undefined)) {
        this.addJob(job, instance.id, instance.chains, instance.memorySize);
      }
    }
    if (chains.length > 0) this.addBackfill(chains);

    this.operations = new Operations(this, 'Operations', { stack: this, settings: this.settings.operations });
    this.checkDeploySizes();

    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The single DynamoDB table' });
  }

  private createTable(): Table {
    const { tableClass, billing, capacity, indexProjection } = this.settings.table;
    const provisioned = billing === 'provisioned';
    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      tableClass: tableClass === 'standard-ia' ? TableClass.STANDARD_INFREQUENT_ACCESS : TableClass.STANDARD,
      ...(provisioned
        ? { billingMode: BillingMode.PROVISIONED, readCapacity: capacity.minRead, writeCapacity: capacity.minWrite }
        : { billingMode: BillingMode.PAY_PER_REQUEST }),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE.ttlAttribute,
      removalPolicy: this.settings.removalPolicy,
      deletionProtection: this.settings.removalPolicy === RemovalPolicy.RETAIN,
    });
    for (const index of TABLE.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType[projectionOf(index, indexProjection === 'all')],
        ...(provisioned ? { readCapacity: capacity.minRead, writeCapacity: capacity.minWrite } : {}),
      });
    }
    if (provisioned) {
      // Target tracking on consumed / provisioned, for the table and each GSI, reads and writes apart.
      const target = { targetUtilizationPercent: capacity.targetUtilization };
      const writes = { minCapacity: capacity.minWrite, maxCapacity: capacity.maxWrite };
      const reads = { minCapacity: capacity.minRead, maxCapacity: capacity.maxRead };
      table.autoScaleWriteCapacity(writes).scaleOnUtilization(target);
      table.autoScaleReadCapacity(reads).scaleOnUtilization(target);
      for (const { indexName } of TABLE.globalSecondaryIndexes) {
        table.autoScaleGlobalSecondaryIndexWriteCapacity(indexName, writes).scaleOnUtilization(target);
        table.autoScaleGlobalSecondaryIndexReadCapacity(indexName, reads).scaleOnUtilization(target);
      }
    }
    // A fixed logical id: a renamed construct must never replace (and so empty) the table.
    (table.node.defaultChild as CfnTable).overrideLogicalId('Table');
    return table;
  }

  /**
   * Writes get tighter limits than reads (each one is a transaction of several items): a route setting
   * of the API's stage, which CloudFormation accepts only once the route exists.
   */
  private limitWrites(api: ApiName, routeKey: string, routes: readonly HttpRoute[]): void {
    const stage = this.apis.get(api)!.stage;
    const cfnStage = stage.node.defaultChild as CfnStage;
    cfnStage.routeSettings = {
      ...(cfnStage.routeSettings as Record<string, unknown> | undefined),
      [routeKey]: {
        ThrottlingRateLimit: this.settings.writeThrottle.rateLimit,
        ThrottlingBurstLimit: this.settings.writeThrottle.burstLimit,
      },
    };
    for (const route of routes) stage.node.addDependency(route);
  }

  /**
   * The web ACL of each API: given (a WafStack's, in us-east-1), or created here when this stack is in
   * us-east-1. A CLOUDFRONT-scoped web ACL exists nowhere else, so the region must be known at synth.
   */
  private resolveWebAclArns(given: ReadonlyMap<ApiName, string> | undefined): ReadonlyMap<ApiName, string> {
    if (given) {
      const missing = API_NAMES.filter((api) => !given.has(api));
      if (missing.length > 0) throw new Error(`Cannot build the stack: no web ACL ARN for the ${missing.join(', ')} API`);
      return given;
    }
    if (Token.isUnresolved(this.region)) {
      throw new Error(
        'Cannot build the stack: context `waf` is on, and AWS WAF for CloudFront lives in us-east-1, so the stack needs ' +
          'an explicit region: deploy with a region configured (AWS_REGION, or a profile with a region; the CDK CLI ' +
          'passes it as CDK_DEFAULT_REGION) or give the stack `env: { region }`',
      );
    }
    if (this.region !== WAF_REGION) {
      throw new Error(
        `Cannot build the stack: context \`waf\` is on and the stack is in ${this.region}: its web ACLs must come from a ` +
          `WafStack in ${WAF_REGION} (\`webAclArns\`, with \`crossRegionReferences: true\`; createStacks in lib/stacks.ts does this)`,
      );
    }
    const acls = createWebAcls(this, { stackName: this.stackName, rateLimit: this.settings.waf.rateLimit });
    return new Map([...acls].map(([api, acl]) => [api, acl.attrArn]));
  }

  private createApi(api: ApiName, fallback: ApiFunction, webAclArn: string | undefined): { api: HttpApi; stage: HttpStage } {
    const name = pascal(api);
    const httpApi = new HttpApi(this, apiConstructId(api), {
      apiName: `${this.stackName}-${api}`,
      description: `${this.stackName}: the ${api} API`,
      // The stage is added below, with throttling and access logs the default stage cannot take.
      createDefaultStage: false,
      defaultIntegration: this.invoker.integration(`${name}RouteNotFoundIntegration`, fallback.function),
      // API Gateway answers preflights itself and sets the CORS headers of every response (it ignores
      // the ones the functions send), so it gets the same headers the local gateway uses (shared/http/cors.ts).
      corsPreflight: {
        allowOrigins: this.settings.corsAllowedOrigins,
        allowMethods: CORS_ALLOWED_METHODS.map((method) => CorsHttpMethod[method]),
        allowHeaders: splitList(CORS_ALLOWED_HEADERS),
        exposeHeaders: splitList(CORS_EXPOSED_HEADERS),
        maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
      },
    });
    Validations.of(httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Public API without authorization by design: the reference APIs it serves (Blockscout, thirdweb Insight, AnySpend, BaseMint) define none and their published clients send none; abuse is bounded by the stage throttles (tighter on writes) and writes are idempotent or signed (collections)',
    });
    const accessLogs = new LogGroup(this, `${name}AccessLogs`, {
      retention: this.settings.logRetention,
      removalPolicy: this.settings.removalPolicy,
    });
    const stage = httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: this.settings.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    if (webAclArn) {
      // Clients use CloudFront's URL; the stage's own URL still answers, without WAF (docs/decisions/cdk.md).
      const distribution = createDistribution(this, api, { httpApi, webAclArn });
      this.distributions.set(api, distribution);
      new CfnOutput(this, apiUrlOutputId(api), {
        value: `https://${distribution.distributionDomainName}/`,
        description: `Base URL of the ${api} API (CloudFront, behind AWS WAF)`,
      });
    } else {
      new CfnOutput(this, apiUrlOutputId(api), { value: stage.url, description: `Base URL of the ${api} API` });
    }
    return { api: httpApi, stage };
  }

  private addFunction(
    id: string,
    handler: string,
    access: TableAccess,
    options: {
      description: string;
      environment?: Record<string, string>;
      timeoutSeconds?: number;
      memorySize?: number;
      reservedConcurrency?: number;
      scheduled?: boolean;
      onFailure?: IDestination;
      assets?: readonly string[];
      youngGeneration?: boolean;
    },
  ): ApiFunction {
    const timeoutSeconds = options.timeoutSeconds ?? this.settings.routeTimeoutSeconds;
    const fn = new ApiFunction(this, id, {
      handler,
      table: this.table,
      access,
      serviceName: this.settings.serviceName,
      logRetention: this.settings.logRetention,
      removalPolicy: this.settings.removalPolicy,
      environment: {
        ...this.settings.functionEnvironment,
        CORS_ALLOWED_ORIGINS: this.settings.corsAllowedOrigins.join(','),
        // How long unpaid orders and unused checkout sessions stay (shared/orders/retention.ts).
        ...(handler.startsWith('functions/orders/') ? { ORDER_RETENTION_DAYS: String(this.settings.orderRetentionDays) } : {}),
        ...options.environment,
      },
      timeout: Duration.seconds(timeoutSeconds),
      memorySize: options.memorySize ?? this.settings.routeMemorySize,
      reservedConcurrentExecutions: options.reservedConcurrency,
      description: options.description,
      assets: options.assets,
      onFailure: options.onFailure,
      youngGeneration: options.youngGeneration,
      // The Powertools tracer (shared/observability/tracing.ts): opt-in, it costs every cold start.
      tracerSdk: this.settings.tracerSdk,
      // A failed scheduled run is retried by the next tick, not by a second overlapping run; a tick
      // that waited longer than one run (e.g. behind a busy single-writer job) is superseded.
      ...(options.scheduled ? { retryAttempts: 0, maxEventAge: Duration.seconds(Math.min(6 * 3600, Math.max(60, timeoutSeconds))) } : {}),
    });
    this.functions.set(id, fn);
    return fn;
  }

  /**
   * A FIFO queue (explicit deduplication ids, set by the publisher) and its FIFO dead-letter queue, or
   * (`fifo: false`) a standard queue and a standard dead-letter queue: a message received
   * `maxReceiveCount` times without being deleted moves there. The visibility timeout is 6 x the
   * consumer's timeout (AWS's advice for Lambda consumers).
   */
  private createQueue(row: QueueRow, consumer: QueueConsumer | undefined): Queue {
    const fifo = row.fifo ?? true;
    const common = {
      ...(fifo ? { fifo: true } : {}),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: this.settings.removalPolicy,
    } as const;
    const deadLetters = new Queue(this, `${row.id}DeadLetters`, { ...common, retentionPeriod: Duration.days(14) });
    this.deadLetterQueues.set(`${row.id}DeadLetters`, deadLetters);
    return new Queue(this, row.id, {
      ...common,
      ...(fifo ? { contentBasedDeduplication: false } : {}),
      maxMessageSizeBytes: MAX_MESSAGE_BYTES,
      retentionPeriod: Duration.days(4),
      visibilityTimeout: Duration.seconds(6 * (consumer?.timeoutSeconds ?? 60)),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: row.maxReceiveCount },
    });
  }

  /**
   * The consumer's function and its event source mapping (ReportBatchItemFailures). No reserved
   * concurrency: a FIFO queue hands a message group (a chain) to one invocation at a time, so order
   * per chain holds at any concurrency, and a throttled consumer would only burn receives.
   */
  private addConsumer(consumer: QueueConsumer, chains: readonly ChainSetting[]): void {
    const fn = this.addFunction(consumer.id, consumer.handler, consumer.table, {
      description: consumer.summary,
      environment: {
        ...(consumer.handler.startsWith('functions/orders/') ? { INGESTED_CHAIN_IDS: chains.map((chain) => chain.chainId).join(',') } : {}),
        ...this.queueUrls(consumer.publishesTo),
      },
      timeoutSeconds: consumer.timeoutSeconds,
      memorySize: consumer.memorySize ?? DEFAULT_JOB_MEMORY_SIZE,
    });
    this.grantSend(fn, consumer.publishesTo);
    // The mapping grants the consumer ReceiveMessage, DeleteMessage, ChangeMessageVisibility (its retries' backoff) and GetQueueAttributes.
    fn.function.addEventSource(
      new SqsEventSource(this.queues.get(consumer.queue)!, {
        batchSize: consumer.batchSize,
        reportBatchItemFailures: true,
        ...(consumer.maxConcurrency === undefined ? {} : { maxConcurrency: consumer.maxConcurrency }),
      }),
    );
  }

  /** The URL variables of the queues a function publishes to. */
  private queueUrls(publishesTo: readonly string[] | undefined): Record<string, string> {
    return Object.fromEntries((publishesTo ?? []).map((id) => [this.queueRows.get(id)!.urlVariable, this.queues.get(id)!.queueUrl]));
  }

  /** sqs:SendMessage (and so SendMessageBatch) on the queues a function publishes to, nothing more (grantSendMessages would add GetQueueAttributes and GetQueueUrl). */
  private grantSend(fn: ApiFunction, publishesTo: readonly string[] | undefined): void {
    for (const id of publishesTo ?? []) {
      fn.function.addToRolePolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [this.queues.get(id)!.queueArn] }),
      );
    }
  }

  /**
   * A job's function, and what runs it: an EventBridge rule on its schedule, or, for a per-chain job, one
   * EventBridge Scheduler schedule per chain with the chain in its event (lib/ingest-schedules.ts). A
   * per-chain function may read its chains' RPC URL parameters; its reserved concurrency is the job's
   * per chain times its chains, its memory theirs (`memorySize`: jobInstances).
   */
  private addJob(job: Job, id: string, chains: readonly ChainSetting[] | undefined, memorySize?: number): void {
    const chainsMemory = memorySize ?? this.settings.ingestMemorySize;
    const urls = this.queueUrls(job.publishesTo);
    const failures = this.failureQueue(job);
    const ingests = chains !== undefined && !job.coldTier;
    const fn = this.addFunction(id, job.handler, job.table, {
      description: chains ? `${job.summary} (one schedule per chain: ${chains.length} chains)` : job.summary,
      environment: {
        ...urls,
        // The per-chain ingest's item writes on threads of their own past one vCPU (shared/db/write-workers.ts),
        // and the expiry of its history items with the cold tier on.
        ...(ingests ? { INGEST_TABLE_WRITERS: String(tableWritersFor(chainsMemory)), ...this.coldExpiryEnvironment() } : {}),
        ...(job.coldTier ? this.coldJobEnvironment() : {}),
        // A span's groups at once, one invocation of the worker each (docs/decisions/cold-history.md, the fan-out).
        ...(job.coldTier && this.coldGroupWorker ? { COLD_GROUP_FUNCTION: this.coldGroupWorker.function.functionName } : {}),
      },
      timeoutSeconds: job.timeoutSeconds,
      memorySize: chains ? chainsMemory : (job.memorySize ?? DEFAULT_JOB_MEMORY_SIZE),
      reservedConcurrency:
        job.reservedConcurrency !== undefined && chains ? job.reservedConcurrency * chains.length : job.reservedConcurrency,
      scheduled: true,
      onFailure: this.failureDestination(failures),
      // The per-chain ingest writes a chain's blocks: CPU-bound (functionNodeOptions).
      youngGeneration: chains !== undefined,
    });
    if (ingests) fn.grantParametersRead(chains.map((chain) => ({ name: chain.rpcUrlParameter, keyArn: chain.rpcUrlKeyArn })));
    if (job.coldTier) this.grantColdParts(fn, 's3:PutObject');
    if (job.coldTier && this.coldGroupWorker) this.grantInvoke(fn, this.coldGroupWorker);
    this.grantSend(fn, job.publishesTo);
    if (chains) {
      const schedules = new ChainSchedules(this, `${id}Schedules`, {
        jobId: id,
        target: fn.function,
        chains,
        expression: job.schedule,
        deadLetters: failures,
      });
      this.jobFunctions.set(id, { job, chains, schedules });
      new CfnOutput(this, `${id}ScheduleGroup`, {
        value: schedules.group.scheduleGroupName,
        description: `EventBridge Scheduler group of ${id}'s schedules (one per chain, named ${id}-<chainId>)`,
      });
      return;
    }
    this.jobFunctions.set(id, { job });
    new Rule(this, `${id}Schedule`, {
      description: `Runs ${id} on ${job.schedule}`,
      schedule: Schedule.expression(job.schedule),
      targets: [new LambdaFunction(fn.function)],
    });
  }

  /**
   * The cold history job's group worker (shared/jobs.ts coldHistoryGroupWorker): one function for every
   * chain, invoked by CompactColdHistory only; it writes parts and pointers, as the job does.
   */
  private addColdGroupWorker(): ApiFunction {
    const worker = coldHistoryGroupWorker;
    const fn = this.addFunction(worker.id, worker.handler, worker.table, {
      description: worker.summary,
      environment: this.coldJobEnvironment(),
      timeoutSeconds: worker.timeoutSeconds,
      memorySize: worker.memorySize ?? DEFAULT_JOB_MEMORY_SIZE,
    });
    this.grantColdParts(fn, 's3:PutObject');
    return fn;
  }

  /** `fn` may invoke `target` (its unqualified ARN only: no version or alias). */
  private grantInvoke(fn: ApiFunction, target: ApiFunction): void {
    fn.function.addToRolePolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['lambda:InvokeFunction'], resources: [target.function.functionArn] }),
    );
  }

  /** The backfill worker (one function for every chain) and its state machine (lib/backfill.ts). */
  private addBackfill(chains: readonly ChainSetting[]): void {
    const fn = this.addFunction(backfillWorker.id, backfillWorker.handler, backfillWorker.table, {
      description: backfillWorker.summary,
      environment: {
        CHAIN_RPC_PARAMETERS: chains.map((chain) => `${chain.chainId}=${chain.rpcUrlParameter}`).join(','),
        // Its staged items are the ingest's: the same expiry with the cold tier on.
        ...this.coldExpiryEnvironment(),
      },
      timeoutSeconds: backfillWorker.timeoutSeconds,
      memorySize: backfillWorker.memorySize ?? DEFAULT_JOB_MEMORY_SIZE,
      youngGeneration: true,
    });
    fn.grantParametersRead(chains.map((chain) => ({ name: chain.rpcUrlParameter, keyArn: chain.rpcUrlKeyArn })));
    this.backfill = new Backfill(this, 'Backfill', {
      worker: fn,
      concurrency: this.settings.backfillConcurrency,
      logRetention: this.settings.logRetention,
      removalPolicy: this.settings.removalPolicy,
    });
  }

  /**
   * The cold history's bucket (docs/decisions/cold-history.md): shard objects of compressed range parts,
   * written once by the CompactColdHistory job under content-named keys (`cold/<chain>/...`) and read by
   * the routes with ranged GETs. Private, encrypted, TLS only; kept with the stack's removal policy (the
   * table's pointers name its objects: neither is any use without the other).
   */
  private createColdBucket(): Bucket {
    const bucket = new Bucket(this, 'ColdHistory', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: this.settings.removalPolicy,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The cold history bucket is written by one job and read by the routes with their roles; its objects are the chain history the table held, and CloudTrail data events can log its access where an operator wants them',
    });
    new CfnOutput(this, 'ColdHistoryBucket', {
      value: bucket.bucketName,
      description: 'The cold history tier: compacted history older than coldAfterDays',
    });
    return bucket;
  }

  /** The ingest's and backfill's cold tier settings: the expiry of their history items (shared/ingest/cold-settings.ts). */
  private coldExpiryEnvironment(): Record<string, string> {
    const cold = this.settings.coldHistory;
    return cold ? { COLD_AFTER_DAYS: String(cold.afterDays), COLD_MARGIN_DAYS: String(cold.marginDays) } : {};
  }

  /** The cold history job's settings (shared/ingest/cold-job-config.ts). */
  private coldJobEnvironment(): Record<string, string> {
    const cold = this.settings.coldHistory;
    if (!cold || !this.coldBucket) return {};
    return {
      ...this.coldExpiryEnvironment(),
      COLD_BUCKET: this.coldBucket.bucketName,
      COLD_SPAN_BLOCKS: String(cold.spanBlocks),
      COLD_RANGE_GROUPS: String(cold.rangeGroups),
    };
  }

  /** `action` on the cold history's parts only (`cold/*`): the routes GetObject, the job PutObject. */
  private grantColdParts(fn: ApiFunction, action: 's3:GetObject' | 's3:PutObject'): void {
    fn.function.addToRolePolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: [action], resources: [this.coldBucket!.arnForObjects('cold/*')] }),
    );
  }

  /**
   * A job's failure queue, a standard SQS queue `<JobId>Failures`: Lambda puts there the record of each
   * run that failed (no retry: the next tick is the retry) or that expired unrun (older than the maximum
   * event age), and, for a per-chain job, EventBridge Scheduler each tick it could not deliver.
   */
  private failureQueue(job: Job): Queue {
    const id = `${job.id}Failures`;
    let queue = this.deadLetterQueues.get(id);
    if (!queue) {
      queue = new Queue(this, id, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        removalPolicy: this.settings.removalPolicy,
      });
      Validations.of(queue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter queue: the on-failure destination of a scheduled job, where Lambda records failed and expired runs; a dead-letter queue behind it would only move the records again',
      });
      this.deadLetterQueues.set(id, queue);
    }
    return queue;
  }

  /** The on-failure destination of a job's function: its failure queue, which its role may only SendMessage to. */
  private failureDestination(target: Queue): IDestination {
    return {
      bind: (_scope, fn) => {
        fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [target.queueArn] }));
        return { destination: target.queueArn };
      },
    };
  }

  /**
   * Fails synthesis when a function's environment may exceed Lambda's 4 KB (names and values together),
   * or its role's policy IAM's 10,240 characters, which CloudFormation would only refuse at deploy: what
   * grows with the chains (CHAIN_RPC_PARAMETERS of the backfill worker, INGESTED_CHAIN_IDS, the RPC
   * parameters the ingest and backfill roles name) and `functionEnvironment` add up. Also when a
   * function's environment sets NFT_METADATA_ALLOW_LOOPBACK: loopback addresses are never fetched in
   * AWS (the fetcher's Lambda ignores the variable anyway; settings.ts refuses it in `functionEnvironment`).
   */
  private checkDeploySizes(): void {
    const problems: string[] = [];
    for (const [id, fn] of this.functions) {
      const environment = this.resolve((fn.function.node.defaultChild as CfnFunction).environment) as
        | { Variables?: Record<string, unknown>; variables?: Record<string, unknown> }
        | undefined;
      if (LOCAL_ONLY_ENV.some((name) => name in (environment?.Variables ?? environment?.variables ?? {})))
        problems.push(`${id}'s environment sets ${LOCAL_ONLY_ENV.join(' or ')}, which only local runs may set`);
      const bytes = environmentBytes(environment);
      if (bytes > LAMBDA_ENVIRONMENT_LIMIT_BYTES) {
        problems.push(
          `${id}'s environment may take ${bytes} bytes, over Lambda's ${LAMBDA_ENVIRONMENT_LIMIT_BYTES} (shorten \`functionEnvironment\` or the chains' RPC parameter names: CHAIN_RPC_PARAMETERS lists every chain)`,
        );
      }
      // The L1 property, resolved: `policyName` and `policyDocument` (CloudFormation's casing once rendered).
      const policies = (this.resolve((fn.role.node.defaultChild as CfnRole).policies) ?? []) as Record<string, unknown>[];
      const characters = policies.reduce(
        (sum, policy) =>
          sum + String(policy.policyName ?? policy.PolicyName).length + policyCharacters(policy.policyDocument ?? policy.PolicyDocument),
        0,
      );
      if (characters > ROLE_POLICY_LIMIT_CHARACTERS) {
        problems.push(
          `${id}'s role policy may take ${characters} characters, over IAM's ${ROLE_POLICY_LIMIT_CHARACTERS} (it names every chain's RPC parameter: shorter parameter names, or one customer managed key for all of them)`,
        );
      }
    }
    if (problems.length > 0) throw new Error(`Cannot build the stack:\n- ${problems.join('\n- ')}`);
  }
}

/** The longest values of the pseudo parameters a policy names (partition, region, account, URL suffix). */
const PSEUDO_PARAMETER_LENGTHS: Readonly<Record<string, number>> = {
  'AWS::Partition': 'aws-us-gov'.length,
  'AWS::Region': 'ap-southeast-2'.length,
  'AWS::AccountId': 12,
  'AWS::URLSuffix': 'amazonaws.com.cn'.length,
};

/**
 * A resolved policy document's length as IAM counts it (no whitespace), each reference to a resource
 * (an ARN CloudFormation fills in) counted as 128 characters and each pseudo parameter at its longest:
 * an upper bound of the real size.
 */
export function policyCharacters(document: unknown): number {
  const render = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(render);
    if (value && typeof value === 'object') {
      const entry = value as { Ref?: string; 'Fn::GetAtt'?: unknown; 'Fn::Join'?: [string, unknown[]] };
      if (entry.Ref !== undefined) return 'x'.repeat(PSEUDO_PARAMETER_LENGTHS[entry.Ref] ?? 128);
      if (entry['Fn::GetAtt'] !== undefined) return 'x'.repeat(128);
      if (entry['Fn::Join'] !== undefined) return entry['Fn::Join'][1].map(render).join(entry['Fn::Join'][0]);
      return Object.fromEntries(Object.entries(entry).map(([key, inner]) => [key, render(inner)]));
    }
    return value;
  };
  return JSON.stringify(render(document)).length;
}

/**
 * The size of a resolved `Environment` of an AWS::Lambda::Function as Lambda counts it (every name and
 * value, in bytes), a value CloudFormation resolves counted as UNRESOLVED_VALUE_BYTES.
 */
export function environmentBytes(
  environment: { Variables?: Record<string, unknown>; variables?: Record<string, unknown> } | undefined,
): number {
  const variables = environment?.Variables ?? environment?.variables ?? {};
  return Object.entries(variables).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + (typeof value === 'string' ? Buffer.byteLength(value) : UNRESOLVED_VALUE_BYTES),
    0,
  );
}

/** Fails synthesis when a job, consumer or route publishes to, or a consumer reads, a queue the queue table lacks. */
function checkQueues(
  queues: readonly QueueRow[],
  consumers: readonly QueueConsumer[],
  jobs: readonly Job[],
  routes: readonly Route[],
): void {
  const ids = new Set(queues.map((queue) => queue.id));
  const problems = [
    ...[
      ...jobs.map((job) => ({ kind: 'job', ...job })),
      ...consumers.map((c) => ({ kind: 'consumer', ...c })),
      ...routes.map((r) => ({ kind: 'route', ...r })),
    ].flatMap((publisher) =>
      (publisher.publishesTo ?? [])
        .filter((id) => !ids.has(id))
        .map((id) => `${publisher.kind} ${publisher.id} publishes to unknown queue ${id}`),
    ),
    ...consumers
      .filter((consumer) => consumer.maxConcurrency !== undefined && (consumer.maxConcurrency < 2 || consumer.maxConcurrency > 1000))
      .map((consumer) => `consumer ${consumer.id}: maxConcurrency must be from 2 to 1000`),
    ...consumers
      .filter((consumer) => !ids.has(consumer.queue))
      .map((consumer) => `consumer ${consumer.id} reads unknown queue ${consumer.queue}`),
    ...queues
      .filter((queue) => consumers.filter((consumer) => consumer.queue === queue.id).length !== 1)
      .map((queue) => `queue ${queue.id} must have exactly one consumer`),
  ];
  if (problems.length > 0) throw new Error(`Cannot build the stack:\n- ${problems.join('\n- ')}`);
}

/**
 * Fails synthesis with one message naming every problem in the route and job tables: a missing
 * handler file, a duplicate id (ids are CloudFormation logical ids), a bad schedule or timeout.
 */
function checkTables(routes: readonly Route[], jobs: readonly Job[], chains: readonly ChainSetting[], ingestMemory: number): void {
  const problems: string[] = [];
  const functionIds = [
    ...API_NAMES.map(fallbackFunctionId),
    ...routes.map((route) => route.id),
    ...jobs.flatMap((job) => jobInstances(job, chains, ingestMemory).map((instance) => instance.id)),
  ];
  const seen = new Set<string>();
  for (const id of functionIds) {
    if (!/^[A-Z][A-Za-z0-9]{0,254}$/.test(id)) problems.push(`function id ${id} is not PascalCase alphanumeric`);
    if (seen.has(id)) problems.push(`function id ${id} is used twice`);
    seen.add(id);
  }
  const handlers = [
    { id: 'route-not-found fallback', handler: FALLBACK_HANDLER },
    ...routes.map((route) => ({ id: `route ${route.id}`, handler: route.handler })),
    ...jobs.map((job) => ({ id: `job ${job.id}`, handler: job.handler })),
  ];
  for (const { id, handler } of handlers) {
    if (!existsSync(resolve(REPO_ROOT, handler))) problems.push(`${id}: handler file ${handler} does not exist`);
  }
  const routeKeys = new Set<string>();
  for (const route of routes) {
    for (const api of apisOf(route)) {
      const key = `${api} ${route.method} ${route.path}`;
      if (routeKeys.has(key)) problems.push(`route ${route.id}: ${route.method} ${route.path} is declared twice on the ${api} API`);
      routeKeys.add(key);
    }
    // Rows sharing a function (functionIdOfRoute): its grants must suit every one of them.
    const first = routes.find((candidate) => sharesFunction(candidate, route));
    if (first && first !== route && JSON.stringify(first.table) !== JSON.stringify(route.table)) {
      problems.push(`route ${route.id}: shares ${route.handler} with ${first.id} but declares other table access`);
    }
  }
  for (const job of jobs) {
    if (!/^(rate|cron)\(.+\)$/.test(job.schedule)) problems.push(`job ${job.id}: schedule ${job.schedule} is not rate(...) or cron(...)`);
    else if (job.perChain && rateMinutes(job.schedule) === undefined) {
      problems.push(`job ${job.id}: a per-chain job's schedule must be rate(<n> minute(s)|hour(s)|day(s)), not ${job.schedule}`);
    }
    if (!Number.isInteger(job.timeoutSeconds) || job.timeoutSeconds < 1 || job.timeoutSeconds > 900) {
      problems.push(`job ${job.id}: timeoutSeconds must be a whole number from 1 to 900`);
    }
  }
  if (problems.length > 0) {
    throw new Error(`Cannot build the stack:\n- ${problems.join('\n- ')}`);
  }
}

/**
 * The function that serves a route row: rows naming one handler file share one function (one role,
 * log group and function per handler instead of per row: the stack's 500-resource limit), whose id is
 * the first such row's, when they are served on the same APIs. Such rows must declare the same table
 * access (checked at synthesis).
 */
export function functionIdOfRoute(routes: readonly Route[], route: Route): string {
  return (routes.find((candidate) => sharesFunction(candidate, route)) ?? route).id;
}

/** Two rows share a function when they name one handler file and are served on the same APIs. */
const sharesFunction = (a: Route, b: Route): boolean => a.handler === b.handler && apisOf(a).join() === apisOf(b).join();
