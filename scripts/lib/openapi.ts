/**
 * The OpenAPI 3.1 documents, one per base URL, built from the route table (paths, methods, summaries,
 * examples) and each handler's spec (its valibot schemas for path, query, body and response, read from
 * the loaded module's `handler.spec`), converted with @valibot/to-json-schema. Every operation also
 * lists its group's error bodies (shared/http/error-schemas.ts). `npm run openapi` writes the result to
 * docs/openapi/<name>.json; a test rebuilds it in memory and fails when the files differ.
 *
 * Conversion: requests are described by their input type (what a client sends: a pipe stops at its first
 * transformation), responses by their output type. Checks JSON Schema cannot express (valibot `check`,
 * `raw_check`, `partial_check`, `trim`, ...) are left out (a `check`'s message goes into the description);
 * a guard (`custom`, `unknown`) in front of an object's schema is left out, the object is described. Anything else
 * the converter cannot express fails the generation, naming the route: decide then how to describe it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ERROR_BODIES } from '../../shared/http/error-schemas';
import { API_NAMES, API_TITLES, type ApiGroup, type ApiName, VALIDATION_STATUS } from '../../shared/http/groups';
import { type HandlerSpec, MAX_BODY_BYTES } from '../../shared/http/handler';
import { TABLE_BUSY_RETRY_AFTER_SECONDS } from '../../shared/http/middleware/error-responder';
import { apisOf, errorGroupOf, routesOf, type Route } from '../../shared/routes';
import { loadHandler, REPOSITORY_ROOT } from './dispatch';
import { type ExamplesFile, readExamples } from './openapi-examples';

type AnySchema = v.GenericSchema<unknown, unknown>;
type Spec = HandlerSpec<AnySchema | undefined, AnySchema | undefined, AnySchema | undefined>;
type Json = Record<string, unknown>;

export const OPENAPI_DIR = path.join(REPOSITORY_ROOT, 'docs/openapi');
export const openApiFile = (api: ApiName): string => path.join(OPENAPI_DIR, `${api}.json`);

/** Local base URL of each API under `npm start` (PORT, ORDERS_PORT, COLLECTIONS_PORT defaults). */
const LOCAL_PORTS: Record<ApiName, number> = { base: 3000, orders: 3001, collections: 3002 };

const API_DESCRIPTIONS: Record<ApiName, string> = {
  base: [
    'Explorer routes (`/explorer/...`) follow Blockscout API v2 for one chain; insights routes (`/insights/v1/...`)',
    'follow thirdweb Insight API v1 across chains. Both serve what the ingest pipeline read from the chain.',
  ].join(' '),
  orders: 'Cross-chain swap orders and checkout sessions, following B3 AnySpend.',
  collections: 'NFT collections signed by their creator (EIP-712), following B3 BaseMint collection storage.',
};

const TAG_DESCRIPTIONS: Record<Route['group'], string> = {
  explorer: 'Blockscout API v2: an address’s tokens, NFTs, transfers, transactions and withdrawals, cursor-paged',
  insights: 'thirdweb Insight API v1: blocks, transactions, events and token transfers across chains',
  orders: 'B3 AnySpend: orders and checkout sessions',
  collections: 'B3 BaseMint: NFT collections',
  platform: 'This base URL’s own contract: its OpenAPI document and its interactive reference',
};

/**
 * Actions JSON Schema cannot express, left out of the documents: checks of a value (`check` and
 * `partial_check` add their message to the description instead) and normalisations of the input.
 */
const IGNORED_ACTIONS = ['raw_check', 'forward', 'trim', 'to_lower_case', 'to_upper_case', 'transform'];
const DESCRIBED_CHECKS = ['check', 'partial_check'];

/** Loads the spec of every route's handler module. */
export async function loadSpecs(routes: readonly Route[]): Promise<Map<string, Spec>> {
  const specs = new Map<string, Spec>();
  for (const route of routes) {
    const handler = (await loadHandler(route.handler)) as unknown as { spec?: Spec };
    if (!handler.spec) throw new Error(`${route.id}: ${route.handler} has no spec (build it with httpHandler)`);
    specs.set(route.id, handler.spec);
  }
  return specs;
}

