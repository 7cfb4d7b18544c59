/**
 * What a piece of work costs in DynamoDB, measured at the table's edge: calls by command, items read
 * (a Query's ScannedCount, a get's or batch get's items found), items returned, and consumed read and
 * write capacity. Opt-in: nothing is measured outside `measureTable`, and inside it every call of the
 * table layer asks DynamoDB for its consumed capacity. Scopes nest and concurrent scopes count apart
 * (AsyncLocalStorage), so a request handled in a busy process is measured alone.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface TableUsage {
  /** Calls by DynamoDB command name (`QueryCommand`, `BatchGetItemCommand`, ...). */
  calls: Record<string, number>;
  itemsRead: number;
  itemsReturned: number;
  readUnits: number;
  writeUnits: number;
}

interface Scope {
  usage: TableUsage;
  parent: Scope | undefined;
}

const scopes = new AsyncLocalStorage<Scope>();

export const emptyUsage = (): TableUsage => ({ calls: {}, itemsRead: 0, itemsReturned: 0, readUnits: 0, writeUnits: 0 });

/** Runs `work` and returns its result with the table usage of every call it made (nested scopes count too). */
export async function measureTable<T>(work: () => Promise<T>): Promise<{ result: T; usage: TableUsage }> {
  const usage = emptyUsage();
  const result = await measureTableInto(usage, work);
  return { result, usage };
}

/** Runs `work`, counting the table usage of every call it makes into `usage` (which holds what was counted even if `work` throws). */
export function measureTableInto<T>(usage: TableUsage, work: () => Promise<T>): Promise<T> {
  return scopes.run({ usage, parent: scopes.getStore() }, work);
}

/** True inside `measureTable`: the layer then asks for consumed capacity. */
export function measuring(): boolean {
  return scopes.getStore() !== undefined;
}

/** The number of DynamoDB calls of a usage. */
export function totalCalls(usage: Pick<TableUsage, 'calls'>): number {
  return Object.values(usage.calls).reduce((sum, count) => sum + count, 0);
}

interface ConsumedCapacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** Records one call's output in every active scope. */
export function recordCall(command: string, output: Record<string, unknown> | undefined): void {
  let scope = scopes.getStore();
  if (!scope) return;
  const { read, returned } = itemsOf(command, output ?? {});
  const consumed = ([] as ConsumedCapacity[]).concat((output?.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined) ?? []);
  const isWrite = /^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(command);
  let readUnits = 0;
  let writeUnits = 0;
  for (const capacity of consumed) {
    readUnits += capacity.ReadCapacityUnits ?? (isWrite ? 0 : (capacity.CapacityUnits ?? 0));
    writeUnits += capacity.WriteCapacityUnits ?? (isWrite ? (capacity.CapacityUnits ?? 0) : 0);
  }
  for (; scope; scope = scope.parent) {
    const usage = scope.usage;
    usage.calls[command] = (usage.calls[command] ?? 0) + 1;
    usage.itemsRead += read;
    usage.itemsReturned += returned;
    usage.readUnits += readUnits;
    usage.writeUnits += writeUnits;
  }
}

function itemsOf(command: string, output: Record<string, unknown>): { read: number; returned: number } {
  switch (command) {
    case 'QueryCommand':
    case 'ScanCommand': {
      const returned = Array.isArray(output.Items) ? output.Items.length : Number(output.Count ?? 0);
      return { read: Number(output.ScannedCount ?? returned), returned };
    }
    case 'GetItemCommand':
      return output.Item ? { read: 1, returned: 1 } : { read: 0, returned: 0 };
    case 'BatchGetItemCommand': {
      const found = Object.values((output.Responses ?? {}) as Record<string, unknown[]>).reduce((sum, items) => sum + items.length, 0);
      return { read: found, returned: found };
    }
    default:
      return { read: 0, returned: 0 };
  }
}
