/**
 * Builds API Gateway HTTP API (payload format 2.0) events exactly as the service receives them in AWS:
 * used by the local gateway, the `events/` generator and the tests, so all three exercise the same path.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { ApiName } from '../../shared/http/groups';
import { joinedQuery } from '../../shared/http/query';

export interface ApiRequest {
  api: ApiName;
  method: string;
  /** The path actually requested, e.g. `/collections/0xabc...`. */
  rawPath: string;
  /** The route key's template, e.g. `/collections/{predictedAddress}`; `$default` when none matched. */
  routePath?: string;
  rawQueryString?: string;
  pathParameters?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
  sourceIp?: string;
  host?: string;
  /** True when `body` is base64 (API Gateway does this for bodies whose content type is not text). */
  isBase64Encoded?: boolean;
  /** Fixed request id and time make an event reproducible (the `events/` files); random and now otherwise. */
  requestId?: string;
  time?: Date;
}

export function buildApiEvent(request: ApiRequest): APIGatewayProxyEventV2 {
  const method = request.method.toUpperCase();
  const rawQueryString = request.rawQueryString ?? '';
  const headers: Record<string, string> = { host: request.host ?? `${request.api}.localhost`, ...lowercaseKeys(request.headers ?? {}) };
  const now = request.time ?? new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: request.routePath ? `${method} ${request.routePath}` : '$default',
    rawPath: request.rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: request.api,
      domainName: headers.host,
      domainPrefix: headers.host.split('.')[0],
      http: {
        method,
        path: request.rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? 'local',
      },
      requestId: request.requestId ?? randomUUID(),
      routeKey: request.routePath ? `${method} ${request.routePath}` : '$default',
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: request.isBase64Encoded ?? false,
  };
  const query = joinedQuery(rawQueryString);
  if (query) event.queryStringParameters = query;
  if (request.pathParameters && Object.keys(request.pathParameters).length > 0) event.pathParameters = request.pathParameters;
  if (request.body !== undefined) event.body = request.body;
  return event;
}

/** A Lambda context good enough for local invocations. */
export function localContext(functionName: string): Context {
  const awsRequestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `requestContext.time` as API Gateway writes it (common log format, UTC): `12/Mar/2020:19:03:58 +0000`. */
export function requestTime(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  const day = `${two(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}`;
  return `${day}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

function lowercaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
}
