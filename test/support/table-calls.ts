/**
 * The table layer's calls as they go out, seen while `work` runs (then no more): `observe` gets each
 * call's command name (the SDK names it after the low-level command, BatchWriteItemCommand, QueryCommand
 * ..., whichever client sent it) and its input in document form, and may delay it (a slower table).
 */
import { db } from '../../shared/db/client';

type Observe = (command: string, input: Record<string, any>) => void | Promise<void>;
type Next = (args: unknown) => Promise<unknown>;
type Around = (command: string, input: Record<string, any>, next: () => Promise<unknown>) => Promise<unknown>;

/** Runs `work` with `around` wrapping each table call (its command, its input, and the call itself). */
async function wrappingTable<T>(around: Around, work: () => Promise<T>): Promise<T> {
  const name = `wrappingTable-${Math.random()}`;
  const stack = (db as unknown as { middlewareStack: { add: (...args: unknown[]) => void; remove: (name: string) => void } })
    .middlewareStack;
  stack.add(
    (next: Next, context: { commandName?: string }) => (args: { input: Record<string, any> }) =>
      around(context.commandName ?? '', args.input, () => next(args)),
    { step: 'initialize', name },
  );
  try {
    return await work();
  } finally {
    stack.remove(name);
  }
}

export function observingTable<T>(observe: Observe, work: () => Promise<T>): Promise<T> {
  return wrappingTable(async (command, input, next) => {
    await observe(command, input);
    return next();
  }, work);
}

/** The most calls of `command` (every command: undefined) in flight at once while `work` runs, and its result. */
export async function mostInFlight<T>(command: string | undefined, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let inFlight = 0;
  let peak = 0;
  const result = await wrappingTable(async (name, _input, next) => {
    if (command !== undefined && name !== command) return next();
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    try {
      return await next();
    } finally {
      inFlight -= 1;
    }
  }, work);
  return { result, peak };
}

/** A call to another service than the table, timed by its caller. */
export interface OtherCall {
  start: number;
  end: number;
  label: string;
}

/**
 * The round trips `work` waited on in sequence: the longest chain of table calls each sent after the one
 * before it answered (calls sent together count once), its calls (command and first key, for a failure
 * message), and its result.
 */
export async function roundTripsInSequence<T>(
  work: () => Promise<T>,
  /** Calls `work` makes outside the table (a cold part's GET: its label, when sent and answered), counted as round trips too. */
  others: readonly OtherCall[] = [],
): Promise<{ result: T; depth: number; path: string[] }> {
  const calls: OtherCall[] = [];
  const result = await wrappingTable(async (name, input, next) => {
    const call = { start: performance.now(), end: Number.POSITIVE_INFINITY, label: callLabel(name, input) };
    calls.push(call);
    try {
      return await next();
    } finally {
      call.end = performance.now();
    }
  }, work);
  calls.push(...others);
  calls.sort((a, b) => a.start - b.start);
  const chain: number[] = [];
  const previous: number[] = [];
  for (const [index, call] of calls.entries()) {
    let before = 0;
    let from = -1;
    for (let earlier = 0; earlier < index; earlier += 1)
      if (calls[earlier]!.end <= call.start && chain[earlier]! > before) {
        before = chain[earlier]!;
        from = earlier;
      }
    chain.push(before + 1);
    previous.push(from);
  }
  const path: string[] = [];
  for (let at = chain.indexOf(Math.max(...chain)); at >= 0; at = previous[at]!) path.unshift(calls[at]!.label);
  return { result, depth: Math.max(0, ...chain), path };
}

/** A call as `Command(operations) <partition key of its first key>`, addresses shortened. */
function callLabel(command: string, input: Record<string, any>): string {
  const requests = input.RequestItems ? Object.values(input.RequestItems as Record<string, unknown>)[0] : undefined;
  const count = Array.isArray(requests)
    ? requests.length
    : ((requests as { Keys?: unknown[] } | undefined)?.Keys?.length ?? input.TransactItems?.length);
  const pk = /"pk":"([^"]+)"/.exec(JSON.stringify(input))?.[1] ?? /":pk\w*":"([^"]+)"/.exec(JSON.stringify(input))?.[1] ?? '';
  return `${command.replace(/Command$/, '')}${count === undefined ? '' : `(${count})`} ${pk.replace(/0x[0-9a-f]{40,64}/g, '0x…')}`;
}
