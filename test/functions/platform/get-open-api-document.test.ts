/**
 * GET /openapi.json: each base URL serves its own document, the file `npm run openapi` wrote, locally
 * (requestContext.apiId is the API's name) and in AWS (one function behind three APIs, told each API's
 * generated id by the stack).
 */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { buildApiEvent } from '../../../scripts/lib/api-event';
import { requestJson } from '../../../scripts/lib/dispatch';
import { openApiFile } from '../../../scripts/lib/openapi';
import { handler, openApiDocumentResponse } from '../../../functions/platform/get-open-api-document';
import { apiIdVariable } from '../../../shared/http/api-name';
import { API_NAMES, type ApiName } from '../../../shared/http/groups';
import { invoke } from '../../shared/http/support';

const fileOf = (api: ApiName) => JSON.parse(readFileSync(openApiFile(api), 'utf8'));

describe('GET /openapi.json', () => {
  for (const api of API_NAMES) {
    it(`${api}: answers the ${api} document, as its response schema describes it`, async () => {
      const response = await requestJson(api, 'GET', '/openapi.json');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual(fileOf(api));
      expect(v.safeParse(openApiDocumentResponse, response.body).success).toBe(true);
      expect(response.headers['access-control-allow-origin']).toBe('*');
    });
  }

  it('tells the APIs apart by their generated ids in AWS', async () => {
    const ids: Record<ApiName, string> = { base: 'a1b2c3d4e5', orders: 'f6g7h8i9j0', collections: 'k1l2m3n4o5' };
    const saved = API_NAMES.map((api) => [apiIdVariable(api), process.env[apiIdVariable(api)]] as const);
    for (const api of API_NAMES) process.env[apiIdVariable(api)] = ids[api];
    try {
      for (const api of API_NAMES) {
        const event = buildApiEvent({ api, method: 'GET', rawPath: '/openapi.json', routePath: '/openapi.json' });
        event.requestContext.apiId = ids[api];
        const answer = await invoke(handler, event);
        expect(answer.status).toBe(200);
        expect(answer.body.info.title).toBe(fileOf(api).info.title);
      }
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('answers a wrong method with 405 in the format of the base URL', async () => {
    const orders = await requestJson('orders', 'POST', '/openapi.json', { body: {} });
    expect(orders.status).toBe(405);
    expect(orders.body).toMatchObject({ success: false, statusCode: 405 });
    const base = await requestJson('base', 'POST', '/openapi.json', { body: {} });
    expect(base.status).toBe(405);
    expect(Object.keys(base.body)).toEqual(['message']);
  });
});
