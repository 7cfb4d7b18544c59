/**
 * The Lambda harness's pure pieces (the harness itself, `npm run bench:lambda`, is not part of
 * `npm test`): the cost model of following a chain, the budgets of its figures, and the local SQS FIFO
 * stand-in (order, deduplication, retries of failed records, dead letters) driven by the real SQS client.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { LambdaFollowResult } from '../../../scripts/bench/lambda-follow';
import { FAMILIES, lambdaBudgets } from '../../../scripts/bench/lib/budgets';
import { LAMBDA_PRICES, lambdaCostPerChainPerDay } from '../../../scripts/bench/lib/lambda-cost';
import { LocalFifoQueue } from '../../../scripts/bench/lib/local-sqs';

describe('the cost of following a chain with the Lambda', () => {
  const deployed = {
    memoryMb: 512,
    architecture: 'arm64' as const,
    scheduleSeconds: 60,
    timeoutSeconds: 900,
    safetyMarginSeconds: 60,
    handoverWaitSeconds: 60,
    skippedInvocationSeconds: 0.1,
    leaseWritesPerSecond: 0.3,
  };

  it('bills each holder from its tick to its handover, and every other tick a short look at the lease', () => {
    const cost = lambdaCostPerChainPerDay(deployed);
    // A holder runs 840 s (60 of them waiting for the one before); a handover every 780 s.
    expect(cost.perDay.invocations).toBe(1440);
    expect(cost.perDay.holders).toBeCloseTo(86_400 / 780, 1);
    const billed = (86_400 / 780) * 840 + (1440 - 86_400 / 780) * 0.1;
    expect(cost.perDay.billedSeconds).toBe(Math.round(billed));
    expect(cost.perDay.averageConcurrency).toBeCloseTo(billed / 86_400, 3);
    expect(cost.perDay.computeUsd).toBeCloseTo(billed * 0.5 * LAMBDA_PRICES.gbSecondArm, 4);
    expect(cost.perDay.requestsUsd).toBeCloseTo(1440 * 0.0000002, 5);
    expect(cost.perDay.leaseWritesUsd).toBeCloseTo(86_400 * 0.3 * 0.625e-6, 4);
    expect(cost.perDay.totalUsd).toBeGreaterThan(0.6);
    expect(cost.perDay.totalUsd).toBeLessThan(0.7);
    // x86_64 costs a quarter more for the compute.
    expect(cost.otherArchitectureUsd).toBeCloseTo(
      billed * 0.5 * LAMBDA_PRICES.gbSecondX86 + cost.perDay.requestsUsd + cost.perDay.leaseWritesUsd,
      3,
    );
    // Twice the memory, twice the compute.
    expect(lambdaCostPerChainPerDay({ ...deployed, memoryMb: 1024 }).perDay.computeUsd).toBeCloseTo(2 * cost.perDay.computeUsd, 3);
  });
});

describe('the budgets of the Lambda part', () => {
  const result = (
    overrides: {
      lagP99?: number;
      depositP99?: number;
      notShown?: number;
      detected?: number;
      duplicates?: number[];
      errors?: string[];
    } = {},
  ) =>
    ({
      chain: { head: 120 },
      lag: {
        blocks: { p50: 0, p99: overrides.lagP99 ?? 1, max: 2 },
        seconds: { p50: 0.7, p99: 2.5, max: 3 },
        notShown: overrides.notShown ?? 0,
      },
      deposits: { sent: 10, detected: overrides.detected ?? 10, seconds: { p50: 2, p99: overrides.depositP99 ?? 3.1, max: 3.5 } },
      invocations: { handovers: 6, errors: overrides.errors ?? [], timeouts: 0 },
      continuity: {
        tableBlocks: { missing: [], wrongHash: [] },
        queue: { duplicates: overrides.duplicates ?? [], missing: [], outOfOrder: 0, brokenLinks: 0 },
        cursorWentBack: 0,
        cursorAtEnd: 120,
      },
      budget: { p99LagBlocks: 2, p99DepositSeconds: 5 },
    }) as unknown as LambdaFollowResult;

  it('passes within the budgets and names what failed otherwise', () => {
    expect(lambdaBudgets(result()).map((budget) => [budget.family, budget.value, budget.pass])).toEqual([
      [FAMILIES.lambdaLag, 1, true],
      [FAMILIES.lambdaDeposit, 3.1, true],
      [FAMILIES.lambdaContinuity, 0, true],
      [FAMILIES.lambdaContinuity, 0, true],
    ]);
    expect(lambdaBudgets(result({ lagP99: 3 }))[0]).toMatchObject({ value: 3, budget: 2, pass: false });
    expect(lambdaBudgets(result({ notShown: 2 }))[0]).toMatchObject({
      value: null,
      pass: false,
      note: expect.stringMatching(/2 blocks never shown/),
    });
    expect(lambdaBudgets(result({ depositP99: 5.4 }))[1]).toMatchObject({ value: 5.4, budget: 5, pass: false });
    expect(lambdaBudgets(result({ detected: 9 }))[1]).toMatchObject({ value: null, pass: false, note: '1 of 10 deposits never detected' });
    expect(lambdaBudgets(result({ duplicates: [7, 8] }))[2]).toMatchObject({ value: 2, pass: false });
    expect(lambdaBudgets(result({ errors: ['invocation-3: boom'] }))[3]).toMatchObject({ value: 1, pass: false });
  });
});

describe('the local SQS FIFO stand-in', () => {
  it("takes the real client's SendMessage, drops duplicates, delivers a group in order and retries failed records", async () => {
    const delivered: string[] = [];
    let failOnce = true;
    const queue = new LocalFifoQueue({
      consumer: async (event: SQSEvent): Promise<SQSBatchResponse> => {
        const failures: { itemIdentifier: string }[] = [];
        for (const record of event.Records) {
          if (failures.length > 0 || (record.body === 'b' && failOnce)) {
            failOnce = false;
            failures.push({ itemIdentifier: record.messageId });
            continue;
          }
          delivered.push(record.body);
        }
        return { batchItemFailures: failures };
      },
      batchSize: 10,
      visibilityTimeoutMs: 50,
    });
    await queue.start('Test.fifo');
    const client = new SQSClient({
      endpoint: queue.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      for (const [body, id] of [
        ['a', 'a'],
        ['b', 'b'],
        ['c', 'c'],
        ['a again', 'a'],
      ])
        await client.send(
          new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: body, MessageGroupId: '1', MessageDeduplicationId: id }),
        );
      await queue.drain(5_000);
      expect(queue.deduplicated).toBe(1);
      expect(delivered).toEqual(['a', 'b', 'c']);
      expect(queue.failedRecords).toBeGreaterThanOrEqual(1);
      expect(queue.deadLetters).toEqual([]);
      // b came back once; c, behind it in the group, was never delivered before it.
      const [a, b, c] = queue.messages;
      expect([a!.receives, b!.receives]).toEqual([1, 2]);
      expect(c!.doneAt!).toBeGreaterThanOrEqual(b!.doneAt!);
    } finally {
      client.destroy();
      await queue.close();
    }
  });
});
