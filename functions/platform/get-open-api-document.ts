/**
 * GET /openapi.json on every base URL: that base URL's OpenAPI 3.1 document, as `npm run openapi`
 * generated it into docs/openapi/ from the route table and the handlers' schemas (a test fails when
 * the files drift from the code). One function behind the three APIs; the request says which one.
 */
import * as v from 'valibot';
import base from '../../docs/openapi/base.json';
import collections from '../../docs/openapi/collections.json';
import orders from '../../docs/openapi/orders.json';
import { apiNameOf } from '../../shared/http/api-name';
import type { ApiName } from '../../shared/http/groups';
import { httpHandler } from '../../shared/http/handler';

const DOCUMENTS: Record<ApiName, unknown> = { base, orders, collections };

/** The parts of an OpenAPI 3.1 document every reader relies on; the rest is as the specification says. */
export const openApiDocumentResponse = v.looseObject({
  openapi: v.literal('3.1.0'),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  servers: v.array(v.looseObject({ url: v.string() })),
  paths: v.record(v.string(), v.looseObject({})),
  components: v.looseObject({}),
});

export const handler = httpHandler({
  group: 'platform',
  response: openApiDocumentResponse,
  handle: async ({ event }) => ({ body: DOCUMENTS[apiNameOf(event)], headers: { 'cache-control': 'public, max-age=300' } }),
});
