/**
 * The OpenAPI documents of docs/openapi/: exactly what `npm run openapi` generates now from the route
 * table and the handlers' schemas (no drift), covering every route of each base URL with its
 * parameters, body, responses, error bodies and the route table's examples, and clean under
 * `@redocly/cli lint` (docs/openapi/redocly.yaml: any problem it reports fails).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import { buildOpenApiDocuments, caseInsensitive, convert, documentText, OPENAPI_DIR, openApiFile } from '../../scripts/lib/openapi';
import { ERROR_BODIES } from '../../shared/http/error-schemas';
import { type ApiGroup, type ApiName, errorBody, VALIDATION_STATUS } from '../../shared/http/groups';
import { API_NAMES, errorGroupOf, type Route, routesOf } from '../../shared/routes';

type Json = Record<string, any>;

let documents: Record<ApiName, Json>;

beforeAll(async () => {
  documents = await buildOpenApiDocuments();
});

const operationOf = (api: ApiName, route: Route): Json => documents[api].paths[route.path]?.[route.method.toLowerCase()];

describe('docs/openapi/ matches the code (run `npm run openapi` after changing a route or a schema)', () => {
  for (const api of API_NAMES) {
    it(`${api}.json is what the generator produces now`, async () => {
      expect(await readFile(openApiFile(api), 'utf8')).toBe(documentText(documents[api]));
    });
  }

  it('is deterministic', async () => {
    const again = await buildOpenApiDocuments();
    for (const api of API_NAMES) expect(documentText(again[api])).toBe(documentText(documents[api]));
  });
});

describe('each document describes its base URL', () => {
  for (const api of API_NAMES) {
    it(`${api}: OpenAPI 3.1, every route of the base URL and no other`, () => {
      const document = documents[api];
      expect(document.openapi).toBe('3.1.0');
      const operations = Object.entries(document.paths as Json).flatMap(([route, item]) =>
        Object.entries(item as Json).map(([method, operation]) => `${method.toUpperCase()} ${route} ${(operation as Json).operationId}`),
      );
      expect(operations.sort()).toEqual(
        routesOf(api)
          .map((route) => `${route.method} ${route.path} ${route.id}`)
          .sort(),
      );
    });

    for (const route of routesOf(api)) {
      it(`${api}: ${route.id} documents its parameters, body, responses and the route table's example`, () => {
        const operation = operationOf(api, route);
        expect(operation.summary).toBe(route.summary);
        const parameters = (operation.parameters ?? []) as Json[];
        const templateNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
        expect(parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name)).toEqual(templateNames);
        for (const parameter of parameters) {
          expect(parameter.schema, parameter.name).toBeTypeOf('object');
          if (parameter.in === 'path') expect(parameter.required).toBe(true);
        }
        for (const [name, value] of Object.entries(route.example.pathParameters ?? {})) {
          expect(parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.example).toBe(value);
        }
        for (const [name, value] of Object.entries(route.example.query ?? {})) {
          const parameter = parameters.find((candidate) => candidate.in === 'query' && candidate.name === name);
          expect(parameter, `query parameter ${name}`).toBeDefined();
          expect([parameter!.example].flat()).toEqual([value].flat());
        }
        if (route.example.body !== undefined) {
          expect(operation.requestBody.required).toBe(true);
          expect(operation.requestBody.content['application/json'].example).toEqual(route.example.body);
          // A JSON object, or one of several (a body that varies on a field, e.g. the order's `type`).
          const schema = operation.requestBody.content['application/json'].schema;
          for (const variant of schema.oneOf ?? schema.anyOf ?? [schema]) expect(variant.type).toBe('object');
        } else {
          expect(operation.requestBody).toBeUndefined();
        }

        const statuses = Object.keys(operation.responses);
        const success = statuses.filter((status) => status.startsWith('2'));
        // A route whose data is outside the chain (route.notServed) never succeeds: a 501 instead.
        expect(success).toHaveLength(route.notServed ? 0 : 1);
        if (route.notServed) expect(operation.responses['501'].content['application/json'].schema.$ref).toMatch(/Error$/);
        else expect(Object.keys(operation.responses[success[0]!].content)).toHaveLength(1);
        const group = errorGroupOf(route, api);
        const errorSchema = (status: string) => operation.responses[status].content['application/json'].schema.$ref as string;
        if (parameters.length > 0 || route.example.body !== undefined) {
          expect(errorSchema(String(VALIDATION_STATUS[group]))).toMatch(new RegExp(`^#/components/schemas/${group}`, 'i'));
        }
        if (route.example.body !== undefined) expect(statuses).toEqual(expect.arrayContaining(['413', '415']));
        expect(errorSchema('default')).toBe(`#/components/schemas/${group.charAt(0).toUpperCase()}${group.slice(1)}Error`);
        // A busy table: 503 with Retry-After, in the group's format, on every route that reads or writes it.
        if (route.table.read || route.table.write.length > 0) {
          expect(errorSchema('503')).toBe(`#/components/schemas/${group.charAt(0).toUpperCase()}${group.slice(1)}Error`);
          expect(operation.responses['503'].headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
        } else {
          expect(statuses).not.toContain('503');
        }
        for (const status of statuses.filter((candidate) => !candidate.startsWith('2'))) {
          const ref = errorSchema(status);
          expect(documents[api].components.schemas[ref.split('/').pop()!], ref).toBeDefined();
        }
      });
    }
  }

  it('gives CreateCollection its 201, a route whose data is outside the chain its 501, and every other route a 200', () => {
    for (const api of API_NAMES) {
      for (const route of routesOf(api)) {
        const statuses = Object.keys(operationOf(api, route).responses);
        if (route.notServed) {
          expect(
            statuses.filter((status) => status.startsWith('2')),
            route.id,
          ).toEqual([]);
          expect(statuses, route.id).toContain('501');
          continue;
        }
        expect(statuses[0], route.id).toBe(route.id === 'CreateCollection' ? '201' : '200');
      }
    }
  });
});

describe('the error bodies the documents describe are what errorBody builds', () => {
  const groups: ApiGroup[] = ['explorer', 'insights', 'orders', 'collections'];
  for (const group of groups) {
    it(`${group}`, () => {
      const issues = [{ part: 'query' as const, key: 'limit', message: 'must be an integer' }];
      const validation = errorBody(group, VALIDATION_STATUS[group], 'Invalid request', issues);
      expect(v.safeParse(ERROR_BODIES[group].validation, validation).success, JSON.stringify(validation)).toBe(true);
      for (const status of [404, 405, 409, 413, 415, 500, 503]) {
        const other = errorBody(group, status, 'Something went wrong');
        expect(v.safeParse(ERROR_BODIES[group].other, other).success, JSON.stringify(other)).toBe(true);
      }
    });
  }
});

describe('the conversion of valibot schemas', () => {
  it('spells out case-insensitive patterns', () => {
    expect(caseInsensitive('^(https?|ipfs):\\/\\/')).toBe('^([hH][tT][tT][pP][sS]?|[iI][pP][fF][sS]):\\/\\/');
    expect(caseInsensitive('^0x[0-9a-f]{40}$')).toBe('^0[xX][0-9a-fA-F]{40}$');
    expect(caseInsensitive('\\p{L}\\d[xy]')).toBe('\\p{L}\\d[xXyY]');
    const pattern = new RegExp(caseInsensitive('^0x[0-9a-f]{2}$'), 'u');
    expect(['0xAb', '0Xab', '0xab'].every((text) => pattern.test(text))).toBe(true);
    expect(pattern.test('0xag')).toBe(false);
  });

  it('describes an object behind a guard, leaves out checks (keeping their message) and stops a request at its first transformation', () => {
    const body = v.pipe(
      v.custom<unknown>((input) => !Array.isArray(input)),
      v.strictObject({
        amount: v.pipe(
          v.string(),
          v.regex(/^[0-9]+$/),
          v.check(() => true, 'must fit in 256 bits'),
        ),
        limit: v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/), v.transform(Number), v.maxValue(100))),
        url: v.pipe(v.string(), v.regex(/^https:/i)),
      }),
    );
    expect(convert(body, 'input', 'a test body')).toEqual({
      type: 'object',
      properties: {
        amount: { type: 'string', pattern: '^[0-9]+$', description: 'Must fit in 256 bits' },
        limit: { type: 'string', pattern: '^[0-9]{1,3}$' },
        url: { type: 'string', pattern: '^[hH][tT][tT][pP][sS]:' },
      },
      required: ['amount', 'url'],
      additionalProperties: false,
    });
  });

  it('fails, naming what it could not describe, on a schema JSON Schema cannot express', () => {
    expect(() => convert(v.pipe(v.string(), v.regex(/a/g)), 'input', 'GetSample path')).toThrow(/GetSample path/);
    expect(() => convert(v.date(), 'output', 'GetSample response')).toThrow(/GetSample response.*date/);
  });
});

describe('@redocly/cli lint', () => {
  const cli = path.join(REPOSITORY_ROOT, 'node_modules/@redocly/cli/bin/cli.js');
  for (const api of API_NAMES) {
    it(`${api}.json has no problem under docs/openapi/redocly.yaml`, async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [cli, 'lint', openApiFile(api), '--config', path.join(OPENAPI_DIR, 'redocly.yaml'), '--format=json'],
        {
          cwd: REPOSITORY_ROOT,
          // No update check, no usage data (also `telemetry: off` in the config).
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((error: { stdout?: string; stderr?: string }) => {
        // Exit code 1 on errors: the report on stdout says which.
        if (error.stdout) return { stdout: error.stdout };
        throw new Error(`redocly lint did not run: ${error.stderr}`);
      });
      const report = JSON.parse(stdout) as {
        totals: Json;
        problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
      };
      const problems = report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    });
  }
});
