import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from '../errors';

/** Rejects bodies over `limit` bytes with 413 before they are parsed. */
export function bodyLimit(limit: number): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async ({ event }) => {
      if (typeof event.body !== 'string') return;
      const bytes = event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body);
      if (bytes > limit) throw new HttpError(413, `Request body is larger than ${limit} bytes`);
    },
  };
}
