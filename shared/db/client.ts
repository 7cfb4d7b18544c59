/**
 * The one DynamoDB document client of the process, created at module top level so that a Lambda
 * re-uses its connections across invocations. `DYNAMODB_ENDPOINT` points it at the local server.
 * Only the table layer (shared/db/operations.ts) sends commands through it.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { platformConfig } from '../config';
import { traceAwsClient } from '../observability/tracing';
import { measuring, recordCall } from './instrument';
import { sdkRetrySettings } from './retry';

const config = platformConfig();

const localCredentials =
  config.dynamodbEndpoint && !process.env.AWS_ACCESS_KEY_ID ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;

/**
 * The SDK's logger without `info`: the SDK's logger middleware builds a record of every call (a copy of
 * its whole input and output, filtered for sensitive fields) whenever the logger has an `info` method,
 * even the default no-op one. For a page of 50 items that copy cost about as much CPU as building the
 * page's response. Warnings go to the console, as the SDK sends them with its default logger (a socket
 * pool at capacity, a value of an unexpected type).
 */
const sdkLogger = {
  debug: () => undefined,
  warn: (...args: unknown[]) => console.warn(...args),
  error: () => undefined,
} as unknown as NonNullable<DynamoDBClientConfig['logger']>;

export const dynamoClient = new DynamoDBClient({
  region: config.region,
  logger: sdkLogger,
  endpoint: config.dynamodbEndpoint,
  credentials: localCredentials,
  // Attempts, retry mode and timeouts: stated once, in shared/db/retry.ts.
  ...sdkRetrySettings(config.dynamodbEndpoint !== undefined),
});

// Its calls become X-Ray subsegments when the Powertools tracer is on (shared/observability/tracing.ts).
traceAwsClient(dynamoClient);

export const db = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  unmarshallOptions: { wrapNumbers: false },
});

// Measurement (shared/db/instrument.ts): inside a `measureTable` scope every call asks for its
// consumed capacity and is recorded; outside one this does nothing.
db.middlewareStack.add(
  (next, context) => async (args) => {
    if (!measuring()) return next(args);
    (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity ??= 'TOTAL';
    const result = await next(args);
    recordCall(context.commandName ?? 'unknown', result.output as Record<string, unknown>);
    return result;
  },
  { step: 'initialize', name: 'tableUsage', override: true },
);

/** The table of every call: TABLE_NAME, parsed once with the rest of the platform configuration. */
let table = config.tableName;

export function tableName(): string {
  return table;
}

/**
 * Points this process's table layer at another table of the same endpoint and returns the previous
 * name. For tests and local tools (each test file has its own table; the benchmark switches between
 * its dataset and a scratch table); a Lambda keeps the table of its configuration for its life.
 */
export function useTable(name: string): string {
  const previous = table;
  table = name;
  return previous;
}
