/**
 * The table layer's calls as they go out, seen while `work` runs (then no more): `observe` gets each
 * call's command name (the SDK names it after the low-level command, BatchWriteItemCommand, QueryCommand
 * ..., whichever client sent it) and its input in document form, and may delay it (a slower table).
 */
import { db } from '../../shared/db/client';

type Observe = (command: string, input: Record<string, any>) => void | Promise<void>;

export async function observingTable<T>(observe: Observe, work: () => Promise<T>): Promise<T> {
  const name = `observingTable-${Math.random()}`;
  const stack = (db as unknown as { middlewareStack: { add: (...args: unknown[]) => void; remove: (name: string) => void } })
    .middlewareStack;
  stack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Record<string, any> }) => {
      await observe(context.commandName ?? '', args.input);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return await work();
  } finally {
    stack.remove(name);
  }
}
