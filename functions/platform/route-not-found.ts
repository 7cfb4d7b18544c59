/**
 * The `$default` route of each HTTP API: a request that matches no route answers 404 JSON, or 405
 * with an `Allow` header when the path exists with another method, in the format of the path's group.
 * The API it serves comes from API_NAME (set by the stack) or, locally, from requestContext.apiId.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { errorBody, groupOfPath, type ApiName } from '../../shared/http/groups';
import { toHttpResponse } from '../../shared/http/response';
import { API_NAMES, matchRoute } from '../../shared/routes';

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const api = apiName(event);
  const method = event.requestContext?.http?.method ?? 'GET';
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const group = groupOfPath(api, path);
  const { allowedMethods } = matchRoute(api, method, path);
  if (method === 'OPTIONS' && allowedMethods.length > 0) {
    return { statusCode: 204, headers: { allow: [...allowedMethods, 'OPTIONS'].join(', ') } };
  }
  if (allowedMethods.length > 0) {
    const message = `Method ${method} is not allowed on ${path}; allowed: ${allowedMethods.join(', ')}`;
    return toHttpResponse({ statusCode: 405, body: errorBody(group, 405, message), headers: { allow: allowedMethods.join(', ') } });
  }
  return toHttpResponse({ statusCode: 404, body: errorBody(group, 404, `No route for ${method} ${path}`) });
};

function apiName(event: APIGatewayProxyEventV2): ApiName {
  const candidates = [process.env.API_NAME, event.requestContext?.apiId];
  return (candidates.find((name) => API_NAMES.includes(name as ApiName)) as ApiName | undefined) ?? 'base';
}
