/**
 * The synthesised CloudFormation template of ServiceStack, checked the way a reviewer of a deploy
 * would: every route of shared/routes.ts reaches its own function on the right API, each function
 * may do exactly what its row declares in DynamoDB, and the table, APIs and jobs are configured as
 * the context says. Expectations come from the route table, so a new row is covered without edits.
 * Asset bundling is skipped here (context `aws:cdk:bundling-stacks: []`); api-function.test.ts bundles.
 */
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../../shared/http/middleware/cors';
import type { ApiName } from '../../shared/http/groups';
import type { Job } from '../../shared/jobs';
import { backfillWorker, consumers as consumerTable, jobs as jobTable, queues as queueTable } from '../../shared/jobs';
import { MAX_MESSAGE_BYTES } from '../../shared/ingest/queue-messages';
import { apiIdVariable } from '../../shared/http/api-name';
import { API_NAMES, apisOf, CHAIN_DATA, FALLBACK_HANDLER, NO_TABLE, READ_ONLY, type Route, routes } from '../../shared/routes';
import { TABLE } from '../../shared/table/definition';
import { semiSpaceMb, tableWritersFor } from '../../lib/api-function';
import {
  ACCESS_LOG_FIELDS,
  apiConstructId,
  apiUrlOutputId,
  fallbackFunctionId,
  functionIdOfRoute,
  jobInstances,
  type ServiceStack,
} from '../../lib/service-stack';
import {
  actionsOf,
  everyStatement,
  nestedResources,
  ofType,
  type Resource,
  type Resources,
  removeSyntheses,
  resourcesOf,
  statementsOf,
  synthesise,
  tableArn,
} from './support/template';

const READ_ACTIONS = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];

/** The logical id of an API construct (CDK appends a hash to it). */
function apiLogicalId(resources: Resources, api: ApiName): string {
  const ids = ofType(resources, 'AWS::ApiGatewayV2::Api')
    .map(([id]) => id)
    .filter((id) => id.startsWith(apiConstructId(api)));
  expect(ids).toHaveLength(1);
  return ids[0];
}

/** The function a route resource sends its requests to (through its integration). */
function integratedFunction(resources: Resources, route: Resource): string {
  const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
  const integration = resources[integrationId];
  expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
  expect(integration.Properties.IntegrationType).toBe('AWS_PROXY');
  expect(integration.Properties.ApiId).toEqual(route.Properties.ApiId);
  return integration.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
}

/** A function's statements besides the one every function has: writing its own log group (least-privilege.test.ts). */
function grantsOf(resources: Resources, functionId: string): Record<string, any>[] {
  const logGroupId = resources[functionId].Properties.LoggingConfig.LogGroup.Ref as string;
  const own = { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } };
  const statements = statementsOf(resources, functionId);
  expect(statements, functionId).toContainEqual(own);
  const key = (statement: Record<string, any>) =>
    JSON.stringify([statement.Effect, actionsOf(statement), statement.Resource, statement.Condition]);
  // Every role may put X-Ray segments (active tracing; checked by its own test).
  const isXray = (statement: Record<string, any>) => actionsOf(statement).every((action) => action.startsWith('xray:'));
  return statements.filter((statement) => key(statement) !== key(own) && !isXray(statement));
}

/** The DynamoDB actions a function is allowed (a Deny narrows where, tested in least-privilege.test.ts). */
function dynamoActionsOf(resources: Resources, functionId: string): string[] {
  return statementsOf(resources, functionId)
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap(actionsOf)
    .filter((action) => action.startsWith('dynamodb:'))
    .sort();
}

function expectedDynamoActions(access: { read: boolean; write: readonly string[] }): string[] {
  return [...(access.read ? READ_ACTIONS : []), ...access.write.map((action) => `dynamodb:${action}`)].sort();
}

const indexArn = (name: string) => ({ 'Fn::Join': ['', [tableArn, `/index/${name}`]] });

afterAll(() => removeSyntheses());

