/**
 * `ApiFunction`: a NodejsFunction with the house defaults, so the stack reads as a list of routes.
 * - nodejs24.x on ARM64 (`LAMBDA_RUNTIME`), bundled locally by esbuild for that major (`BUNDLE_TARGET`) into one
 *   minified ESM file with source maps, the AWS SDK's default credential chain reduced to its environment link
 *   (`BUNDLE_ALIASES`);
 * - its own log group with a retention period and removal policy;
 * - X-Ray active tracing (the role may put trace segments: X-Ray's actions take no resource but `*`);
 * - TABLE_NAME, POWERTOOLS_SERVICE_NAME and NODE_OPTIONS (functionNodeOptions) in the environment;
 * - its own role, allowed to write to its own log group only (no managed AWSLambdaBasicExecutionRole,
 *   whose `logs:*` actions name every log group);
 * - exactly the DynamoDB actions its route or job declares (`TableAccess`), never Scan, never `dynamodb:*`,
 *   writes only under the partition keys it declares (`dynamodb:LeadingKeys`);
 * - the files of npm packages its route reads at run time (`assets`) copied next to the bundle;
 * - a CloudFormation logical id equal to its construct id (the route or job id), so that
 *   `sam local invoke -t cdk.out/<Stack>.template.json <RouteId>` finds it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, Aws, type Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type AddToPrincipalPolicyResult, Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, type IDestination, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type CfnLogGroup, LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TABLE } from '../shared/table/definition';
import { abiKeys, apiKeyKeys, collectionKeys, orderKeys, webhookKeys } from '../shared/table/keys';
import { CHAIN_DATA, type TableAccess } from '../shared/routes';

/** The repository root: handler paths in the route and job tables are relative to it. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The Lambda runtime of every function, and the esbuild target of its bundle: the same Node major, which is
 * also the one the tests, `npm start` and the scripts run on (the `node` devDependency of package.json;
 * test/lib/runtime.test.ts keeps the four in step). docs/decisions/cdk.md records why Node 24.
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;
export const BUNDLE_TARGET = 'node24';

/**
 * NODE_OPTIONS of a function: source maps (stack traces that name the TypeScript), and for the
 * CPU-bound chain writers (the ingest and the backfill worker: `youngGeneration`) V8's young generation
 * sized to the function's memory. V8 sizes it from the memory it sees, which in Lambda is the
 * function's: a few MB, where the ingest allocates about a MB of short-lived objects per block of Base
 * (docs/decisions/ingest.md, "Garbage collection": its scavenges then took 0.6-0.9 ms of CPU a transaction,
 * 0.3 with 32-64 MB semi-spaces).
 */
export function functionNodeOptions(memoryMb: number, options: { youngGeneration?: boolean } = {}): string {
  return ['--enable-source-maps', ...(options.youngGeneration ? [`--max-semi-space-size=${semiSpaceMb(memoryMb)}`] : [])].join(' ');
}

/** A semi-space of V8's young generation for a function of `memoryMb`: a 32nd of it, a power of two from 8 to 64 MB. */
export function semiSpaceMb(memoryMb: number): number {
  return Math.min(64, Math.max(8, 2 ** Math.round(Math.log2(memoryMb / 32))));
}

/** MB of a Lambda function's memory that buy one vCPU (Lambda's CPU share grows with memory: 6 vCPUs at 10,240 MB). */
export const MB_PER_VCPU = 1769;

/**
 * Table writer threads of a CPU-bound chain writer of `memoryMb` (INGEST_TABLE_WRITERS,
 * shared/db/write-workers.ts): one less than its vCPUs, rounded (none at one vCPU or less, where a
 * writer would only take turns with the main thread).
 */
export function tableWritersFor(memoryMb: number): number {
  return Math.max(0, Math.round(memoryMb / MB_PER_VCPU) - 1);
}

/** What every reader gets: point reads and key-range queries on the table and its indexes. */
export const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/**
 * Partition keys of the service's own records, as IAM `StringLike` patterns built with the key builders:
 * orders (and their deposits), order list pointers, checkout sessions, idempotency keys, partners,
 * collections (with their list entries and counters) and the ABI registry. A `CHAIN_DATA` writer (the
 * ingest) may write any key but these: an explicit Deny, which no other grant can lift.
 */
