/**
 * Deploy-time settings of the stack, read from CDK context (cdk.json, or `-c key=value` on the CLI)
 * and validated once, so that a typo fails `cdk synth` with a readable message instead of deploying
 * something unintended. Values given on the command line arrive as strings: numbers, JSON arrays and
 * objects, and comma-separated origin lists are accepted in that form too.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import * as v from 'valibot';

/** The ingest function's memory, MB, for chains without their own (`ingestMemorySize`). */
export const DEFAULT_INGEST_MEMORY_SIZE = 512;

/**
 * A chain the ingest serves: its id and the SSM parameter holding its RPC URL, plus optional per-chain
 * ingest settings. The chain's schedule passes them to its ingest function in its event
 * (`{ chainId, rpcUrlParameter, blockTimeMs?, firstBlock?, traceMethod? }`, lib/ingest-schedules.ts);
 * `ingestMemorySize` picks that function (one per memory size).
 */
export interface ChainSetting {
  chainId: number;
  /** SSM parameter name, e.g. `/chain-data-api/rpc/8453` (String or SecureString). */
  rpcUrlParameter: string;
  /**
   * ARN of the customer managed KMS key of a SecureString parameter (the function may decrypt with it
   * through SSM, for this parameter only). Absent for a String or a SecureString under `aws/ssm`.
   */
  rpcUrlKeyArn?: string;
  /** The chain's block time in milliseconds (how often the ingest polls its head); absent: the ingest's default. */
  blockTimeMs?: number;
  /** Where the ingest starts on an empty table; absent: the ingest's default (INGEST_FIRST_BLOCK). */
  firstBlock?: number;
  /** How block traces are read from this chain's node; absent: the ingest's default (INGEST_TRACE_METHOD, or found out). */
  traceMethod?: 'callTracer' | 'parity' | 'none';
  /**
   * Memory of this chain's ingest function, MB; absent: `ingestMemorySize`. Chains of one memory share
   * one function: a heavy chain (Base: 3,538, two vCPUs, one table writer) gets a function of its own
   * without every light chain paying for it (lib/service-stack.ts jobInstances).
   */
  ingestMemorySize?: number;
}

export interface ServiceSettings {
  removalPolicy: RemovalPolicy;
  logRetention: RetentionDays;
  corsAllowedOrigins: string[];
  throttle: { rateLimit: number; burstLimit: number };
  /** Tighter limits for the routes that write (POST): orders, checkout sessions, collections. */
  writeThrottle: { rateLimit: number; burstLimit: number };
  chains: ChainSetting[];
  /** Extra environment variables for every function (domain settings chosen at deploy time). */
  functionEnvironment: Record<string, string>;
  serviceName: string;
  /** Memory and timeout of the HTTP route functions (jobs carry their own in shared/jobs.ts). */
  routeMemorySize: number;
  /** Memory of the ingest function of every chain without its own `ingestMemorySize` (the `perChain` job of shared/jobs.ts), MB. */
  ingestMemorySize: number;
  routeTimeoutSeconds: number;
  /** Backfill shards staged at once by the backfill state machine (lib/backfill.ts). */
  backfillConcurrency: number;
  /** Days unpaid orders and unused checkout sessions stay after their expiry (`ORDER_RETENTION_DAYS`, DynamoDB TTL). */
  orderRetentionDays: number;
  /** Load the Powertools tracer in every HTTP function (POWERTOOLS_TRACE_ENABLED); Lambda's active tracing is always on. */
  tracerSdk: boolean;
  /** AWS WAF in front of each API (lib/waf.ts): off by default. */
  waf: WafSettings;
  /** The table's class and billing (issue 27's cost options; README "Table class and billing"). */
  table: TableSettings;
  /** The cold history tier (context `coldAfterDays`; docs/decisions/cold-history.md): off when undefined. */
  coldHistory?: ColdHistoryStackSettings;
  operations: OperationsSettings;
}

