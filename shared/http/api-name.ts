/**
 * Which base URL (HTTP API) a request came in on, for the functions that serve more than one API or
 * one API of several: the `$default` fallback (one function per API) and the platform routes (one
 * function behind all three APIs: GET /openapi.json, GET /docs).
 *
 * - Locally `requestContext.apiId` is the API's name (scripts/lib/api-event.ts sets it so).
 * - In AWS it is the API's generated id: the stack gives a platform function each API's id in
 *   `<NAME>_API_ID` (BASE_API_ID, ORDERS_API_ID, COLLECTIONS_API_ID), and a fallback its one API's
 *   name in API_NAME.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { API_NAMES, type ApiName } from './groups';

/** The environment variable holding the generated id of an API, e.g. `ORDERS_API_ID`. */
export const apiIdVariable = (api: ApiName): string => `${api.toUpperCase()}_API_ID`;

const isApiName = (name: string | undefined): name is ApiName => API_NAMES.includes(name as ApiName);

export function apiNameOf(event: APIGatewayProxyEventV2, env: NodeJS.ProcessEnv = process.env): ApiName {
  const apiId = event.requestContext?.apiId;
  if (isApiName(apiId)) return apiId;
  const byId = apiId ? API_NAMES.find((api) => env[apiIdVariable(api)] === apiId) : undefined;
  if (byId) return byId;
  return isApiName(env.API_NAME) ? env.API_NAME : 'base';
}
