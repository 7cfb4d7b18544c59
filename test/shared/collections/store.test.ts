import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { backoffDelay, classifyTransactionFailure } from '../../../shared/collections/store';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

describe('transaction failure classification', () => {
  it('a failed condition is never retried, even alongside conflicts', () => {
    expect(classifyTransactionFailure(cancelled('ConditionalCheckFailed', 'None', 'None'))).toBe('condition-failed');
    expect(classifyTransactionFailure(cancelled('None', 'TransactionConflict', 'ConditionalCheckFailed'))).toBe('condition-failed');
  });

  it('a cancellation caused only by concurrent transactions is retried', () => {
    expect(classifyTransactionFailure(cancelled('None', 'TransactionConflict', 'None', 'TransactionConflict'))).toBe('conflict');
    expect(classifyTransactionFailure(new TransactionConflictException({ message: 'conflict', $metadata: {} }))).toBe('conflict');
  });

  it('anything else is rethrown', () => {
    expect(classifyTransactionFailure(cancelled('None', 'ThrottlingError'))).toBe('other');
    expect(classifyTransactionFailure(cancelled('TransactionConflict', 'ValidationError'))).toBe('other');
    expect(classifyTransactionFailure(cancelled())).toBe('other');
    expect(classifyTransactionFailure(new Error('network'))).toBe('other');
    expect(classifyTransactionFailure(undefined)).toBe('other');
  });
});

describe('retry backoff', () => {
  it('is full jitter, doubling from 20 ms and capped at 500 ms', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffDelay(attempt, () => 0.999999))).toEqual([19, 39, 79, 159, 319, 499, 499]);
    expect(backoffDelay(3, () => 0)).toBe(0);
    expect(backoffDelay(3, () => 0.5)).toBe(40);
  });
});