/**
 * The cold history tier: a bucket of compacted history, the job that fills it (CompactColdHistory, one
 * schedule per chain), the ingest's expiry of history items, and the routes' reads of it.
 */
export interface ColdHistoryStackSettings {
  /** COLD_AFTER_DAYS: the days of history the table keeps before the job compacts it. */
  afterDays: number;
  /** COLD_MARGIN_DAYS: the days more before the items expire (the job's allowance). */
  marginDays: number;
  /** COLD_SPAN_BLOCKS: most blocks a span of the job compacts. */
  spanBlocks: number;
  /** COLD_RANGE_GROUPS: runs a span is split into by range (each holds only its group's items). */
  rangeGroups: number;
}

/**
 * The table's class and capacity mode. `provisioned`: write and read capacity of the table and each
 * GSI auto scaled between the bounds, tracking `targetUtilization` percent of consumed / provisioned.
 */
export interface TableSettings {
  tableClass: 'standard' | 'standard-ia';
  /**
   * What gsi2 and gsi3 store of a balance or order: `keys-only` (shared/table/definition.ts), or `all`,
   * which a stack deployed before 2026-12-02 keeps (CloudFormation cannot change an index's projection
   * in place; the readers take either).
   */
  indexProjection: 'keys-only' | 'all';
  billing: 'on-demand' | 'provisioned';
  capacity: { minWrite: number; maxWrite: number; minRead: number; maxRead: number; targetUtilization: number };
}

/**
 * The optional AWS WAF web ACL per API. HTTP APIs cannot be associated with WAF, so when it is on each
 * API gets a CloudFront distribution in front of it, protected by a CLOUDFRONT-scoped web ACL (us-east-1).
 */
export interface WafSettings {
  enabled: boolean;
  /** Requests one client IP may send to one API in any 5 minutes before WAF answers 429. */
  rateLimit: number;
}

/** Alarms, their SNS topic and the dashboard (lib/operations.ts). */
export interface OperationsSettings {
  /** Subscribed to the alarm topic when set. */
  alarmEmail?: string;
  /** Prefix of every alarm name; empty in context means `<stackName>-`. */
  alarmNamePrefix?: string;
  /** Empty in context means the stack name. */
  dashboardName?: string;
  /** Period of every alarm's metric. */
  alarmPeriodMinutes: number;
  /** Messages visible in a dead-letter queue (or a job's failure queue) that raise its alarm. */
  deadLetterThreshold: number;
  /** 5xx answers of one API in one period. */
  api5xxThreshold: number;
  /** p99 latency of one API, milliseconds, over `apiLatencyEvaluationPeriods` periods in a row. */
  apiLatencyP99ThresholdMs: number;
  apiLatencyEvaluationPeriods: number;
  /** Failed runs of one scheduled job function (the ingest of every chain, the order expiry) in one period. */
  jobErrorsThreshold: number;
  /** Blocks behind the node's head (a chain's least lag over a period; any chain) at which IngestLag fires. */
  ingestLagThresholdBlocks: number;
  /**
   * Periods in a row in which the chains' schedules delivered fewer ticks than they make (half a
   * schedule's worth short: one stopped) after which IngestStalled fires; times `alarmPeriodMinutes`, at
   * most what CloudWatch evaluates.
   */
  ingestStalledPeriods: number;
  /**
   * Seconds the oldest message of a queue between functions (`DepositEvents`: blocks whose order deposits are
   * not yet detected) may wait, at its most over a period, before QueueAge fires.
   */
  queueAgeThresholdSeconds: number;
  /** Throttled invocations of one function in one period. */
  lambdaThrottlesThreshold: number;
  /** Throttled requests and system errors of the table in one period (all operations). */
  tableThrottlesThreshold: number;
  tableSystemErrorsThreshold: number;
}

