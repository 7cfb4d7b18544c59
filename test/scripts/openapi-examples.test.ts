/**
 * The OpenAPI documents' examples (docs/openapi/examples.json, captured from the demo chain by
 * `npm run openapi:examples`): every route that answers JSON has one, and each one still satisfies the
 * schema its document shows beside it, so an example never drifts from the contract.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { loadHandler } from '../../scripts/lib/dispatch';
import { exampleUrl, readExamples, shortened } from '../../scripts/lib/openapi-examples';
import { ERROR_BODIES } from '../../shared/http/error-schemas';
import type { HttpHandler } from '../../shared/http/handler';
import type { ApiGroup } from '../../shared/http/groups';
import { routes } from '../../shared/routes';

const examples = readExamples();
/** Routes without a captured example: an error by design, and the two that serve the contract itself. */
const WITHOUT_EXAMPLE = ['ResolveWithoutInput', 'GetOpenApiDocument', 'GetApiReference'];

describe('the documents’ examples', () => {
  for (const route of routes.filter((route) => !WITHOUT_EXAMPLE.includes(route.id) && !route.notServed)) {
    it(`${route.id}: a 2xx example that satisfies the route’s response schema`, async () => {
      const captured = examples.responses[route.id];
      expect(captured, `${route.id} has no example: run npm run openapi:examples`).toBeDefined();
      expect(captured!.status).toBeGreaterThanOrEqual(200);
      expect(captured!.status).toBeLessThan(300);
      const { spec } = (await loadHandler(route.handler)) as unknown as HttpHandler;
      const result = v.safeParse(spec.response!, captured!.body);
      expect(result.issues?.map((issue) => `${v.getDotPath(issue)}: ${issue.message}`) ?? []).toEqual([]);
    });
  }

  for (const group of ['explorer', 'insights', 'orders', 'collections'] as ApiGroup[]) {
    it(`${group}: an error example in the group’s validation error format`, () => {
      const captured = examples.errors[group]!;
      expect(captured.status).toBe(group === 'explorer' ? 422 : 400);
      expect(v.is(ERROR_BODIES[group].validation, captured.body)).toBe(true);
    });
  }

  it('example URLs repeat array parameters and encode path parameters', () => {
    expect(
      exampleUrl('/v1/transactions/{address}/{signature}', { address: '0xab', signature: 'f(uint256 a)' }, { chain_id: ['1', '2'] }),
    ).toBe('/v1/transactions/0xab/f(uint256%20a)?chain_id=1&chain_id=2');
    expect(() => exampleUrl('/orders/{id}')).toThrow(/no value for \{id\}/);
  });

  it('arrays are shortened at every depth', () => {
    expect(shortened({ data: [1, 2, 3], nested: [{ topics: ['a', 'b', 'c'] }] })).toEqual({
      data: [1, 2],
      nested: [{ topics: ['a', 'b'] }],
    });
  });
});
