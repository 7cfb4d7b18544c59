/** Where the ingest reports: the Powertools logger by default; the CLI and npm start pass their own. */
import { logger } from '../observability/logger';

export interface IngestLog {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

export const powertoolsLog: IngestLog = {
  info: (message, details) => logger.info(message, details ?? {}),
  warn: (message, details) => logger.warn(message, details ?? {}),
};
