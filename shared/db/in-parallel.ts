/** Runs `work` over `values`, at most `limit` at a time (the table layer's fan-out; operations.ts re-exports it). */
export async function inParallel<T>(values: readonly T[], limit: number, work: (value: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, values.length) }, async () => {
    while (next < values.length) {
      const value = values[next] as T;
      next += 1;
      await work(value);
    }
  });
  await Promise.all(workers);
}
