import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { logger } from '../../observability/logger';

/** Adds API Gateway's request id (what a client and the access log see) to every log line as correlation_id. */
export function correlationId(): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async ({ event }) => {
      const requestId = event.requestContext?.requestId;
      if (requestId) logger.setCorrelationId(requestId);
    },
  };
}
