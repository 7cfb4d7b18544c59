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
