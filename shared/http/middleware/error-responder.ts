/**
 * Turns any error into the group's response: validation errors into the group's validation status,
 * domain errors (shared/errors.ts) into their status, errors of middy's own middlewares meant for the
 * client into theirs; anything else becomes a logged 500 that leaks nothing.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isTableBusy } from '../../db/retry';
import { BusyError, DomainError, type DomainErrorKind, RateLimitedError } from '../../errors';
import { logger } from '../../observability/logger';
import { HttpError, RequestValidationError } from '../errors';
import { apiNameOf } from '../api-name';
import { errorBody, groupOfPath, VALIDATION_STATUS, type ApiGroup, type RouteGroup } from '../groups';
import { toHttpResponse, type JsonResult } from '../response';

/**
 * Turns any error into the group's response. Only errors meant for the client keep their message. A
 * platform route answers in the format of the path's group on the base URL the request came in on.
 */
export function errorResponder(group: RouteGroup): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: async (request) => {
      const error = request.error as (Error & { statusCode?: number; expose?: boolean }) | null;
      const format = group === 'platform' ? groupOfPath(apiNameOf(request.event), request.event.rawPath ?? '/') : group;
      const response = errorResponse(format, error, request.context?.awsRequestId);
      request.response = toHttpResponse(response);
    },
  };
}

/** Retry-After of a 503 for a busy table: the SDK's retries already waited about a second. */
export const TABLE_BUSY_RETRY_AFTER_SECONDS = 1;

/** The status of each kind of domain error, in every group. */
const DOMAIN_STATUS: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'rate-limited': 429,
  busy: 503,
};

export function errorResponse(
  group: ApiGroup,
  error: (Error & { statusCode?: number; expose?: boolean }) | null,
  requestId?: string,
): JsonResult & { statusCode: number } {
  if (error instanceof RequestValidationError) {
    const statusCode = VALIDATION_STATUS[group];
    return { statusCode, body: errorBody(group, statusCode, error.message, error.issues) };
  }
  if (error instanceof HttpError) {
    return { statusCode: error.statusCode, body: errorBody(group, error.statusCode, error.message) };
  }
  if (error instanceof DomainError) {
    const statusCode = DOMAIN_STATUS[error.kind];
    const headers =
      error instanceof BusyError || error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) } : undefined;
    return { statusCode, body: errorBody(group, statusCode, error.message), headers };
  }
  // The table is throttling, conflicting, slow or unreachable after every retry: nothing half-done
  // stays behind (each write of a request is one transaction), so the client may retry.
  if (isTableBusy(error)) {
    logger.warn('Table busy', { error: error ?? undefined, requestId });
    const statusCode = 503;
    return {
      statusCode,
      body: errorBody(group, statusCode, 'The service is busy; retry shortly'),
      headers: { 'retry-after': String(TABLE_BUSY_RETRY_AFTER_SECONDS) },
    };
  }
  // Errors created by middy's own middleware (@middy/util createError): client errors meant to be shown.
  if (error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 && error.expose === true) {
    const { statusCode, message } = clientErrorOfMiddy(error.statusCode, error.message);
    return { statusCode, body: errorBody(group, statusCode, message) };
  }
  logger.error('Unhandled error', { error: error ?? undefined, requestId });
  const message = `Internal server error${requestId ? ` (request id ${requestId})` : ''}`;
  return { statusCode: 500, body: errorBody(group, 500, message) };
}

/**
 * The JSON body parser answers 415 both for a wrong content type and for a body that is not JSON; to
 * a client the second is a bad request (400). Both get a message that says what to fix.
 */
function clientErrorOfMiddy(statusCode: number, message: string): { statusCode: number; message: string } {
  if (statusCode === 415 && /malformed JSON/i.test(message)) return { statusCode: 400, message: 'The request body is not valid JSON' };
  if (statusCode === 415)
    return { statusCode, message: 'Unsupported Media Type: send the body as JSON with content-type: application/json' };
  return { statusCode, message };
}
