/**
 * Checkout sessions (O2, see docs/access-patterns.md): a session is created open, with a lifetime of `expires_in` seconds
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
import { getItem, transactWrite, type TransactItem } from '../db/operations';
import { ConflictError, InvalidRequestError, NotFoundError, type DomainError } from '../errors';
import { orderKeys } from '../table/keys';
import { now } from './clock';
import { CHECKOUT_SESSION_EXPIRY, type OrderConfig } from './config';
import type { AlongsideWrite, Creation } from './creation';
import { isRetained, retentionTtl } from './retention';
import type { CheckoutSession, CheckoutSessionStatus, CreateCheckoutSessionRequest } from './schemas';
import type { OrderStatus } from './states';

interface StoredCheckoutSession {
  id: string;
  status: CheckoutSessionStatus;
  orderId?: string;
  clientReferenceId: string | null;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
  /** DynamoDB TTL (epoch s) while no order uses the session, or once its order ended unpaid (retention.ts). */
  ttl?: number;
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

/** POST /checkout-sessions: a new open session (with `alongside` in the same transaction). */
export async function createCheckoutSession(
  request: CreateCheckoutSessionRequest,
  config: Pick<OrderConfig, 'retentionDays'>,
  alongside?: AlongsideWrite<CheckoutSession>,
): Promise<Creation<CheckoutSession>> {
  const createdAt = now();
  const session: StoredCheckoutSession = {
    id: randomUUID(),
    status: 'open',
    clientReferenceId: request.clientReferenceId ?? null,
    createdAt,
    expiresAt: createdAt + (request.expires_in ?? CHECKOUT_SESSION_EXPIRY.default) * 1000,
    updatedAt: createdAt,
  };
  const created = toCheckoutSession(session, createdAt);
  const items: TransactItem[] = [
    {
      Put: {
        Item: {
          ...orderKeys.checkoutSession(session.id),
          entity: 'checkout-session',
          ...session,
          ttl: retentionTtl(session.expiresAt, config.retentionDays),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (alongside) items.push(alongside(created, createdAt));
  // A resend of a transaction DynamoDB applied (its answer lost to a timeout) succeeds, not applied twice.
  const outcome = await transactWrite(items, { idempotent: true });
  if (outcome.committed) return { created: true, value: created };
  if (alongside && outcome.failedConditions.includes(1)) return { created: false, reason: 'alongside-condition-failed' };
  throw new Error(`Checkout session ${session.id} could not be written`);
}

async function findStoredSession(sessionId: string): Promise<StoredCheckoutSession | undefined> {
  const stored = await getItem<StoredCheckoutSession>(orderKeys.checkoutSession(sessionId), { consistent: true });
  return stored && isRetained(stored, now()) ? stored : undefined;
}

/** GET /checkout-sessions/{id}: the session as it reads now. */
export async function getCheckoutSession(sessionId: string): Promise<CheckoutSession> {
  const stored = await findStoredSession(sessionId);
  if (!stored) throw new NotFoundError(`Checkout session ${sessionId} not found`);
  return toCheckoutSession(stored, now());
}

/** The transaction item that links a new order to its session: only an open, unexpired session without an order. */
export function linkOrderToSessionItem(sessionId: string, orderId: string, at: number): TransactItem {
  return {
    Update: {
      Key: orderKeys.checkoutSession(sessionId),
      // The session now follows its order (retention.ts): its own retention ends here.
      UpdateExpression: 'SET orderId = :orderId, #status = :processing, updatedAt = :at REMOVE #ttl',
      ConditionExpression:
        'attribute_exists(pk) AND #status = :open AND attribute_not_exists(orderId) AND expiresAt > :at AND (attribute_not_exists(#ttl) OR #ttl > :atSeconds)',
      ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':orderId': orderId,
        ':processing': 'processing',
        ':open': 'open',
        ':at': at,
        ':atSeconds': Math.floor(at / 1000),
      },
    },
  };
}

/** Why linking failed, as the error the client gets: a conflict when the session already has an order, else an invalid request. */
export async function checkoutSessionConflict(sessionId: string, at: number): Promise<DomainError> {
  const session = await findStoredSession(sessionId);
  if (!session) return new InvalidRequestError(`checkoutSessionId: checkout session ${sessionId} does not exist`);
  if (session.orderId) return new ConflictError(`checkoutSessionId: checkout session ${sessionId} already has an order`);
  const status = toCheckoutSession(session, at).status;
  if (status !== 'open') return new InvalidRequestError(`checkoutSessionId: checkout session ${sessionId} is ${status}, not open`);
  return new ConflictError(`checkoutSessionId: checkout session ${sessionId} changed while the order was created; retry`);
}

/** The session status that follows an order's new status, if it changes. */
export function sessionStatusAfterOrder(orderStatus: OrderStatus): CheckoutSessionStatus | undefined {
  if (orderStatus === 'executed') return 'complete';
  if (orderStatus === 'expired' || orderStatus === 'refunded' || orderStatus === 'failure') return 'expired';
  return undefined;
}

/**
 * The session update that accompanies an order's status change (only the session's own order may move
 * it). `ttl`: a number sets the session's retention (its order ended unpaid), null removes it (paid).
 */
export function sessionUpdateItem(
  sessionId: string,
  orderId: string,
  status: CheckoutSessionStatus,
  at: number,
  ttl?: number | null,
): TransactItem {
  const ttlPart = ttl === undefined ? '' : ttl === null ? ' REMOVE #ttl' : ', #ttl = :ttl';
  return {
    Update: {
      Key: orderKeys.checkoutSession(sessionId),
      UpdateExpression: `SET #status = :status, updatedAt = :at${ttlPart}`,
      ConditionExpression: 'orderId = :orderId',
      ExpressionAttributeNames: { '#status': 'status', ...(ttl === undefined ? {} : { '#ttl': 'ttl' }) },
      ExpressionAttributeValues: { ':status': status, ':at': at, ':orderId': orderId, ...(typeof ttl === 'number' ? { ':ttl': ttl } : {}) },
    },
  };
}
