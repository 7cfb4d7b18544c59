/** What a handler returns: a status, a JSON body and optional headers; or a body that is not JSON. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export interface JsonResult {
  statusCode?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A body sent as it is (an HTML page, for instance), with its own content type. */
export interface RawResult {
  statusCode?: number;
  raw: string;
  contentType: string;
  /** True when `raw` is base64 (a compressed body, say): API Gateway decodes it before sending. */
  isBase64Encoded?: boolean;
  headers?: Record<string, string>;
}

export function toHttpResponse(result: JsonResult | RawResult): APIGatewayProxyStructuredResultV2 {
  if ('raw' in result) {
    return {
      statusCode: result.statusCode ?? 200,
      headers: { 'content-type': result.contentType, ...result.headers },
      body: result.raw,
      isBase64Encoded: result.isBase64Encoded ?? false,
    };
  }
  return {
    statusCode: result.statusCode ?? 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...result.headers },
    body: JSON.stringify(result.body),
  };
}