/** Every base URL's document, from the route table and the handlers this process loads. */
export async function buildOpenApiDocuments(): Promise<Record<ApiName, Json>> {
  const version = (JSON.parse(await readFile(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const documents = {} as Record<ApiName, Json>;
  for (const api of API_NAMES) {
    const routes = routesOf(api);
    documents[api] = openApiDocument(api, routes, await loadSpecs(routes), version, readExamples());
  }
  return documents;
}

/** The text of a document file: stable key order, two-space indent, a final newline. */
export const documentText = (document: Json): string => `${JSON.stringify(document, null, 2)}\n`;

export function openApiDocument(
  api: ApiName,
  routes: readonly Route[],
  specs: ReadonlyMap<string, Spec>,
  version: string,
  examples: ExamplesFile = { responses: {}, errors: {} },
): Json {
  const paths: Json = {};
  const errorGroups = new Set<ApiGroup>();
  const tags: string[] = [];
  for (const route of routes) {
    const spec = specs.get(route.id);
    if (!spec) throw new Error(`${route.id}: no handler spec loaded`);
    if (!apisOf(route).includes(api)) throw new Error(`${route.id} is not served on the ${api} API`);
    const errorGroup = errorGroupOf(route, api);
    errorGroups.add(errorGroup);
    if (!tags.includes(route.group)) tags.push(route.group);
    const item = (paths[route.path] ?? {}) as Json;
    item[route.method.toLowerCase()] = operation(route, spec, errorGroup, examples);
    paths[route.path] = item;
  }
  const schemas: Json = {};
  for (const group of [...errorGroups].sort()) {
    const { validation, other } = ERROR_BODIES[group];
    schemas[errorSchemaName(group, 'other')] = convert(other, 'output', `the ${group} error body`);
    if (validation !== other)
      schemas[errorSchemaName(group, 'validation')] = convert(validation, 'output', `the ${group} validation error body`);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: API_TITLES[api],
      version,
      description: `${API_DESCRIPTIONS[api]} Generated from the route table and the handlers' schemas by \`npm run openapi\`.`,
    },
    servers: [
      { url: '/', description: 'The base URL that serves this document' },
      { url: `http://127.0.0.1:${LOCAL_PORTS[api]}`, description: '`npm start` on this machine' },
    ],
    // No route takes credentials.
    security: [],
    tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name as Route['group']] })),
    paths,
    components: { schemas },
  };
}

function errorSchemaName(group: ApiGroup, kind: 'validation' | 'other'): string {
  const name = group.charAt(0).toUpperCase() + group.slice(1);
  return kind === 'validation' ? `${name}ValidationError` : `${name}Error`;
}

const errorRef = (group: ApiGroup, kind: 'validation' | 'other'): Json => {
  const { validation, other } = ERROR_BODIES[group];
  return { $ref: `#/components/schemas/${errorSchemaName(group, kind === 'validation' && validation !== other ? 'validation' : 'other')}` };
};