/** Every context key the stack reads, with its default. cdk.json repeats these defaults. */
export const SETTING_DEFAULTS = {
  removalPolicy: 'retain',
  logRetentionDays: 30,
  corsAllowedOrigins: ['*'],
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  writeThrottleRateLimit: 10,
  writeThrottleBurstLimit: 20,
  chains: [] as ChainSetting[],
  functionEnvironment: {} as Record<string, string>,
  serviceName: 'chain-data-api',
  routeMemorySize: 512,
  routeTimeoutSeconds: 15,
  ingestMemorySize: DEFAULT_INGEST_MEMORY_SIZE,
  backfillConcurrency: 10,
  tableClass: 'standard',
  tableBilling: 'on-demand',
  tableMinWriteCapacity: 5,
  tableMaxWriteCapacity: 40_000,
  tableMinReadCapacity: 5,
  tableMaxReadCapacity: 40_000,
  tableTargetUtilization: 70,
  tableIndexProjection: 'keys-only',
  orderRetentionDays: 30,
  tracerSdk: false,
  coldAfterDays: 0,
  coldMarginDays: 14,
  coldSpanBlocks: 1800,
  coldRangeGroups: 16,
  waf: false,
  wafRateLimit: 2000,
  alarmEmail: '',
  alarmNamePrefix: '',
  dashboardName: '',
  alarmPeriodMinutes: 5,
  deadLetterThreshold: 1,
  api5xxThreshold: 5,
  apiLatencyP99ThresholdMs: 5000,
  apiLatencyEvaluationPeriods: 3,
  jobErrorsThreshold: 3,
  ingestLagThresholdBlocks: 100,
  ingestStalledPeriods: 3,
  queueAgeThresholdSeconds: 900,
  lambdaThrottlesThreshold: 1,
  tableThrottlesThreshold: 1,
  tableSystemErrorsThreshold: 1,
} as const;

/** Environment variables the stack sets itself; `functionEnvironment` may not override them. */
export const STACK_MANAGED_ENV = [
  'TABLE_NAME',
  'POWERTOOLS_SERVICE_NAME',
  'NODE_OPTIONS',
  'CORS_ALLOWED_ORIGINS',
  'API_NAME',
  'CHAIN_ID',
  'INGESTED_CHAIN_IDS',
  'RPC_URL_PARAMETER',
  'CHAIN_RPC_PARAMETERS',
  'DYNAMODB_ENDPOINT',
  'ORDER_RETENTION_DAYS',
  'POWERTOOLS_TRACE_ENABLED',
  // Local runs only: loopback addresses are never fetched in AWS.
  'NFT_METADATA_ALLOW_LOOPBACK',
  'WEBHOOK_ALLOW_LOOPBACK',
  'NFT_METADATA_QUEUE_URL',
  // The cold history tier (context coldAfterDays and the rest).
  'COLD_BUCKET',
  'COLD_STORE_ENDPOINT',
  'COLD_AFTER_DAYS',
  'COLD_MARGIN_DAYS',
  'COLD_SPAN_BLOCKS',
  'COLD_RANGE_GROUPS',
] as const;

const RETENTION_VALUES = Object.values(RetentionDays).filter((value): value is number => typeof value === 'number');

/** Parses a JSON array/object given as a CLI string; leaves other values alone. */
const fromJsonString = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) return value;
  try {
    return JSON.parse(trimmed);
  } catch {
    return value;
  }
};

const boolean = v.pipe(
  v.union([v.boolean(), v.picklist(['true', 'false'])], 'must be true or false'),
  v.transform((value) => value === true || value === 'true'),
);

const integer = (min: number, max: number) =>
  v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^\s*\d+\s*$/), v.transform(Number))], 'must be a whole number'),
    v.integer('must be a whole number'),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const origin = v.pipe(
  v.string(),
  v.trim(),
  v.check(
    (value) => value === '*' || /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(value),
    'must be `*` or an origin like https://app.example.com (scheme, host, optional port; no path)',
  ),
);

