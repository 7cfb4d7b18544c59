/**
 * The four API groups and the error format each one answers in, matching its reference system:
 * - explorer (Blockscout API v2): 422 `{"errors":[{"title","source":{"pointer"},"detail"}]}` for invalid
 *   parameters (one entry per failing parameter), `{"message"}` otherwise;
 * - insights (thirdweb Insight v1): `{"error": "<message>"}`;
 * - orders and collections (B3): `{"success":false,"message","statusCode"}` with the HTTP status repeated.
 */
import type { RequestIssue } from './errors';
import { describeIssue } from './errors';

export type ApiGroup = 'explorer' | 'insights' | 'orders' | 'collections';

/**
 * The group of a route: an API group, or `platform` for the routes every base URL serves (its OpenAPI
 * document and its reference page). A platform route has no error format of its own: on each base URL
 * it answers errors in the format of the path's group there (`groupOfPath`).
 */
export type RouteGroup = ApiGroup | 'platform';

/** The base URL (one HTTP API each) that serves a group. */
export type ApiName = 'base' | 'orders' | 'collections';

export const API_NAMES: readonly ApiName[] = ['base', 'orders', 'collections'];

/** What each base URL serves, as its OpenAPI document and reference page name it. */
export const API_TITLES: Record<ApiName, string> = {
  base: 'Chain data API: explorer and insights',
  orders: 'Chain data API: orders',
  collections: 'Chain data API: collections',
};

export const API_OF_GROUP: Record<ApiGroup, ApiName> = {
  explorer: 'base',
  insights: 'base',
  orders: 'orders',
  collections: 'collections',
};

export interface ErrorResponse {
  statusCode: number;
  body: unknown;
}

/** Status of a validation failure in each group. */
export const VALIDATION_STATUS: Record<ApiGroup, number> = { explorer: 422, insights: 400, orders: 400, collections: 400 };

export function errorBody(group: ApiGroup, statusCode: number, message: string, issues?: RequestIssue[]): unknown {
  switch (group) {
    case 'explorer':
      if (issues && issues.length > 0) {
        return {
          errors: issues.map((issue) => ({
            title: issue.title ?? 'Invalid value',
            source: { pointer: `/${issue.part === 'path' ? `${issue.key}_param` : issue.key}` },
            detail: issue.message,
          })),
        };
      }
      return { message };
    case 'insights':
      return { error: issues && issues.length > 0 ? issues.map(describeIssue).join('; ') : message };
    case 'orders':
    case 'collections':
      return {
        success: false,
        message: issues && issues.length > 0 ? issues.map(describeIssue).join('; ') : message,
        statusCode,
      };
  }
}

/**
 * The group that owns a request path (used by the fallback for unknown routes). Empty segments do not
 * count, as in route matching: `//insights/v1/blocks` is an insights route.
 */
export function groupOfPath(api: ApiName, path: string): ApiGroup {
  if (api === 'orders') return 'orders';
  if (api === 'collections') return 'collections';
  return path.replace(/^\/+/, '/').startsWith('/insights') ? 'insights' : 'explorer';
}