export const SERVICE_RECORD_KEYS: readonly string[] = [
  orderKeys.order('*').pk,
  orderKeys.allOrders().pk,
  orderKeys.creatorOrders('*').pk,
  orderKeys.checkoutSession('*').pk,
  orderKeys.idempotencyKey('*', '*').pk,
  orderKeys.partner('*').pk,
  collectionKeys.collection('*').pk,
  // Every list range, filtered (`COLLECTIONS#<field>#<value>`) or not (`COLLECTIONS#ALL`).
  'COLLECTIONS#*',
  collectionKeys.counter({ pk: '*' }).pk,
  abiKeys.event('*').pk,
  // Insight's secret keys and webhooks (K1, H1 - H4).
  apiKeyKeys.key('*').pk,
  webhookKeys.webhook('*', '*').pk,
  webhookKeys.filter('*' as unknown as number, '*').pk,
  'WEBHOOK-SENT#*',
];

/**
 * Defines `require` in the ESM bundle: esbuild's shim for CommonJS dependencies (AWS SDK internals,
 * middy plugins) calls it, and an ES module has none of its own.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Modules the bundles replace (esbuild `alias`, absolute paths). The AWS SDK's default credential
 * chain becomes its first link, the environment variables in which Lambda passes the role's
 * credentials (shared/aws/lambda-default-credentials.ts explains): the other links and the STS, SSO
 * and sign-in clients they bring are a third of a bundle that no Lambda ever runs.
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': resolve(REPO_ROOT, 'shared/aws/lambda-default-credentials.ts'),
  // The Powertools tracer and the X-Ray SDK it loads (a third of a bundle and of its cold start) are left
  // out unless the stack is deployed with the tracer (context `tracerSdk`, `bundleAliases(true)`).
  '@aws-lambda-powertools/tracer': resolve(REPO_ROOT, 'shared/observability/tracer-left-out.ts'),
};

/** The aliases of a function's bundle: BUNDLE_ALIASES, keeping the real Powertools tracer when `tracerSdk`. */
export function bundleAliases(tracerSdk: boolean): Record<string, string> {
  const { '@aws-lambda-powertools/tracer': _tracer, ...others } = BUNDLE_ALIASES;
  return tracerSdk ? others : { ...BUNDLE_ALIASES };
}

export interface ApiFunctionProps {
  /** Handler module relative to the repository root; it exports `handler`. */
  handler: string;
  table: ITable;
  /** The table access the route or job declares; it becomes the function's only DynamoDB grant. */
  access: TableAccess;
  serviceName: string;
  logRetention: RetentionDays;
  /** Removal policy of the function's log group. */
  removalPolicy: RemovalPolicy;
  /** Extra environment variables (CORS origins, API_NAME, CHAIN_ID, operator settings...). */
  environment?: Record<string, string>;
  timeout: Duration;
  memorySize: number;
  reservedConcurrentExecutions?: number;
  description?: string;
  /** Files of npm packages (module specifiers) the handler reads at run time; copied next to the bundle. */
  assets?: readonly string[];
  /** Lambda's own retries of a failed asynchronous invocation (scheduled jobs set 0). */
  retryAttempts?: number;
  maxEventAge?: Duration;
  /** Where Lambda sends the record of a failed (or expired) asynchronous invocation. */
  onFailure?: IDestination;
  /** Bundle and switch on the Powertools tracer (POWERTOOLS_TRACE_ENABLED); Lambda's active tracing is on either way. */
  tracerSdk?: boolean;
  /** A young generation sized to the memory (functionNodeOptions): the CPU-bound chain writers. */
  youngGeneration?: boolean;
}

/**
 * A function's role whose statements are all inline (one inline policy, rendered at synthesis), not
 * in a separate AWS::IAM::Policy: every grant made to it (its table access, X-Ray, SSM, SQS ...) lands
 * in the role itself, one CloudFormation resource less per function (the stack's 500-resource limit,
 * with a function per route).
 */
export class InlinePolicyRole extends Role {
  private readonly document: PolicyDocument;

  constructor(scope: Construct, id: string, props: { assumedBy: ServicePrincipal; description: string }) {
    const document = new PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { Access: document } });
    this.document = document;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.document.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}