const originList = v.pipe(
  v.unknown(),
  v.transform((value) => (typeof value === 'string' && !value.trim().startsWith('[') ? value.split(',') : fromJsonString(value))),
  v.array(origin),
  v.transform((origins) => origins.filter((entry) => entry.length > 0)),
  v.minLength(1, 'must list at least one origin'),
);

const parameterName = v.pipe(
  v.string(),
  v.regex(/^\/?[A-Za-z0-9_.\-/]+$/, 'must be an SSM parameter name such as /chain-data-api/rpc/8453'),
  v.check((name) => !name.includes('//') && !name.endsWith('/'), 'must be an SSM parameter name such as /chain-data-api/rpc/8453'),
);

// A key ARN: IAM cannot grant kms:Decrypt through an alias ARN (that names the alias, not the key).
const keyArn = v.pipe(
  v.string(),
  v.regex(
    /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/,
    'must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), not an alias',
  ),
);

const chainList = v.pipe(
  v.unknown(),
  v.transform(fromJsonString),
  v.array(
    v.strictObject({
      chainId: integer(1, Number.MAX_SAFE_INTEGER),
      rpcUrlParameter: parameterName,
      rpcUrlKeyArn: v.optional(keyArn),
      // From a fast L2's 100 ms to a slow chain's minutes.
      blockTimeMs: v.optional(integer(50, 3_600_000)),
      firstBlock: v.optional(integer(0, Number.MAX_SAFE_INTEGER)),
      traceMethod: v.optional(v.picklist(['callTracer', 'parity', 'none'], 'must be callTracer, parity or none')),
      ingestMemorySize: v.optional(integer(128, 10_240)),
    }),
  ),
  v.check((chains) => new Set(chains.map((chain) => chain.chainId)).size === chains.length, 'lists a chainId more than once'),
);

const environmentName = /^[A-Za-z_][A-Za-z0-9_]*$/;

const functionEnvironment = v.pipe(
  v.unknown(),
  v.transform(fromJsonString),
  v.record(
    v.pipe(v.string(), v.regex(environmentName, 'is not a valid environment variable name')),
    v.pipe(
      v.union([v.string(), v.number(), v.boolean()], 'values must be strings (numbers and booleans are converted)'),
      v.transform(String),
    ),
  ),
  v.check(
    (env) => !Object.keys(env).some((key) => (STACK_MANAGED_ENV as readonly string[]).includes(key)),
    `may not set a variable the stack manages (${STACK_MANAGED_ENV.join(', ')})`,
  ),
);

