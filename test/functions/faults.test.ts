/**
 * Faults of DynamoDB, injected at the AWS SDK's middleware layer of the real client (inside the SDK's
 * retry middleware, so the SDK classifies and retries them as it would DynamoDB's own): throttling,
 * transactions cancelled by conflicts, timeouts before and after DynamoDB applied a write, and a
 * request whose write committed while everything after it failed. Each request of the write routes
 * (orders, checkout sessions, collections) and a read ends in a correct retry (200, exactly one
 * resource) or a 503 with Retry-After in its group's error format, never a 500, and the table before
 * and after holds either nothing new or the whole resource, never part of one.
 */
import {
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamoClient } from '../../shared/db/client';
import { SDK_RETRY } from '../../shared/db/retry';
import { tableSnapshot, useTestTable } from '../support/table';
import { accountFor, postCollection, signedBody } from './collections/fixtures';
import { getOrder, orderBody, postOrder, postSession } from './orders/fixtures';

const table = useTestTable('faults');

/** What the fault does to one attempt of a command: nothing, fail before sending, or apply then lose the answer. */
type Action = 'pass' | 'fail' | 'applyThenFail';
interface Fault {
  command: string;
  /** The action for the n-th attempt (1-based) of a matching command since the fault was set. */
  action: (attempt: number) => Action;
  error: () => Error;
}
let fault: Fault | undefined;
let attempts = 0;

dynamoClient.middlewareStack.add(
  (next, context) => async (args) => {
    if (!fault || context.commandName !== fault.command) return next(args);
    attempts += 1;
    const action = fault.action(attempts);
    if (action === 'pass') return next(args);
    if (action === 'applyThenFail') await next(args);
    throw fault.error();
  },
  // finalizeRequest, low priority: below the SDK's retry middleware, which sees each fault.
  { step: 'finalizeRequest', priority: 'low', name: 'injectFaults' },
);

afterEach(() => {
  fault = undefined;
  attempts = 0;
});

const throttled = () => new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput', $metadata: {} });
const overCapacity = () => new ProvisionedThroughputExceededException({ message: 'Throughput exceeded', $metadata: {} });
const timedOut = () => Object.assign(new Error('Request timed out'), { name: 'TimeoutError', $metadata: {} });
const cancelled = (code: string) => () =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${code}]`,
    $metadata: {},
    CancellationReasons: [{ Code: code }],
  });
const always = (): Action => 'fail';
const firstFails =
  (count: number) =>
  (attempt: number): Action =>
    attempt <= count ? 'fail' : 'pass';

type Response = { status: number; headers: Record<string, string>; body: any };

/** A 503 with Retry-After in the B3 format of orders and collections. */
function expectBusy(response: Response): void {
  expect(response.status, JSON.stringify(response.body)).toBe(503);
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(response.body).toEqual({ success: false, message: expect.stringMatching(/busy|retry/i), statusCode: 503 });
}

const itemsOf = async () => tableSnapshot(table.name);
const byPrefix = (items: Record<string, unknown>[], prefix: string) => items.filter((item) => String(item.pk).startsWith(prefix));

/** Every item an order with a creator, a session and an Idempotency-Key consists of, once created. */
function expectWholeOrder(items: Record<string, unknown>[], orderId: string, sessionId: string, key: Record<string, string>): void {
  expect(byPrefix(items, `ORDER#${orderId}`)).toHaveLength(1);
  // Its list copies (every order's, its creator's), each at its own position, and the two counters moved on.
  const copies = items.filter((item) => item.entity === 'orderListEntry' && item.id === orderId);
  expect(copies.map((copy) => String(copy.pk)).sort()).toEqual(
    ['ORDERS', `ORDERS#CREATOR#${String(copies[0]?.creatorAddress).toLowerCase()}`].sort(),
  );
  for (const copy of copies)
    expect(items.find((item) => item.pk === copy.pk && item.sk === 'P#~COUNT')?.count).toBe(
      items.filter((item) => item.pk === copy.pk && item.entity === 'orderListEntry').length,
    );
  expect(items.find((item) => item.pk === `CHECKOUT#${sessionId}`)).toMatchObject({ orderId, status: 'processing' });
  const claim = items.find((item) => item.pk === `IDEMPOTENCY#POST /orders#${key['idempotency-key']}`);
  expect(JSON.parse(String(claim?.response)).data.id).toBe(orderId);
}

