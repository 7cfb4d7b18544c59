/**
 * The response examples of the OpenAPI documents: what the service answered to each route's example
 * request on the demo chain, saved by `npm run openapi:examples` (scripts/capture-examples.ts) in
 * docs/openapi/examples.json and read by the generator (openapi.ts). A test checks each one against
 * its route's response schema, so an example never drifts from the document that shows it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteExample } from '../../shared/routes';
import { REPOSITORY_ROOT } from './dispatch';

export const EXAMPLES_FILE = path.join(REPOSITORY_ROOT, 'docs/openapi/examples.json');

/** Entries an array of an example keeps. */
export const EXAMPLE_ARRAY_ITEMS = 2;

export interface CapturedResponse {
  status: number;
  body: unknown;
}

export interface ExamplesFile {
  /** By route id: the answer to the route's example request. */
  responses: Record<string, CapturedResponse>;
  /** By group: an answer in the group's error format. */
  errors: Record<string, CapturedResponse>;
}

export function readExamples(): ExamplesFile {
  return JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as ExamplesFile;
}

/** The path and query of a route's example request (arrays become repeated parameters). */
export function exampleUrl(
  template: string,
  pathParameters: RouteExample['pathParameters'] = {},
  query: RouteExample['query'] = {},
): string {
  const url = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = pathParameters[name];
    if (value === undefined) throw new Error(`${template}: the example has no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    for (const one of typeof value === 'string' ? [value] : value) search.append(name, one);
  const text = search.toString();
  return text ? `${url}?${text}` : url;
}

/** `value` with every array cut to its first EXAMPLE_ARRAY_ITEMS entries. */
export function shortened(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, EXAMPLE_ARRAY_ITEMS).map(shortened);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shortened(item)]));
  }
  return value;
}
