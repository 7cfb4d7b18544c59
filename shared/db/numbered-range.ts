/**
 * Numbered list ranges (orders, collections: docs/decisions/orders.md, collections.md): each entry of a
 * range has a position, and the range's counter holds the last one given. The table-layer pieces both
 * groups share: the counter's conditional move and the local queue of creations.
 */
import type { TransactItem } from './operations';

/** A counter moved from `current` to `current + 1`, on condition that it still holds `current`. */
export function counterUpdate(key: { pk: string; sk: string }, current: number): TransactItem {
  return {
    Update: {
      Key: key,
      UpdateExpression: 'SET #count = :next',
      ConditionExpression: current === 0 ? 'attribute_not_exists(#count)' : '#count = :current',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: current === 0 ? { ':next': 1 } : { ':next': current + 1, ':current': current },
    },
  };
}

/**
 * At most `limit` calls of the returned function run at once in this process; the others wait their
 * turn, first come first served. `work` learns whether it waited.
 *
 * For the creations that number their copies in a numbered list range (orders, collections): every
 * creation moves the range's counter, so creations running together mostly cancel each other (each
 * lost race costs a counter read and a transaction). A Lambda container serves one request at a time,
 * but the local gateway and the benchmark's dataset build serve many, and queueing them keeps a burst
 * from multiplying its own work. Creations of other processes still race, through the conditions.
 */
export function localQueue(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: (waited: boolean) => Promise<T>): Promise<T> => {
    const waited = running >= limit;
    if (waited) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await work(waited);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}
