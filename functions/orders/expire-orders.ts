/**
 * Scheduled (jobs row ExpireOrders, every minute): persists `expired` for waiting orders past their
 * expiry, reading only the O5 expiry ranges (see docs/access-patterns.md). Logs what it did and
 * publishes it (shared/observability/job-metrics.ts: OrdersExamined, OrdersExpired, OrdersSkipped);
 * a failure is thrown so that Lambda records it (the next tick is the retry).
 */
import { countJobWork, runJob } from '../../shared/observability/job-metrics';
import { logger } from '../../shared/observability/logger';
import { now } from '../../shared/orders/clock';
import { expireOverdueOrders, type ExpirySweepResult } from '../../shared/orders/orders';

/** What a sweep did, published as counts of the `ExpireOrders` job. */
export const EXPIRE_ORDERS_COUNTS = ['OrdersExamined', 'OrdersExpired', 'OrdersSkipped'] as const;

export const handler = async (): Promise<ExpirySweepResult> =>
  runJob('ExpireOrders', EXPIRE_ORDERS_COUNTS, async () => {
    const result = await expireOverdueOrders(now());
    countJobWork('OrdersExamined', result.examined);
    countJobWork('OrdersExpired', result.expired);
    countJobWork('OrdersSkipped', result.skipped);
    logger.info('Expired overdue orders', { ...result });
    return result;
  });
