/**
 * The Lambda harness's pure pieces (the harness itself, `npm run bench:lambda`, is not part of
 * `npm test`): the cost model of following a chain (and the successor's wait it rests on), the budgets
 * of its figures, the chaos bookkeeping (which invocation to kill, what the chain went through until the
 * API was current again), the SQS event source mapping's model (what a FIFO receive returns, what a
 * batch's answer deletes or retries) and the local SQS FIFO stand-in (long polls, order, one batch of a
 * group in flight, deduplication, retries of failed records) driven by the real SQS client.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { delayMessage } from '../../../shared/aws/delay-message';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { LambdaFollowResult } from '../../../scripts/bench/lambda-follow';
import { FAMILIES, lambdaBudgets } from '../../../scripts/bench/lib/budgets';
import { benchWebhooks, queueFigures, type ReceivedRequest, webhookFigures } from '../../../scripts/bench/lib/lambda-webhooks';
import { chaosRecovery, lagInBlocks, pickHolder } from '../../../scripts/bench/lib/lambda-chaos';
import { LAMBDA_PRICES, lambdaCostPerChainPerDay, successorWaitSeconds } from '../../../scripts/bench/lib/lambda-cost';
import { LocalQueue, LocalSqs, type QueuedMessage, receiveBatch, settleBatch } from '../../../scripts/bench/lib/local-sqs';
import { deployedFollower } from './support/deployed-follower';

describe('the cost of following a chain with the Lambda', () => {
  const deployed = deployedFollower(0.1);

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

  it("waits, at a handover, as long as the schedule's phase makes the successor wait", () => {
    // Deployed: 840 s is 14 minutes, the successor is the tick one period before the handover (75 s allowed).
    expect(successorWaitSeconds({ timeoutSeconds: 900, safetyMarginSeconds: 60, scheduleSeconds: 60, maxWaitSeconds: 75 })).toBe(60);
    // The harness's default timing: handovers fall 15 s after a tick; 40 s before is past the 31.25 s allowed.
    expect(successorWaitSeconds({ timeoutSeconds: 75, safetyMarginSeconds: 10, scheduleSeconds: 25, maxWaitSeconds: 31.25 })).toBe(15);
    expect(successorWaitSeconds({ timeoutSeconds: 40, safetyMarginSeconds: 6, scheduleSeconds: 12, maxWaitSeconds: 15 })).toBe(10);
    // No tick within the wait: the successor comes after the handover.
    expect(successorWaitSeconds({ timeoutSeconds: 40, safetyMarginSeconds: 6, scheduleSeconds: 12, maxWaitSeconds: 5 })).toBe(0);
    // At the harness's timing the model bills a 65 s holder every 50 s: about 1.3 Lambda-seconds a second
    // (the first version, one period of wait everywhere, said 65 / 40 = 1.63; the run measured 1.25).
    const harness = lambdaCostPerChainPerDay({
      ...deployed,
      scheduleSeconds: 25,
      timeoutSeconds: 75,
      safetyMarginSeconds: 10,
      handoverWaitSeconds: 15,
    });
    expect(harness.perDay.averageConcurrency).toBeCloseTo(65 / 50 + (1 / 50) * 0.1, 2);
  });
});

describe('the chaos of the Lambda harness', () => {
  const timing = { holdMs: 65_000, ownWaitMs: 15_000, handoverWaitMs: 31_250 };

  it('kills the oldest invocation in flight once it follows, never near its handover', () => {
    const holder = { id: 'invocation-0003', startedAt: 100_000 };
    const waiter = { id: 'invocation-0004', startedAt: 125_000 };
    // Still within its own handover wait: not yet.
    expect(pickHolder([holder], 110_000, timing)).toBeUndefined();
    // Following, 40 s from its handover: the one.
    expect(pickHolder([waiter, holder], 125_000, timing)).toBe(holder);
    // 30 s from its handover, a successor may be waiting: not any more.
    expect(pickHolder([holder, waiter], 135_000, timing)).toBeUndefined();
    expect(pickHolder([], 135_000, timing)).toBeUndefined();
  });

  it('tells the gap, the lag spike and the window of blocks until the API was current again', () => {
    // A block every 2 s from t = 0; the API shows each 0.5 s after it, but nothing between the kill (at
    // 21 s, block 10 shown at 20.5 s) and 31 s, when the successor writes 11..15 at once; then current again.
    const mined = Array.from({ length: 25 }, (_, number) => ({ number, minedAt: number * 2_000 }));
    const shownAt = new Map<number, number>();
    for (const block of mined) {
      if (block.number <= 10) shownAt.set(block.number, block.minedAt + 500);
      else if (block.number <= 15) shownAt.set(block.number, 31_000);
      else if (block.number <= 23) shownAt.set(block.number, block.minedAt + 500);
    }
    expect(lagInBlocks(mined[11]!, mined, shownAt)).toBe(4);
    expect(lagInBlocks(mined[24]!, mined, shownAt)).toBeNull();
    const recovery = chaosRecovery({ invocation: 'invocation-0001', killedAt: 21_000, mined, shownAt, budgetBlocks: 2 });
    expect(recovery).toEqual({
      invocation: 'invocation-0001',
      killedAt: 21_000,
      headAtKill: 10,
      // The head moved last at 20.5 s, next at 31 s.
      unwrittenSeconds: 10.5,
      firstAdvanceAfterSeconds: 10,
      // 11 and 12 waited 4 and 3 blocks; 13 waited 2, the first within the budget: current again at 31 s.
      recoveredAt: 31_000,
      recoverySeconds: 10,
      windowBlocks: [11, 12],
      lagSpike: { blocks: 4, seconds: 9 },
    });
    // Never current again within the run: no recovery, the window runs to the end.
    const stuck = new Map([...shownAt].filter(([number]) => number <= 10));
    expect(chaosRecovery({ invocation: 'x', killedAt: 21_000, mined, shownAt: stuck, budgetBlocks: 2 })).toMatchObject({
      unwrittenSeconds: null,
      recoveredAt: null,
      windowBlocks: mined.filter((block) => block.number > 10).map((block) => block.number),
      lagSpike: { blocks: null, seconds: null },
    });
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
      behindAtEnd?: number;
      base?: { recoveryBlocks: number | null };
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
        cursorAtEnd: 120 - (overrides.behindAtEnd ?? 0),
        behindAtEnd: overrides.behindAtEnd ?? 0,
      },
      burst: overrides.base ? { transactions: 3000, block: 77, recoveryBlocks: overrides.base.recoveryBlocks } : null,
      budget: overrides.base
        ? { p99LagBlocks: 2, p99DepositSeconds: null, burstRecoveryBlocks: 10 }
        : { p99LagBlocks: 2, p99DepositSeconds: 5, burstRecoveryBlocks: null },
    }) as unknown as LambdaFollowResult;

  it('passes within the budgets and names what failed otherwise', () => {
    expect(lambdaBudgets(result()).map((budget) => [budget.family, budget.value, budget.pass])).toEqual([
      [FAMILIES.lambdaLag, 1, true],
      [FAMILIES.lambdaDeposit, 3.1, true],
      [FAMILIES.lambdaContinuity, 0, true],
      [FAMILIES.lambdaLag, 0, true],
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
    expect(lambdaBudgets(result({ errors: ['invocation-3: boom'] }))[4]).toMatchObject({ value: 1, pass: false });
    // A follower slower than its chain: blocks not yet written at the end are the lag's failure, not lost blocks.
    const behind = lambdaBudgets(result({ behindAtEnd: 25 }));
    expect(behind[2]).toMatchObject({ value: 0, pass: true });
    expect(behind[3]).toMatchObject({ value: 25, budget: 0, pass: false });
  });

  it('webhooks: event-to-delivered p99 within 5 s, and no block delivered wrong', () => {
    const withHooks = (seconds: number, wrong: number[], expected = 40) =>
      lambdaBudgets({
        ...result(),
        webhooks: {
          expected,
          delivered: 40,
          seconds: { p50: 1, p99: seconds, max: seconds },
          wrongCountBlocks: wrong,
          unexpected: 0,
          badSignatures: 0,
        },
        budget: { p99LagBlocks: 2, p99DepositSeconds: 5, burstRecoveryBlocks: null, p99WebhookSeconds: 5 },
      } as unknown as LambdaFollowResult).filter((budget) => budget.family === FAMILIES.lambdaWebhook);
    expect(withHooks(1.8, []).map((budget) => [budget.value, budget.pass])).toEqual([
      [1.8, true],
      [0, true],
    ]);
    expect(withHooks(5.2, [])[0]).toMatchObject({ value: 5.2, budget: 5, pass: false });
    expect(withHooks(1.8, [12, 13])[1]).toMatchObject({ value: 2, pass: false });
    // Nothing to deliver measures nothing: a failure, not a pass.
    expect(withHooks(1.8, [], 0)[0]).toMatchObject({ value: null, pass: false });
  });

  it("an ingest environment's peak memory stays within its memory size (Lambda kills it past that)", () => {
    const withMemory = (peak: number) =>
      lambdaBudgets({ ...result(), ingestPeakRssMb: peak, settings: { memoryMb: 1769 } } as unknown as LambdaFollowResult).find((budget) =>
        /peak memory/.test(budget.name),
      );
    expect(withMemory(900)).toMatchObject({ value: 900, budget: 1769, pass: true });
    expect(withMemory(1900)).toMatchObject({ value: 1900, budget: 1769, pass: false });
    // Results from before the measure: no such budget.
    expect(lambdaBudgets(result()).some((budget) => /peak memory/.test(budget.name))).toBe(false);
  });

  it('Base mode: no deposit budget; the burst recovers within 10 blocks or fails', () => {
    const names = (budgets: ReturnType<typeof lambdaBudgets>) => budgets.map((budget) => budget.name);
    const recovered = lambdaBudgets(result({ base: { recoveryBlocks: 6 } }));
    expect(names(recovered).some((name) => /deposit/.test(name))).toBe(false);
    expect(recovered.find((budget) => /burst/.test(budget.name))).toMatchObject({ value: 6, budget: 10, pass: true });
    expect(lambdaBudgets(result({ base: { recoveryBlocks: null } })).find((budget) => /burst/.test(budget.name))).toMatchObject({
      value: null,
      pass: false,
    });
  });
});

describe('the local SQS FIFO stand-in', () => {
  it("takes the real client's SendMessage, drops duplicates, delivers a group in order and retries failed records", async () => {
    const delivered: string[] = [];
    let failOnce = true;
    const queue = new LocalQueue({
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

describe('the local SQS endpoint with a standard queue beside a FIFO one', () => {
  it("routes by queue URL, takes SendMessageBatch, runs a standard queue's messages side by side and honours a consumer's backoff", async () => {
    const sqs = new LocalSqs();
    await sqs.start();
    const client = new SQSClient({
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const fifoBodies: string[] = [];
    const attempts = new Map<string, number[]>();
    let inFlight = 0;
    let mostInFlight = 0;
    const fifo = sqs.add(
      'Events.fifo',
      new LocalQueue({
        consumer: async (event) => {
          fifoBodies.push(...event.Records.map((record) => record.body));
          return { batchItemFailures: [] };
        },
      }),
    );
    const standard = sqs.add(
      'Deliveries',
      new LocalQueue({
        fifo: false,
        batchSize: 1,
        pollers: 3,
        visibilityTimeoutMs: 30_000,
        consumer: async (event) => {
          inFlight += 1;
          mostInFlight = Math.max(mostInFlight, inFlight);
          const failures: { itemIdentifier: string }[] = [];
          for (const record of event.Records) {
            const times = [...(attempts.get(record.body) ?? []), Date.now()];
            attempts.set(record.body, times);
            // "retry" fails its first receive and asks to be back in 200 ms (not the queue's 30 s).
            if (record.body === 'retry' && times.length === 1) {
              await delayMessage(client, standard.queueUrl, record.receiptHandle, 200);
              failures.push({ itemIdentifier: record.messageId });
            }
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
          inFlight -= 1;
          return { batchItemFailures: failures };
        },
      }),
    );
    try {
      await client.send(
        new SendMessageCommand({ QueueUrl: fifo.queueUrl, MessageBody: 'block', MessageGroupId: '1', MessageDeduplicationId: 'b' }),
      );
      const answer = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: standard.queueUrl,
          Entries: ['one', 'two', 'same', 'same', 'retry'].map((body, index) => ({ Id: String(index), MessageBody: body })),
        }),
      );
      expect(answer.Successful).toHaveLength(5);
      await expect(
        client.send(
          new SendMessageBatchCommand({
            QueueUrl: standard.queueUrl,
            Entries: Array.from({ length: 11 }, (_, i) => ({ Id: String(i), MessageBody: 'x' })),
          }),
        ),
      ).rejects.toThrow(/1 to 10 entries/);
      await expect(
        client.send(new SendMessageCommand({ QueueUrl: `${sqs.endpoint}/000000000000/Nowhere`, MessageBody: 'x' })),
      ).rejects.toThrow(/no queue Nowhere/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await standard.drain(5_000);
      await fifo.drain(5_000);
      expect(fifoBodies).toEqual(['block']);
      // A standard queue deduplicates nothing and runs its messages side by side.
      expect(standard.messages.map((message) => message.body)).toEqual(['one', 'two', 'same', 'same', 'retry']);
      expect(attempts.get('same')).toHaveLength(2);
      expect(mostInFlight).toBeGreaterThan(1);
      // The backoff: back after about 200 ms, long before the queue's visibility timeout.
      const [first, second] = attempts.get('retry')!;
      expect(second! - first!).toBeGreaterThanOrEqual(190);
      expect(second! - first!).toBeLessThan(5_000);
      expect(standard.visibilityChanges).toBe(1);
      expect(standard.deadLetters).toEqual([]);
    } finally {
      client.destroy();
      await fifo.close();
      await standard.close();
      await sqs.close();
    }
  });
});

describe("the model of Lambda's SQS event source mapping (FIFO)", () => {
  const message = (sequence: number, group: string, visibleAt = 0, receives = 1): QueuedMessage => ({
    messageId: `m${sequence}`,
    group,
    deduplicationId: `d${sequence}`,
    body: String(sequence),
    sequence,
    sentAt: sequence,
    receives,
    visibleAt,
  });

  it('receives up to a batch in order, several groups at once, none of a group in flight or behind a hidden message', () => {
    const waiting = [message(3, 'b'), message(1, 'a'), message(2, 'a'), message(4, 'c', 500), message(5, 'c'), message(6, 'd')];
    expect(receiveBatch(waiting, 100, 10, new Set()).map((m) => m.messageId)).toEqual(['m1', 'm2', 'm3', 'm6']);
    expect(receiveBatch(waiting, 100, 10, new Set(['a'])).map((m) => m.messageId)).toEqual(['m3', 'm6']);
    expect(receiveBatch(waiting, 100, 2, new Set()).map((m) => m.messageId)).toEqual(['m1', 'm2']);
    // Once the hidden message shows again, it comes first of its group.
    expect(receiveBatch(waiting, 600, 10, new Set(['a', 'b', 'd'])).map((m) => m.messageId)).toEqual(['m4', 'm5']);
  });

  it('deletes what succeeded and brings back the first failed record and every later one of its group', () => {
    const batch = [message(1, 'a'), message(2, 'a'), message(3, 'b'), message(4, 'a', 0, 5), message(5, 'b')];
    const settled = settleBatch(batch, new Set(['m2']), { now: 1_000, visibilityTimeoutMs: 30_000, maxReceiveCount: 5 });
    expect(settled.deleted.map((m) => m.messageId)).toEqual(['m1', 'm3', 'm5']);
    expect(settled.retried).toEqual([{ message: batch[1], visibleAt: 31_000 }]);
    // m4 had been received 5 times: the dead-letter queue.
    expect(settled.deadLetters.map((m) => m.messageId)).toEqual(['m4']);
    // A failed invocation: every record comes back.
    const all = settleBatch(batch.slice(0, 3), new Set(['m1', 'm2', 'm3']), { now: 0, visibilityTimeoutMs: 10, maxReceiveCount: 5 });
    expect(all.deleted).toEqual([]);
    expect(all.retried.map((entry) => entry.message.messageId)).toEqual(['m1', 'm2', 'm3']);
  });

  it('long-polls: a batch as soon as a message is sent, the next with what came meanwhile, one batch of a group at a time', async () => {
    const batches: string[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const queue = new LocalQueue({
      consumer: async (event: SQSEvent): Promise<SQSBatchResponse> => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        batches.push(event.Records.map((record) => record.body));
        await new Promise((resolve) => setTimeout(resolve, 300));
        inFlight -= 1;
        return { batchItemFailures: [] };
      },
      batchSize: 3,
      pollers: 2,
      waitTimeMs: 100,
    });
    await queue.start('Poll.fifo');
    const client = new SQSClient({
      endpoint: queue.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      // Nothing sent: the long polls come back empty after their wait.
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(queue.emptyReceives).toBeGreaterThanOrEqual(2);
      expect(queue.batches).toBe(0);
      const send = (body: string) =>
        client.send(
          new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: body, MessageGroupId: '1', MessageDeduplicationId: body }),
        );
      await send('1');
      await new Promise((resolve) => setTimeout(resolve, 30));
      for (const body of ['2', '3', '4', '5']) await send(body);
      await queue.drain(5_000);
      expect(batches).toEqual([['1'], ['2', '3', '4'], ['5']]);
      expect(mostInFlight).toBe(1);
      expect(queue.deliveries.map((delivery) => delivery.size)).toEqual([1, 3, 1]);
      expect(queue.deliveries[0]!.receivedAt - queue.deliveries[0]!.firstSentAt).toBeLessThan(100);
    } finally {
      client.destroy();
      await queue.close();
    }
  });
});

describe("the harness's webhook figures", () => {
  const hook = benchWebhooks({ chainId: 5, anvilSenders: ['0x00000000000000000000000000000000000000aa'], base: null })[0]!;
  const item = (id: string, block: number, from = '0x00000000000000000000000000000000000000AA', status: 'new' | 'reverted' = 'new') => ({
    id,
    status,
    type: 'transaction' as const,
    data: { block_number: block, from_address: from },
  });
  const queue = queueFigures({ messages: 0, batches: 0, failedRecords: 0, deadLetters: 0, deliveries: [], invocations: [], coldStarts: 0 });
  const figures = (requests: ReceivedRequest[], truth: Map<number, number>) =>
    webhookFigures({
      webhooks: [{ id: 'w', topic: hook.topic, filter: hook.describe }],
      requests,
      expectedPerBlock: new Map([['w', truth]]),
      matches: (_, received) => hook.matches(received),
      minedAt: new Map([
        [0, 0],
        [1, 1_000],
        [2, 3_000],
        [3, 5_000],
      ]),
      measured: new Set([1, 2, 3]),
      shownAt: new Map([
        [1, 2_000],
        [2, 3_500],
      ]),
      windows: new Set([3]),
      matching: queue,
      delivery: { ...queue, visibilityChanges: 0 },
    });

  it("counts the chain's matching records of a block with the webhook's filter", () => {
    const block = {
      txs: [
        { from: '0x00000000000000000000000000000000000000AA', to: null, logs: [] },
        { from: '0x00000000000000000000000000000000000000bb', to: null, logs: [] },
      ],
    };
    expect(hook.countIn(block)).toBe(1);
    expect(hook.matches(item('x', 1))).toBe(true);
    expect(hook.matches(item('x', 1, '0x00000000000000000000000000000000000000bb'))).toBe(false);
  });

  it('times each item from its block at the node to its first delivery, the windows apart, repeats counted once', () => {
    const result = figures(
      [
        { at: 500, webhookId: 'w', signatureOk: true, items: [item('z', 0)] },
        { at: 2_500, webhookId: 'w', signatureOk: true, items: [item('a', 1), item('b', 2)] },
        { at: 4_000, webhookId: 'w', signatureOk: true, items: [item('a', 1)] },
        { at: 9_000, webhookId: 'w', signatureOk: true, items: [item('c', 3)] },
      ],
      new Map([
        [0, 1],
        [1, 1],
        [2, 1],
        [3, 1],
      ]),
    );
    expect(result.delivered).toBe(4);
    // Block 0 was mined before the ingest first caught up: left out, as the lag leaves it out.
    expect(result.beforeCaughtUp).toBe(1);
    expect(result.slowest[0]).toEqual({ block: 1, items: 1, seconds: 1.5 });
    expect(result.repeated).toBe(1);
    expect(result.measuredItems).toBe(2);
    expect(result.seconds.max).toBe(1.5);
    // Block 1 was shown at 2 s and its item delivered at 2.5 s: the webhook path's own 0.5 s.
    expect(result.afterShownSeconds.max).toBe(0.5);
    expect(result.inWindows).toEqual({ items: 1, seconds: { p50: 4, p99: 4, max: 4 } });
    expect(result.wrongCountBlocks).toEqual([]);
    expect(result.pass).toBe(true);
  });

  it('fails a run that missed a record, delivered one outside its filter, a reverted one or a bad signature, or was late', () => {
    const truth = new Map([
      [1, 2],
      [2, 1],
    ]);
    const missed = figures([{ at: 1_100, webhookId: 'w', signatureOk: true, items: [item('a', 1), item('b', 2)] }], truth);
    expect(missed.wrongCountBlocks).toEqual([1]);
    expect(missed.pass).toBe(false);
    const outside = figures(
      [
        {
          at: 1_100,
          webhookId: 'w',
          signatureOk: true,
          items: [item('a', 1), item('a2', 1, '0x00000000000000000000000000000000000000bb'), item('b', 2)],
        },
      ],
      truth,
    );
    expect(outside.unexpected).toBe(1);
    expect(outside.pass).toBe(false);
    const unsigned = figures(
      [{ at: 1_100, webhookId: 'w', signatureOk: false, items: [item('a', 1), item('a2', 1), item('b', 2)] }],
      truth,
    );
    expect(unsigned.badSignatures).toBe(1);
    expect(unsigned.pass).toBe(false);
    const late = figures([{ at: 7_000, webhookId: 'w', signatureOk: true, items: [item('a', 1), item('a2', 1), item('b', 2)] }], truth);
    expect(late.seconds.p99).toBe(6);
    expect(late.pass).toBe(false);
    const reverted = figures(
      [
        {
          at: 1_100,
          webhookId: 'w',
          signatureOk: true,
          items: [item('a', 1), item('a2', 1), item('b', 2), item('a', 1, undefined, 'reverted')],
        },
      ],
      truth,
    );
    expect(reverted.reverted).toBe(1);
    expect(reverted.pass).toBe(false);
  });
});
