/**
 * A queue and its consumer in process, for local runs (`npm start`, tests): what an SQS queue with a
 * Lambda consumer does in AWS. Messages are handled at most `concurrency` at a time; a handler that
 * asks for a retry (`retryInMs`, the consumer's backoff, which SQS applies through the message's
 * visibility timeout) gets the message again that much later; a handler that throws gets it again after
 * `errorRetryMs`. A message received `maxReceives` times is dropped with `onDropped` (the queue's
 * dead-letter queue in AWS). Used by the NFT metadata fetcher's and webhook delivery's local workers.
 */

export interface LocalQueueOptions<T> {
  concurrency: number;
  /** Receives of a message before it is dropped (the queue's maxReceiveCount). */
  maxReceives: number;
  /** Pause before a message whose handling threw is handled again. */
  errorRetryMs: number;
  /** Handles one message (`attempt`: 1 for its first receive); `retryInMs` asks for it again that much later. */
  handle: (message: T, attempt: number) => Promise<{ retryInMs?: number }>;
  onError?: (message: T, detail: string) => void;
  onDropped?: (message: T, receives: number, detail: string | undefined) => void;
}

export interface LocalQueue<T> {
  send(messages: readonly T[]): Promise<void>;
  /** Resolves once nothing is queued, running or waiting for a retry. */
  idle(): Promise<void>;
  /** Stops taking messages, drops waiting retries, waits for the running ones. */
  stop(): Promise<void>;
}

export function startLocalQueue<T>(options: LocalQueueOptions<T>): LocalQueue<T> {
  type Entry = { message: T; receives: number };
  const queued: Entry[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let running = 0;
  let stopped = false;
  let waiters: (() => void)[] = [];

  const settleIdle = () => {
    if (queued.length > 0 || running > 0 || timers.size > 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  const later = (entry: Entry, ms: number, detail?: string) => {
    if (entry.receives >= options.maxReceives) {
      options.onDropped?.(entry.message, entry.receives, detail);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) queued.push(entry);
      pump();
    }, ms);
    timers.add(timer);
  };
  const handle = async (entry: Entry) => {
    const receives = entry.receives + 1;
    try {
      const { retryInMs } = await options.handle(entry.message, receives);
      if (retryInMs !== undefined) later({ message: entry.message, receives }, retryInMs);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      options.onError?.(entry.message, detail);
      later({ message: entry.message, receives }, options.errorRetryMs, detail);
    }
  };
  const pump = () => {
    while (!stopped && running < options.concurrency && queued.length > 0) {
      const entry = queued.shift()!;
      running += 1;
      void handle(entry).finally(() => {
        running -= 1;
        pump();
      });
    }
    settleIdle();
  };

  return {
    send: async (messages) => {
      if (stopped) return;
      for (const message of messages) queued.push({ message, receives: 0 });
      pump();
    },
    idle: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        settleIdle();
      }),
    stop: async () => {
      stopped = true;
      queued.length = 0;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        settleIdle();
      });
    },
  };
}
