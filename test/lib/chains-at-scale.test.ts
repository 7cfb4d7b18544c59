/**
 * Chains at scale (issue 26): what an operator checks before deploying 1, 10 or 55 chains in one
 * stack. The service stack must stay under CloudFormation's 500 resources whatever the number of
 * chains (the schedules, a chain's only resource, live in a nested stack), with one ingest function for
 * every chain, one schedule per chain sending that chain in its event, grants that name every chain's
 * RPC parameter and nothing more, one alarm of each kind for the ingest, and environments and role
 * policies within Lambda's and IAM's size limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  environmentBytes,
  LAMBDA_ENVIRONMENT_LIMIT_BYTES,
  policyCharacters,
  ROLE_POLICY_LIMIT_CHARACTERS,
  type ServiceStack,
} from '../../lib/service-stack';
import { backfillWorker, jobs } from '../../shared/jobs';
import {
  actionsOf,
  nestedResources,
  ofType,
  MAX_SERVICE_STACK_RESOURCES,
  type Resources,
  removeSyntheses,
  resourceCounts,
  resourcesOf,
  statementsOf,
  synthesise,
} from './support/template';

const INGEST = jobs.find((job) => job.perChain)!;
/** CloudFormation's limit per stack, and the most the service stack may hold here: a margin for new routes. */
const CLOUDFORMATION_LIMIT = 500;
const SERVICE_STACK_BUDGET = MAX_SERVICE_STACK_RESOURCES;
const KEY_ARN = 'arn:aws:kms:ap-southeast-2:123456789012:key/0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30';

/**
 * `count` chains with long ids (10 digits, as Aurora's 1313161554) and parameter names, the worst case of
 * the lists that grow with the chains; every third chain's parameter under one customer managed key.
 */
function chainsOf(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const chainId = 1_313_161_554 + i;
    return {
      chainId,
      rpcUrlParameter: `/chain-data-api/production/rpc/${chainId}`,
      ...(i % 3 === 0 ? { rpcUrlKeyArn: KEY_ARN } : {}),
      ...(i % 2 === 0 ? { blockTimeMs: 2000 + i } : {}),
    };
  });
}

const rolePolicyLength = (resources: Resources, functionId: string) => {
  const roleId = resources[functionId].Properties.Role['Fn::GetAtt'][0] as string;
  return (resources[roleId].Properties.Policies ?? []).reduce(
    (sum: number, policy: any) => sum + policy.PolicyName.length + policyCharacters(policy.PolicyDocument),
    0,
  );
};

afterAll(() => removeSyntheses());

const measured: Record<
  number,
  { stack: number; nested: number; alarms: number; ingestPolicy: number; backfillPolicy: number; backfillEnvironment: number }
> = {};

