/**
 * The cold history tier in the stack (context `coldAfterDays`; docs/decisions/cold-history.md), as a
 * reviewer of the deploy checks it: off by default (no bucket, no job, no COLD_ variable anywhere); on, a
 * private, encrypted, TLS-only bucket kept with the stack; the CompactColdHistory job, one schedule per
 * chain, that may only write parts into it; the ingest and the backfill workers told the window (their
 * history items' expiry); the explorer's and insights' functions that read the table told the bucket and
 * allowed to GET parts only; the other groups told nothing; and the ColdHistoryBehind alarm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readsHistory, type ServiceStack } from '../../lib/service-stack';
import { COLD_HISTORY_BEHIND_SECONDS } from '../../lib/operations';
import { routes } from '../../shared/routes';
import {
  actionsOf,
  nestedResources,
  ofType,
  type Resources,
  removeSyntheses,
  resourceCounts,
  statementsOf,
  synthesise,
} from './support/template';

const chains = [
  { chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453' },
  { chainId: 10, rpcUrlParameter: '/chain-data-api/rpc/10' },
];

afterAll(() => removeSyntheses());

const environmentOf = (resources: Resources, functionId: string): Record<string, unknown> =>
  resources[functionId]!.Properties.Environment?.Variables ?? {};
const functionIds = (resources: Resources) => ofType(resources, 'AWS::Lambda::Function').map(([id]) => id);
const s3Statements = (resources: Resources, functionId: string) =>
  statementsOf(resources, functionId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('s3:')));
/** A route's function (rows sharing a handler share it; the first row names it). */
const routeFunction = (resources: Resources, routeId: string) => functionIds(resources).find((id) => id === routeId);

describe('the cold tier, off (cdk.json defaults)', () => {
  let resources: Resources;
  beforeAll(() => {
    ({ resources } = synthesise({ chains }));
  });

  it('adds no bucket, no job and no COLD_ variable', () => {
    expect(ofType(resources, 'AWS::S3::Bucket')).toEqual([]);
    expect(functionIds(resources).filter((id) => id.startsWith('CompactColdHistory'))).toEqual([]);
    for (const id of functionIds(resources))
      expect(
        Object.keys(environmentOf(resources, id)).filter((name) => name.startsWith('COLD_')),
        id,
      ).toEqual([]);
    expect(ofType(resources, 'AWS::CloudWatch::Alarm').filter(([id]) => id.includes('ColdHistoryBehind'))).toEqual([]);
  });
});

