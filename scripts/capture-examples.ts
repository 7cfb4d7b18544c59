/**
 * `npm run openapi:examples`: the response examples of the OpenAPI documents, taken from the demo
 * chain. Starts the service as `npm start` does, in memory (the embedded table, anvil with the demo
 * activity ingested, order deposit detection), sends every route's example request from the route
 * table, and writes what came back to docs/openapi/examples.json: per route `{ status, body }`, plus
 * one error answer per group. `npm run openapi` then puts them into the documents.
 *
 * The route table's examples name the demo's entities (its accounts and contracts have the same
 * addresses on every run); a request whose answer is an error, or an empty list where the demo has
 * data, fails the script. Arrays are cut to EXAMPLE_ARRAY_ITEMS entries so the documents stay short.
 * The demo's block hashes and timestamps differ on every run: rerun this only when a response changes.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EXAMPLE_SECRET_KEY, routes, type Route } from '../shared/routes';
import { apisOf } from '../shared/routes';
import type { ApiGroup } from '../shared/http/groups';
import { dispatch, REPOSITORY_ROOT } from './lib/dispatch';
import { startLocalService } from './lib/gateway';
import { startLocalChain } from './lib/local-chain';
import { EXAMPLE_ARRAY_ITEMS, EXAMPLES_FILE, type ExamplesFile, exampleUrl, shortened } from './lib/openapi-examples';

/** Routes whose example request is an error by design, and routes that serve this contract itself. */
const NOT_CAPTURED = new Set(['ResolveWithoutInput', 'GetOpenApiDocument', 'GetApiReference']);
/** Lists that are empty on the demo chain (anvil has no beacon withdrawals). */
const MAY_BE_EMPTY = new Set(['ListAddressWithdrawals']);

/** One request per group whose answer is that group's error body. */
const ERROR_REQUESTS: Record<ApiGroup, { api: 'base' | 'orders' | 'collections'; method: string; url: string; body?: unknown }> = {
  explorer: { api: 'base', method: 'GET', url: '/explorer/addresses/0x123/transactions?filter=sideways' },
  insights: { api: 'base', method: 'GET', url: '/insights/v1/blocks?chain_id=31337&limit=-1' },
  orders: { api: 'orders', method: 'POST', url: '/orders', body: { type: 'swap', srcChain: 'base' } },
  collections: { api: 'collections', method: 'GET', url: '/collections?limit=0' },
};

const service = await startLocalService({ tableName: 'openapi-examples' });
// The demo chain with its defaults, whatever this shell points RPC_URL or CHAIN_ID at.
const { RPC_URL: _rpc, CHAIN_ID: _chain, START_BLOCK: _start, ...env } = process.env;
const chain = await startLocalChain(service, {
  env: { ...env, ANVIL_PORT: '0', DEMO_ACTIVITY_INTERVAL_MS: '0' },
  loadListeners: async () => [(await import('../shared/orders/deposits')).orderDepositListener],
  print: () => undefined,
});

// The webhook routes' examples carry npm start's demo key: registered as npm start does.
await (await import('../shared/insights/api-keys')).registerApiKey(EXAMPLE_SECRET_KEY, 'npm start demo key');

const output: ExamplesFile = { responses: {}, errors: {} };
/** Ids the example of a later route needs (the order the CreateOrder example created, ...). */
const created: Record<string, string> = {};
try {
  for (const route of ordered(routes)) {
    // A route that answers 501 by design (route.notServed) has no success to show.
    if (NOT_CAPTURED.has(route.id) || route.notServed) continue;
    const example = withCreatedIds(route);
    const response = await send(route, exampleUrl(route.path, example.pathParameters, example.query), example.body, example.headers);
    if (response.status >= 300) throw new Error(`${route.id}: its example answered ${response.status}: ${JSON.stringify(response.body)}`);
    if (!MAY_BE_EMPTY.has(route.id) && isEmptyList(response.body))
      throw new Error(`${route.id}: its example lists nothing on the demo chain`);
    const data = (response.body as { data?: { id?: string } }).data;
    if (route.id === 'CreateOrder' && data?.id) created.orderId = data.id;
    if (route.id === 'CreateCheckoutSession' && data?.id) created.sessionId = data.id;
    if (route.id === 'CreateWebhook' && data?.id) created.webhookId = data.id;
    output.responses[route.id] = { status: response.status, body: shortened(response.body) };
  }
  for (const [group, request] of Object.entries(ERROR_REQUESTS)) {
    const response = await dispatch({
      api: request.api,
      method: request.method,
      url: request.url,
      headers: request.body === undefined ? {} : { 'content-type': 'application/json' },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    if (response.statusCode < 400 || response.statusCode >= 500)
      throw new Error(`${group}: the error example answered ${response.statusCode}`);
    output.errors[group] = { status: response.statusCode, body: JSON.parse(response.body) };
  }
} finally {
  await chain.stop();
  await service.stop();
}

await writeFile(EXAMPLES_FILE, `${JSON.stringify(output, null, 2)}\n`);
console.log(
  `${path.relative(REPOSITORY_ROOT, EXAMPLES_FILE)}: ${Object.keys(output.responses).length} responses, ${Object.keys(output.errors).length} errors (arrays cut to ${EXAMPLE_ARRAY_ITEMS})`,
);
process.exit(0);

/** Creations first, so the reads can ask for what they made; deletions last. */
function ordered(all: readonly Route[]): Route[] {
  const rank = (route: Route) => (route.method === 'POST' ? 0 : route.method === 'DELETE' ? 2 : 1);
  return [...all].sort((a, b) => rank(a) - rank(b));
}

function withCreatedIds(route: Route): Route['example'] {
  const example = route.example;
  const id =
    route.id === 'GetOrder'
      ? created.orderId
      : route.id === 'GetCheckoutSession'
        ? created.sessionId
        : route.id === 'UpdateWebhook' || route.id === 'DeleteWebhook'
          ? created.webhookId
          : undefined;
  const name = Object.keys(example.pathParameters ?? {})[0];
  return id && name ? { ...example, pathParameters: { ...example.pathParameters, [name]: id } } : example;
}

async function send(route: Route, url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await dispatch({
    api: apisOf(route)[0]!,
    method: route.method,
    url,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, body: JSON.parse(response.body) as unknown };
}

function isEmptyList(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  const list = record.items ?? record.data ?? record.collections;
  return Array.isArray(list) && list.length === 0;
}
