/**
 * An explorer page's cost is measured (every call asking DynamoDB for its consumed capacity, in a
 * scope of its own) and logged only when the logger writes DEBUG lines; otherwise the page runs as is.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { measuring } from '../../../shared/db/instrument';
import { measured } from '../../../shared/explorer/page-cost';
import { logger } from '../../../shared/observability/logger';

const level = logger.getLevelName();
afterEach(() => {
  logger.setLogLevel(level);
  vi.restoreAllMocks();
});

describe('measured', () => {
  it('runs the page unmeasured and logs nothing above DEBUG', async () => {
    logger.setLogLevel('INFO');
    const debug = vi.spyOn(logger, 'debug');
    expect(await measured('tokens', async () => measuring())).toBe(false);
    expect(debug).not.toHaveBeenCalled();
  });

  it('measures the page and logs its cost at DEBUG', async () => {
    logger.setLogLevel('DEBUG');
    const debug = vi.spyOn(logger, 'debug').mockImplementation(() => undefined);
    expect(await measured('tokens', async () => measuring())).toBe(true);
    expect(debug).toHaveBeenCalledWith(
      'explorer page read',
      expect.objectContaining({ endpoint: 'tokens', dynamodbCalls: 0, itemsRead: 0 }),
    );
  });
});
