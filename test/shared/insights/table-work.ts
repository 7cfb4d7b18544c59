/**
 * What a piece of work asked of the table: its usage as the table layer measures it (measureTable,
 * shared/db/instrument.ts: calls by command, items read) and, for assertions on the shape of a request
 * (its key, Limit, projection, Select, filter), the input of every command it sent, in order, with when
 * it was sent and answered and, for a Query, the items it read: enough for the bench's read rules
 * (readRules: round trips in sequence, Queries and their items read, the most Queries at once).
 */
import { dynamoClient } from '../../../shared/db/client';
import { measureTable, type TableUsage } from '../../../shared/db/instrument';
import { roundTrips, waves } from '../../../scripts/bench/lib/measure';

export interface SentRequest {
  /** The low-level command name (`QueryCommand`, `BatchGetItemCommand`, ...). */
  command: string;
  input: Record<string, unknown>;
  /** performance.now() when the command was sent and when its answer came (NaN while in flight). */
  start: number;
  end: number;
  /** A Query's ScannedCount (items read); 0 for other commands. */
  scanned: number;
}

const sent: SentRequest[] = [];
dynamoClient.middlewareStack.add(
  (next, context) => async (args) => {
    const request: SentRequest = {
      command: String(context.commandName),
      input: args.input as Record<string, unknown>,
      start: performance.now(),
      end: Number.NaN,
      scanned: 0,
    };
    sent.push(request);
    try {
      const result = await next(args);
      request.scanned = Number((result.output as { ScannedCount?: number }).ScannedCount ?? 0);
      return result;
    } finally {
      request.end = performance.now();
    }
  },
  { step: 'initialize', name: 'insightsTestRequests' },
);

/** The result of `work`, its table usage and the requests it sent. Run one at a time. */
export async function tableWorkOf<T>(work: () => Promise<T>): Promise<{ result: T; usage: TableUsage; requests: SentRequest[] }> {
  const start = sent.length;
  const { result, usage } = await measureTable(work);
  return { result, usage, requests: sent.slice(start) };
}

/** The figures of the bench's read rules (scripts/bench/lib/budgets.ts) for the requests one piece of work sent. */
export interface ReadRules {
  /** DynamoDB round trips waited on in sequence. */
  roundTrips: number;
  queries: number;
  /** Items the Queries read (ScannedCount). */
  queryItemsRead: number;
  /** The most Queries in flight at once. */
  maxParallelQueries: number;
}

export function readRules(requests: readonly SentRequest[]): ReadRules {
  const queries = requests.filter((request) => request.command === 'QueryCommand');
  return {
    roundTrips: roundTrips(requests),
    queries: queries.length,
    queryItemsRead: queries.reduce((sum, request) => sum + request.scanned, 0),
    maxParallelQueries: Math.max(0, ...waves(requests).map((wave) => wave.filter((request) => request.command === 'QueryCommand').length)),
  };
}
