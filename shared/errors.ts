/**
 * Errors that domain code throws on purpose: what went wrong, in the domain's terms. Domain code
 * never picks an HTTP status or builds a response envelope; the HTTP layer (shared/http/errors.ts)
 * turns each kind into the group's 4xx or 503, and anything else into a logged 500.
 */
export type DomainErrorKind = 'invalid' | 'unauthorized' | 'forbidden' | 'not-found' | 'conflict' | 'rate-limited' | 'busy';

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

/** The request needs a secret key and has none, a wrong one or a revoked one (a 401). */
export class UnauthorizedError extends DomainError {
  readonly kind = 'unauthorized';
  override readonly name = 'UnauthorizedError';
}

/** The caller may not do this: a limit of its project is reached (a 403). */
export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden';
  override readonly name = 'ForbiddenError';
}

/** The caller sent more requests than its key may in the current window; retry after `retryAfterSeconds` (a 429). */
export class RateLimitedError extends DomainError {
  readonly kind = 'rate-limited';
  override readonly name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
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
