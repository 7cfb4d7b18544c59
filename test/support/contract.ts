/**
 * The contract check, loaded into every test file (vitest `setupFiles`): each response a handler gives
 * through the local dispatch (`requestJson`, `dispatch`, the local gateway) is validated against the
 * document's schema for it, the same valibot schema the OpenAPI documents are generated from:
 *  - a 2xx JSON response against its route's `response` schema (shared/http/handler.ts `spec.response`);
 *  - a 4xx or 5xx against the error bodies of the group that answered (shared/http/error-schemas.ts).
 * A field that drifts from the document fails the request, and with it the test that sent it.
 * Set CONTRACT_CHECK=0 to look at a drifting response without the failure.
 */
import * as v from 'valibot';
import { type LambdaHandler, type LocalResponse, observeResponses, type PreparedRequest } from '../../scripts/lib/dispatch';
import { ERROR_BODIES } from '../../shared/http/error-schemas';
import { type ApiName, groupOfPath } from '../../shared/http/groups';
import type { HttpHandler } from '../../shared/http/handler';
import { checkBlockscoutTypes } from './blockscout-schemas';

type AnySchema = v.GenericSchema<unknown, unknown>;

export class ContractViolation extends Error {}

/** Why `response` does not match the document, or undefined when it does. */
export function contractViolation(prepared: PreparedRequest, handler: LambdaHandler, response: LocalResponse): string | undefined {
  const contentType = response.headers['content-type'] ?? '';
  if (response.statusCode === 204 || response.statusCode === 304) return undefined;
  const schema = schemaFor(prepared, handler, response.statusCode);
  if (!schema) return undefined;
  if (!contentType.startsWith('application/json')) {
    return response.statusCode >= 400 ? `an error answered with content-type ${contentType || '(none)'}, not JSON` : undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.isBase64Encoded ? Buffer.from(response.body, 'base64').toString('utf8') : response.body);
  } catch {
    return 'the body is not JSON';
  }
  const result = v.safeParse(schema, body);
  if (result.success) return undefined;
  return result.issues
    .slice(0, 5)
    .map((issue) => `${v.getDotPath(issue) ?? '(body)'}: ${issue.message}`)
    .join('; ');
}

function schemaFor(prepared: PreparedRequest, handler: LambdaHandler, status: number): AnySchema | undefined {
  if (status >= 400) {
    const api = prepared.event.requestContext.apiId as ApiName;
    const { validation, other } = ERROR_BODIES[groupOfPath(api, prepared.event.rawPath)];
    return v.union([validation, other]);
  }
  const spec = (handler as Partial<HttpHandler>).spec;
  // Routes with a non-JSON success (the reference page) declare its content type instead.
  if (!prepared.routeId || !spec?.response || spec.contentType) return undefined;
  return spec.response;
}

if (process.env.CONTRACT_CHECK !== '0') {
  observeResponses((prepared, handler, response) => {
    const problem = contractViolation(prepared, handler, response);
    if (problem) {
      throw new ContractViolation(
        `${prepared.event.requestContext.http.method} ${prepared.event.rawPath} (${prepared.functionName}) answered ${response.statusCode} outside the document: ${problem}\n${response.body.slice(0, 2000)}`,
      );
    }
  });
}

// Explorer answers are also checked against the Blockscout frontend's own types (blockscout-schemas.ts).
checkBlockscoutTypes();
