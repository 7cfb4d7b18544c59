/** What a handler returns: a status, a JSON body and optional headers. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export interface JsonResult {
  statusCode?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function toHttpResponse(result: JsonResult): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: result.statusCode ?? 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...result.headers },
    body: JSON.stringify(result.body),
  };
}
