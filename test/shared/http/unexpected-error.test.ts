/**
 * An error nobody meant to throw: the client gets a 500 in its group's format that says nothing about
 * the cause, and the log gets everything, tied to the request ids.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localContext } from '../../../scripts/lib/api-event';
import { event, expectGroupError, GROUPS, invoke } from './support';

// The logger takes its level at creation (and restores it on every warm invocation), so it must
// be set before the platform is imported; the test run itself sets POWERTOOLS_LOG_LEVEL=SILENT.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
const { httpHandler } = await import('../../../shared/http/handler');

/** Runs `work` and returns every JSON line the process printed meanwhile. */
async function capturedLogs<T>(work: () => Promise<T>): Promise<{ result: T; logs: any[] }> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const result = await work();
    return {
      result,
      logs: lines
        .flatMap((line) => line.split('\n'))
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line)),
    };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('an unexpected error', () => {
  afterEach(() => vi.restoreAllMocks());

  for (const group of GROUPS) {
    it(`${group}: answers 500 leaking nothing, and logs the error with the request ids`, async () => {
      const secret = 'connect ECONNREFUSED 10.1.2.3:8000 password=hunter2';
      const handler = httpHandler({
        group,
        handle: async () => {
          throw new TypeError(secret);
        },
      });
      const input = event({ rawPath: '/boom' });
      const context = localContext('Boom');
      // Twice: the second call is a warm invocation, where the logger resets its state.
      for (let call = 0; call < 2; call += 1) {
        const { result: answer, logs } = await capturedLogs(() => invoke(handler, input, context));

        const message = expectGroupError(group, answer, 500);
        expect(message).toContain(context.awsRequestId);
        expect(answer.raw).not.toContain('hunter2');
        expect(answer.raw).not.toContain('ECONNREFUSED');
        expect(answer.raw).not.toContain('TypeError');
        expect(answer.raw).not.toMatch(/\bat .*:\d+:\d+/);

        const errors = logs.filter((line) => line.level === 'ERROR');
        expect(errors).toHaveLength(1);
        const [entry] = errors;
        expect(entry.function_request_id).toBe(context.awsRequestId);
        expect(entry.correlation_id).toBe(input.requestContext.requestId);
        expect(entry.error.message).toBe(secret);
        expect(entry.error.stack).toContain('TypeError');
      }
    });
  }

  it('logs nothing at error level for errors meant for the client', async () => {
    const { NotFoundError } = await import('../../../shared/errors');
    const handler = httpHandler({
      group: 'collections',
      handle: async () => {
        throw new NotFoundError('Collection not found');
      },
    });
    const { result, logs } = await capturedLogs(() => invoke(handler, event({ api: 'collections', rawPath: '/collections/0x1' })));
    expect(result.status).toBe(404);
    expect(logs.filter((line) => line.level === 'ERROR')).toEqual([]);
  });
});
