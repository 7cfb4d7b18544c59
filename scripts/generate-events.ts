/**
 * `npm run events`: writes `events/<RouteId>.json`, one API Gateway HTTP API 2.0 event per route of
 * the route table (built from the route's `example` by the same buildApiEvent the local gateway uses),
 * and `events/env.json` for `sam local invoke --env-vars`. The output is deterministic (fixed request
 * ids and time), so regenerating changes a file only when its route changed; a test checks that the
 * files in the tree are what this script produces now.
 *
 *   sam local invoke ListCollections -t cdk.out/<Stack>.template.json -e events/ListCollections.json --env-vars events/env.json
 */
import { readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DEFAULT_TABLE_NAME } from '../shared/config';
import { buildApiEvent } from './lib/api-event';
import { toRawQuery } from '../shared/http/query';
import { apiOf, routes as allRoutes, type Route } from '../shared/routes';

export const EVENTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../events');

/** The time every generated event carries. */
export const EVENT_TIME = new Date('2025-01-01T00:00:00.000Z');

/** The host's `npm start` DynamoDB as a sam container reaches it (Docker Desktop; see docs/decisions/platform.md for Linux). */
export const SAM_DYNAMODB_ENDPOINT = 'http://host.docker.internal:8000';

export const ENV_FILE = 'env.json';

/** The request path of a route's example: its path parameters substituted, percent-encoded. */
export function examplePath(route: Route): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = route.example.pathParameters?.[name];
    if (value === undefined) throw new Error(`Route ${route.id}: example.pathParameters has no value for {${name}}`);
    return encodeURIComponent(value);
  });
}

/** The event API Gateway would hand the route's function for the route's example request. */
export function routeEvent(route: Route): APIGatewayProxyEventV2 {
  const { query, body, headers, pathParameters } = route.example;
  const hasBody = body !== undefined;
  return buildApiEvent({
    api: apiOf(route),
    method: route.method,
    rawPath: examplePath(route),
    routePath: route.path,
    rawQueryString: query ? toRawQuery(query) : '',
    pathParameters,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...headers },
    body: hasBody ? JSON.stringify(body) : undefined,
    requestId: `example-${route.id}`,
    time: EVENT_TIME,
  });
}

/**
 * `sam local invoke --env-vars`: `Parameters` applies to every function, each route's function id
 * gets its own entry. sam overrides only variables the template declares (see docs/decisions/platform.md).
 */
export function samEnvironment(routes: readonly Route[], tableName = DEFAULT_TABLE_NAME): Record<string, Record<string, string>> {
  const variables = { DYNAMODB_ENDPOINT: SAM_DYNAMODB_ENDPOINT, TABLE_NAME: tableName };
  return { Parameters: variables, ...Object.fromEntries(routes.map((route) => [route.id, variables])) };
}

/** Every file of `events/`, name -> content: the pure core of the generator. */
export function eventFiles(routes: readonly Route[] = allRoutes): Map<string, string> {
  const files = new Map<string, string>();
  for (const route of routes) {
    const name = `${route.id}.json`;
    if (files.has(name)) throw new Error(`Two routes have the id ${route.id}`);
    files.set(name, json(routeEvent(route)));
  }
  files.set(ENV_FILE, json(samEnvironment(routes)));
  return files;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Writes the files and removes event files of routes that no longer exist. */
export async function writeEventFiles(
  directory = EVENTS_DIR,
  routes: readonly Route[] = allRoutes,
): Promise<{ written: string[]; removed: string[] }> {
  const files = eventFiles(routes);
  await mkdir(directory, { recursive: true });
  const removed: string[] = [];
  for (const existing of await readdir(directory)) {
    if (existing.endsWith('.json') && !files.has(existing)) {
      await rm(path.join(directory, existing));
      removed.push(existing);
    }
  }
  for (const [name, content] of files) await writeFile(path.join(directory, name), content);
  return { written: [...files.keys()], removed };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { written, removed } = await writeEventFiles();
  console.log(`events/: wrote ${written.length} files (${written.join(', ')})${removed.length ? `; removed ${removed.join(', ')}` : ''}`);
}