function operation(route: Route, spec: Spec, errorGroup: ApiGroup, examples: ExamplesFile): Json {
  const where = `${route.id} (${route.handler})`;
  const templateNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const pathParameters = parametersOf('path', spec.path, route.example.pathParameters ?? {}, where);
  const missing = templateNames.filter((name) => !pathParameters.some((parameter) => parameter.name === name));
  if (missing.length > 0) throw new Error(`${where}: no path schema for {${missing.join('}, {')}}`);
  // A handler serving a route with a segment and one without it (Resolve) declares the segment optional.
  const notInPath = pathParameters.filter((parameter) => !templateNames.includes(parameter.name));
  const requiredNotInPath = notInPath.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  if (requiredNotInPath.length > 0)
    throw new Error(`${where}: the path schema requires ${requiredNotInPath.join(', ')}, not in ${route.path}`);
  const parameters = [
    ...pathParameters.filter((parameter) => templateNames.includes(parameter.name)).map((parameter) => ({ ...parameter, required: true })),
    ...parametersOf('query', spec.query, route.example.query ?? {}, where),
  ];
  const responseSchema = spec.response ? convert(spec.response, 'output', `${where} response`) : {};
  const status = successStatus(responseSchema);
  // What the route's example request answered on the demo chain (arrays shortened).
  const captured = examples.responses[route.id];
  const responses: Json = {
    [status]: {
      description: status === '201' ? 'Created' : 'OK',
      content: {
        [spec.contentType ?? 'application/json']: { schema: responseSchema, ...(captured ? { example: captured.body } : {}) },
      },
    },
  };
  const errorExample = examples.errors[errorGroup];
  const error = (description: string, kind: 'validation' | 'other') => ({
    description,
    content: {
      'application/json': {
        schema: errorRef(errorGroup, kind),
        ...(kind === 'validation' && errorExample ? { example: errorExample.body } : {}),
      },
    },
  });
  if (spec.path || spec.query || spec.body) {
    responses[String(VALIDATION_STATUS[errorGroup])] = error(
      'A parameter or the body is not valid: the message names each one',
      'validation',
    );
  }
  if (spec.body) {
    responses['413'] = error(`The body is larger than ${MAX_BODY_BYTES} bytes`, 'other');
    responses['415'] = error('The body is not sent as application/json', 'other');
  }
  // Every route that reads or writes the table answers 503 when it stays busy after the retries.
  if (touchesTable(route)) {
    responses['503'] = {
      ...error(
        'The table stayed busy (throttled, conflicting, slow or unreachable) after the retries; nothing was half-written: retry after Retry-After seconds',
        'other',
      ),
      headers: {
        'Retry-After': {
          description: 'Seconds to wait before retrying',
          schema: { type: 'integer', minimum: 1 },
          example: TABLE_BUSY_RETRY_AFTER_SECONDS,
        },
      },
    };
  }
  if (route.notServed) {
    // A route of the reference API whose data is outside the chain: it never succeeds here.
    delete responses[status];
    responses['501'] = error(`Not implemented by this service: ${route.notServed}`, 'other');
  }
  responses.default = error('Any other error (not found, conflict, internal), in the same format', 'other');
  return {
    operationId: route.id,
    summary: route.summary,
    tags: [route.group],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: convert(spec.body, 'input', `${where} body`),
                ...(route.example.body === undefined ? {} : { example: route.example.body }),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** True for a route whose function may call DynamoDB (its row grants reads or writes). */
export const touchesTable = (route: Route): boolean => route.table.read || route.table.write.length > 0;

/** 201 when the response envelope says so (`statusCode: 201`, B3's created answers), else 200. */
function successStatus(schema: JsonSchema): string {
  const statusCode = (schema as { properties?: Record<string, { const?: unknown }> }).properties?.statusCode?.const;
  return typeof statusCode === 'number' ? String(statusCode) : '200';
}

function parametersOf(
  location: 'path' | 'query',
  schema: AnySchema | undefined,
  examples: Record<string, string | readonly string[]>,
  where: string,
): (Json & { name: string; required: boolean })[] {
  if (!schema) return [];
  const json = convert(schema, 'input', `${where} ${location} parameters`) as {
    type?: string;
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  if (json.type !== 'object' || !json.properties) throw new Error(`${where}: the ${location} schema is not an object of parameters`);
  return Object.entries(json.properties).map(([name, property]) => {
    const { description, ...parameterSchema } = property as JsonSchema & { description?: string };
    const example = examples[name];
    const isArray = (parameterSchema as { type?: unknown }).type === 'array';
    return {
      name,
      in: location,
      required: (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: parameterSchema,
      ...(isArray ? { style: 'form', explode: true } : {}),
      ...(example === undefined ? {} : { example: isArray && typeof example === 'string' ? [example] : example }),
    };
  });
}

/** A valibot schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without the `$schema` keyword. */
export function convert(schema: AnySchema, typeMode: 'input' | 'output', what: string): JsonSchema {
  let json: JsonSchema;
  try {
    json = toJsonSchema(withoutGuards(schema), { ...CONVERSION, typeMode });
  } catch (error) {
    throw new Error(`Cannot describe ${what} in OpenAPI: ${(error as Error).message}`, { cause: error });
  }
  const { $schema: _, $defs, ...rest } = json as JsonSchema & { $defs?: unknown };
  if ($defs) throw new Error(`Cannot describe ${what} in OpenAPI: recursive schemas ($defs) are not supported yet`);
  return tidy(rest) as JsonSchema;
}

/** Plainer spellings of what the converter writes: no other key (`{not: {}}`) is `false`, no `required: []`. */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'required' && Array.isArray(child) && child.length === 0) continue;
    const isNever = (candidate: unknown) =>
      candidate && typeof candidate === 'object' && Object.keys(candidate).length === 1 && JSON.stringify((candidate as Json).not) === '{}';
    out[key] = key === 'additionalProperties' && isNever(child) ? false : tidy(child);
  }
  return out;
}

const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  errorMode: 'throw',
  ignoreActions: IGNORED_ACTIONS,
  overrideAction: ({ valibotAction, jsonSchema }) => {
    const action = valibotAction as { type: string; requirement?: unknown; message?: unknown };
    if (action.type === 'regex' && action.requirement instanceof RegExp) return withPattern(jsonSchema, action.requirement);
    if (DESCRIBED_CHECKS.includes(action.type)) {
      if (typeof action.message !== 'string') return { ...jsonSchema };
      const { description } = jsonSchema as { description?: string };
      return { ...jsonSchema, description: description ? `${description}; ${action.message}` : capitalise(action.message) };
    }
    return undefined;
  },
};

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A regex action as a JSON Schema pattern: `u` needs nothing, `i` is spelled out; several regexes combine with allOf. */
function withPattern(schema: JsonSchema, regex: RegExp): JsonSchema {
  const flags = regex.flags.replace('u', '');
  if (flags !== '' && flags !== 'i') throw new Error(`The regex /${regex.source}/${regex.flags} has flags JSON Schema cannot express`);
  const pattern = flags === 'i' ? caseInsensitive(regex.source) : regex.source;
  const current = schema as JsonSchema & { pattern?: string; allOf?: JsonSchema[] };
  // The converter has set this action's source as the pattern, unless an earlier regex of the pipe had.
  if (current.pattern === undefined || current.pattern === regex.source) return { ...schema, pattern };
  return { ...schema, allOf: [...(current.allOf ?? []), { pattern }] };
}