describe('POST /orders under DynamoDB faults', () => {
  const body = (sessionId: string) =>
    orderBody({ creatorAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', checkoutSessionId: sessionId });
  let keys = 0;
  const idempotencyKey = () => {
    keys += 1;
    return { 'idempotency-key': `faults-${Date.now()}-${keys}` };
  };

  it('throttled twice, the SDK retries the transaction: one whole order', async () => {
    const session = (await postSession()).body.data;
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: firstFails(2), error: throttled };
    const key = idempotencyKey();
    const response = await postOrder(body(session.id), key);
    expect(response.status).toBe(200);
    expect(attempts).toBe(3);
    const after = await itemsOf();
    expect(byPrefix(after, 'ORDER#')).toHaveLength(byPrefix(before, 'ORDER#').length + 1);
    expectWholeOrder(after, response.body.data.id, session.id, key);
  });

  it.each([
    ['throttling', throttled],
    ['throughput exceeded', overCapacity],
    ['a timeout', timedOut],
    ['a transaction cancelled by throttling', cancelled('ThrottlingError')],
  ])('%s on every attempt: 503 with Retry-After, nothing written', async (_name, error) => {
    const session = (await postSession()).body.data;
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: always, error };
    expectBusy(await postOrder(body(session.id), idempotencyKey()));
    fault = undefined;
    expect(await itemsOf()).toEqual(before);
  });

  it('cancelled by conflicting transactions, then not: the table layer retries, one whole order', async () => {
    const session = (await postSession()).body.data;
    fault = { command: 'TransactWriteItemsCommand', action: firstFails(3), error: cancelled('TransactionConflict') };
    const key = idempotencyKey();
    const response = await postOrder(body(session.id), key);
    expect(response.status).toBe(200);
    expectWholeOrder(await itemsOf(), response.body.data.id, session.id, key);
  });

  it('conflicting on every attempt: 503 with Retry-After once the retries are spent, nothing written', async () => {
    const session = (await postSession()).body.data;
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: always, error: cancelled('TransactionConflict') };
    expectBusy(await postOrder(body(session.id), idempotencyKey()));
    fault = undefined;
    expect(await itemsOf()).toEqual(before);
  }, 30_000);

  it('applied, then its answer lost to a timeout: the resend (same client token) succeeds, one order, not two', async () => {
    const session = (await postSession()).body.data;
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: (n) => (n === 1 ? 'applyThenFail' : 'pass'), error: timedOut };
    const key = idempotencyKey();
    const response = await postOrder(body(session.id), key);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(attempts).toBe(2);
    const after = await itemsOf();
    expect(byPrefix(after, 'ORDER#')).toHaveLength(byPrefix(before, 'ORDER#').length + 1);
    expectWholeOrder(after, response.body.data.id, session.id, key);
  });

  it('committed, then every call fails: 503, the whole order is there, and the retry with its key replays it', async () => {
    const session = (await postSession()).body.data;
    const key = idempotencyKey();
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: (n) => (n === 1 ? 'applyThenFail' : 'fail'), error: timedOut };
    expectBusy(await postOrder(body(session.id), key));
    fault = undefined;
    const after = await itemsOf();
    const created = byPrefix(after, 'ORDER#').filter((item) => !before.some((old) => old.pk === item.pk));
    expect(created).toHaveLength(1);
    const orderId = String(created[0]!.id);
    expectWholeOrder(after, orderId, session.id, key);

    const retry = await postOrder(body(session.id), key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data.id).toBe(orderId);
    expect(await itemsOf()).toEqual(after);
  });

  it('a write that meets a transaction on its item, and a read that keeps timing out: 503, never 500', async () => {
    const order = (await postOrder(orderBody())).body.data;
    fault = { command: 'QueryCommand', action: always, error: timedOut };
    expectBusy(await getOrder(order.id));
    expect(attempts).toBe(SDK_RETRY.maxAttempts);
    fault = {
      command: 'GetItemCommand',
      action: always,
      error: () => new TransactionConflictException({ message: 'conflict', $metadata: {} }),
    };
    const session = (await postSession()).body.data;
    const before = await itemsOf();
    expectBusy(await postOrder(body(session.id), idempotencyKey()));
    expect(await itemsOf()).toEqual(before);
  });
});

