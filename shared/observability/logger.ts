/** The structured JSON logger of every function (Powertools), created once per process. */
import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'chain-data-api',
  logLevel: (process.env.POWERTOOLS_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'INFO') as 'INFO',
});

/** Whether the logger writes DEBUG lines now (its level, or this request's sampled one): work done only for them can be skipped otherwise. */
export function debugEnabled(): boolean {
  return logger.level <= LogLevelThreshold.DEBUG;
}
