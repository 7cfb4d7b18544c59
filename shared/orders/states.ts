/**
 * The order state machine. Every change of an order's `status` goes through `TRANSITIONS`: the
 * writer looks up the allowed next states of the current one and updates the order with a
 * condition on that current status (see `transitionOrder` in orders.ts).
 *
 *   waiting_payment ──(onramp paid)──> scanning_deposit_transaction ──(deposit)──> quoting_after_deposit
 *        │  └──────────────(deposit seen directly)──────────────────────────────────┘        │
 *        │                                                                                   v
 *        │                                                        relay ──> executing ──> executed
 *        v                                                          │           │
 *     expired / failure (also from scanning_deposit_transaction)    └─> refunding ──> refunded
 *
 * Terminal states: executed, expired, refunded, failure.
 */
export const ORDER_STATUSES = [
  'waiting_payment',
  'scanning_deposit_transaction',
  'quoting_after_deposit',
  'relay',
  'executing',
  'executed',
  'refunding',
  'refunded',
  'expired',
  'failure',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  waiting_payment: ['scanning_deposit_transaction', 'quoting_after_deposit', 'expired', 'failure'],
  scanning_deposit_transaction: ['quoting_after_deposit', 'expired', 'failure'],
  quoting_after_deposit: ['relay', 'refunding', 'failure'],
  relay: ['executing', 'refunding', 'failure'],
  executing: ['executed', 'refunding', 'failure'],
  refunding: ['refunded', 'failure'],
  executed: [],
  refunded: [],
  expired: [],
  failure: [],
};

/** States in which the order waits for its deposit: they expire, and they are in the sparse GSIs. */
export const WAITING_STATUSES: readonly OrderStatus[] = ['waiting_payment', 'scanning_deposit_transaction'];

export function isWaiting(status: OrderStatus): boolean {
  return WAITING_STATUSES.includes(status);
}

export function isTerminal(status: OrderStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The status an API user sees: a waiting order past its expiry reads as expired before the sweeper persists it. */
export function effectiveStatus(status: OrderStatus, expiredAt: number, at: number): OrderStatus {
  return isWaiting(status) && at >= expiredAt ? 'expired' : status;
}

/** The first status of a new order. */
export function initialStatus(withOnramp: boolean): OrderStatus {
  return withOnramp ? 'waiting_payment' : 'scanning_deposit_transaction';
}

/**
 * The status values an API user sees: AnySpend's nine (its SDK's `getStatusDisplay` throws on any
 * other value). The spec shows only `executed` and leaves the set open, so the wire uses AnySpend's
 * vocabulary and each state of the machine above maps onto it (docs/decisions/orders.md, "Status on
 * the wire"). `waiting_stripe_payment` is for a Stripe payment intent the service does not create.
 */
export const ORDER_WIRE_STATUSES = [
  'scanning_deposit_transaction',
  'waiting_stripe_payment',
  'expired',
  'sending_token_from_vault',
  'relay',
  'executed',
  'refunding',
  'refunded',
  'failure',
] as const;

export type OrderWireStatus = (typeof ORDER_WIRE_STATUSES)[number];

export const WIRE_STATUS: Readonly<Record<OrderStatus, OrderWireStatus>> = {
  // An onramp order waits for its payment at the deposit address: AnySpend shows "Awaiting Payment"
  // for scanning_deposit_transaction when onrampMetadata is set.
  waiting_payment: 'scanning_deposit_transaction',
  scanning_deposit_transaction: 'scanning_deposit_transaction',
  // Paid; the service quotes and sends the source funds on: AnySpend's "Sending Token".
  quoting_after_deposit: 'sending_token_from_vault',
  relay: 'relay',
  // AnySpend's relay covers the destination execution ("Executing Order").
  executing: 'relay',
  executed: 'executed',
  refunding: 'refunding',
  refunded: 'refunded',
  expired: 'expired',
  failure: 'failure',
};
