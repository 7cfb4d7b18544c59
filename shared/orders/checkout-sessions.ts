/**
 * Checkout sessions (O2): a session is created open, with a lifetime of `expires_in` seconds
 * (300..86400, default 1800). At most one order may name it: the order's creation checks the session
 * and links itself in ONE transaction (session open, unexpired and without an order -> it becomes
 * `processing` with `orderId`; the order is put with attribute_not_exists). The session then follows
 * its order: `complete` when the order is executed, `expired` when the order ends otherwise. An open
 * session past its `expiresAt` reads as expired.
 *
 *   open ──(order created)──> processing ──(order executed)──> complete
 *     │                            └──────(order expired, refunded or failed)──> expired
 *     └──(expiresAt passed, no order)──> expired
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { orderKeys } from '../table/keys';
import { BadRequestError, ConflictError, NotFoundError, type HttpError } from '../http/errors';
import type { JsonResult } from '../http/response';
import { now } from './clock';
import { CHECKOUT_SESSION_EXPIRY } from './config';
import { claimKeyItem, idempotencyClaim, replayAfterLostClaim, storedResponse } from './idempotency';
import type { CheckoutSession, CheckoutSessionStatus, CreateCheckoutSessionRequest } from './schemas';
import type { OrderStatus } from './states';
import { transactWrite, type TransactItem } from './transact';

export const SESSION_CREATED_MESSAGE = 'Created checkout session successfully';
export const SESSION_FOUND_MESSAGE = 'Get checkout session successfully';

interface StoredCheckoutSession {
  id: string;
  status: CheckoutSessionStatus;
  orderId?: string;
  clientReferenceId: string | null;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
}

export function toCheckoutSession(stored: StoredCheckoutSession, at: number): CheckoutSession {
  return {
    id: stored.id,
    status: stored.status === 'open' && at >= stored.expiresAt ? 'expired' : stored.status,
    orderId: stored.orderId ?? null,
    clientReferenceId: stored.clientReferenceId ?? null,
    createdAt: stored.createdAt,
    expiresAt: stored.expiresAt,
  };
}

const envelope = (message: string, data: CheckoutSession) => ({ success: true as const, message, statusCode: 200 as const, data });

/** POST /checkout-sessions. */
export async function createCheckoutSession(request: CreateCheckoutSessionRequest, idempotencyKey?: string): Promise<JsonResult> {
  const claim = idempotencyClaim('POST /checkout-sessions', idempotencyKey, request);
  if (claim) {
    const replay = await storedResponse(claim, now());
    if (replay) return replay;
  }
  const createdAt = now();
  const session: StoredCheckoutSession = {
    id: randomUUID(),
    status: 'open',
    clientReferenceId: request.clientReferenceId ?? null,
    createdAt,
    expiresAt: createdAt + (request.expires_in ?? CHECKOUT_SESSION_EXPIRY.default) * 1000,
    updatedAt: createdAt,
  };
  const response: JsonResult = { statusCode: 200, body: envelope(SESSION_CREATED_MESSAGE, toCheckoutSession(session, createdAt)) };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: { ...orderKeys.checkoutSession(session.id), entity: 'checkout-session', ...session },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (claim) items.push(claimKeyItem(claim, response, createdAt));
  const outcome = await transactWrite(items);
  if (outcome.committed) return response;
  if (claim && outcome.failedConditions.includes(1)) return replayAfterLostClaim(claim, now());
  throw new Error(`Checkout session ${session.id} could not be written`);
}

async function findStoredSession(sessionId: string): Promise<StoredCheckoutSession | undefined> {
  const result = await db.send(new GetCommand({ TableName: tableName(), Key: orderKeys.checkoutSession(sessionId), ConsistentRead: true }));
  return result.Item as StoredCheckoutSession | undefined;
}

/** GET /checkout-sessions/{id}. */
export async function getCheckoutSession(sessionId: string): Promise<JsonResult> {
  const stored = await findStoredSession(sessionId);
  if (!stored) throw new NotFoundError(`Checkout session ${sessionId} not found`);
  return { statusCode: 200, body: envelope(SESSION_FOUND_MESSAGE, toCheckoutSession(stored, now())) };
}

/** The transaction item that links a new order to its session: only an open, unexpired session without an order. */
export function linkOrderToSessionItem(sessionId: string, orderId: string, at: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: orderKeys.checkoutSession(sessionId),
      UpdateExpression: 'SET orderId = :orderId, #status = :processing, updatedAt = :at',
      ConditionExpression: 'attribute_exists(pk) AND #status = :open AND attribute_not_exists(orderId) AND expiresAt > :at',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':orderId': orderId, ':processing': 'processing', ':open': 'open', ':at': at },
    },
  };
}

/** Why linking failed, as the error the client gets: 409 when the session already has an order, else 400. */
export async function checkoutSessionConflict(sessionId: string, at: number): Promise<HttpError> {
  const session = await findStoredSession(sessionId);
  if (!session) return new BadRequestError(`checkoutSessionId: checkout session ${sessionId} does not exist`);
  if (session.orderId) return new ConflictError(`checkoutSessionId: checkout session ${sessionId} already has an order`);
  const status = toCheckoutSession(session, at).status;
  if (status !== 'open') return new BadRequestError(`checkoutSessionId: checkout session ${sessionId} is ${status}, not open`);
  return new ConflictError(`checkoutSessionId: checkout session ${sessionId} changed while the order was created; retry`);
}

/** The session status that follows an order's new status, if it changes. */
export function sessionStatusAfterOrder(orderStatus: OrderStatus): CheckoutSessionStatus | undefined {
  if (orderStatus === 'executed') return 'complete';
  if (orderStatus === 'expired' || orderStatus === 'refunded' || orderStatus === 'failure') return 'expired';
  return undefined;
}

/** The session update that accompanies an order's status change (only the session's own order may move it). */
export function sessionUpdateItem(sessionId: string, orderId: string, status: CheckoutSessionStatus, at: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: orderKeys.checkoutSession(sessionId),
      UpdateExpression: 'SET #status = :status, updatedAt = :at',
      ConditionExpression: 'orderId = :orderId',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status, ':at': at, ':orderId': orderId },
    },
  };
}
