/**
 * Refuses, in a parsed JSON body, strings that hold U+0000 or an unpaired surrogate: valid JSON
 * (`"\u0000"`, `"\ud800"`, `"\udc00"`) that no stored string should carry. U+0000 ends a string in C,
 * in many log and search pipelines and in PostgreSQL text (a client of this data may be one); an
 * unpaired surrogate is not a Unicode character at all: UTF-8 cannot encode it, so the table, a
 * response or a signature hash would silently carry U+FFFD instead. A body holding them is a 400 naming
 * the path of every such string (or of the object whose field name holds one), before validation.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { RequestValidationError, type RequestIssue } from '../errors';

export const HAS_NUL = 'must not contain U+0000';
export const HAS_LONE_SURROGATE = 'must not contain an unpaired surrogate (\\ud800 to \\udfff without its pair)';

export function storableStrings(): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async ({ event }) => {
      const issues = unstorableStrings(event.body as unknown);
      if (issues.length > 0) throw new RequestValidationError(issues);
    },
  };
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string, or undefined when it may be stored. */
export function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return HAS_NUL;
  if (LONE_SURROGATE.test(text)) return HAS_LONE_SURROGATE;
  return undefined;
}

/**
 * One issue per string of `value` that may not be stored, named by its dotted path (array indices as
 * numbers); a field name that may not be stored is named by its object's path. Walked with a stack, not
 * recursion: a body may nest as deep as its size allows.
 */
export function unstorableStrings(value: unknown): RequestIssue[] {
  const issues: RequestIssue[] = [];
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'string') {
      const problem = unstorable(item);
      if (problem) issues.push({ part: 'body', key: path, message: path ? problem : `The request body ${problem}` });
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index -= 1) pending.push([item[index], join(path, String(index))]);
    } else if (typeof item === 'object' && item !== null) {
      const keys = Object.keys(item);
      for (const key of keys) {
        const problem = unstorable(key);
        if (problem)
          issues.push({ part: 'body', key: path, message: `${path ? 'has' : 'The request body has'} a field name that ${problem}` });
      }
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index]!;
        if (unstorable(key) === undefined) pending.push([(item as Record<string, unknown>)[key], join(path, key)]);
      }
    }
  }
  return issues;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
