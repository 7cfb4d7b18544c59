/**
 * Errors a handler or domain function throws on purpose. The error middleware turns them into the
 * right 4xx in the group's own format; anything else becomes a logged 500.
 */

/** Where a request value came from. */
export type RequestPart = 'path' | 'query' | 'body' | 'header';

/** One failing request value. `key` is the parameter (or dotted body path). */
export interface RequestIssue {
  part: RequestPart;
  key: string;
  message: string;
  /** Explorer only: the JSON:API error title, `Invalid value` unless said otherwise. */
  title?: string;
}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

/** A request that failed validation: every failing value, so that a client can fix them all at once. */
export class RequestValidationError extends HttpError {
  constructor(readonly issues: RequestIssue[]) {
    super(400, issues.map((issue) => describeIssue(issue)).join('; '));
    this.name = 'RequestValidationError';
  }
}

export function describeIssue(issue: RequestIssue): string {
  return issue.key ? `${issue.key}: ${issue.message}` : issue.message;
}