describe('ServiceStack with the real route and job tables and cdk.json defaults (plus one chain)', () => {
  let resources: Resources;
  let template: Template;
  let stack: ServiceStack;
  // One chain, so that the real per-chain jobs (once shared/jobs.ts has some) are built and checked too.
  const chains = [{ chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453' }];
  const jobFunctions = jobTable.flatMap((job) => jobInstances(job, chains).map((instance) => ({ ...instance, job })));
  // Rows sharing a handler share its function (functionIdOfRoute): one function per handler file.
  const routeFunctionIds = [...new Set(routes.map((route) => functionIdOfRoute(routes, route)))];
  const functionIds = [
    ...routeFunctionIds,
    ...API_NAMES.map(fallbackFunctionId),
    ...jobFunctions.map((fn) => fn.id),
    ...consumerTable.map((consumer) => consumer.id),
    backfillWorker.id,
  ];

  beforeAll(() => {
    ({ resources, template, stack } = synthesise({ chains }));
  });

  it('synthesises without errors', () => {
    Annotations.fromStack(stack).hasNoError('*', Match.anyValue());
  });

  it('has one function per route and one fallback per API, each nodejs24.x on arm64 with its own log group', () => {
    expect(
      ofType(resources, 'AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual([...functionIds].sort());
    for (const id of functionIds) {
      const fn = resources[id];
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Handler).toBe('index.handler');
      const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref as string;
      expect(resources[logGroupId].Type).toBe('AWS::Logs::LogGroup');
      expect(resources[logGroupId].Properties.RetentionInDays).toBe(30);
      expect(resources[logGroupId].DeletionPolicy).toBe('Retain');
    }
    const logGroupsOfFunctions = functionIds.map((id) => resources[id].Properties.LoggingConfig.LogGroup.Ref);
    expect(new Set(logGroupsOfFunctions).size).toBe(functionIds.length);
  });

  it('gives every function the table name, service name, source maps and the CORS origins', () => {
    for (const id of functionIds) {
      const env = resources[id].Properties.Environment.Variables;
      expect(env).toMatchObject({
        TABLE_NAME: { Ref: 'Table' },
        POWERTOOLS_SERVICE_NAME: 'chain-data-api',
        CORS_ALLOWED_ORIGINS: '*',
      });
      // The chain writers also get a young generation sized to their memory (functionNodeOptions).
      expect(env.NODE_OPTIONS).toMatch(/^--enable-source-maps( --max-semi-space-size=\d+)?$/);
    }
  });

  it('creates three HTTP APIs with a throttled, access-logged $default stage each', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', API_NAMES.length);
    for (const api of API_NAMES) {
      const apiId = apiLogicalId(resources, api);
      expect(resources[apiId].Properties.ProtocolType).toBe('HTTP');
      expect(resources[apiId].Properties.CorsConfiguration).toEqual({
        AllowOrigins: ['*'],
        AllowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
        AllowHeaders: CORS_ALLOWED_HEADERS.split(','),
        ExposeHeaders: CORS_EXPOSED_HEADERS.split(','),
        MaxAge: CORS_MAX_AGE_SECONDS,
      });
      const stages = ofType(resources, 'AWS::ApiGatewayV2::Stage').filter(([, stage]) => stage.Properties.ApiId.Ref === apiId);
      expect(stages).toHaveLength(1);
      const stage = stages[0][1].Properties;
      expect(stage.StageName).toBe('$default');
      expect(stage.AutoDeploy).toBe(true);
      expect(stage.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
      // The routes that write are throttled tighter, each by its own route setting, once the route exists.
      const writes = routes.filter((route) => route.method === 'POST' && apisOf(route).includes(api));
      expect(stage.RouteSettings ?? {}).toEqual(
        Object.fromEntries(writes.map((route) => [`POST ${route.path}`, { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 }])),
      );
      const routeIds = ofType(resources, 'AWS::ApiGatewayV2::Route')
        .filter(
          ([, route]) => route.Properties.ApiId.Ref === apiId && writes.some((write) => route.Properties.RouteKey === `POST ${write.path}`),
        )
        .map(([id]) => id);
      expect(routeIds).toHaveLength(writes.length);
      expect(stages[0][1].DependsOn ?? []).toEqual(expect.arrayContaining(routeIds));
      const logGroupId = stage.AccessLogSettings.DestinationArn['Fn::GetAtt'][0] as string;
      expect(resources[logGroupId].Type).toBe('AWS::Logs::LogGroup');
      expect(resources[logGroupId].Properties.RetentionInDays).toBe(30);
      const format = JSON.parse(stage.AccessLogSettings.Format);
      expect(format).toEqual(ACCESS_LOG_FIELDS);
      expect(format).toMatchObject({ requestId: '$context.requestId', ip: '$context.identity.sourceIp', status: '$context.status' });
    }
  });

  it('routes every METHOD /path of the route table on its API (a platform route on every API) to its own function', () => {
    const routeResources = ofType(resources, 'AWS::ApiGatewayV2::Route').map(([, route]) => route);
    const served = routes.reduce((count, route) => count + apisOf(route).length, 0);
    expect(routeResources).toHaveLength(served + API_NAMES.length);
    for (const route of routes) {
      const matches = routeResources.filter((candidate) => candidate.Properties.RouteKey === `${route.method} ${route.path}`);
      expect(matches, `${route.id}: ${route.method} ${route.path}`).toHaveLength(apisOf(route).length);
      expect(matches.map((match) => match.Properties.ApiId.Ref).sort()).toEqual(
        apisOf(route)
          .map((api) => apiLogicalId(resources, api))
          .sort(),
      );
      for (const match of matches) expect(integratedFunction(resources, match)).toBe(functionIdOfRoute(routes, route));
    }
  });

  it('serves GET /openapi.json and GET /docs on all three APIs, each by one function told every API’s id, without table access', () => {
    for (const [id, path] of [
      ['GetOpenApiDocument', '/openapi.json'],
      ['GetApiReference', '/docs'],
    ]) {
      const keyed = ofType(resources, 'AWS::ApiGatewayV2::Route').filter(([, route]) => route.Properties.RouteKey === `GET ${path}`);
      expect(keyed.map(([, route]) => route.Properties.ApiId.Ref).sort()).toEqual(
        API_NAMES.map((api) => apiLogicalId(resources, api)).sort(),
      );
      for (const [, route] of keyed) expect(integratedFunction(resources, route)).toBe(id);
      const env = resources[id].Properties.Environment.Variables;
      for (const api of API_NAMES) expect(env[apiIdVariable(api)]).toEqual({ Ref: apiLogicalId(resources, api) });
      expect(grantsOf(resources, id)).toEqual([]);
    }
  });

  it('sends unmatched requests of each API to that API’s fallback function', () => {
    for (const api of API_NAMES) {
      const defaults = ofType(resources, 'AWS::ApiGatewayV2::Route').filter(
        ([, route]) => route.Properties.RouteKey === '$default' && route.Properties.ApiId.Ref === apiLogicalId(resources, api),
      );
      expect(defaults).toHaveLength(1);
      const fallbackId = integratedFunction(resources, defaults[0][1]);
      expect(fallbackId).toBe(fallbackFunctionId(api));
      expect(resources[fallbackId].Properties.Environment.Variables.API_NAME).toBe(api);
    }
  });

  it('has one integration per function and API (not per route)', () => {
    const pairs = new Set<string>();
    for (const route of routes) for (const api of apisOf(route)) pairs.add(`${functionIdOfRoute(routes, route)} ${api}`);
    for (const api of API_NAMES) pairs.add(`${fallbackFunctionId(api)} ${api}`);
    const integrations = ofType(resources, 'AWS::ApiGatewayV2::Integration').map(
      ([, integration]) => `${integration.Properties.IntegrationUri['Fn::GetAtt'][0]} ${integration.Properties.ApiId.Ref}`,
    );
    expect(integrations).toHaveLength(pairs.size);
    expect(new Set(integrations).size).toBe(pairs.size);
    expect(ofType(resources, 'AWS::ApiGatewayV2::Route').length).toBeGreaterThan(pairs.size);
  });

  it('lets API Gateway invoke each integrated function through one role that may invoke exactly those functions', () => {
    const invokers = ofType(resources, 'AWS::IAM::Role').filter(([, role]) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('apigateway.amazonaws.com'),
    );
    expect(invokers).toHaveLength(1);
    const [invokerId, invoker] = invokers[0]!;
    // Only API Gateway of this account may assume it.
    expect(invoker.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'apigateway.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      }),
    ]);
    const statements = invoker.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('lambda:InvokeFunction');
    const invokable = [statements[0].Resource]
      .flat()
      .map((arn: any) => arn['Fn::GetAtt'][0])
      .sort();
    expect(invokable).toEqual([...new Set([...routeFunctionIds, ...API_NAMES.map(fallbackFunctionId)])].sort());
    // Every integration is invoked with it; no function takes a resource-based permission instead.
    const integrations = ofType(resources, 'AWS::ApiGatewayV2::Integration');
    expect(integrations.length).toBeGreaterThan(0);
    for (const [, integration] of integrations) expect(integration.Properties.CredentialsArn).toEqual({ 'Fn::GetAtt': [invokerId, 'Arn'] });
    expect(
      ofType(resources, 'AWS::Lambda::Permission').filter(
        ([, permission]) => permission.Properties.Principal === 'apigateway.amazonaws.com',
      ),
    ).toEqual([]);
  });

  it('outputs the URL of each API', () => {
    const outputs = template.toJSON().Outputs;
    for (const api of API_NAMES) {
      const url = outputs[apiUrlOutputId(api)].Value['Fn::Join'][1];
      expect(url[0]).toBe('https://');
      expect(url[1]).toEqual({ Ref: apiLogicalId(resources, api) });
    }
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['BaseUrl', 'OrdersUrl', 'CollectionsUrl']));
  });

  it('traces every function with X-Ray (active), the Powertools tracer off by default, and lets each role put segments', () => {
    for (const id of functionIds) {
      expect(resources[id].Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(resources[id].Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED, id).toBe('false');
      const xray = statementsOf(resources, id).filter((statement) => actionsOf(statement).some((action) => action.startsWith('xray:')));
      expect(xray.flatMap(actionsOf).sort(), id).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      expect(xray.flatMap(resourcesOf), id).toEqual(['*']);
    }
    // HTTP APIs take no X-Ray tracing (docs/decisions/cdk.md): no stage claims it.
    for (const [, stage] of ofType(resources, 'AWS::ApiGatewayV2::Stage')) expect(stage.Properties).not.toHaveProperty('TracingEnabled');
  });

  it('tells every orders function the retention of unpaid orders and unused sessions (30 days), and no other function', () => {
    const handlers = new Map<string, string>([
      ...routes.map((route) => [functionIdOfRoute(routes, route), route.handler] as const),
      ...jobFunctions.map((fn) => [fn.id, fn.job.handler] as const),
      ...consumerTable.map((consumer) => [consumer.id, consumer.handler] as const),
    ]);
    const ordersFunctions = functionIds.filter((id) => handlers.get(id)?.startsWith('functions/orders/'));
    expect(ordersFunctions).toEqual(expect.arrayContaining(['CreateOrder', 'CreateCheckoutSession', 'DetectDeposits', 'ExpireOrders']));
    for (const id of functionIds) {
      const env = resources[id].Properties.Environment.Variables;
      expect(env.ORDER_RETENTION_DAYS, id).toBe(ordersFunctions.includes(id) ? '30' : undefined);
    }
  });

  it('creates the table of shared/db/table.ts: keys, GSIs with their projections, TTL, PITR, on demand, retained', () => {
    const tables = ofType(resources, 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const [, table] = tables[0];
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(
      TABLE.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      })),
    );
    // gsi3: X1, a holder's positive balances by value (the balance items' own keys, sparse).
    expect(table.Properties.GlobalSecondaryIndexes.map((index: { IndexName: string }) => index.IndexName)).toEqual([
      'gsi1',
      'gsi2',
      'gsi3',
    ]);
    expect(table.Properties.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'gsi3pk', AttributeType: 'S' },
        { AttributeName: 'gsi3sk', AttributeType: 'S' },
      ]),
    );
  });

  it('grants each route exactly the DynamoDB actions its row declares, reads on the table and its indexes', () => {
    for (const route of routes) {
      const functionId = functionIdOfRoute(routes, route);
      expect(dynamoActionsOf(resources, functionId), route.id).toEqual(expectedDynamoActions(route.table));
      for (const statement of statementsOf(resources, functionId)) {
        const actions = actionsOf(statement);
        if (actions.some((action) => READ_ACTIONS.includes(action))) {
          expect(resourcesOf(statement)).toEqual([tableArn, ...TABLE.globalSecondaryIndexes.map((index) => indexArn(index.indexName))]);
        } else if (actions.some((action) => action.startsWith('dynamodb:'))) {
          expect(resourcesOf(statement)).toEqual([tableArn]);
        }
      }
    }
    for (const api of API_NAMES) expect(dynamoActionsOf(resources, fallbackFunctionId(api))).toEqual([]);
  });

  it('schedules each job of shared/jobs.ts and grants it exactly its declared DynamoDB actions', () => {
    const rules = ofType(resources, 'AWS::Events::Rule').map(([, rule]) => rule);
    // A rule per job that is not per chain; the per-chain ingest's schedules are in their nested stack.
    expect(rules).toHaveLength(jobFunctions.filter(({ job }) => !job.perChain).length);
    for (const { id, job, chains: served } of jobFunctions) {
      expect(dynamoActionsOf(resources, id), id).toEqual(expectedDynamoActions(job.table));
      expect(resources[id].Properties.Timeout).toBe(job.timeoutSeconds);
      // No chain in the environment: a per-chain function learns its chain from each event.
      expect(resources[id].Properties.Environment.Variables.CHAIN_ID).toBeUndefined();
      expect(resources[id].Properties.Environment.Variables.RPC_URL_PARAMETER).toBeUndefined();
      if (job.perChain) {
        expect(served).toEqual(chains);
        expect(resources[id].Properties.ReservedConcurrentExecutions).toBe(job.reservedConcurrency! * chains.length);
        expect(resources[id].Properties.MemorySize).toBe(512);
        const schedules = Object.values(nestedResources(stack, id)).filter((resource) => resource.Type === 'AWS::Scheduler::Schedule');
        expect(schedules.map((schedule) => schedule.Properties.ScheduleExpression)).toEqual(chains.map(() => job.schedule));
        continue;
      }
      const targeting = rules.filter((rule) => rule.Properties.Targets.some((target: any) => target.Arn['Fn::GetAtt']?.[0] === id));
      expect(
        targeting.map((rule) => rule.Properties.ScheduleExpression),
        id,
      ).toEqual([job.schedule]);
      expect(resources[id].Properties.ReservedConcurrentExecutions).toBe(job.reservedConcurrency);
    }
    expect(jobFunctions.map(({ id }) => id).sort()).toEqual(['ExpireOrders', 'IngestChain']);
    expect(jobTable.find((job) => job.id === 'IngestChain')).toMatchObject({ perChain: true, timeoutSeconds: 900, reservedConcurrency: 3 });
  });

  describe('the queues between functions (ingest -> orders deposits; ingest and refresh routes -> NFT metadata fetcher)', () => {
    const queueId = (prefix: string) => {
      const ids = ofType(resources, 'AWS::SQS::Queue')
        .map(([id]) => id)
        .filter((id) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id));
      expect(ids, prefix).toHaveLength(1);
      return ids[0]!;
    };
    const sqsStatements = (functionId: string) =>
      statementsOf(resources, functionId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('sqs:')));

    it('is one queue per queue row (FIFO with explicit dedup ids, or standard), 256 KiB messages and a dead-letter queue of its kind after maxReceiveCount', () => {
      // Besides: one failure queue per deployed job (operations.test.ts).
      const deployedJobs = jobTable.filter((job) => jobInstances(job, chains).length > 0);
      expect(ofType(resources, 'AWS::SQS::Queue')).toHaveLength(2 * queueTable.length + deployedJobs.length);
      for (const row of queueTable) {
        const consumer = consumerTable.find((entry) => entry.queue === row.id)!;
        const queue = resources[queueId(row.id)];
        const deadLetters = resources[queueId(`${row.id}DeadLetters`)];
        const fifo = row.fifo ?? true;
        if (!fifo) {
          expect(queue.Properties.FifoQueue).toBeUndefined();
          expect(queue.Properties.ContentBasedDeduplication).toBeUndefined();
          expect(deadLetters.Properties.FifoQueue).toBeUndefined();
        }
        expect(queue.Properties).toMatchObject({
          ...(fifo ? { FifoQueue: true, ContentBasedDeduplication: false } : {}),
          MaximumMessageSize: MAX_MESSAGE_BYTES,
          VisibilityTimeout: 6 * consumer.timeoutSeconds,
          SqsManagedSseEnabled: true,
          RedrivePolicy: {
            deadLetterTargetArn: { 'Fn::GetAtt': [queueId(`${row.id}DeadLetters`), 'Arn'] },
            maxReceiveCount: row.maxReceiveCount,
          },
        });
        expect(deadLetters.Properties).toMatchObject({ ...(fifo ? { FifoQueue: true } : {}), MessageRetentionPeriod: 14 * 24 * 3600 });
        expect(deadLetters.Properties.RedrivePolicy).toBeUndefined();
        expect(queue.DeletionPolicy).toBe('Retain');
      }
      expect(queueTable.map((row) => [row.id, row.fifo ?? true, row.maxReceiveCount])).toEqual([
        ['DepositEvents', true, 5],
        ['NftMetadata', false, 10],
        ['WebhookEvents', true, 5],
        ['WebhookDeliveries', false, 12],
      ]);
    });

    it('feeds each consumer from its queue, in batches, reporting batch item failures', () => {
      const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
      expect(mappings).toHaveLength(consumerTable.length);
      for (const consumer of consumerTable) {
        const mapping = mappings.find((candidate) => candidate.FunctionName.Ref === consumer.id);
        expect(mapping).toMatchObject({
          EventSourceArn: { 'Fn::GetAtt': [queueId(consumer.queue), 'Arn'] },
          BatchSize: consumer.batchSize,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        });
        expect(mapping!.ScalingConfig?.MaximumConcurrency).toBe(consumer.maxConcurrency);
        const fn = resources[consumer.id].Properties;
        expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: consumer.timeoutSeconds });
        // FIFO keeps each chain's order at any concurrency; a reserved limit would only throttle receives into the DLQ.
        expect(fn.ReservedConcurrentExecutions).toBeUndefined();
        expect(dynamoActionsOf(resources, consumer.id)).toEqual(expectedDynamoActions(consumer.table));
        // Its own queue: receive (and, a publisher of it, SendMessage besides); another queue it publishes to: SendMessage alone.
        const statements = sqsStatements(consumer.id);
        const own = statements.filter((statement) => JSON.stringify(resourcesOf(statement)).includes(`"${queueId(consumer.queue)}"`));
        expect(new Set(own.flatMap(actionsOf))).toEqual(
          new Set([
            'sqs:ReceiveMessage',
            'sqs:ChangeMessageVisibility',
            'sqs:GetQueueUrl',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
            ...(consumer.publishesTo?.includes(consumer.queue) ? ['sqs:SendMessage'] : []),
          ]),
        );
        const others = statements.filter((statement) => !own.includes(statement));
        expect(others.flatMap(actionsOf).every((action: string) => action === 'sqs:SendMessage')).toBe(true);
        expect(
          others
            .flatMap(resourcesOf)
            .map((arn: any) => arn['Fn::GetAtt'][0])
            .sort(),
        ).toEqual(
          (consumer.publishesTo ?? [])
            .filter((queue) => queue !== consumer.queue)
            .map(queueId)
            .sort(),
        );
        for (const queue of consumer.publishesTo ?? []) {
          const row = queueTable.find((entry) => entry.id === queue)!;
          expect(fn.Environment.Variables[row.urlVariable]).toEqual({ Ref: queueId(queue) });
        }
      }
      expect(consumerTable.map((consumer) => [consumer.id, consumer.handler])).toEqual([
        ['DetectDeposits', 'functions/orders/detect-deposits.ts'],
        ['FetchNftMetadata', 'functions/nft-metadata/fetch-nft-metadata.ts'],
        ['MatchWebhooks', 'functions/insights/match-webhooks.ts'],
        ['DeliverWebhooks', 'functions/insights/deliver-webhooks.ts'],
      ]);
    });

    it('lets the ingest functions and the refresh routes only SendMessage to their queues, and tells them the URLs', () => {
      const publishers = jobFunctions.filter(({ job }) => (job.publishesTo ?? []).length > 0);
      expect(publishers.map(({ id }) => id)).toEqual(['IngestChain']);
      for (const { id, job } of publishers) {
        for (const queue of job.publishesTo!) {
          const row = queueTable.find((entry) => entry.id === queue)!;
          expect(resources[id].Properties.Environment.Variables[row.urlVariable]).toEqual({ Ref: queueId(queue) });
        }
        // Its queues, and the failure queue of its job (where Lambda records a failed run).
        const statements = sqsStatements(id);
        expect(new Set(statements.flatMap(actionsOf))).toEqual(new Set(['sqs:SendMessage']));
        expect(statements.every((statement) => statement.Effect === 'Allow' && !statement.Condition)).toBe(true);
        const arns = statements.flatMap(resourcesOf).map((arn: any) => arn['Fn::GetAtt'][0]);
        expect(arns.sort()).toEqual([...job.publishesTo!, `${job.id}Failures`].map(queueId).sort());
      }
      expect(resources.IngestChain.Properties.Environment.Variables.DEPOSIT_EVENTS_QUEUE_URL).toEqual({
        Ref: queueId('DepositEvents'),
      });
      expect(resources.IngestChain.Properties.Environment.Variables.NFT_METADATA_QUEUE_URL).toEqual({ Ref: queueId('NftMetadata') });
      // The refresh routes send to the NFT metadata queue (SendMessage only), and know its URL.
      const routePublishers = routes.filter((route) => (route.publishesTo ?? []).length > 0);
      expect(routePublishers.map((route) => route.id).sort()).toEqual(['RefreshContractNftMetadata', 'RefreshNftMetadata']);
      for (const route of routePublishers) {
        const id = functionIdOfRoute(routes, route);
        expect(resources[id].Properties.Environment.Variables.NFT_METADATA_QUEUE_URL).toEqual({ Ref: queueId('NftMetadata') });
        expect(sqsStatements(id), id).toEqual([
          { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId('NftMetadata'), 'Arn'] } },
        ]);
      }
      // Other jobs send to their failure queue only; no other function touches a queue.
      for (const { id, job } of jobFunctions.filter((fn) => !publishers.includes(fn))) {
        expect(sqsStatements(id), id).toEqual([
          { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId(`${job.id}Failures`), 'Arn'] } },
        ]);
      }
      const others = functionIds.filter(
        (id) =>
          !jobFunctions.some((fn) => fn.id === id) &&
          !consumerTable.some((fn) => fn.id === id) &&
          !routePublishers.some((route) => functionIdOfRoute(routes, route) === id),
      );
      for (const id of others) expect(sqsStatements(id), id).toEqual([]);
    });
  });

  it('has no wildcard DynamoDB action and no Scan in any policy', () => {
    const actions = everyStatement(resources).flatMap(actionsOf);
    expect(actions.filter((action) => action.startsWith('dynamodb:')).length).toBeGreaterThan(0);
    for (const action of actions) {
      expect(action).not.toBe('*');
      expect(action).not.toMatch(/^dynamodb:.*\*/);
      expect(action).not.toBe('dynamodb:Scan');
    }
  });
});