/** A regex source that matches letters of either case, for patterns written with the `i` flag. */
export function caseInsensitive(source: string): string {
  let out = '';
  let inClass = false;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index]!;
    if (char === '\\') {
      // An escape: copied as it is (with the braces of \p{...} and \u{...}).
      const next = source[index + 1] ?? '';
      let end = index + 2;
      if ((next === 'p' || next === 'P' || next === 'u') && source[end] === '{') end = source.indexOf('}', end) + 1;
      out += source.slice(index, end);
      index = end - 1;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    if (lower === upper) {
      out += char;
    } else if (!inClass) {
      out += `[${lower}${upper}]`;
    } else if (source[index + 1] === '-' && /[a-zA-Z]/.test(source[index + 2] ?? '')) {
      // A range of letters: both cases of it.
      const last = source[index + 2]!;
      out += `${lower}-${last.toLowerCase()}${upper}-${last.toUpperCase()}`;
      index += 2;
    } else {
      out += `${lower}${upper}`;
    }
  }
  return out;
}

/** Schemas that open a pipe only to let its checks run before the schema that describes the value. */
const GUARDS = ['custom', 'unknown', 'any'];

/**
 * The schema with every guard (`custom`, `unknown`) that stands in front of another schema in a pipe
 * left out (e.g. "not an array" before an object schema): the later schema describes the value. Rebuilt where needed,
 * so that the converter, which stops an input pipe at its second schema, sees the described schema first.
 */
function withoutGuards(schema: AnySchema): AnySchema {
  const seen = new Map<object, AnySchema>();
  const visit = (node: AnySchema): AnySchema => {
    const cached = seen.get(node);
    if (cached) return cached;
    const source = node as AnySchema & Record<string, unknown>;
    const copy: Record<string, unknown> = Object.create(Object.getPrototypeOf(node));
    Object.defineProperties(copy, Object.getOwnPropertyDescriptors(node));
    seen.set(node, copy as unknown as AnySchema);
    const mapSchema = (value: unknown): unknown =>
      value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'schema' ? visit(value as AnySchema) : value;
    if (Array.isArray(source.pipe)) {
      let pipe = (source.pipe as unknown[]).map(mapSchema);
      const firstOther = pipe.findIndex((item, index) => index > 0 && (item as { kind?: string }).kind === 'schema');
      if (GUARDS.includes((pipe[0] as { type?: string }).type ?? '') && firstOther > 0) pipe = pipe.slice(firstOther);
      copy.pipe = pipe;
    }
    for (const key of ['wrapped', 'item', 'rest', 'key', 'value']) if (key in source) copy[key] = mapSchema(source[key]);
    if (Array.isArray(source.options)) copy.options = (source.options as unknown[]).map(mapSchema);
    if (Array.isArray(source.items)) copy.items = (source.items as unknown[]).map(mapSchema);
    if (source.entries && typeof source.entries === 'object') {
      copy.entries = Object.fromEntries(
        Object.entries(source.entries as Record<string, unknown>).map(([key, value]) => [key, mapSchema(value)]),
      );
    }
    return copy as unknown as AnySchema;
  };
  return visit(schema);
}