const settingsSchema = v.object({
  removalPolicy: v.picklist(['retain', 'destroy'], 'must be `retain` or `destroy`'),
  logRetentionDays: v.pipe(
    integer(1, 9999),
    v.check((days) => RETENTION_VALUES.includes(days), `must be one of CloudWatch's retention periods: ${RETENTION_VALUES.join(', ')}`),
  ),
  corsAllowedOrigins: originList,
  // API Gateway accepts up to the account limit (10,000 rps by default); anything above is a typo.
  throttleRateLimit: integer(1, 10_000),
  throttleBurstLimit: integer(1, 5_000),
  writeThrottleRateLimit: integer(1, 10_000),
  writeThrottleBurstLimit: integer(1, 5_000),
  chains: chainList,
  functionEnvironment,
  serviceName: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, `.`, `_` or `-`')),
  routeMemorySize: integer(128, 10_240),
  ingestMemorySize: integer(128, 10_240),
  // An HTTP API waits at most 30 s for its integration; a longer Lambda timeout only burns money.
  routeTimeoutSeconds: integer(1, 29),
  // Each shard is one Lambda invocation reading the chain's node: the node's rate limit decides.
  backfillConcurrency: integer(1, 1_000),
  tableClass: v.picklist(['standard', 'standard-ia'], 'must be `standard` or `standard-ia`'),
  tableBilling: v.picklist(['on-demand', 'provisioned'], 'must be `on-demand` or `provisioned`'),
  // DynamoDB's default account quota is 40,000 units per table; auto scaling targets 20 to 90 %.
  tableMinWriteCapacity: integer(1, 40_000),
  tableMaxWriteCapacity: integer(1, 40_000),
  tableMinReadCapacity: integer(1, 40_000),
  tableMaxReadCapacity: integer(1, 40_000),
  tableTargetUtilization: integer(20, 90),
  tableIndexProjection: v.picklist(['keys-only', 'all'], 'must be `keys-only` or `all`'),
  // ORDER_RETENTION_DAYS accepts 1 to 3650 (shared/orders/config.ts).
  orderRetentionDays: integer(1, 3650),
  tracerSdk: boolean,
  // 0: the cold tier is off; else COLD_AFTER_DAYS (shared/ingest/config.ts: 1 to 36,500).
  coldAfterDays: integer(0, 36_500),
  coldMarginDays: integer(1, 365),
  coldSpanBlocks: integer(1, 1_000_000),
  coldRangeGroups: integer(1, 1_024),
  waf: boolean,
  // A WAF rate-based rule accepts 10 to 2,000,000,000 requests per evaluation window (5 minutes here).
  wafRateLimit: integer(10, 2_000_000_000),
  alarmEmail: v.pipe(
    v.string(),
    v.trim(),
    v.check((email) => email === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email), 'must be an email address (or empty for none)'),
  ),
  alarmNamePrefix: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.\-/]{0,64}$/, 'must be at most 64 letters, digits, `.`, `_`, `-` or `/`')),
  dashboardName: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{0,255}$/, 'must be at most 255 letters, digits, `_` or `-`')),
  // CloudWatch periods of 1 minute or more must be whole minutes; a day is plenty for these alarms.
  alarmPeriodMinutes: integer(1, 1440),
  deadLetterThreshold: integer(1, 1_000_000),
  api5xxThreshold: integer(1, 1_000_000),
  apiLatencyP99ThresholdMs: integer(1, 30_000),
  apiLatencyEvaluationPeriods: integer(1, 100),
  jobErrorsThreshold: integer(1, 1_000_000),
  ingestLagThresholdBlocks: integer(1, 100_000_000),
  // CloudWatch evaluates at most a day of periods under an hour (a week of longer ones): checked with the period below.
  ingestStalledPeriods: integer(1, 1440),
  // The queues keep a message 4 days (lib/service-stack.ts): no message gets older than that.
  queueAgeThresholdSeconds: integer(1, 4 * 24 * 3600),
  lambdaThrottlesThreshold: integer(1, 1_000_000),
  tableThrottlesThreshold: integer(1, 1_000_000),
  tableSystemErrorsThreshold: integer(1, 1_000_000),
});

type SettingKey = keyof typeof SETTING_DEFAULTS;

