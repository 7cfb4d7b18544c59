/**
 * The parallel backfill on AWS's own engine (shared/ingest/backfill.ts explains the two stages): one
 * Step Functions state machine for every chain.
 *
 *   Plan (Lambda BackfillChain, `plan`) -> StageShards (Distributed Map over the plan's shards, at most
 *   `backfillConcurrency` at once; each item invokes BackfillChain `stage`)
 *
 * Started with the chain and its last block, e.g.
 *   aws stepfunctions start-execution --state-machine-arn <BackfillStateMachineArn> \
 *     --input '{"chainId": 8453, "to": 23000000}'
 * (optional: `from`, the block after the chain's cursor; `segmentBlocks`; `confirmations`). A shard
 * that runs out of time fails with ShardNotFinishedError and is run again at once (its staged segments
 * are skipped); any other failure is retried with backoff, then fails the execution. Progress is the
 * map run in the console. The chain's scheduled ingest numbers the staged segments meanwhile.
 */
import { CfnOutput, Duration, type RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, DistributedMap, JsonPath, LogLevel, StateMachine, TaskInput } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { ApiFunction } from './api-function';

export interface BackfillProps {
  worker: ApiFunction;
  /** Shards staged at once. */
  concurrency: number;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

/** Seconds between runs of a shard that ran out of time, and how many such runs a shard may take. */
const CONTINUE_INTERVAL_SECONDS = 1;
const CONTINUE_ATTEMPTS = 99;

export class Backfill extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: BackfillProps) {
    super(scope, id);
    const plan = new LambdaInvoke(this, 'Plan', {
      lambdaFunction: props.worker.function,
      payload: TaskInput.fromObject({ action: 'plan', request: JsonPath.objectAt('$') }),
      payloadResponseOnly: true,
      comment: 'Record the plan on the chain (it starts after the cursor) and cut it into shards',
    });
    const stageShard = new LambdaInvoke(this, 'StageShard', {
      lambdaFunction: props.worker.function,
      payloadResponseOnly: true,
      comment: 'Stage the segments of one shard',
    });
    stageShard.addRetry({
      errors: ['ShardNotFinishedError'],
      interval: Duration.seconds(CONTINUE_INTERVAL_SECONDS),
      maxAttempts: CONTINUE_ATTEMPTS,
      backoffRate: 1,
    });
    stageShard.addRetry({ errors: ['States.ALL'], interval: Duration.seconds(10), maxAttempts: 5, backoffRate: 2 });
    const shards = new DistributedMap(this, 'StageShards', {
      itemsPath: JsonPath.stringAt('$.shards'),
      itemSelector: {
        action: 'stage',
        chainId: JsonPath.numberAt('$.chainId'),
        from: JsonPath.numberAt('$$.Map.Item.Value.from'),
        to: JsonPath.numberAt('$$.Map.Item.Value.to'),
      },
      maxConcurrency: props.concurrency,
      // Thousands of shards: their answers would overflow the execution's state.
      resultPath: JsonPath.DISCARD,
      label: 'StageShards',
      comment: 'Every shard, any order, at most backfillConcurrency at once',
    });
    shards.itemProcessor(stageShard);

    const logs = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      comment: 'Parallel backfill of one chain: plan, then stage every shard; the chain ingest numbers the staged blocks',
      definitionBody: DefinitionBody.fromChainable(plan.next(shards)),
      timeout: Duration.days(30),
      tracingEnabled: true,
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: false },
    });
    // cdk-nag names the partition, region and account as the template does: literal when the stack's env gives them.
    const stack = Stack.of(this);
    const partition = Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition;
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
    const acknowledge = (finding: string, reason: string) =>
      Validations.of(this).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason });
    acknowledge(
      'Resource::*',
      'Step Functions log delivery (logs:*LogDelivery*, DescribeResourcePolicies, DescribeLogGroups) and X-Ray (PutTraceSegments) accept no narrower resource',
    );
    acknowledge(`Resource::<${props.worker.node.id}.Arn>:*`, 'LambdaInvoke grants the worker function and its versions; no other function');
    acknowledge(
      `Resource::arn:${partition}:states:${region}:${account}:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"BackfillStateMachine395F6B27"}]}]}:*`,
      "The Distributed Map's child executions of this state machine only",
    );
    acknowledge(
      `Resource::arn:${partition}:states:${region}:${account}:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"BackfillStateMachine395F6B27"}]}]}/StageShards:*`,
      "The Distributed Map's child executions of this state machine only",
    );
    new CfnOutput(scope, 'BackfillStateMachineArn', {
      value: this.stateMachine.stateMachineArn,
      description: 'Start a chain backfill: aws stepfunctions start-execution --input {"chainId":N,"to":BLOCK}',
    });
  }
}
