/**
 * How creating a resource of the orders group (an order, a checkout session) lets its caller add one
 * write to the same transaction: built from the resource as created and its creation time, it
 * commits with the resource or not at all. The POST handlers store an Idempotency-Key's response this
 * way (http.ts).
 */
import type { TransactItem } from '../db/operations';

export type AlongsideWrite<T> = (created: T, at: number) => TransactItem;

/** The resource as created, or nothing written because the alongside write's condition failed. */
export type Creation<T> = { created: true; value: T } | { created: false; reason: 'alongside-condition-failed' };
