/**
 * GET /docs on every base URL: the interactive reference of that base URL (Swagger UI from the
 * swagger-ui-dist package, inlined; it reads ./openapi.json). One function behind the three APIs; the
 * request says which one.
 */
import * as v from 'valibot';
import { apiNameOf } from '../../shared/http/api-name';
import { httpHandler } from '../../shared/http/handler';
import { REFERENCE_PAGE_CONTENT_TYPE, referencePage } from '../../shared/http/reference-page';

export const handler = httpHandler({
  group: 'platform',
  response: v.pipe(v.string(), v.description('An HTML page')),
  contentType: REFERENCE_PAGE_CONTENT_TYPE,
  handle: async ({ event, headers }) => referencePage(apiNameOf(event), headers['accept-encoding']),
});
