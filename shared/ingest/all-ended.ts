/**
 * Awaits every promise and only then throws the first failure (in the promises' order), else returns
 * their values. The ingest runs independent writes side by side and must not start a next attempt (a
 * rollback, the follow loop's next round) while one of them still runs, which `Promise.all` allows: it
 * rejects at the first failure and leaves the others running.
 */
export async function allEnded<T extends readonly unknown[]>(promises: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const outcomes = await Promise.allSettled(promises);
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
