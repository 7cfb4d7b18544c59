/**
 * Orders: creation (O1 write, O2 with a checkout session, O3 with an idempotency key written
 * alongside), reading (O1), every status change (through the transition table of states.ts,
 * conditional on the current status) and the expiry sweep (O5); see docs/access-patterns.md.
 */
import { randomUUID } from 'node:crypto';
import { batchGetItems, getItem, queryAll, transactWrite, updateItem, type TransactItem } from '../db/operations';
import { BusyError, InvalidRequestError, NotFoundError } from '../errors';
import { logger } from '../observability/logger';
import { keyId, orderKeys, pad } from '../table/keys';
import { checkoutSessionConflict, linkOrderToSessionItem, sessionStatusAfterOrder, sessionUpdateItem } from './checkout-sessions';
import { now } from './clock';
import type { OrderConfig } from './config';
import type { AlongsideWrite, Creation } from './creation';
import { depositAddress } from './deposit-address';
import { readFeeTokenBalance, standardFee } from './fees';
import { onrampVendor } from './onramp';
import { getPartner } from './partners';
import { listCopyUpdates, listNewOrderItems, numberingQueue, orderListRanges, readListCounters } from './order-list';
import { isRetained, keepOrderItems, retentionTtl } from './retention';
import type { CreateOrderRequest, Order } from './schemas';
import { canTransition, effectiveStatus, initialStatus, isWaiting, type OrderStatus, WIRE_STATUS } from './states';

/**
 * An order as stored: the Order fields with the machine's own status (states.ts), the payload and
 * metadata as accepted, `onrampMetadata.ipAddress`, the session link and the sparse index keys.
 */
export type StoredOrder = Omit<Order, 'onrampMetadata' | 'status' | 'type' | 'payload' | 'metadata' | 'stripePaymentIntentId'> & {
  type: CreateOrderRequest['type'];
  status: OrderStatus;
  payload: CreateOrderRequest['payload'];
  metadata: CreateOrderRequest['metadata'];
  onrampMetadata: (Omit<NonNullable<Order['onrampMetadata']>, 'stripeAmountInCents'> & { ipAddress: string }) | null;
  checkoutSessionId?: string;
  updatedAt: number;
  depositTransactionHash?: string;
  depositAmount?: string;
  /** Running total of the deposits counted toward srcAmount (deposit detection, deposits.ts). */
  receivedAmount?: string;
  /** Set when a reorg orphaned a deposit after the order had moved on (deposits.ts). */
  depositOrphaned?: boolean;
  /** DynamoDB TTL (epoch s) while the order is unpaid: expiry + retention (retention.ts); removed once paid. */
  ttl?: number;
  /** Its position in each list range (order-list.ts, orderListRanges order); absent on orders created before the numbered lists. */
  listPositions?: number[];
  [attribute: string]: unknown;
};

const SPARSE_INDEX_ATTRIBUTES = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'] as const;

export interface CreateOrderContext {
  config: OrderConfig;
  /** event.requestContext.http.sourceIp: the only source of the stored ipAddress. */
  sourceIp: string;
  /** A write that commits with the order or not at all (the Idempotency-Key's response). */
  alongside?: AlongsideWrite<Order>;
}

/**
 * Attempts of a creation that keeps losing its list positions to concurrent creations, before a 503,
 * and the pause before each new attempt: short and random (up to 250 ms), since a lost position means
 * another creation just committed, and the next attempt reads fresh counters.
 */
const CREATION_ATTEMPTS = 25;
const positionRetryPause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 10 * 2 ** attempt)));

/**
 * POST /orders: the order as created, with its checkout session linked and its list copies numbered
 * in the same transaction. The list counters are read (with the partner and the fee balance) before
 * the transaction, which moves each on condition: a creation that lost a position to a concurrent
 * one is built again (same id, a new createdAt) against fresh counters, up to CREATION_ATTEMPTS times.
 */
