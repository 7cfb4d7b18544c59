/**
 * What a piece of work asked of the table: its usage as the table layer measures it (measureTable,
 * shared/db/instrument.ts: calls by command, items read) and, for assertions on the shape of a request
 * (its key, Limit, projection, Select, filter), the input of every command it sent, in order.
 */
import { dynamoClient } from '../../../shared/db/client';
import { measureTable, type TableUsage } from '../../../shared/db/instrument';

export interface SentRequest {
  /** The low-level command name (`QueryCommand`, `BatchGetItemCommand`, ...). */
  command: string;
  input: Record<string, unknown>;
}

const sent: SentRequest[] = [];
dynamoClient.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
    return next(args);
  },
  { step: 'initialize', name: 'insightsTestRequests' },
);

/** The result of `work`, its table usage and the requests it sent. Run one at a time. */
export async function tableWorkOf<T>(work: () => Promise<T>): Promise<{ result: T; usage: TableUsage; requests: SentRequest[] }> {
  const start = sent.length;
  const { result, usage } = await measureTable(work);
  return { result, usage, requests: sent.slice(start) };
}
