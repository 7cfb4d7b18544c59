/**
 * Overlapping invocations of the ingest Lambda hand a chain over without losing or repeating a block.
 * As in AWS, each invocation runs in a "container" of its own (a fresh instance of the handler module
 * and everything it loads: its own chain client, ingest and DynamoDB client), a container serves one
 * invocation at a time, and the schedule starts an invocation every 2 s whatever still runs. Each
 * invocation has 5 s (INGEST_SAFETY_MARGIN_MS 1 s), so each holder hands over after about 4 s to the
 * invocation started meanwhile, which waited for it (INGEST_HANDOVER_WAIT_MS 2.5 s). Anvil mines a
 * block every second, with transfers sent all along.
 */
import type { Context } from 'aws-lambda';
import { createWalletClient, http as viemHttp, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { IngestChainResult } from '../../../functions/ingest/ingest-chain';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { readLease } from '../../../shared/ingest/lease';
import { readCursor } from '../../../shared/ingest/manifest';
import { decodeListenerMessage } from '../../../shared/ingest/queue-messages';
import type { CursorRecord, IngestLeaseRecord } from '../../../shared/table/records';
import { useTestTable } from '../../support/table';
import { expectImmutableItems, readChainTruth } from '../../shared/ingest/support/truth';
import { startHttpProxy } from '../../shared/ingest/support/proxy';
import { startSqsStub, startSsmStub, stubEnvironment, type SqsStub, type SsmStub } from './support/aws-stubs';

useTestTable('handover');
const CHAIN_ID = 31337;
const EVENT = { chainId: CHAIN_ID, rpcUrlParameter: '/chain-data/rpc-url/31337', blockTimeMs: 1_000 };
const TIMEOUT_MS = 5_000;
const SCHEDULE_MS = 2_000;
const INVOCATIONS = 7;

let anvil: Anvil;
let ssm: SsmStub;
let sqs: SqsStub;

type Handler = (event: unknown, context: Context) => Promise<IngestChainResult>;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID, blockTime: 1 });
  ssm = await startSsmStub(() => anvil.rpcUrl);
  sqs = await startSqsStub();
  Object.assign(process.env, {
    ...stubEnvironment(ssm, sqs),
    INGEST_SAFETY_MARGIN_MS: '1000',
    INGEST_LEASE_TTL_MS: '1500',
    INGEST_HANDOVER_WAIT_MS: '2500',
    POWERTOOLS_METRICS_NAMESPACE: 'ChainDataApiTest',
  });
}, 60_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await ssm?.close();
  await sqs?.close();
  await anvil?.stop();
});

/** A new container: a fresh instance of the handler module and all it loads. */
async function newContainer(): Promise<{ handler: Handler; busy: boolean }> {
  vi.resetModules();
  const { handler } = await import('../../../functions/ingest/ingest-chain');
  return { handler, busy: false };
}

