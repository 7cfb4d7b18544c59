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