export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const entry = resolve(REPO_ROOT, props.handler);
    if (!existsSync(entry)) {
      throw new Error(`${id}: handler file ${props.handler} does not exist`);
    }

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    (this.logGroup.node.defaultChild as CfnLogGroup).overrideLogicalId(`${id}LogGroup`);

    // Its own role: the Lambda default would attach AWSLambdaBasicExecutionRole (logs:CreateLogGroup,
    // CreateLogStream and PutLogEvents on every log group). The log group exists, so no CreateLogGroup.
    this.role = new InlinePolicyRole(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${id}: writes its own log group and what its route or job declares`,
    });
    this.role.addToPrincipalPolicy(logStatement(this.logGroup.logGroupArn));

    this.function = new NodejsFunction(this, 'Function', {
      entry,
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: resolve(REPO_ROOT, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      retryAttempts: props.retryAttempts,
      maxEventAge: props.maxEventAge,
      onFailure: props.onFailure,
      description: props.description?.slice(0, 256),
      logGroup: this.logGroup,
      role: this.role,
      // X-Ray: Lambda records every invocation's segment (the Powertools tracer adds subsegments when on).
      tracing: Tracing.ACTIVE,
      environment: {
        ...props.environment,
        TABLE_NAME: props.table.tableName,
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        NODE_OPTIONS: functionNodeOptions(props.memorySize, { youngGeneration: props.youngGeneration }),
        POWERTOOLS_TRACE_ENABLED: String(props.tracerSdk ?? false),
        // Empty (= unset) in AWS; declared so that `sam local invoke --env-vars events/env.json` can point
        // the function at the local DynamoDB (sam only overrides variables the template declares).
        DYNAMODB_ENDPOINT: '',
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        minify: true,
        sourceMap: true,
        // Mappings are enough for readable stack traces; embedding the sources would double the asset.
        sourcesContent: false,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        esbuildArgs: {
          '--alias': Object.entries(bundleAliases(props.tracerSdk ?? false)).map(([from, to]) => `${from}=${to}`),
        },
        // Bundle the AWS SDK too: the version tested locally is the one deployed, and a tree-shaken
        // bundle starts faster than loading the runtime's full SDK.
        externalModules: [],
        tsconfig: resolve(REPO_ROOT, 'tsconfig.json'),
        forceDockerBundling: false,
        ...(props.assets && props.assets.length > 0 ? { commandHooks: assetCopyHooks(id, props.assets) } : {}),
      },
    });
    (this.function.node.defaultChild as CfnFunction).overrideLogicalId(id);
    // Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords to the role's default policy.
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so IAM only accepts `*` for them; the role has no other wildcard (its DynamoDB, log and SSM statements name their resources)',
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'nodejs24.x on purpose (the newest Node.js runtime when chosen; cdk-nag flags it once aws-cdk-lib knows a newer one): the bundles target node24 (esbuild) and the test suite runs on that major; moving to a newer runtime is a change of its own, with a new bundle target, the `node` devDependency and a run of the tests and benchmarks',
    });

    for (const statement of tableStatements(props.table, props.access)) {
      this.function.addToRolePolicy(statement);
    }
  }

  /**
   * Lets the function read one SSM parameter, and decrypt it with `keyArn` when that customer managed
   * key encrypts it (the AWS managed `aws/ssm` key needs no grant: its key policy lets every principal of
   * the account decrypt through SSM).
   */
  grantParameterRead(parameterName: string, keyArn?: string): void {
    this.grantParametersRead([{ name: parameterName, keyArn }]);
  }

  /**
   * Lets the function read each of these SSM parameters (one statement naming them all, and one
   * kms:Decrypt statement per customer managed key), as `grantParameterRead` does for one: the ingest
   * and backfill functions serve every chain, and a statement per chain would fill the role's policy.
   */
  grantParametersRead(parameters: readonly { name: string; keyArn?: string }[]): void {
    for (const statement of parametersStatements(Stack.of(this), parameters)) {
      this.function.addToRolePolicy(statement);
    }
  }
}

/**
 * Bundling hooks that copy a route's assets (module specifiers resolved from the repository root) into
 * the bundle's folder, where shared/http/reference-page.ts `readAsset` looks first.
 */
export function assetCopyHooks(id: string, assets: readonly string[]) {
  const requireFromRoot = createRequire(resolve(REPO_ROOT, 'package.json'));
  const files = assets.map((specifier) => {
    try {
      return requireFromRoot.resolve(specifier);
    } catch {
      throw new Error(`${id}: asset ${specifier} is not installed (npm install)`);
    }
  });
  const names = files.map((file) => basename(file));
  if (new Set(names).size !== names.length) throw new Error(`${id}: two assets have the same file name (${names.join(', ')})`);
  const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  return {
    beforeBundling: (): string[] => [],
    beforeInstall: (): string[] => [],
    afterBundling: (_inputDir: string, outputDir: string): string[] =>
      files.map((file, index) => `cp ${quote(file)} ${quote(`${outputDir}/${names[index]}`)}`),
  };
}

/** Writing to one log group (its streams): what a function needs to log, and nothing else. */
export function logStatement(logGroupArn: string): PolicyStatement {
  return new PolicyStatement({ effect: Effect.ALLOW, actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroupArn] });
}

/**
 * The IAM statements for a `TableAccess`: built here because `grantReadData` would include Scan.
 * Writes are allowed only under the partition keys the row declares (every key of a write, in a batch
 * or a transaction too, must match one pattern); a `CHAIN_DATA` writer gets its writes on any key and an
 * explicit Deny on the service's records. A writer that declares no keys is refused.
 */
export function tableStatements(table: ITable, access: TableAccess): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  if (access.read) {
    statements.push(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: [...READ_ACTIONS],
        resources: [table.tableArn, ...TABLE.globalSecondaryIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`)],
      }),
    );
  }
  if (access.write.length > 0) {
    const actions = [...new Set(access.write)].map((action) => `dynamodb:${action}`);
    const keys = access.writeKeys;
    if (keys === undefined || (keys !== CHAIN_DATA && keys.length === 0)) {
      throw new Error(`a writer must declare the partition keys it writes (table.writeKeys), for ${actions.join(', ')}`);
    }
    if (keys === CHAIN_DATA) {
      statements.push(
        new PolicyStatement({ effect: Effect.ALLOW, actions, resources: [table.tableArn] }),
        new PolicyStatement({
          effect: Effect.DENY,
          actions,
          resources: [table.tableArn],
          conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [...SERVICE_RECORD_KEYS] } },
        }),
      );
    } else {
      statements.push(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions,
          resources: [table.tableArn],
          conditions: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...keys] },
            ...(access.writeAttributes ? { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...access.writeAttributes] } } : {}),
          },
        }),
      );
    }
  }
  return statements;
}