test('overlapping invocations hand the chain over: every block written and published exactly once, the cursor never skips', async () => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true); // (the metrics' EMF lines)
  const wallet = createWalletClient({
    chain: { ...anvilChain, id: CHAIN_ID },
    transport: viemHttp(anvil.rpcUrl),
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]),
  });
  let sending = true;
  const load = (async () => {
    for (let i = 1n; sending; i += 1n) {
      await wallet.sendTransaction({ to: privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]).address, value: parseEther('0.001') * i });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();

  // Watch the cursor and the lease all along.
  const cursors: CursorRecord[] = [];
  const holders: { holder: string; at: number; lease: IngestLeaseRecord }[] = [];
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const [cursor, lease] = await Promise.all([readCursor(CHAIN_ID), readLease(CHAIN_ID)]);
      if (cursor && cursor.blockNumber !== cursors.at(-1)?.blockNumber) cursors.push(cursor);
      if (lease && lease.holder !== holders.at(-1)?.holder) holders.push({ holder: lease.holder, at: Date.now(), lease });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();

  // The schedule: an invocation every 2 s, each in an idle container (a new one when all are busy).
  const containers: { handler: Handler; busy: boolean }[] = [];
  let running = 0;
  let mostRunning = 0;
  const results: Promise<IngestChainResult & { started: number; finishedAt: number }>[] = [];
  for (let index = 0; index < INVOCATIONS; index += 1) {
    if (index > 0) await new Promise((resolve) => setTimeout(resolve, SCHEDULE_MS));
    const container = containers.find((candidate) => !candidate.busy) ?? (await newContainer());
    if (!containers.includes(container)) containers.push(container);
    container.busy = true;
    running += 1;
    mostRunning = Math.max(mostRunning, running);
    const deadline = Date.now() + TIMEOUT_MS;
    const context = { awsRequestId: `invocation-${index}`, getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
    const started = Date.now();
    results.push(
      container.handler(EVENT, context).then((result) => {
        container.busy = false;
        running -= 1;
        return { ...result, started, finishedAt: Date.now() };
      }),
    );
  }
  const outcomes = await Promise.all(results);
  watching = false;
  sending = false;
  await Promise.all([watch, load]);
  // (A last look: the watcher's last read may have begun before the last holder's last cursor move.)
  const last = await readCursor(CHAIN_ID);
  if (last && last.blockNumber !== cursors.at(-1)?.blockNumber) cursors.push(last);

  // Handovers happened, each to the invocation that waited for it; an invocation that found the
  // chain taken and its successor chosen returned at once.
  const followed = outcomes.filter((outcome) => outcome.role === 'followed');
  expect(followed.length).toBeGreaterThanOrEqual(4);
  expect(followed.filter((outcome) => outcome.tookOver).length).toBeGreaterThanOrEqual(1);
  expect(followed.every((outcome) => outcome.ended === 'released')).toBe(true);
  for (const outcome of outcomes.filter((entry) => entry.role === 'skipped')) {
    expect(outcome.waitedMs).toBe(0);
    expect(outcome.finishedAt - outcome.started).toBeLessThan(2_000);
  }
  // At most two invocations of the chain following or waiting at once (a holder and its successor). An
  // invocation counts from when it began to wait (or took the lease without waiting), not from when it
  // started: what it does before (its first lease read, which may find the previous handover under way)
  // holds nothing. A holder counts until it released the lease (its metrics' flush after holds nothing).
  const active = outcomes.filter((outcome) => outcome.role === 'followed' || outcome.waitedMs > 0);
  type Outcome = (typeof outcomes)[number];
  const activeFrom = (outcome: Outcome) => (outcome.role === 'followed' ? outcome.heldFrom! : outcome.finishedAt) - outcome.waitedMs;
  const activeUntil = (outcome: Outcome) => (outcome.role === 'followed' ? outcome.heldUntil! : outcome.finishedAt);
  const timeline = active.map((outcome) => ({
    invocation: outcomes.indexOf(outcome),
    role: outcome.role,
    from: activeFrom(outcome),
    until: activeUntil(outcome),
  }));
  for (const entry of timeline)
    expect(
      timeline.filter((other) => other.from <= entry.from && other.until > entry.from).length,
      JSON.stringify(timeline),
    ).toBeLessThanOrEqual(2);
  // One holder at a time: each took the lease once the one before had let it go.
  const held = [...followed].sort((a, b) => a.heldFrom! - b.heldFrom!);
  // Each handover (at least three) left the chain without a writer for less than a second.
  expect(held.length - 1).toBeGreaterThanOrEqual(3);
  for (const [index, outcome] of held.entries()) {
    if (index === 0) continue;
    expect(outcome.heldFrom!).toBeGreaterThanOrEqual(held[index - 1]!.heldUntil!);
    expect(outcome.heldFrom! - held[index - 1]!.heldUntil!).toBeLessThan(1_000);
  }
  // (A holder is its request id and a random part.)
  expect(holders.map((entry) => entry.holder.replace(/:[0-9a-f-]{36}$/, ''))).toEqual(
    held.map((outcome) => `invocation-${outcomes.indexOf(outcome)}`),
  );

  // The cursor only moved forward, block by block or batch by batch, onto the chain's own blocks.
  const final = cursors.at(-1)!;
  expect(final.blockNumber).toBeGreaterThanOrEqual(12);
  for (const [index, cursor] of cursors.entries())
    if (index > 0) expect(cursor.blockNumber).toBeGreaterThan(cursors[index - 1]!.blockNumber);
  expect(outcomes.reduce((sum, outcome) => sum + outcome.advanced, 0)).toBe(final.blockNumber + 1);

  // Every block's items exactly once (the chain read from the node, compared with the whole table).
  await expectImmutableItems(process.env.TABLE_NAME!, await readChainTruth(anvil.rpcUrl, 0, final.blockNumber));

  // Every block published exactly once, in order, each the child of the one before.
  const published = sqs.messages
    .map((message) => decodeListenerMessage(message.MessageBody))
    .flatMap((message) => (message.kind === 'blocksIngested' ? message.events.map((event) => event.block) : []));
  expect(published.map((block) => block.number)).toEqual(Array.from({ length: final.blockNumber + 1 }, (_, number) => number));
  for (const [index, block] of published.entries()) if (index > 0) expect(block.parentHash).toBe(published[index - 1]!.hash);
}, 90_000);