describe('the cold tier, on (coldAfterDays 30)', () => {
  let resources: Resources;
  let stack: ServiceStack;
  let bucketId: string;
  const partsArn = () => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/cold/*']] });

  beforeAll(() => {
    ({ resources, stack } = synthesise({ chains, coldAfterDays: 30 }));
    const buckets = ofType(resources, 'AWS::S3::Bucket');
    expect(buckets).toHaveLength(1);
    bucketId = buckets[0]![0];
  });

  it('keeps the parts in a private, encrypted, TLS-only bucket, retained with the stack', () => {
    const bucket = resources[bucketId]!;
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const policies = ofType(resources, 'AWS::S3::BucketPolicy');
    expect(policies).toHaveLength(1);
    expect(policies[0]![1].Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('runs CompactColdHistory for every chain on its own schedule, with the tier settings, writing parts only', () => {
    const id = 'CompactColdHistory';
    const fn = resources[id]!;
    expect(fn.Properties).toMatchObject({ MemorySize: 3008, Timeout: 900, ReservedConcurrentExecutions: chains.length });
    expect(environmentOf(resources, id)).toMatchObject({
      COLD_BUCKET: { Ref: bucketId },
      COLD_AFTER_DAYS: '30',
      COLD_MARGIN_DAYS: '14',
      COLD_SPAN_BLOCKS: '1800',
      COLD_RANGE_GROUPS: '16',
    });
    expect(environmentOf(resources, id)).not.toHaveProperty('INGEST_TABLE_WRITERS');
    expect(s3Statements(resources, id)).toEqual([{ Effect: 'Allow', Action: 's3:PutObject', Resource: partsArn() }]);
    // It reads no node: no RPC URL parameter.
    expect(statementsOf(resources, id).filter((statement) => actionsOf(statement).some((action) => action.startsWith('ssm:')))).toEqual([]);
    const schedules = Object.values(nestedResources(stack, id)).filter((resource) => resource.Type === 'AWS::Scheduler::Schedule');
    expect(schedules.map((schedule) => schedule.Properties.ScheduleExpression)).toEqual(chains.map(() => 'rate(5 minutes)'));
    expect(schedules.map((schedule) => JSON.parse(schedule.Properties.Target.Input).chainId).sort()).toEqual([10, 8453]);
  });

  it("runs a span's groups in the worker CompactColdHistoryGroup, which the job alone may invoke, writing parts only", () => {
    const worker = 'CompactColdHistoryGroup';
    expect(resources[worker]!.Properties).toMatchObject({ MemorySize: 3008, Timeout: 900 });
    // No schedule of its own: the job invokes it.
    expect(stack.jobFunctions.has(worker)).toBe(false);
    expect(environmentOf(resources, worker)).toMatchObject({ COLD_BUCKET: { Ref: bucketId }, COLD_AFTER_DAYS: '30' });
    expect(s3Statements(resources, worker)).toEqual([{ Effect: 'Allow', Action: 's3:PutObject', Resource: partsArn() }]);
    expect(statementsOf(resources, worker).filter((statement) => actionsOf(statement).some((action) => action.startsWith('ssm:')))).toEqual(
      [],
    );
    // The job names it and may invoke that function only; no other function may.
    expect(environmentOf(resources, 'CompactColdHistory').COLD_GROUP_FUNCTION).toEqual({ Ref: worker });
    const invokers = functionIds(resources).filter((id) =>
      statementsOf(resources, id).some((statement) => actionsOf(statement).includes('lambda:InvokeFunction')),
    );
    expect(invokers).toEqual(['CompactColdHistory']);
    expect(
      statementsOf(resources, 'CompactColdHistory').filter((statement) => actionsOf(statement).includes('lambda:InvokeFunction')),
    ).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [worker, 'Arn'] } }]);
  });

  it('tells the ingest and the backfill workers the window (their history items expire), not the bucket', () => {
    for (const id of ['IngestChain', 'BackfillChain']) {
      expect(environmentOf(resources, id), id).toMatchObject({ COLD_AFTER_DAYS: '30', COLD_MARGIN_DAYS: '14' });
      expect(environmentOf(resources, id), id).not.toHaveProperty('COLD_BUCKET');
      expect(s3Statements(resources, id), id).toEqual([]);
    }
  });

  it("gives the history routes' functions the bucket and a GET of parts only; the other groups nothing", () => {
    let readers = 0;
    for (const route of routes) {
      const id = routeFunction(resources, route.id);
      if (id === undefined) continue; // (a row sharing another row's function)
      if (readsHistory(route)) {
        readers += 1;
        expect(environmentOf(resources, id), id).toMatchObject({ COLD_BUCKET: { Ref: bucketId } });
        expect(s3Statements(resources, id), id).toEqual([{ Effect: 'Allow', Action: 's3:GetObject', Resource: partsArn() }]);
      } else {
        expect(environmentOf(resources, id), id).not.toHaveProperty('COLD_BUCKET');
        expect(s3Statements(resources, id), id).toEqual([]);
      }
    }
    expect(readers).toBeGreaterThan(40);
    expect(routes.some((route) => route.group === 'orders' && !readsHistory(route))).toBe(true);
  });

  it('alarms when a chain has blocks past the window left uncompacted for a day', () => {
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').filter(([id]) => id.startsWith('OperationsColdHistoryBehind'));
    expect(alarms).toHaveLength(1);
    const alarm = alarms[0]![1].Properties;
    expect(alarm.Threshold).toBe(COLD_HISTORY_BEHIND_SECONDS);
    expect(JSON.stringify(alarm.Metrics)).toContain(
      `SELECT MIN(ColdHistoryBehindSeconds) FROM SCHEMA(\\"ChainDataApi\\", chainId, service) WHERE service = 'cold-history' GROUP BY chainId`,
    );
  });

  it('stays within CloudFormation’s 500 resources a stack', () => {
    expect(resourceCounts(stack).stack).toBeLessThan(500);
  });
});
