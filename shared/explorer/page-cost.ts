/**
 * What an explorer page costs in DynamoDB, logged per request at DEBUG (calls by command, items read,
 * read units), measured by the table layer (shared/db/instrument.ts). Measuring makes every call of
 * the page ask DynamoDB for its consumed capacity and runs the page in a scope of its own: a page is
 * measured only when the logger writes DEBUG lines (POWERTOOLS_LOG_LEVEL=DEBUG, or a sampled request).
 */
import { measureTable, totalCalls } from '../db/instrument';
import { debugEnabled, logger } from '../observability/logger';

/** Runs one page and, when DEBUG lines are written, logs what it cost. */
export async function measured<T>(endpoint: string, work: () => Promise<T>): Promise<T> {
  if (!debugEnabled()) return work();
  const { result, usage } = await measureTable(work);
  logger.debug('explorer page read', { endpoint, dynamodbCalls: totalCalls(usage), ...usage });
  return result;
}
