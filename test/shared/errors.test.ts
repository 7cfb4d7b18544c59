import { expect, test } from 'vitest';
import { BusyError, ConflictError, InvalidRequestError, NotFoundError } from '../../shared/errors';
import { RangeTooLargeError } from '../../shared/insights/range-reader';

test('a domain error is an expected outcome: its kind and message, no stack frames, the stack limit left as it was', () => {
  const limit = Error.stackTraceLimit;
  const errors = [new NotFoundError(), new InvalidRequestError('bad'), new ConflictError('taken'), new BusyError('busy', 2)];
  expect(errors.map((error) => [error.kind, error.message])).toEqual([
    ['not-found', 'Not found'],
    ['invalid', 'bad'],
    ['conflict', 'taken'],
    ['busy', 'busy'],
  ]);
  for (const error of errors) {
    expect(error).toBeInstanceOf(Error);
    expect(error.stack).toBe(`${error.name}: ${error.message}`);
  }
  expect(Error.stackTraceLimit).toBe(limit);
  // Any other error keeps its frames.
  expect(new TypeError('x').stack).toContain('errors.test.ts');
});

test('a subclass of a domain error is one too', () => {
  const error = new RangeTooLargeError(10_001, 10_000);
  expect(error.kind).toBe('invalid');
  expect(error.stack).not.toContain(' at ');
});
