/** Helpers for the HTTP platform tests: invoke a handler with a real 2.0 event, read the answer. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { expect } from 'vitest';
import { buildApiEvent, localContext, type ApiRequest } from '../../../scripts/lib/api-event';
import type { ApiGroup } from '../../../shared/http/groups';
import type { HttpHandler } from '../../../shared/http/handler';

export interface Answer {
  status: number;
  /** Lowercase names. */
  headers: Record<string, string>;
  body: any;
  raw: string;
}

export function event(request: Partial<ApiRequest> & { rawPath: string }): APIGatewayProxyEventV2 {
  return buildApiEvent({ api: 'base', method: 'GET', ...request });
}

export async function invoke(
  handler: HttpHandler | ((event: APIGatewayProxyEventV2, context: any) => Promise<any>),
  input: APIGatewayProxyEventV2,
  context = localContext('TestFunction'),
): Promise<Answer> {
  const result = await handler(input, context);
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  const raw = typeof result.body === 'string' ? result.body : '';
  return { status: result.statusCode, headers, body: raw ? JSON.parse(raw) : undefined, raw };
}

/** Asserts the error shape of a group; returns the human-readable message(s) it carries. */
export function expectGroupError(group: ApiGroup, answer: Answer, status: number): string {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  switch (group) {
    case 'explorer':
      if (answer.body.errors) {
        expect(Object.keys(answer.body)).toEqual(['errors']);
        return answer.body.errors.map((error: { detail: string }) => error.detail).join('; ');
      }
      expect(Object.keys(answer.body)).toEqual(['message']);
      expect(typeof answer.body.message).toBe('string');
      return answer.body.message;
    case 'insights':
      expect(Object.keys(answer.body)).toEqual(['error']);
      expect(typeof answer.body.error).toBe('string');
      return answer.body.error;
    case 'orders':
    case 'collections':
      expect(answer.body).toEqual({ success: false, message: expect.any(String), statusCode: status });
      return answer.body.message;
  }
}

export const GROUPS: readonly ApiGroup[] = ['explorer', 'insights', 'orders', 'collections'];