test('a crashed holder (no renewal, no release) loses the chain within its lease ttl to the next invocation, which carries on from the cursor', async () => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const { takeLease } = await import('../../../shared/ingest/lease');
  const before = (await readCursor(CHAIN_ID))!;
  // A holder that took the lease, announced a handover a minute away, and died 1.1 s of its 1.5 s ttl ago.
  const now = Date.now();
  await takeLease({
    chainId: CHAIN_ID,
    holder: 'crashed',
    now: now - 1_100,
    ttlMs: 1_500,
    handoverAt: now + 60_000,
    deadline: now + 120_000,
  });
  const container = await newContainer();
  const deadline = Date.now() + TIMEOUT_MS;
  const result = await container.handler(EVENT, {
    awsRequestId: 'after-crash',
    getRemainingTimeInMillis: () => deadline - Date.now(),
  } as Context);
  expect(result).toMatchObject({ role: 'followed', tookOver: true, ended: 'released' });
  expect(result.waitedMs).toBeLessThan(1_500);
  expect(result.heldFrom! - now).toBeLessThan(1_500);
  expect(result.advanced).toBeGreaterThan(0);
  const after = (await readCursor(CHAIN_ID))!;
  expect(after.blockNumber).toBe(before.blockNumber + result.advanced);
  await expectImmutableItems(process.env.TABLE_NAME!, await readChainTruth(anvil.rpcUrl, 0, after.blockNumber));
}, 60_000);

test('a holder killed in the middle of a batch (its table calls never answered again): the next invocation takes over and carries on, no block lost, no item twice', async () => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  // The victim's container reaches the table through a proxy that, from its third BatchWriteItem on
  // (a batch's items), holds every request for ever: the batch stops half written, the cursor stays,
  // no renewal, no release, as when Lambda ends a process.
  let batchWrites = 0;
  let killedAt: number | undefined;
  const table = await startHttpProxy(process.env.DYNAMODB_ENDPOINT!, ({ headers }) => {
    if (killedAt !== undefined) return 'hang';
    if (String(headers['x-amz-target']).endsWith('.BatchWriteItem') && ++batchWrites >= 3) {
      killedAt = Date.now();
      return 'hang';
    }
    return 'forward';
  });
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  process.env.DYNAMODB_ENDPOINT = table.url;
  let victim: { handler: Handler };
  try {
    victim = await newContainer();
  } finally {
    process.env.DYNAMODB_ENDPOINT = endpoint;
  }
  const before = (await readCursor(CHAIN_ID))?.blockNumber ?? -1;
  const published = sqs.messages.length;
  try {
    const deadline = Date.now() + 8_000;
    void victim
      .handler(EVENT, { awsRequestId: 'killed', getRemainingTimeInMillis: () => deadline - Date.now() } as Context)
      .catch(() => undefined);
    for (let waited = 0; killedAt === undefined && waited < 15_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(killedAt).toBeDefined();
    const atKill = (await readCursor(CHAIN_ID))?.blockNumber ?? -1;
    expect((await readLease(CHAIN_ID))?.holder).toMatch(/^killed:/);

    // The next tick comes once the lease has gone two thirds of its ttl without a renewal: it waits for
    // the expiry (one that came earlier exits: the holder's handover, far away, is after its own end).
    const successor = await newContainer();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt! + 1_000 - Date.now())));
    const successorDeadline = Date.now() + TIMEOUT_MS;
    const result = await successor.handler(EVENT, {
      awsRequestId: 'successor',
      getRemainingTimeInMillis: () => successorDeadline - Date.now(),
    } as Context);
    expect(result).toMatchObject({ role: 'followed', ended: 'released', tookOver: true });
    // Within the lease's ttl (1.5 s) of the kill, and a poll or two.
    expect(result.heldFrom! - killedAt!).toBeLessThan(1_500 + 1_000);
    expect(result.advanced).toBeGreaterThan(0);
    const after = (await readCursor(CHAIN_ID))!;
    expect(after.blockNumber).toBe(atKill + result.advanced);
    expect(atKill).toBeGreaterThanOrEqual(before);

    // Every block's items exactly once: the half-written batch rewritten, nothing left of it twice.
    await expectImmutableItems(process.env.TABLE_NAME!, await readChainTruth(anvil.rpcUrl, 0, after.blockNumber));
    // Every block after the cursor published, in order; only the killed batch's may come twice (at least once).
    const blocks = sqs.messages
      .slice(published)
      .map((message) => decodeListenerMessage(message.MessageBody))
      .flatMap((message) => (message.kind === 'blocksIngested' ? message.events.map((event) => event.block.number) : []));
    expect([...new Set(blocks)]).toEqual(Array.from({ length: after.blockNumber - before }, (_, i) => before + 1 + i));
    const repeated = blocks.filter((number, index) => blocks.indexOf(number) !== index);
    for (const number of repeated) expect(number).toBeGreaterThan(atKill);
  } finally {
    await table.close();
  }
}, 60_000);
