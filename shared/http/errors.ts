/**
 * Errors of the HTTP layer itself (a body over the limit, a request that fails validation). Domain
 * code throws the domain errors of shared/errors.ts instead; the error responder turns both into the
 * group's own format, and anything else into a logged 500.
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
