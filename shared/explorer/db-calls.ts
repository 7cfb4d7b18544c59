/**
 * Counts the DynamoDB calls made while serving a request, by command (QueryCommand, BatchGetCommand
 * ...): a middleware on the shared document client's stack adds one per call to the counters of
 * every `countDatabaseCalls` scope the call runs in (AsyncLocalStorage, so concurrent requests in one
 * process count apart). The explorer's pages log their count; tests assert the cost of a page.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { db } from '../db/client';

export type DatabaseCalls = Record<string, number>;

interface Scope {
  calls: DatabaseCalls;
  parent: Scope | undefined;
}

const scopes = new AsyncLocalStorage<Scope>();
const MIDDLEWARE_NAME = 'explorerDatabaseCallCounter';

db.middlewareStack.add(
  (next, context) => async (args) => {
    for (let scope = scopes.getStore(); scope; scope = scope.parent) {
      const name = context.commandName ?? 'unknown';
      scope.calls[name] = (scope.calls[name] ?? 0) + 1;
    }
    return next(args);
  },
  { step: 'initialize', name: MIDDLEWARE_NAME, override: true },
);

/** Runs `work` and returns its result with the DynamoDB calls it made (nested scopes count too). */
export async function countDatabaseCalls<T>(work: () => Promise<T>): Promise<{ result: T; calls: DatabaseCalls }> {
  const scope: Scope = { calls: {}, parent: scopes.getStore() };
  const result = await scopes.run(scope, work);
  return { result, calls: scope.calls };
}

/** Total of a call count. */
export function totalCalls(calls: DatabaseCalls): number {
  return Object.values(calls).reduce((sum, count) => sum + count, 0);
}
