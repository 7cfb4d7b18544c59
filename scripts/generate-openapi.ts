/**
 * `npm run openapi`: writes docs/openapi/{base,orders,collections}.json, the OpenAPI 3.1 document of
 * each base URL, from the route table and the handlers' valibot schemas (scripts/lib/openapi.ts). The
 * output is deterministic; test/scripts/openapi.test.ts fails when the files differ from what this
 * script produces now. Generate with the default configuration (no ORDER_* or COLLECTION_* overrides):
 * the documents describe what every deployment accepts by default.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { API_NAMES } from '../shared/routes';
import { buildOpenApiDocuments, documentText, OPENAPI_DIR, openApiFile } from './lib/openapi';

await mkdir(OPENAPI_DIR, { recursive: true });
const documents = await buildOpenApiDocuments();
for (const api of API_NAMES) {
  await writeFile(openApiFile(api), documentText(documents[api]));
  const operations = Object.values(documents[api].paths as Record<string, object>).reduce(
    (count, item) => count + Object.keys(item).length,
    0,
  );
  console.log(`docs/openapi/${api}.json: ${operations} operations`);
}
// Loaded handler modules keep DynamoDB clients and timers alive.
process.exit(0);