export async function createOrder(request: CreateOrderRequest, context: CreateOrderContext): Promise<Creation<Order>> {
  const { config } = context;
  const ranges = orderListRanges(request);
  const [partner, feeBalance, firstCounts] = await Promise.all([
    request.partnerId === undefined ? undefined : getPartner(request.partnerId),
    readFeeTokenBalance(request.dstChain, request.recipientAddress, config.feeTokens),
    readListCounters(ranges),
  ]);
  if (request.partnerId !== undefined && !partner) throw new InvalidRequestError(`partnerId: unknown partner "${request.partnerId}"`);
  const fee = {
    serviceFeeBps: config.serviceFeeBps,
    tokenToCheckBalance: feeBalance.token,
    balance: feeBalance.balance,
    decimals: feeBalance.decimals,
    partnerDiscountBps: partner?.discountBps ?? 0,
  };
  const id = randomUUID();
  // Counters read while this creation waited its turn are stale: read them again.
  return numberingQueue(async (waited) => {
    let counts = waited ? await readListCounters(ranges) : firstCounts;
    for (let attempt = 1; ; attempt += 1) {
      const order = buildOrder(id, request, context.sourceIp, config, fee);
      order.listPositions = counts.map((count) => count + 1);
      const created = toOrder(order, order.createdAt);
      const ttl = retentionTtl(order.expiredAt, config.retentionDays);
      const stored = { ...order, ttl };

      const items: TransactItem[] = [
        {
          Put: {
            Item: {
              ...orderKeys.order(order.id),
              ...orderKeys.awaitingDeposit(order.srcChain, order.globalAddress, order.id),
              ...orderKeys.pendingExpiry(order.id, order.expiredAt),
              entity: 'order',
              ...stored,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        // O11 / O12: the list copies at the next positions and their counters, expiring with the order.
        ...listNewOrderItems(stored, counts),
      ];
      const listEnd = items.length;
      const sessionIndex = items.length;
      if (request.checkoutSessionId) items.push(linkOrderToSessionItem(request.checkoutSessionId, order.id, order.createdAt));
      const alongsideIndex = items.length;
      if (context.alongside) items.push(context.alongside(created, order.createdAt));

      // A resend of a transaction DynamoDB applied (its answer lost to a timeout) succeeds, not applied twice.
      const outcome = await transactWrite(items, { idempotent: true });
      if (outcome.committed) return { created: true, value: created };
      // A failed alongside write wins over any other failure (a lost idempotency race: the winner's response answers).
      if (context.alongside && outcome.failedConditions.includes(alongsideIndex))
        return { created: false, reason: 'alongside-condition-failed' };
      if (request.checkoutSessionId && outcome.failedConditions.includes(sessionIndex)) {
        throw await checkoutSessionConflict(request.checkoutSessionId, order.createdAt);
      }
      const lostPositions = outcome.failedConditions.every((index) => index > 0 && index < listEnd);
      if (!lostPositions)
        throw new Error(`Order ${order.id} could not be written: conditions ${outcome.failedConditions.join(', ')} failed`);
      if (attempt >= CREATION_ATTEMPTS) {
        logger.warn('Order creation kept losing its list positions', { orderId: order.id });
        throw new BusyError('Too many orders are being created at once; retry shortly');
      }
      await positionRetryPause(attempt);
      counts = await readListCounters(ranges);
    }
  });
}

function buildOrder(
  id: string,
  request: CreateOrderRequest,
  sourceIp: string,
  config: OrderConfig,
  fee: Parameters<typeof standardFee>[0],
): StoredOrder {
  const createdAt = now();
  const globalAddress = depositAddress(id, config);
  let onrampMetadata: StoredOrder['onrampMetadata'] = null;
  let oneClickBuyUrl: string | null = null;
  if (request.onramp) {
    const vendor = onrampVendor(request.onramp.vendor, config);
    const onrampContext = {
      orderId: id,
      globalAddress,
      srcChain: request.srcChain,
      srcTokenAddress: request.srcTokenAddress,
      srcToken: request.metadata.srcToken,
      srcAmount: request.srcAmount,
      onramp: request.onramp,
    };
    onrampMetadata = {
      vendor: request.onramp.vendor,
      paymentMethod: request.onramp.paymentMethod,
      country: request.onramp.country,
      redirectUrl: request.onramp.redirectUrl,
      processorAmountInCents: vendor.processorAmountInCents(onrampContext),
      fingerprint: null,
      ipAddress: sourceIp,
    };
    oneClickBuyUrl = vendor.oneClickBuyUrl(onrampContext);
  }
  return {
    id,
    type: request.type,
    status: initialStatus(request.onramp !== undefined),
    recipientAddress: request.recipientAddress,
    globalAddress,
    srcChain: request.srcChain,
    dstChain: request.dstChain,
    srcTokenAddress: request.srcTokenAddress,
    dstTokenAddress: request.dstTokenAddress,
    srcAmount: request.srcAmount,
    payload: request.payload,
    metadata: request.metadata,
    createdAt,
    expiredAt: createdAt + config.expiryMinutes * 60_000,
    filledAt: null,
    receivedDepositAt: null,
    errorDetails: null,
    creatorAddress: request.creatorAddress ?? null,
    partnerId: request.partnerId ?? null,
    clientReferenceId: request.clientReferenceId ?? null,
    onrampMetadata,
    oneClickBuyUrl,
    processorPaymentIntentId: null,
    settlement: null,
    fee: standardFee(fee),
    ...(request.checkoutSessionId ? { checkoutSessionId: request.checkoutSessionId } : {}),
    updatedAt: createdAt,
  };
}

/** The Order an API user sees at time `at`: no storage attributes, no ipAddress, read-time expiry. */
export function toOrder(stored: StoredOrder, at: number): Order {
  const onramp = stored.onrampMetadata;
  return {
    id: stored.id,
    status: WIRE_STATUS[effectiveStatus(stored.status, stored.expiredAt, at)],
    recipientAddress: stored.recipientAddress,
    globalAddress: stored.globalAddress,
    srcChain: stored.srcChain,
    dstChain: stored.dstChain,
    srcTokenAddress: stored.srcTokenAddress,
    dstTokenAddress: stored.dstTokenAddress,
    srcAmount: stored.srcAmount,
    createdAt: stored.createdAt,
    expiredAt: stored.expiredAt,
    filledAt: stored.filledAt ?? null,
    receivedDepositAt: stored.receivedDepositAt ?? null,
    errorDetails: stored.errorDetails ?? null,
    creatorAddress: stored.creatorAddress ?? null,
    partnerId: stored.partnerId ?? null,
    clientReferenceId: stored.clientReferenceId ?? null,
    onrampMetadata: onramp
      ? {
          vendor: onramp.vendor,
          paymentMethod: onramp.paymentMethod,
          country: onramp.country,
          redirectUrl: onramp.redirectUrl,
          processorAmountInCents: onramp.processorAmountInCents ?? null,
          ...(typeof onramp.processorAmountInCents === 'number' ? { stripeAmountInCents: onramp.processorAmountInCents } : {}),
          fingerprint: null,
        }
      : null,
    oneClickBuyUrl: stored.oneClickBuyUrl ?? null,
    processorPaymentIntentId: stored.processorPaymentIntentId ?? null,
    stripePaymentIntentId: stored.processorPaymentIntentId ?? null,
    settlement: stored.settlement ?? null,
    fee: stored.fee,
    ...typedParts(stored),
  } as Order;
}

/** A token descriptor as returned: `metadata` always an object. */
const withTokenMetadata = <T extends { metadata?: { logoURI?: string } }>(token: T) => ({ ...token, metadata: token.metadata ?? {} });

/** `type`, `payload` and `metadata` as returned: swap's actualDstAmount once settled, mint_nft's tokenId null for erc721. */
function typedParts(stored: StoredOrder): Pick<Order, 'type' | 'payload' | 'metadata'> {
  const metadata = {
    ...stored.metadata,
    srcToken: withTokenMetadata(stored.metadata.srcToken),
    dstToken: withTokenMetadata(stored.metadata.dstToken),
  };
  let payload: Record<string, unknown> = { ...stored.payload };
  if (stored.type === 'swap') payload = { ...payload, actualDstAmount: stored.settlement?.actualDstAmount ?? null };
  if (stored.type === 'mint_nft') payload = { ...payload, tokenId: payload.tokenId ?? null };
  return { type: stored.type, payload, metadata } as Pick<Order, 'type' | 'payload' | 'metadata'>;
}

/** O1: the stored order, or undefined (also once its retention has passed and DynamoDB has yet to delete it). */
export async function findStoredOrder(orderId: string): Promise<StoredOrder | undefined> {
  const stored = await getItem<StoredOrder>(orderKeys.order(orderId), { consistent: true });
  return stored && isRetained(stored, now()) ? stored : undefined;
}

/** GET /orders/{id}: the order as it reads now. */
export async function getOrder(orderId: string): Promise<Order> {
  const stored = await findStoredOrder(orderId);
  if (!stored) throw new NotFoundError(`Order ${orderId} not found`);
  return toOrder(stored, now());
}

// ---------------------------------------------------------------------------------------------------
// Status changes

export type TransitionResult =
  | { applied: true; order: StoredOrder }
  | { applied: false; reason: 'not_found' | 'not_allowed' | 'expired' | 'not_expired' | 'conflict'; order?: StoredOrder };

export interface TransitionOptions {
  /** When the event that causes the change happened (epoch ms); default now. */
  at?: number;
  /** Attributes set together with the status (e.g. receivedDepositAt, settlement, errorDetails). */
  set?: Record<string, unknown>;
  /** The order as the caller already read it; read (consistently) when absent. */
  current?: StoredOrder;
}

/**
 * Moves an order from its current status to `to` if TRANSITIONS allows it, with a condition on that
 * current status so that of two concurrent changes only one applies. Leaving a waiting state removes
 * the sparse index attributes (O4, O5); a waiting order can only expire once `expiredAt` has passed
 * and can only move on (other than to failure) before it. A linked checkout session follows in the
 * same transaction (complete when executed, expired when the order ends otherwise).
 */
export async function transitionOrder(orderId: string, to: OrderStatus, options: TransitionOptions = {}): Promise<TransitionResult> {
  const at = options.at ?? now();
  const current = options.current ?? (await findStoredOrder(orderId));
  if (!current) return { applied: false, reason: 'not_found' };
  const from = current.status;
  if (!canTransition(from, to)) return { applied: false, reason: 'not_allowed', order: current };
  const expiryCondition =
    isWaiting(from) && to === 'expired' ? 'expiredAt <= :at' : isWaiting(from) && to !== 'failure' ? 'expiredAt > :at' : undefined;
  if (expiryCondition === 'expiredAt <= :at' && current.expiredAt > at) return { applied: false, reason: 'not_expired', order: current };
  if (expiryCondition === 'expiredAt > :at' && current.expiredAt <= at) return { applied: false, reason: 'expired', order: current };

  const set: Record<string, unknown> = { status: to, updatedAt: at, ...(to === 'executed' ? { filledAt: at } : {}), ...options.set };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':from': from, ...(expiryCondition ? { ':at': at } : {}) };
  const assignments = Object.entries(set).map(([name, value], index) => {
    names[`#a${index}`] = name;
    values[`:v${index}`] = value;
    return `#a${index} = :v${index}`;
  });
  names['#status'] = 'status';
  // Paid: the order leaves the waiting states other than by ending unpaid (retention.ts): kept for good.
  const endsUnpaid = isWaiting(from) && (to === 'expired' || to === 'failure');
  const keep = current.ttl !== undefined && !isWaiting(to) && !endsUnpaid;
  const removals: string[] = isWaiting(to) ? [] : [...SPARSE_INDEX_ATTRIBUTES];
  if (keep) {
    names['#ttl'] = 'ttl';
    removals.push('#ttl');
  }
  const update = {
    Key: orderKeys.order(orderId),
    UpdateExpression: `SET ${assignments.join(', ')}${removals.length > 0 ? ` REMOVE ${removals.join(', ')}` : ''}`,
    ConditionExpression: `#status = :from${expiryCondition ? ` AND ${expiryCondition}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  const next = { ...current, ...set } as StoredOrder;
  for (const attribute of [...removals, ...(keep ? ['ttl'] : [])]) delete next[attribute];

  const sessionStatus = current.checkoutSessionId ? sessionStatusAfterOrder(to) : undefined;
  const items: TransactItem[] = [{ Update: update }];
  if (current.checkoutSessionId && sessionStatus) {
    // An unpaid order's session expires from the table with it; a paid one's is kept.
    const sessionTtl = keep ? null : endsUnpaid && current.ttl !== undefined ? current.ttl : undefined;
    items.push(sessionUpdateItem(current.checkoutSessionId, orderId, sessionStatus, at, sessionTtl));
  }
  // The list copies follow, except for waiting -> expired: every reader derives that from expiredAt.
  if (!(isWaiting(from) && to === 'expired')) items.push(...listCopyUpdates(current, set, keep));
  if (keep) items.push(...keepOrderItems(current, { list: false, session: !sessionStatus }));
  if (items.length > 1) {
    const outcome = await transactWrite(items);
    return outcome.committed ? { applied: true, order: next } : { applied: false, reason: 'conflict', order: current };
  }
  const outcome = await updateItem<StoredOrder>({ ...update, ReturnValues: 'ALL_NEW' });
  return outcome.applied ? { applied: true, order: outcome.attributes! } : { applied: false, reason: 'conflict', order: current };
}

export interface DepositReceived {
  /** Transaction that paid the deposit address. */
  transactionHash: string;
  /** Amount received, smallest unit. */
  amount: string;
  /** Block time of the deposit (epoch ms): it must be before the order's expiry. */
  receivedAt: number;
}

/**
 * Deposit detection's entry point (called by shared/orders/deposits.ts, a listener of the ingest):
 * the order's deposit arrived, so it leaves the waiting states for quoting_after_deposit, conditional
 * on still waiting and not expired.
 */
export async function markDepositReceived(orderId: string, deposit: DepositReceived): Promise<TransitionResult> {
  return transitionOrder(orderId, 'quoting_after_deposit', {
    at: deposit.receivedAt,
    set: {
      receivedDepositAt: deposit.receivedAt,
      depositTransactionHash: deposit.transactionHash.toLowerCase(),
      depositAmount: deposit.amount,
    },
  });
}

// ---------------------------------------------------------------------------------------------------
// Expiry sweep (O5)

export interface ExpirySweepResult {
  /** Orders read from the expiry ranges. */
  examined: number;
  expired: number;
  /** Orders that had already moved on (the index lags the table) or changed concurrently. */
  skipped: number;
}

/**
 * Persists `expired` for every waiting order past its expiry: one Query per shard of the O5 range
 * (GSI2, gsi2sk <= now), then a conditional transition per order. Never a Scan.
 */
export async function expireOverdueOrders(at: number = now()): Promise<ExpirySweepResult> {
  const shards = Array.from({ length: orderKeys.expiryShards }, (_, shard) => shard);
  const results = await Promise.all(shards.map((shard) => expireShard(shard, at)));
  return results.reduce((total, result) => ({
    examined: total.examined + result.examined,
    expired: total.expired + result.expired,
    skipped: total.skipped + result.skipped,
  }));
}

/**
 * gsi2 projects only keys (shared/table/definition.ts): an entry names its order by the id its sort key
 * ends with (`<expiry>#<order id>`); the shard's overdue orders are then read in one strongly consistent
 * BatchGetItem (an order gone since is not found, and skipped). An entry of a table whose gsi2 projects
 * every attribute is the order itself, as read before.
 */
async function expireShard(shard: number, at: number): Promise<ExpirySweepResult> {
  const range = orderKeys.pendingExpiryRange(shard);
  const { items } = await queryAll<Partial<StoredOrder> & { gsi2sk: string }>({
    IndexName: range.index,
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :upper',
    ExpressionAttributeValues: { ':pk': range.pk, ':upper': pad(at + 1, 15) },
  });
  const idOf = (entry: { gsi2sk: string }): string => entry.gsi2sk.slice(entry.gsi2sk.indexOf('#') + 1);
  const keysOnly = items.filter((entry) => entry.entity === undefined);
  const read =
    keysOnly.length === 0
      ? new Map<string, StoredOrder>()
      : await batchGetItems<StoredOrder>(
          keysOnly.map((entry) => orderKeys.order(idOf(entry))),
          { consistent: true },
        );
  const result: ExpirySweepResult = { examined: 0, expired: 0, skipped: 0 };
  for (const item of items) {
    result.examined += 1;
    const current = item.entity === undefined ? read.get(keyId(orderKeys.order(idOf(item)))) : (item as StoredOrder);
    if (current === undefined) {
      result.skipped += 1;
      continue;
    }
    const outcome = await transitionOrder(idOf(item), 'expired', { at, current });
    if (outcome.applied) result.expired += 1;
    else result.skipped += 1;
  }
  return result;
}
