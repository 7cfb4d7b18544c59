/**
 * The orders group's clock: every expiry decision (order expiry, checkout session expiry,
 * idempotency key lifetime) reads `now()`, so tests can move time with `setClock`.
 */
let source: () => number = () => Date.now();

/** Current time in epoch milliseconds. */
export function now(): number {
  return source();
}

/** Replaces the clock (tests); `resetClock` restores the system clock. */
export function setClock(clock: () => number): void {
  source = clock;
}

export function resetClock(): void {
  source = () => Date.now();
}
