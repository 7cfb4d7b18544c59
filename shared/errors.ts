/**
 * Errors that domain code throws on purpose: what went wrong, in the domain's terms. Domain code
 * never picks an HTTP status or builds a response envelope; the HTTP layer (shared/http/errors.ts)
 * turns each kind into the group's 4xx or 503, and anything else into a logged 500.
 */
export type DomainErrorKind = 'invalid' | 'not-found' | 'conflict' | 'busy';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  /**
   * An expected outcome, answered with the group's 4xx or 503 and never logged as a fault: it captures
   * no stack (the frames of an async request cost tens of microseconds a request, for nobody to read).
   */
  constructor(message?: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/** The request is well-formed but asks for something the domain refuses (a 400). */
export class InvalidRequestError extends DomainError {
  readonly kind = 'invalid';
  override readonly name = 'InvalidRequestError';
}

/** What the request names does not exist (a 404). */
export class NotFoundError extends DomainError {
  readonly kind = 'not-found';
  override readonly name = 'NotFoundError';
  constructor(message = 'Not found') {
    super(message);
  }
}

/** The request conflicts with the current state, e.g. a resource that already exists (a 409). */
export class ConflictError extends DomainError {
  readonly kind = 'conflict';
  override readonly name = 'ConflictError';
}

/** The table is too busy to do this now; the client should retry after `retryAfterSeconds` (a 503). */
export class BusyError extends DomainError {
  readonly kind = 'busy';
  override readonly name = 'BusyError';
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}