describe('ServiceStack jobs', () => {
  const INGEST: Job = {
    id: 'IngestChain',
    handler: FALLBACK_HANDLER,
    schedule: 'rate(1 minute)',
    table: { read: true, write: ['PutItem', 'UpdateItem', 'ConditionCheckItem'], writeKeys: CHAIN_DATA },
    perChain: true,
    reservedConcurrency: 2,
    timeoutSeconds: 120,
    // Ignored for a per-chain job: its memory is the ingestMemorySize context.
    memorySize: 1024,
    summary: 'Ingests new blocks of one chain',
  };
  const SWEEPER: Job = {
    id: 'ExpireOrders',
    handler: FALLBACK_HANDLER,
    schedule: 'cron(0/5 * * * ? *)',
    table: { read: true, write: ['UpdateItem'], writeKeys: ['ORDER#*'] },
    perChain: false,
    timeoutSeconds: 30,
    summary: 'Marks orders past their deadline as expired',
  };
  const CHAINS = [
    { chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453', blockTimeMs: 2000, firstBlock: 1_000_000, traceMethod: 'parity' },
    { chainId: 84532, rpcUrlParameter: '/chain-data-api/rpc/84532' },
  ];
  let resources: Resources;
  let stack: ServiceStack;

  const ROUTE: Route = {
    id: 'ListSamples',
    method: 'GET',
    path: '/samples',
    group: 'explorer',
    handler: FALLBACK_HANDLER,
    table: READ_ONLY,
    summary: 'A sample route',
    example: {},
  };

  const ORDERS_ROUTE: Route = { ...ROUTE, id: 'ListSampleOrders', path: '/sample-orders', group: 'orders' };

  beforeAll(() => {
    // Chains come from context exactly as an operator sets them on the command line (a JSON string).
    ({ resources, stack } = synthesise(
      { chains: JSON.stringify(CHAINS), ingestMemorySize: '768' },
      { routes: [ROUTE, ORDERS_ROUTE], jobs: [INGEST, SWEEPER] },
    ));
  });

  it('gives the per-chain ingest a young generation sized to its memory (768 MB: 32 MB semi-spaces), other functions source maps only', () => {
    expect(resources[INGEST.id].Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps --max-semi-space-size=32');
    expect(resources[SWEEPER.id].Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    expect(resources[ROUTE.id].Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    expect([128, 512, 768, 1024, 1769, 3008, 10_240].map(semiSpaceMb)).toEqual([8, 16, 32, 32, 64, 64, 64]);
  });

  it('gives the per-chain ingest table writer threads by its vCPUs (none at 768 MB), no other function', () => {
    expect(resources[INGEST.id].Properties.Environment.Variables.INGEST_TABLE_WRITERS).toBe('0');
    expect(resources[SWEEPER.id].Properties.Environment.Variables.INGEST_TABLE_WRITERS).toBeUndefined();
    expect(resources[ROUTE.id].Properties.Environment.Variables.INGEST_TABLE_WRITERS).toBeUndefined();
    // One less than Lambda's vCPUs at the memory (1,769 MB a vCPU), rounded.
    expect([512, 1769, 2654, 3538, 5307, 10_240].map(tableWritersFor)).toEqual([0, 0, 1, 1, 2, 5]);
  });

  it('tells the orders functions which chains the stack ingests (INGESTED_CHAIN_IDS), and no other function', () => {
    expect(resources[ORDERS_ROUTE.id].Properties.Environment.Variables.INGESTED_CHAIN_IDS).toBe('8453,84532');
    expect(resources[ROUTE.id].Properties.Environment.Variables.INGESTED_CHAIN_IDS).toBeUndefined();
    expect(resources[SWEEPER.id].Properties.Environment.Variables.INGESTED_CHAIN_IDS).toBeUndefined();
  });

  const parameterArn = (name: string) => ({
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:parameter${name}`],
    ],
  });

  it('creates one function for every chain of a per-chain job: no chain in its environment, 2 x chains reserved, memory from context', () => {
    const functions = ofType(resources, 'AWS::Lambda::Function').map(([id]) => id);
    expect(functions.filter((id) => id.startsWith(INGEST.id))).toEqual([INGEST.id]);
    const fn = resources[INGEST.id];
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      ReservedConcurrentExecutions: 2 * CHAINS.length,
      Timeout: INGEST.timeoutSeconds,
      MemorySize: 768,
    });
    const env = fn.Properties.Environment.Variables;
    expect(env.TABLE_NAME).toEqual({ Ref: 'Table' });
    for (const name of ['CHAIN_ID', 'RPC_URL_PARAMETER', 'CHAIN_RPC_PARAMETERS']) expect(env[name], name).toBeUndefined();
    // Its runs are asynchronous (Scheduler invokes it so): no Lambda retry, the next tick is the retry.
    const invokeConfigs = ofType(resources, 'AWS::Lambda::EventInvokeConfig').filter(
      ([, config]) => config.Properties.FunctionName.Ref === INGEST.id,
    );
    expect(invokeConfigs.map(([, config]) => config.Properties.MaximumRetryAttempts)).toEqual([0]);
    // The memory of the per-chain function defaults to 512 MB.
    const { resources: defaults } = synthesise({ chains: CHAINS }, { routes: [], jobs: [INGEST] });
    expect(defaults[INGEST.id].Properties.MemorySize).toBe(512);
  });

  it('gives a chain of its own ingestMemorySize a function of that memory (IngestChain3538: two vCPUs, one table writer), with its schedule and its parameter only', () => {
    const chains = [{ ...CHAINS[0]!, ingestMemorySize: 3538 }, CHAINS[1]!];
    const { resources: own, stack: ownStack } = synthesise({ chains: JSON.stringify(chains) }, { routes: [], jobs: [INGEST] });
    const heavy = own[`${INGEST.id}3538`];
    const light = own[INGEST.id];
    expect(heavy.Properties).toMatchObject({ MemorySize: 3538, ReservedConcurrentExecutions: 2 });
    expect(light.Properties).toMatchObject({ MemorySize: 512, ReservedConcurrentExecutions: 2 });
    expect(heavy.Properties.Environment.Variables.INGEST_TABLE_WRITERS).toBe('1');
    expect(light.Properties.Environment.Variables.INGEST_TABLE_WRITERS).toBe('0');
    // Each function's schedules: its chains only, the event as before (the memory is not the handler's business).
    const scheduleOf = (functionId: string) =>
      Object.values(nestedResources(ownStack, functionId))
        .filter((resource) => resource.Type === 'AWS::Scheduler::Schedule')
        .map((schedule) => ({ name: schedule.Properties.Name, event: JSON.parse(schedule.Properties.Target.Input) }));
    expect(scheduleOf(`${INGEST.id}3538`)).toEqual([{ name: `${INGEST.id}3538-8453`, event: CHAINS[0] }]);
    expect(scheduleOf(INGEST.id)).toEqual([{ name: `${INGEST.id}-84532`, event: CHAINS[1] }]);
    // And each reads its own chains' RPC URL parameters, not the other's.
    const parameters = (functionId: string) => JSON.stringify(statementsOf(own, functionId)).match(/parameter\/chain-data-api\/rpc\/\d+/g);
    expect(parameters(`${INGEST.id}3538`)).toEqual(['parameter/chain-data-api/rpc/8453']);
    expect(parameters(INGEST.id)).toEqual(['parameter/chain-data-api/rpc/84532']);
    // Each function's schedules have their own stalled-ticks alarm (the job's own keeps its name).
    const alarms = ofType(own, 'AWS::CloudWatch::Alarm').map(([, alarm]) => String(alarm.Properties.AlarmName));
    expect(
      alarms
        .filter((name) => /IngestStalled/.test(name))
        .map((name) => name.replace(/^.*?IngestStalled/, 'IngestStalled'))
        .sort(),
    ).toEqual(['IngestStalled', `IngestStalled-${INGEST.id}3538`]);
    // Chains of the default memory keep the job's own function (its id, and a deployed stack's, unchanged).
    expect(jobInstances(INGEST, CHAINS as never, 512).map((instance) => instance.id)).toEqual([INGEST.id]);
    expect(jobInstances(INGEST, chains as never, 512).map(({ id, memorySize }) => [id, memorySize])).toEqual([
      [`${INGEST.id}3538`, 3538],
      [INGEST.id, 512],
    ]);
  });

  it('runs it with one EventBridge Scheduler schedule per chain, each sending its chain in the event (the contract of the handler)', () => {
    const nested = nestedResources(stack, INGEST.id);
    const schedules = Object.values(nested).filter((resource) => resource.Type === 'AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(CHAINS.length);
    const [[groupId, group]] = ofType(resources, 'AWS::Scheduler::ScheduleGroup');
    const [[roleId]] = ofType(resources, 'AWS::IAM::Role').filter(([, role]) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'),
    );
    // What the nested stack's parameters carry in: the function's ARN, the role's, the failure queue's.
    const [[, nestedStack]] = ofType(resources, 'AWS::CloudFormation::Stack');
    const fromParent = (value: any) => (value?.Ref ? nestedStack.Properties.Parameters[value.Ref] : value);
    const failuresId = ofType(resources, 'AWS::SQS::Queue')
      .map(([id]) => id)
      .find((id) => id.startsWith(`${INGEST.id}Failures`))!;
    for (const chain of CHAINS) {
      const schedule = schedules.find((candidate) => candidate.Properties.Name === `${INGEST.id}-${chain.chainId}`)!;
      expect(schedule, String(chain.chainId)).toBeDefined();
      expect(schedule.Properties).toMatchObject({
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        GroupName: group.Properties.Name,
      });
      const target = schedule.Properties.Target;
      expect(fromParent(target.Arn)).toEqual({ 'Fn::GetAtt': [INGEST.id, 'Arn'] });
      expect(fromParent(target.RoleArn)).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
      expect(fromParent(target.DeadLetterConfig.Arn)).toEqual({ 'Fn::GetAtt': [failuresId, 'Arn'] });
      expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 });
      // The event: the chain, its RPC URL parameter, and the chain's optional settings only when set.
      const { rpcUrlKeyArn: _key, ...event } = chain as (typeof CHAINS)[number] & { rpcUrlKeyArn?: string };
      expect(JSON.parse(target.Input)).toEqual(event);
    }
    expect(JSON.parse(schedules[0].Properties.Target.Input)).toEqual({
      chainId: 8453,
      rpcUrlParameter: '/chain-data-api/rpc/8453',
      blockTimeMs: 2000,
      firstBlock: 1_000_000,
      traceMethod: 'parity',
    });
    // The nested stack waits for the group its schedules name.
    expect(ofType(resources, 'AWS::CloudFormation::Stack')[0][1].DependsOn).toEqual(expect.arrayContaining([groupId]));
  });

  it('gives the schedules one role, which only Scheduler may assume for this group, and which may only invoke the function and record an undelivered tick', () => {
    const roles = ofType(resources, 'AWS::IAM::Role').filter(([, role]) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'),
    );
    expect(roles).toHaveLength(1);
    const [[, role]] = roles;
    const [groupId] = ofType(resources, 'AWS::Scheduler::ScheduleGroup')[0];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': { 'Fn::GetAtt': [groupId, 'Arn'] } },
        },
      },
    ]);
    const statements = role.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
    const failuresId = ofType(resources, 'AWS::SQS::Queue')
      .map(([id]) => id)
      .find((id) => id.startsWith(`${INGEST.id}Failures`))!;
    expect(statements).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [INGEST.id, 'Arn'] } },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [failuresId, 'Arn'] } },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    // No EventBridge rule or Lambda permission for the per-chain job: Scheduler invokes with the role.
    expect(
      ofType(resources, 'AWS::Lambda::Permission').filter(
        ([, permission]) => permission.Properties.FunctionName['Fn::GetAtt']?.[0] === INGEST.id,
      ),
    ).toEqual([]);
  });

  it('lets the per-chain function read every chain’s RPC parameter (one statement naming them) and no other', () => {
    const statements = statementsOf(resources, INGEST.id);
    const ssm = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('ssm:')));
    expect(ssm).toHaveLength(1);
    expect(actionsOf(ssm[0])).toEqual(['ssm:GetParameter']);
    expect(resourcesOf(ssm[0])).toEqual(CHAINS.map((chain) => parameterArn(chain.rpcUrlParameter)));
    // A parameter under the AWS managed aws/ssm key needs no KMS grant (least-privilege.test.ts: a customer managed key).
    expect(statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')))).toEqual([]);
    expect(dynamoActionsOf(resources, INGEST.id)).toEqual(expectedDynamoActions(INGEST.table));
  });

  it('refuses a per-chain job whose schedule is not a rate (its IngestStalled alarm counts the ticks of a period)', () => {
    expect(() => synthesise({ chains: CHAINS }, { routes: [], jobs: [{ ...INGEST, schedule: 'cron(* * * * ? *)' }] })).toThrow(
      /IngestChain: a per-chain job's schedule must be rate/,
    );
  });

  it('creates a single function for a job that is not per chain, without chain settings or SSM access', () => {
    const fn = resources[SWEEPER.id];
    expect(fn.Type).toBe('AWS::Lambda::Function');
    expect(fn.Properties.Timeout).toBe(SWEEPER.timeoutSeconds);
    expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(fn.Properties.Environment.Variables.CHAIN_ID).toBeUndefined();
    // Besides DynamoDB, only the record of a failed run to its failure queue (operations.test.ts).
    expect(
      grantsOf(resources, SWEEPER.id)
        .flatMap(actionsOf)
        .filter((action) => !action.startsWith('dynamodb:')),
    ).toEqual(['sqs:SendMessage']);
    expect(dynamoActionsOf(resources, SWEEPER.id)).toEqual(expectedDynamoActions(SWEEPER.table));
    const rule = ofType(resources, 'AWS::Events::Rule').find(([, candidate]) =>
      candidate.Properties.Targets.some((target: any) => target.Arn['Fn::GetAtt']?.[0] === SWEEPER.id),
    );
    expect(rule?.[1].Properties.ScheduleExpression).toBe(SWEEPER.schedule);
    expect(ofType(resources, 'AWS::Events::Rule')).toHaveLength(1);
  });

  it('gives a NO_TABLE route no DynamoDB permission at all', () => {
    const { resources: noTable } = synthesise({}, { routes: [{ ...ROUTE, table: NO_TABLE }], jobs: [] });
    expect(grantsOf(noTable, ROUTE.id)).toEqual([]);
  });

  describe('the parallel backfill (lib/backfill.ts)', () => {
    /** The state machine's definition, as JSON with the template's references left as strings. */
    const definition = (res: Resources) => {
      const [[, machine]] = ofType(res, 'AWS::StepFunctions::StateMachine') as [[string, Resource]];
      const parts = machine.Properties.DefinitionString['Fn::Join'][1] as unknown[];
      return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'REF')).join(''));
    };

    it('plans with the worker, then stages every shard in a Distributed Map of bounded concurrency, retrying a shard that ran out of time', () => {
      const states = definition(resources).States;
      expect(definition(resources).StartAt).toBe('Plan');
      expect(states.Plan.Next).toBe('StageShards');
      expect(states.Plan.Parameters).toEqual({ action: 'plan', 'request.$': '$' });
      const map = states.StageShards;
      expect(map.Type).toBe('Map');
      expect(map.ItemProcessor.ProcessorConfig.Mode).toBe('DISTRIBUTED');
      expect(map.ItemsPath).toBe('$.shards');
      expect(map.MaxConcurrency).toBe(10);
      expect(map.ResultPath).toBeNull();
      expect(map.ItemSelector).toEqual({
        action: 'stage',
        'chainId.$': '$.chainId',
        'from.$': '$$.Map.Item.Value.from',
        'to.$': '$$.Map.Item.Value.to',
      });
      const stage = map.ItemProcessor.States.StageShard;
      expect(stage.Retry.find((retry: { ErrorEquals: string[] }) => retry.ErrorEquals.includes('ShardNotFinishedError'))).toMatchObject({
        ErrorEquals: ['ShardNotFinishedError'],
        MaxAttempts: 99,
        BackoffRate: 1,
      });
      expect(stage.Retry.at(-1)).toMatchObject({ ErrorEquals: ['States.ALL'], MaxAttempts: 5 });
    });

    it('has one worker function for every chain, which may read each chain’s RPC parameter and write chain items only', () => {
      const worker = resources[backfillWorker.id];
      expect(worker.Properties.Timeout).toBe(900);
      expect(worker.Properties.Environment.Variables.CHAIN_RPC_PARAMETERS).toBe(
        '8453=/chain-data-api/rpc/8453,84532=/chain-data-api/rpc/84532',
      );
      const ssm = statementsOf(resources, backfillWorker.id).filter((statement) => actionsOf(statement).includes('ssm:GetParameter'));
      expect(ssm.flatMap(resourcesOf)).toHaveLength(CHAINS.length);
      const writes = statementsOf(resources, backfillWorker.id)
        .filter((statement) => statement.Effect === 'Allow')
        .flatMap(actionsOf)
        .filter((action) => /dynamodb:(Put|Update|Delete|BatchWrite)/.test(action));
      expect(writes.sort()).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem']);
    });

    it('logs every execution event and traces with X-Ray; a bigger concurrency comes from context; no chain, no backfill', () => {
      const [[, machine]] = ofType(resources, 'AWS::StepFunctions::StateMachine');
      expect(machine.Properties.LoggingConfiguration.Level).toBe('ALL');
      expect(machine.Properties.TracingConfiguration.Enabled).toBe(true);
      const { resources: wider } = synthesise({ chains: CHAINS, backfillConcurrency: '40' }, { routes: [ROUTE], jobs: [INGEST] });
      expect(definition(wider).States.StageShards.MaxConcurrency).toBe(40);
      const { resources: none } = synthesise({ chains: [] }, { routes: [ROUTE], jobs: [] });
      expect(ofType(none, 'AWS::StepFunctions::StateMachine')).toEqual([]);
      expect(none[backfillWorker.id]).toBeUndefined();
    });
  });

  it('warns, and deploys nothing for it, when a per-chain job has no chain configured', () => {
    const { stack, resources: noChains } = synthesise({ chains: [] }, { routes: [], jobs: [INGEST] });
    expect(ofType(noChains, 'AWS::Events::Rule')).toEqual([]);
    expect(noChains[INGEST.id]).toBeUndefined();
    expect(ofType(noChains, 'AWS::Scheduler::ScheduleGroup')).toEqual([]);
    expect(ofType(noChains, 'AWS::CloudFormation::Stack')).toEqual([]);
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp(`${INGEST.id} runs once per chain`));
  });
});

describe('ServiceStack settings from context', () => {
  it('applies operator settings given as command-line strings', () => {
    const { resources, template } = synthesise(
      {
        removalPolicy: 'destroy',
        logRetentionDays: '14',
        corsAllowedOrigins: 'https://app.example.com, https://admin.example.com',
        throttleRateLimit: '50',
        throttleBurstLimit: '80',
        writeThrottleRateLimit: '5',
        writeThrottleBurstLimit: '8',
        functionEnvironment: '{"EXPLORER_CHAIN_ID":"8453","ORDER_MAX_AGE_SECONDS":3600}',
        orderRetentionDays: '7',
        tracerSdk: 'true',
      },
      { jobs: [] },
    );
    expect(resources.CreateOrder.Properties.Environment.Variables.ORDER_RETENTION_DAYS).toBe('7');
    expect(resources.ListCollections.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('true');
    expect(resources.CreateCheckoutSession.Properties.Environment.Variables.ORDER_RETENTION_DAYS).toBe('7');
    const [, table] = ofType(resources, 'AWS::DynamoDB::Table')[0];
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    for (const [, logGroup] of ofType(resources, 'AWS::Logs::LogGroup')) {
      expect(logGroup.Properties.RetentionInDays).toBe(14);
      expect(logGroup.DeletionPolicy).toBe('Delete');
    }
    for (const [, fn] of ofType(resources, 'AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        CORS_ALLOWED_ORIGINS: 'https://app.example.com,https://admin.example.com',
        EXPLORER_CHAIN_ID: '8453',
        ORDER_MAX_AGE_SECONDS: '3600',
      });
    }
    for (const [, api] of ofType(resources, 'AWS::ApiGatewayV2::Api')) {
      expect(api.Properties.CorsConfiguration.AllowOrigins).toEqual(['https://app.example.com', 'https://admin.example.com']);
    }
    template.allResourcesProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 },
    });
    const writeSettings = ofType(resources, 'AWS::ApiGatewayV2::Stage').flatMap(([, stage]) =>
      Object.values(stage.Properties.RouteSettings ?? {}),
    );
    expect(writeSettings.length).toBeGreaterThan(0);
    for (const setting of writeSettings) expect(setting).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 8 });
  });

  it.each([
    [{ removalPolicy: 'keep' }, /removalPolicy/],
    [{ logRetentionDays: 31 }, /logRetentionDays/],
    [{ corsAllowedOrigins: 'https://app.example.com/path' }, /corsAllowedOrigins/],
    [{ throttleRateLimit: 'fast' }, /throttleRateLimit/],
    [{ throttleRateLimit: 300, throttleBurstLimit: 200 }, /throttleBurstLimit/],
    [{ writeThrottleRateLimit: 30, writeThrottleBurstLimit: 20 }, /writeThrottleBurstLimit/],
    [{ writeThrottleRateLimit: 150, writeThrottleBurstLimit: 250 }, /may not exceed the API throttle/],
    [
      {
        chains: [
          { chainId: 1, rpcUrlParameter: '/a' },
          { chainId: 1, rpcUrlParameter: '/b' },
        ],
      },
      /chains/,
    ],
    [{ chains: [{ chainId: 1 }] }, /chains/],
    [{ chains: [{ chainId: 1, rpcUrlParameter: '/a', blockTimeMs: 0 }] }, /chains.*blockTimeMs|blockTimeMs/],
    [{ chains: [{ chainId: 1, rpcUrlParameter: '/a', traceMethod: 'debug' }] }, /traceMethod.*callTracer, parity or none/],
    [{ chains: [{ chainId: 1, rpcUrlParameter: '/a', firstBlock: -1 }] }, /firstBlock/],
    [{ chains: [{ chainId: 1, rpcUrlParameter: '/a', blockTime: 2000 }] }, /chains/],
    [{ ingestMemorySize: 64 }, /ingestMemorySize/],
    [{ chains: [{ chainId: 1, rpcUrlParameter: '/a', ingestMemorySize: 20_000 }] }, /ingestMemorySize/],
    [{ functionEnvironment: { TABLE_NAME: 'other' } }, /functionEnvironment/],
    [{ functionEnvironment: { ORDER_RETENTION_DAYS: '1' } }, /functionEnvironment/],
    [{ orderRetentionDays: 0 }, /orderRetentionDays/],
    [{ tracerSdk: 'yes' }, /tracerSdk/],
    [{ orderRetentionDays: 'a month' }, /orderRetentionDays/],
    [{ functionEnvironment: { 'NOT-A-NAME': 'x' } }, /functionEnvironment/],
  ])('rejects the invalid setting %j with a message naming it', (context, message) => {
    expect(() => synthesise(context, { routes: [], jobs: [] })).toThrow(message);
  });
});

describe('ServiceStack table checks', () => {
  const route: Route = {
    id: 'GetSample',
    method: 'GET',
    path: '/samples/{id}',
    group: 'orders',
    handler: FALLBACK_HANDLER,
    table: READ_ONLY,
    summary: 'A sample route',
    example: {},
  };

  it('names every route whose handler file is missing', () => {
    const routesWithMissing = [
      { ...route, id: 'MissingOne', handler: 'functions/nowhere/missing-one.ts' },
      { ...route, id: 'MissingTwo', path: '/samples', handler: 'functions/nowhere/missing-two.ts' },
    ];
    expect(() => synthesise({}, { routes: routesWithMissing, jobs: [] })).toThrow(
      /MissingOne: handler file functions\/nowhere\/missing-one\.ts does not exist[\s\S]*MissingTwo/,
    );
  });

  it('rejects a function id used twice (ids are CloudFormation logical ids)', () => {
    expect(() => synthesise({}, { routes: [route, { ...route, path: '/other' }], jobs: [] })).toThrow(/GetSample is used twice/);
    expect(() => synthesise({}, { routes: [{ ...route, id: 'OrdersRouteNotFound' }], jobs: [] })).toThrow(/used twice/);
  });

  it('rejects a job schedule that is not a rate or cron expression', () => {
    const job: Job = {
      id: 'Tick',
      handler: FALLBACK_HANDLER,
      schedule: 'every minute',
      table: NO_TABLE,
      perChain: false,
      timeoutSeconds: 10,
      summary: 'x',
    };
    expect(() => synthesise({}, { routes: [], jobs: [job] })).toThrow(/Tick: schedule every minute/);
  });
});
