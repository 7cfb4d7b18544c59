/**
 * What an explorer page costs in DynamoDB, logged per request (calls by command, items read, read
 * units), measured by the table layer (shared/db/instrument.ts).
 */
import { measureTable, totalCalls } from '../db/instrument';
import { logger } from '../observability/logger';

/** Runs one page and logs what it cost. */
export async function measured<T>(endpoint: string, work: () => Promise<T>): Promise<T> {
  const { result, usage } = await measureTable(work);
  logger.debug('explorer page read', { endpoint, dynamodbCalls: totalCalls(usage), ...usage });
  return result;
}
