/**
 * The `events/` files for `sam local invoke`: one per route of the route table, exactly what the
 * generator produces now (no drift), and each one a request its function answers without a 5xx.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { localContext } from '../../scripts/lib/api-event';
import { routes } from '../../shared/routes';
import { ENV_FILE, eventFiles, EVENTS_DIR, SAM_DYNAMODB_ENDPOINT } from '../../scripts/generate-events';
import { loadHandler, readResult } from '../../scripts/lib/dispatch';
import type { HttpHandler } from '../../shared/http/handler';
import { useTestTable } from '../support/table';

useTestTable('events');

const readEvent = async (name: string) => readFile(path.join(EVENTS_DIR, name), 'utf8');

describe('events/ matches the route table (run `npm run events` after changing a route)', () => {
  const expected = eventFiles();

  it('has exactly one event file per route, plus env.json', async () => {
    const present = (await readdir(EVENTS_DIR)).filter((name) => name.endsWith('.json')).sort();
    expect(present).toEqual([...routes.map((route) => `${route.id}.json`), ENV_FILE].sort());
  });

  for (const [name, content] of expected) {
    it(`${name} is what the generator produces now`, async () => {
      expect(await readEvent(name)).toBe(content);
    });
  }

  it('is deterministic', () => {
    expect(eventFiles()).toEqual(expected);
  });

  it('gives every function the DynamoDB endpoint and table for sam', async () => {
    const env = JSON.parse(await readEvent(ENV_FILE)) as Record<string, Record<string, string>>;
    for (const key of ['Parameters', ...routes.map((route) => route.id)]) {
      expect(env[key]).toEqual({ DYNAMODB_ENDPOINT: SAM_DYNAMODB_ENDPOINT, TABLE_NAME: expect.any(String) });
    }
  });
});

describe('each route’s function answers its event file', () => {
  for (const route of routes) {
    it(`${route.id}: ${route.method} ${route.path} -> a well-formed answer (JSON unless the handler declares another type), not a 5xx`, async () => {
      const event = JSON.parse(await readEvent(`${route.id}.json`)) as APIGatewayProxyEventV2;
      expect(event.routeKey).toBe(`${route.method} ${route.path}`);
      expect(event.requestContext.http.method).toBe(route.method);
      const handler = await loadHandler(route.handler);
      const response = readResult(await handler(event, localContext(route.id)));
      // A route whose data is outside the chain (route.notServed) answers 501 by design.
      if (route.notServed) expect(response.statusCode, response.body).toBe(501);
      else expect(response.statusCode, response.body).toBeLessThan(500);
      const declared = (handler as unknown as HttpHandler).spec?.contentType;
      if (declared) {
        expect(response.headers['content-type']).toBe(declared);
        expect(response.body.length).toBeGreaterThan(0);
        return;
      }
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(() => JSON.parse(response.body)).not.toThrow();
      expect(JSON.parse(response.body)).toBeTypeOf('object');
    });
  }
});
