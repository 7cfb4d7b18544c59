/**
 * The ticks of the one ingest function (the `perChain` job of shared/jobs.ts): one EventBridge Scheduler
 * schedule per chain of the `chains` context, each invoking the same function with its chain in the
 * event (`IngestEvent`). Around them, in the service stack: one schedule group (its metrics count the
 * ticks for the IngestStalled alarm, and it names the only schedules the invoke role trusts) and one
 * role that EventBridge Scheduler assumes for every schedule (lambda:InvokeFunction on that function,
 * sqs:SendMessage on the job's failure queue for a tick it could not deliver).
 *
 * The schedules live in a nested stack: a schedule is the one CloudFormation resource a chain costs, and
 * the service stack, with a function per route, is near CloudFormation's 500 resources already. In the
 * nested stack they cost the service stack nothing (one AWS::CloudFormation::Stack for all of them), and
 * the nested stack holds up to 500 of them; `cdk deploy` deploys both as one.
 */
import { type Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type IScheduleTarget, Schedule, ScheduleExpression, ScheduleGroup, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { InlinePolicyRole } from './api-function';
import type { ChainSetting } from './settings';

/**
 * The event each chain's schedule sends the ingest function (the contract functions/ingest/ingest-chain.ts
 * implements): the chain, the SSM parameter of its RPC URL, and the chain's optional settings of the
 * `chains` context, present only when set there.
 */
export interface IngestEvent {
  chainId: number;
  rpcUrlParameter: string;
  blockTimeMs?: number;
  firstBlock?: number;
  traceMethod?: 'callTracer' | 'parity' | 'none';
}

export function ingestEvent(chain: ChainSetting): IngestEvent {
  return {
    chainId: chain.chainId,
    rpcUrlParameter: chain.rpcUrlParameter,
    ...(chain.blockTimeMs !== undefined ? { blockTimeMs: chain.blockTimeMs } : {}),
    ...(chain.firstBlock !== undefined ? { firstBlock: chain.firstBlock } : {}),
    ...(chain.traceMethod !== undefined ? { traceMethod: chain.traceMethod } : {}),
  };
}

/** Name of a chain's schedule in the group, e.g. `IngestChain-8453`. */
export const chainScheduleName = (jobId: string, chainId: number): string => `${jobId}-${chainId}`;

/**
 * Delivery of a tick: Scheduler tries again within the minute (a throttled or failed Invoke call), then
 * gives the tick up to the failure queue; the next tick comes a minute later anyway.
 */
export const TICK_RETRY = { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 60 } as const;

/** A `rate(...)` expression's interval in minutes (minutes, hours or days); undefined for anything else. */
export function rateMinutes(expression: string): number | undefined {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!match) return undefined;
  const value = Number(match[1]);
  if (value < 1 || (value === 1) !== !match[2]!.endsWith('s')) return undefined;
  return value * (match[2]!.startsWith('minute') ? 1 : match[2]!.startsWith('hour') ? 60 : 1440);
}

export interface ChainSchedulesProps {
  /** The job id (schedule names `<jobId>-<chainId>`). */
  jobId: string;
  target: IFunction;
  chains: readonly ChainSetting[];
  /** `rate(...)` expression of every chain's schedule. */
  expression: string;
  /** Where Scheduler puts a tick it could not deliver: the job's failure queue. */
  deadLetters: IQueue;
}

export class ChainSchedules extends Construct {
  readonly group: ScheduleGroup;
  readonly role: InlinePolicyRole;
  /** The nested stack holding the schedules. */
  readonly nested: NestedStack;
  /** Each chain's schedule, by chain id. */
  readonly schedules = new Map<number, Schedule>();

  constructor(scope: Construct, id: string, props: ChainSchedulesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // No data of its own (deleting it deletes its schedules, which the nested stack deletes anyway); a
    // retained group would keep its generated name from a new stack of the same name.
    this.group = new ScheduleGroup(this, 'Group', { removalPolicy: RemovalPolicy.DESTROY });
    this.role = new InlinePolicyRole(this, 'InvokeRole', {
      // Only schedules of this group, in this account, may use the role (the confused deputy).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': this.group.scheduleGroupArn } },
      }),
      description: `${props.jobId}'s schedules: invoke ${props.jobId}, record an undelivered tick in its failure queue`,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['lambda:InvokeFunction'], resources: [props.target.functionArn] }),
    );
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [props.deadLetters.queueArn] }),
    );

    this.nested = new NestedStack(this, 'Schedules', {
      description: `${stack.stackName}: one ${props.expression} schedule per chain invoking ${props.jobId}`,
    });
    // The schedules name the group by its name (a plain string): they must wait for it.
    this.nested.node.addDependency(this.group);
    const expression = ScheduleExpression.expression(props.expression);
    for (const chain of props.chains) {
      const name = chainScheduleName(props.jobId, chain.chainId);
      const target: IScheduleTarget = {
        bind: () => ({
          arn: props.target.functionArn,
          role: this.role,
          input: ScheduleTargetInput.fromObject(ingestEvent(chain)),
          retryPolicy: TICK_RETRY,
          deadLetterConfig: { arn: props.deadLetters.queueArn },
        }),
      };
      this.schedules.set(
        chain.chainId,
        new Schedule(this.nested, `Chain${chain.chainId}`, {
          scheduleName: name,
          scheduleGroup: this.group,
          schedule: expression,
          target,
          description: `Runs ${props.jobId} for chain ${chain.chainId} on ${props.expression}`,
        }),
      );
    }
  }
}

/** One period's worth of ticks of a chain's schedule, e.g. 5 for `rate(1 minute)` and 5-minute periods. */
export function ticksPerPeriod(expression: string, period: Duration): number {
  const minutes = rateMinutes(expression);
  if (minutes === undefined) throw new Error(`${expression} is not a rate(...) expression`);
  return period.toMinutes() / minutes;
}
