/**
 * The route table: the single source of truth for every HTTP endpoint. The CDK stack (one function
 * and one HTTP API route per row), the local gateway, the `events/` files for `sam local invoke` and
 * the OpenAPI documents are all derived from it. Adding an endpoint = one handler file + one row.
 *
 * This module holds data only (no imports of handlers or SDKs), so any of those readers can load it.
 */
import { API_OF_GROUP, type ApiGroup, type ApiName } from './http/groups';

export type HttpMethod = 'GET' | 'POST';

/** DynamoDB actions a writer may be granted; readers get GetItem, BatchGetItem, Query (no Scan). */
export type WriteAction = 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem' | 'ConditionCheckItem';

export type TableAccess = { read: boolean; write: readonly WriteAction[] };

export const READ_ONLY: TableAccess = { read: true, write: [] };
export const NO_TABLE: TableAccess = { read: false, write: [] };

export interface RouteExample {
  pathParameters?: Record<string, string>;
  /** Raw query parameters; arrays become repeated parameters. */
  query?: Record<string, string | readonly string[]>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  /** PascalCase id: the function's construct id and the `events/<id>.json` file name. */
  id: string;
  method: HttpMethod;
  /** Path template with `{name}` parameters, as API Gateway HTTP API writes it. */
  path: string;
  group: ApiGroup;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  table: TableAccess;
  summary: string;
  /** A request that the generated sam event file carries. */
  example: RouteExample;
}

export const routes: readonly Route[] = [
  // ----- collections (collections base URL) -----
  {
    id: 'ListCollections',
    method: 'GET',
    path: '/collections',
    group: 'collections',
    handler: 'functions/collections/list-collections.ts',
    table: READ_ONLY,
    summary: 'List NFT collections, newest first, filtered by creator, symbol, referrer, chainId, gameOwner or gameId',
    example: { query: { limit: '10', page: '1' } },
  },
  {
    id: 'CreateCollection',
    method: 'POST',
    path: '/collections',
    group: 'collections',
    handler: 'functions/collections/create-collection.ts',
    table: { read: true, write: ['PutItem', 'UpdateItem', 'ConditionCheckItem'] },
    summary: 'Store a collection signed by its creator (EIP-712) and return its predicted address',
    example: {
      headers: { 'content-type': 'application/json' },
      body: { note: 'replaced by scripts/generate-events.ts with a validly signed collection' },
    },
  },
  {
    id: 'GetCollectionSigningDomain',
    method: 'GET',
    path: '/collections/signing-domain',
    group: 'collections',
    handler: 'functions/collections/get-signing-domain.ts',
    table: NO_TABLE,
    summary: 'The EIP-712 domain, types and primary type a creator signs for a chain',
    example: { query: { chainId: '8453' } },
  },
  {
    id: 'GetCollection',
    method: 'GET',
    path: '/collections/{predictedAddress}',
    group: 'collections',
    handler: 'functions/collections/get-collection.ts',
    table: READ_ONLY,
    summary: 'One collection by its predicted address',
    example: { pathParameters: { predictedAddress: '0x0000000000000000000000000000000000000001' } },
  },
];

/** The handler answering requests that match no route of an API: 404, or 405 for a wrong method. */
export const FALLBACK_HANDLER = 'functions/platform/route-not-found.ts';

export const API_NAMES: readonly ApiName[] = ['base', 'orders', 'collections'];

export function apiOf(route: Route): ApiName {
  return API_OF_GROUP[route.group];
}

export function routesOf(api: ApiName): Route[] {
  return routes.filter((route) => apiOf(route) === api);
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** Matches a request path against the route templates of an API; literal segments beat parameters. */
export function matchRoute(api: ApiName, method: string, path: string): { match?: RouteMatch; allowedMethods: HttpMethod[] } {
  const candidates = routesOf(api)
    .map((route) => ({ route, pathParameters: matchTemplate(route.path, path) }))
    .filter((candidate): candidate is RouteMatch => candidate.pathParameters !== undefined)
    .sort((a, b) => literalWeight(b.route.path) - literalWeight(a.route.path));
  const allowedMethods = [...new Set(candidates.map((candidate) => candidate.route.method))];
  const best = candidates.find((candidate) => candidate.route.method === method.toUpperCase());
  return { match: best, allowedMethods };
}

function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const templateSegments = template.split('/').filter(Boolean);
  const pathSegments = path.split('/').filter(Boolean);
  if (templateSegments.length !== pathSegments.length) return undefined;
  const parameters: Record<string, string> = {};
  for (let i = 0; i < templateSegments.length; i += 1) {
    const expected = templateSegments[i];
    const actual = pathSegments[i];
    if (expected.startsWith('{') && expected.endsWith('}')) {
      try {
        parameters[expected.slice(1, -1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return parameters;
}

function literalWeight(template: string): number {
  return template.split('/').filter((segment) => segment && !segment.startsWith('{')).length;
}