/** The ARN of an SSM parameter by name (names with a path start with `/`, which the ARN drops). */
export function parameterArn(stack: Stack, parameterName: string): string {
  return stack.formatArn({
    service: 'ssm',
    resource: 'parameter',
    resourceName: parameterName.replace(/^\//, ''),
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}

/**
 * ssm:GetParameter on exactly one parameter. A SecureString under the AWS managed `aws/ssm` key needs
 * nothing more: that key's policy lets any principal of the account decrypt through SSM (so the
 * parameter grant is the whole protection, and a `key/*` grant would only widen it). Under a customer
 * managed key (`keyArn`), kms:Decrypt on that key only, only through SSM and only for this parameter
 * (Parameter Store passes the parameter ARN as the encryption context).
 */
export function parameterStatements(stack: Stack, parameterName: string, keyArn?: string): PolicyStatement[] {
  return parametersStatements(stack, [{ name: parameterName, keyArn }]);
}

/**
 * `parameterStatements` for several parameters: ssm:GetParameter on exactly their ARNs (one statement),
 * and per customer managed key one kms:Decrypt statement, through SSM only and only for the parameters
 * that key encrypts (`kms:EncryptionContext:PARAMETER_ARN` lists them: StringEquals matches any of them).
 */
export function parametersStatements(stack: Stack, parameters: readonly { name: string; keyArn?: string }[]): PolicyStatement[] {
  if (parameters.length === 0) return [];
  const arns = [...new Set(parameters.map((parameter) => parameterArn(stack, parameter.name)))];
  const statements = [new PolicyStatement({ effect: Effect.ALLOW, actions: ['ssm:GetParameter'], resources: arns })];
  const byKey = new Map<string, string[]>();
  for (const { name, keyArn } of parameters) {
    if (!keyArn) continue;
    const arn = parameterArn(stack, name);
    const list = byKey.get(keyArn) ?? [];
    if (!list.includes(arn)) list.push(arn);
    byKey.set(keyArn, list);
  }
  for (const [keyArn, encrypted] of byKey) {
    statements.push(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['kms:Decrypt'],
        resources: [keyArn],
        conditions: {
          StringEquals: {
            'kms:ViaService': `ssm.${Aws.REGION}.${Aws.URL_SUFFIX}`,
            'kms:EncryptionContext:PARAMETER_ARN': encrypted.length === 1 ? encrypted[0] : encrypted,
          },
        },
      }),
    );
  }
  return statements;
}