describe.each([1, 10, 55])('%i chains in one stack', (count) => {
  const chains = chainsOf(count);
  let stack: ServiceStack;
  let resources: Resources;
  let nested: Resources;

  beforeAll(() => {
    ({ stack, resources } = synthesise({ chains, alarmEmail: 'ops@example.com' }));
    nested = nestedResources(stack, INGEST.id);
    const counts = resourceCounts(stack);
    measured[count] = {
      stack: counts.stack,
      nested: counts.nested[INGEST.id]!,
      alarms: ofType(resources, 'AWS::CloudWatch::Alarm').length,
      ingestPolicy: rolePolicyLength(resources, INGEST.id),
      backfillPolicy: rolePolicyLength(resources, backfillWorker.id),
      backfillEnvironment: environmentBytes(resources[backfillWorker.id].Properties.Environment),
    };
  });

  it(`stays under CloudFormation's ${CLOUDFORMATION_LIMIT} resources: the service stack at most ${SERVICE_STACK_BUDGET}, the schedules one per chain in their nested stack`, () => {
    const counts = resourceCounts(stack);
    expect(counts.stack).toBeLessThanOrEqual(SERVICE_STACK_BUDGET);
    expect(counts.nested).toEqual({ [INGEST.id]: count });
    expect(ofType(resources, 'AWS::CloudFormation::Stack')).toHaveLength(1);
    expect(ofType(resources, 'AWS::Scheduler::Schedule')).toEqual([]);
  });

  it('has one ingest function for every chain, its reserved concurrency 3 per chain, 900 s, without a chain in its environment', () => {
    const ingests = ofType(resources, 'AWS::Lambda::Function').filter(([id]) => id.startsWith('IngestChain'));
    expect(ingests.map(([id]) => id)).toEqual([INGEST.id]);
    const [[, fn]] = ingests;
    expect(fn.Properties).toMatchObject({ Timeout: 900, MemorySize: 512, ReservedConcurrentExecutions: 3 * count });
    expect(fn.Properties.Environment.Variables.CHAIN_ID).toBeUndefined();
    expect(fn.Properties.Environment.Variables.RPC_URL_PARAMETER).toBeUndefined();
    // One log group for the function, whatever the chains.
    expect(
      ofType(resources, 'AWS::Logs::LogGroup')
        .filter(([id]) => id.startsWith('IngestChain'))
        .map(([id]) => id),
    ).toEqual(['IngestChainLogGroup']);
  });

  it('has one enabled rate(1 minute) schedule per chain, named after it, whose event is that chain', () => {
    const schedules = Object.values(nested).filter((resource) => resource.Type === 'AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(count);
    const byName = new Map(schedules.map((schedule) => [schedule.Properties.Name, schedule.Properties]));
    const [[, group]] = ofType(resources, 'AWS::Scheduler::ScheduleGroup');
    for (const chain of chains) {
      const schedule = byName.get(`IngestChain-${chain.chainId}`)!;
      expect(schedule, String(chain.chainId)).toMatchObject({
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        GroupName: group.Properties.Name,
      });
      expect(JSON.parse(schedule.Target.Input)).toEqual({
        chainId: chain.chainId,
        rpcUrlParameter: chain.rpcUrlParameter,
        ...(chain.blockTimeMs !== undefined ? { blockTimeMs: chain.blockTimeMs } : {}),
      });
    }
  });

  it('lets the ingest and the backfill worker read exactly the chains’ RPC parameters, in role policies within IAM’s size limit', () => {
    for (const id of [INGEST.id, backfillWorker.id]) {
      const statements = statementsOf(resources, id);
      const ssm = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('ssm:')));
      expect(ssm, id).toHaveLength(1);
      const names = resourcesOf(ssm[0]).map((arn: any) => (arn['Fn::Join'][1] as unknown[]).at(-1));
      expect(names.sort(), id).toEqual(chains.map((chain) => `:parameter${chain.rpcUrlParameter}`).sort());
      // One kms:Decrypt statement for the one key, naming the parameters under it only.
      const kms = statements.filter((statement) => actionsOf(statement).includes('kms:Decrypt'));
      expect(kms, id).toHaveLength(1);
      const underKey = [kms[0].Condition.StringEquals['kms:EncryptionContext:PARAMETER_ARN']].flat();
      expect(underKey, id).toHaveLength(chains.filter((chain) => chain.rpcUrlKeyArn).length);
      expect(rolePolicyLength(resources, id), id).toBeLessThanOrEqual(ROLE_POLICY_LIMIT_CHARACTERS);
    }
  });

  it('has one alarm of each kind for the ingest, whatever the number of chains', () => {
    const names = ofType(resources, 'AWS::CloudWatch::Alarm')
      .map(([, alarm]) => alarm.Properties.AlarmName as string)
      .filter((name) => name.includes('Ingest'));
    expect(names.sort()).toEqual(
      [
        'DeadLetters-IngestChainFailures',
        'IngestFailed',
        'IngestLag',
        'IngestStalled',
        'IngestStopped',
        'JobErrors-IngestChain',
        'Throttles-IngestChain',
      ].map((name) => `TestStack-${name}`),
    );
  });

  it('keeps every function’s environment within Lambda’s 4 KB (the backfill worker lists every chain)', () => {
    for (const [id, fn] of ofType(resources, 'AWS::Lambda::Function')) {
      expect(environmentBytes(fn.Properties.Environment), id).toBeLessThanOrEqual(LAMBDA_ENVIRONMENT_LIMIT_BYTES);
    }
    const parameters = resources[backfillWorker.id].Properties.Environment.Variables.CHAIN_RPC_PARAMETERS as string;
    expect(parameters.split(',')).toHaveLength(count);
  });
});

describe('chains at scale: the measures', () => {
  it('do not grow the service stack or its alarms with the chains', () => {
    // Filled by the suites above (vitest runs a file's suites in order).
    expect(Object.keys(measured).map(Number)).toEqual([1, 10, 55]);
    expect(measured[10]!.stack).toBe(measured[1]!.stack);
    expect(measured[55]!.stack).toBe(measured[1]!.stack);
    expect(measured[55]!.alarms).toBe(measured[1]!.alarms);
    expect([measured[1]!.nested, measured[10]!.nested, measured[55]!.nested]).toEqual([1, 10, 55]);
  });

  it('refuses, at synthesis, an environment over Lambda’s 4 KB instead of failing the deploy', () => {
    expect(() => synthesise({ chains: chainsOf(2), functionEnvironment: { NOTE: 'x'.repeat(4000) } }, { routes: [] })).toThrow(
      /IngestChain's environment may take \d+ bytes, over Lambda's 4096/,
    );
  });

  it('refuses, at synthesis, a role policy over IAM’s 10,240 characters (55 chains, each under a key of its own)', () => {
    const chains = chainsOf(55).map((chain, i) => ({ ...chain, rpcUrlKeyArn: KEY_ARN.replace(/.{4}$/, String(1000 + i)) }));
    expect(() => synthesise({ chains }, { routes: [] })).toThrow(/IngestChain's role policy may take \d+ characters, over IAM's 10240/);
  });
});