describe('POST /checkout-sessions under DynamoDB faults', () => {
  it('throttled on every attempt: 503 with Retry-After, nothing written', async () => {
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: always, error: throttled };
    expectBusy(await postSession({ expires_in: 600 }, { 'idempotency-key': 'faults-session-1' }));
    fault = undefined;
    expect(await itemsOf()).toEqual(before);
  });

  it('applied, then its answer lost to a timeout: one session, answered 200', async () => {
    const before = byPrefix(await itemsOf(), 'CHECKOUT#').length;
    fault = { command: 'TransactWriteItemsCommand', action: (n) => (n === 1 ? 'applyThenFail' : 'pass'), error: timedOut };
    const response = await postSession({ expires_in: 600 }, { 'idempotency-key': 'faults-session-2' });
    expect(response.status).toBe(200);
    const sessions = byPrefix(await itemsOf(), 'CHECKOUT#');
    expect(sessions).toHaveLength(before + 1);
    expect(sessions.some((item) => item.id === response.body.data.id)).toBe(true);
  });

  it('committed, then every call fails: 503; the retry with its key replays the session that exists', async () => {
    const key = { 'idempotency-key': 'faults-session-3' };
    fault = { command: 'TransactWriteItemsCommand', action: (n) => (n === 1 ? 'applyThenFail' : 'fail'), error: timedOut };
    expectBusy(await postSession({ expires_in: 900 }, key));
    fault = undefined;
    const after = await itemsOf();
    const retry = await postSession({ expires_in: 900 }, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(after.some((item) => item.pk === `CHECKOUT#${retry.body.data.id}`)).toBe(true);
    expect(await itemsOf()).toEqual(after);
  });
});

describe('POST /collections under DynamoDB faults', () => {
  let created = 0;
  const body = () => {
    created += 1;
    return signedBody(accountFor(`faults-${created}`));
  };

  it.each([
    ['throttling', throttled],
    ['a timeout', timedOut],
  ])('%s on every attempt: 503 with Retry-After, nothing written', async (_name, error) => {
    const request = await body();
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: always, error };
    expectBusy(await postCollection(request));
    fault = undefined;
    expect(await itemsOf()).toEqual(before);
    expect((await postCollection(request)).status).toBe(201); // and the client's retry succeeds
  });

  it('applied, then its answer lost to a timeout: one collection with its list entries and counters, answered 200', async () => {
    const request = await body();
    fault = { command: 'TransactWriteItemsCommand', action: (n) => (n === 1 ? 'applyThenFail' : 'pass'), error: timedOut };
    const response = await postCollection(request);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const items = await itemsOf();
    const collections = byPrefix(items, 'COLLECTION#');
    expect(collections.filter((item) => item.creatorSignature === request.creatorSignature)).toHaveLength(1);
    // Every list counter counted each stored collection once, the one whose answer was lost too.
    const allCounter = items.find((item) => String(item.pk).startsWith('COLLECTIONS-COUNT#') && String(item.pk).endsWith('ALL'));
    expect(allCounter?.count).toBe(collections.length);
  });

  it('conflicting on every attempt: 503 with Retry-After, nothing written', async () => {
    const request = await body();
    const before = await itemsOf();
    fault = { command: 'TransactWriteItemsCommand', action: always, error: cancelled('TransactionConflict') };
    expectBusy(await postCollection(request));
    fault = undefined;
    expect(await itemsOf()).toEqual(before);
  }, 30_000);
});