/** Reads and validates every setting from the construct tree's context, applying the defaults. */
export function readSettings(scope: Construct): ServiceSettings {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(SETTING_DEFAULTS) as SettingKey[]) {
    raw[key] = scope.node.tryGetContext(key) ?? SETTING_DEFAULTS[key];
  }
  const result = v.safeParse(settingsSchema, raw);
  if (!result.success) {
    const problems = result.issues.map((issue) => `context \`${v.getDotPath(issue) ?? '?'}\` ${issue.message}`);
    throw new Error(`Invalid stack settings: ${problems.join('; ')}`);
  }
  const settings = result.output;
  if (settings.throttleBurstLimit < settings.throttleRateLimit) {
    throw new Error('Invalid stack settings: context `throttleBurstLimit` must be at least `throttleRateLimit`');
  }
  if (settings.writeThrottleBurstLimit < settings.writeThrottleRateLimit) {
    throw new Error('Invalid stack settings: context `writeThrottleBurstLimit` must be at least `writeThrottleRateLimit`');
  }
  if (settings.writeThrottleRateLimit > settings.throttleRateLimit || settings.writeThrottleBurstLimit > settings.throttleBurstLimit) {
    throw new Error('Invalid stack settings: the write throttle (`writeThrottle*`) may not exceed the API throttle (`throttle*`)');
  }
  if (settings.tableMinWriteCapacity > settings.tableMaxWriteCapacity || settings.tableMinReadCapacity > settings.tableMaxReadCapacity) {
    throw new Error('Invalid stack settings: context `tableMin*Capacity` may not exceed `tableMax*Capacity`');
  }
  const stalledMinutes = settings.ingestStalledPeriods * settings.alarmPeriodMinutes;
  if (stalledMinutes > (settings.alarmPeriodMinutes < 60 ? 1440 : 7 * 1440)) {
    throw new Error(
      `Invalid stack settings: context \`ingestStalledPeriods\` x \`alarmPeriodMinutes\` (${stalledMinutes} min) must be at most a day (a week for periods of an hour or more): CloudWatch evaluates no longer`,
    );
  }
  return {
    removalPolicy: settings.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    logRetention: settings.logRetentionDays as RetentionDays,
    corsAllowedOrigins: settings.corsAllowedOrigins,
    throttle: { rateLimit: settings.throttleRateLimit, burstLimit: settings.throttleBurstLimit },
    writeThrottle: { rateLimit: settings.writeThrottleRateLimit, burstLimit: settings.writeThrottleBurstLimit },
    chains: settings.chains,
    functionEnvironment: settings.functionEnvironment,
    serviceName: settings.serviceName,
    routeMemorySize: settings.routeMemorySize,
    ingestMemorySize: settings.ingestMemorySize,
    routeTimeoutSeconds: settings.routeTimeoutSeconds,
    backfillConcurrency: settings.backfillConcurrency,
    orderRetentionDays: settings.orderRetentionDays,
    tracerSdk: settings.tracerSdk,
    ...(settings.coldAfterDays > 0
      ? {
          coldHistory: {
            afterDays: settings.coldAfterDays,
            marginDays: settings.coldMarginDays,
            spanBlocks: settings.coldSpanBlocks,
            rangeGroups: settings.coldRangeGroups,
          },
        }
      : {}),
    waf: { enabled: settings.waf, rateLimit: settings.wafRateLimit },
    table: {
      tableClass: settings.tableClass,
      indexProjection: settings.tableIndexProjection,
      billing: settings.tableBilling,
      capacity: {
        minWrite: settings.tableMinWriteCapacity,
        maxWrite: settings.tableMaxWriteCapacity,
        minRead: settings.tableMinReadCapacity,
        maxRead: settings.tableMaxReadCapacity,
        targetUtilization: settings.tableTargetUtilization,
      },
    },
    operations: {
      alarmEmail: settings.alarmEmail || undefined,
      alarmNamePrefix: settings.alarmNamePrefix || undefined,
      dashboardName: settings.dashboardName || undefined,
      alarmPeriodMinutes: settings.alarmPeriodMinutes,
      deadLetterThreshold: settings.deadLetterThreshold,
      api5xxThreshold: settings.api5xxThreshold,
      apiLatencyP99ThresholdMs: settings.apiLatencyP99ThresholdMs,
      apiLatencyEvaluationPeriods: settings.apiLatencyEvaluationPeriods,
      jobErrorsThreshold: settings.jobErrorsThreshold,
      ingestLagThresholdBlocks: settings.ingestLagThresholdBlocks,
      ingestStalledPeriods: settings.ingestStalledPeriods,
      queueAgeThresholdSeconds: settings.queueAgeThresholdSeconds,
      lambdaThrottlesThreshold: settings.lambdaThrottlesThreshold,
      tableThrottlesThreshold: settings.tableThrottlesThreshold,
      tableSystemErrorsThreshold: settings.tableSystemErrorsThreshold,
    },
  };
}
