/**
 * Scheduled (jobs row ExpireOrders, every minute): persists `expired` for waiting orders past their
 * expiry, reading only the O5 expiry ranges (see docs/access-patterns.md). Logs what it did; a
 * failure is thrown so Lambda retries.
 */
import { logger } from '../../shared/observability/logger';
import { now } from '../../shared/orders/clock';
import { expireOverdueOrders, type ExpirySweepResult } from '../../shared/orders/orders';

export const handler = async (): Promise<ExpirySweepResult> => {
  const result = await expireOverdueOrders(now());
  logger.info('Expired overdue orders', { ...result });
  return result;
};
