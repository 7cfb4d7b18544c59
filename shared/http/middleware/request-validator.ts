/**
 * Validates path, query (repeats read from rawQueryString) and body with a route's valibot schemas
 * and attaches the typed values to the event. A failure throws before the handler body runs, listing
 * every failing value (every unknown parameter of a strict object too, where valibot itself stops at
 * the first).
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { RequestValidationError, type RequestIssue, type RequestPart } from '../errors';
import { queryForValidation } from '../query';

type AnySchema = v.GenericSchema<unknown, unknown>;

export interface RequestSchemas {
  path?: AnySchema;
  query?: AnySchema;
  /** Query parameters that may repeat and reach the schema as arrays of strings. */
  repeatable?: readonly string[];
  body?: AnySchema;
}

/** The validated request parts, as the validator leaves them on the event. */
export interface ValidatedParts {
  path: unknown;
  query: unknown;
  body: unknown;
  headers: Record<string, string | undefined>;
}

export function validatedParts(event: APIGatewayProxyEventV2): ValidatedParts {
  return (event as unknown as { validated: ValidatedParts }).validated;
}

/** Validates path, query and body with the route's schemas and attaches the typed values to the event. */
export function requestValidator(spec: RequestSchemas): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async (request) => {
      const event = request.event;
      const issues: RequestIssue[] = [];
      const parse = (part: RequestPart, schema: AnySchema | undefined, input: unknown): unknown => {
        if (!schema) return undefined;
        const result = v.safeParse(schema, input, { abortEarly: false });
        if (result.success) return result.output;
        issues.push(...requestIssues(part, schema, input, result.issues));
        return undefined;
      };
      const path = parse('path', spec.path, event.pathParameters ?? {});
      const query = parse('query', spec.query, queryForValidation(event.rawQueryString, event.queryStringParameters, spec.repeatable));
      const body = parse('body', spec.body, event.body);
      if (issues.length > 0) throw new RequestValidationError(issues);
      (event as unknown as { validated: ValidatedParts }).validated = {
        path,
        query,
        body,
        headers: (event.headers ?? {}) as Record<string, string | undefined>,
      };
    },
  };
}

/**
 * The issues of one request part. valibot reports only the first unknown key of a strict object; a
 * client fixing its request wants them all, so every unknown key of the input becomes its own issue,
 * for every strict object the schema holds: the top level (itself, or the first strict object of its
 * pipe, as a body schema that checks "a JSON object" first declares it) and, inside it, the strict
 * objects of known fields and of array items, optional or not.
 */
export function requestIssues(
  part: RequestPart,
  schema: AnySchema,
  input: unknown,
  issues: readonly v.BaseIssue<unknown>[],
): RequestIssue[] {
  const result = issues.map((issue) => toRequestIssue(part, issue));
  const reported = new Set(result.filter((issue) => issue.message.startsWith('Unexpected field')).map((issue) => issue.key));
  for (const path of unknownKeys(schema as SchemaShape, input)) {
    const key = path.join('.');
    if (!reported.has(key)) result.push(toRequestIssue(part, unknownKeyIssue(path)));
  }
  return result;
}

/** A schema as the validator walks it: its kind, and what it wraps or holds. */
interface SchemaShape {
  type?: string;
  wrapped?: SchemaShape;
  item?: SchemaShape;
  entries?: Record<string, SchemaShape>;
  pipe?: readonly (SchemaShape & { kind?: string })[];
}

/** The entries of the strict object `schema` is (through optional, nullable and a pipe), if it is one. */
function strictEntries(schema: SchemaShape): Record<string, SchemaShape> | undefined {
  const inner = unwrapped(schema);
  if (inner.type === 'strict_object') return inner.entries;
  const inPipe = inner.pipe?.find((item) => item.kind === 'schema' && item.type === 'strict_object');
  return inPipe?.entries;
}

function unwrapped(schema: SchemaShape): SchemaShape {
  let inner = schema;
  while ((inner.type === 'optional' || inner.type === 'nullable' || inner.type === 'nullish') && inner.wrapped) inner = inner.wrapped;
  return inner;
}

/**
 * The paths of every key of `input` that a strict object of `schema` does not declare, in the input's
 * order. The walk follows the schema (known fields, array items), so its depth is the schema's.
 */
function unknownKeys(schema: SchemaShape, input: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof input !== 'object' || input === null) return [];
  const inner = unwrapped(schema);
  if (inner.type === 'array' && inner.item && Array.isArray(input)) {
    return input.flatMap((item, index) => unknownKeys(inner.item!, item, [...path, index]));
  }
  const entries = strictEntries(schema);
  if (!entries || Array.isArray(input)) return [];
  return Object.keys(input).flatMap((key) =>
    Object.hasOwn(entries, key) ? unknownKeys(entries[key]!, (input as Record<string, unknown>)[key], [...path, key]) : [[...path, key]],
  );
}

function unknownKeyIssue(path: readonly (string | number)[]): v.BaseIssue<unknown> {
  const key = String(path[path.length - 1]);
  return {
    kind: 'schema',
    type: 'strict_object',
    input: key,
    expected: 'never',
    received: `"${key}"`,
    message: `Invalid key: Expected never but received "${key}"`,
    path: path.map((item) => ({ type: 'object', origin: 'key', input: {}, key: item, value: undefined })),
  } as v.BaseIssue<unknown>;
}

/** One issue per failing value; an unknown key of a strict object names that key. */
export function toRequestIssue(part: RequestPart, issue: v.BaseIssue<unknown>): RequestIssue {
  const path = (issue.path ?? []).map((item) => String((item as { key?: unknown }).key));
  if (issue.type === 'strict_object' && issue.expected === 'never' && path.length > 0) {
    const key = path.join('.');
    // Blockscout (OpenApiSpex) titles every cast error "Invalid value"; the detail says what is wrong.
    return { part, key, message: `Unexpected field: ${key}` };
  }
  if (issue.type === 'strict_object' && path.length > 0) {
    // A strict object reports a missing required key as its own issue: say so plainly.
    return { part, key: path.join('.'), message: 'is required' };
  }
  return { part, key: path.join('.'), message: issue.message };
}
