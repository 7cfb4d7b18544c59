/**
 * Insight's webhooks (I12: `/v1/webhooks`): a project's subscriptions to the events and transactions
 * of the chains this service indexes, each with its receiver's URL, its signing secret and its filters.
 *
 * Every call acts for the project of the caller's secret key (api-keys.ts): another project's webhook
 * is a 404, as if it did not exist. Items (docs/access-patterns.md): H1 the webhook, H2 a project's
 * webhooks, H3 their count, H4 the compiled filters by chain that delivery matches blocks against. A
 * create, change or delete writes all of them in one transaction, so delivery never sees half of one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { getItem, queryAll, rangeQuery, type TransactItem, transactWrite } from '../db/operations';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../errors';
import { type AddressPolicy, refusedAddress } from '../egress/addresses';
import { webhookKeys } from '../table/keys';
import { authenticate, type ApiKeyLimits, type Caller, projectOfKey } from './api-keys';
import { compileFilters, type FilterIssue, type Filters, InvalidFiltersError } from './webhook-filters';
import { type DeliverySettings, sendSigned } from './webhook-delivery';
import type { WebhookItem } from './webhook-payload';

export interface WebhookSettings {
  limits: ApiKeyLimits;
  /** Webhooks one project may have. */
  maxWebhooksPerProject: number;
  /** Receivers' URLs: https only, no private, loopback or link-local hosts (loopback and http: local runs only). */
  egress: AddressPolicy & { allowHttp: boolean };
}

/** A webhook as Insight returns it. */
export interface Webhook {
  id: string;
  team_id: string;
  project_id: string;
  name: string | null;
  webhook_url: string;
  webhook_secret: string;
  filters: unknown;
  suspended_at: string | null;
  suspended_reason: string | null;
  disabled: boolean;
  created_at: string;
  updated_at: string | null;
}

/** The stored webhook (H1): Insight's fields, and the filters compiled for matching. */
interface WebhookRecord {
  entity: 'webhook';
  id: string;
  project: string;
  name: string | null;
  webhookUrl: string;
  secret: string;
  filters: unknown;
  compiled: Filters;
  disabled: boolean;
  suspendedAt: string | null;
  suspendedReason: string | null;
  createdAt: string;
  updatedAt: string | null;
  /** Moved by every change: a change is written on condition that the version it read is still stored. */
  version: number;
}

const MAX_URL_LENGTH = 2048;
const nameSchema = v.pipe(v.string(), v.maxLength(128, 'name: at most 128 characters'));

export const createWebhookInput = v.strictObject({
  webhook_url: v.string('webhook_url is required'),
  filters: v.unknown(),
  name: v.optional(v.nullable(nameSchema)),
});

export const updateWebhookInput = v.strictObject({
  webhook_url: v.optional(v.string()),
  filters: v.optional(v.unknown()),
  name: v.optional(v.nullable(nameSchema)),
  disabled: v.optional(v.boolean('disabled must be true or false')),
});

export const testWebhookInput = v.strictObject({
  webhook_url: v.string('webhook_url is required'),
  type: v.optional(v.picklist(['event', 'transaction'], 'type must be event or transaction'), 'event'),
  webhook_id: v.optional(v.pipe(v.string(), v.maxLength(64))),
});

export type CreateWebhookInput = v.InferOutput<typeof createWebhookInput>;
export type UpdateWebhookInput = v.InferOutput<typeof updateWebhookInput>;

/** The project's webhooks, or the one of `webhookId` (an empty list when it has none of that id). */
export async function listWebhooks(key: string | undefined, webhookId: string | undefined, settings: WebhookSettings): Promise<Webhook[]> {
  // The project the key names is read beside the key's check (one round trip), and shown only once the check passes.
  const named = projectOfKey(key);
  const [caller, records] = await Promise.all([
    authenticate(key, settings.limits),
    named === undefined ? Promise.resolve([]) : readWebhooks(named, webhookId),
  ]);
  return records.filter((record) => record.project === caller.project).map(toWebhook);
}

export async function createWebhook(key: string | undefined, input: CreateWebhookInput, settings: WebhookSettings): Promise<Webhook> {
  const caller = await authenticate(key, settings.limits);
  const webhookUrl = checkedUrl(input.webhook_url, settings.egress);
  const compiled = await compileFilters(input.filters);
  const at = new Date().toISOString();
  const record: WebhookRecord = {
    entity: 'webhook',
    id: randomUUID(),
    project: caller.project,
    name: input.name ?? null,
    webhookUrl,
    secret: randomBytes(32).toString('hex'),
    filters: input.filters,
    compiled,
    disabled: false,
    suspendedAt: null,
    suspendedReason: null,
    createdAt: at,
    updatedAt: null,
    version: 1,
  };
  const outcome = await transactWrite([
    {
      Update: {
        Key: webhookKeys.count(caller.project),
        UpdateExpression: 'ADD webhooks :one',
        ConditionExpression: 'attribute_not_exists(webhooks) OR webhooks < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': settings.maxWebhooksPerProject },
      },
    },
    { Put: { Item: { ...webhookKeys.webhook(caller.project, record.id), ...record }, ConditionExpression: 'attribute_not_exists(pk)' } },
    ...filterPuts(record),
  ]);
  if (!outcome.committed)
    throw new ForbiddenError(`the project has reached its limit of ${settings.maxWebhooksPerProject} webhooks: delete one first`);
  return toWebhook(record);
}

export async function updateWebhook(
  key: string | undefined,
  webhookId: string,
  input: UpdateWebhookInput,
  settings: WebhookSettings,
): Promise<Webhook> {
  const caller = await authenticate(key, settings.limits);
  const stored = await readWebhook(caller, webhookId);
  // (Delivery's failure count goes with the suspension a PATCH lifts: the receiver starts afresh.)
  const { failures: _failures, failingSince: _since, ...kept } = stored as WebhookRecord & { failures?: number; failingSince?: number };
  const next: WebhookRecord = { ...kept, updatedAt: new Date().toISOString(), version: stored.version + 1 };
  if (input.webhook_url !== undefined) next.webhookUrl = checkedUrl(input.webhook_url, settings.egress);
  if (input.filters !== undefined) {
    next.compiled = await compileFilters(input.filters);
    next.filters = input.filters;
  }
  if (input.name !== undefined) next.name = input.name;
  if (input.disabled !== undefined) next.disabled = input.disabled;
  // A PATCH resumes a suspended webhook: its receiver is said to be back.
  next.suspendedAt = null;
  next.suspendedReason = null;
  const outcome = await transactWrite([
    {
      Put: {
        Item: { ...webhookKeys.webhook(caller.project, webhookId), ...next },
        // Changed since read (another PATCH, a DELETE, a suspension): the caller retries.
        ConditionExpression: 'attribute_exists(pk) AND version = :version',
        ExpressionAttributeValues: { ':version': stored.version },
      },
    },
    ...filterDeletes(stored, next),
    ...filterPuts(next),
  ]);
  if (!outcome.committed) throw new InvalidRequestError('the webhook changed while it was being updated: send the request again');
  return toWebhook(next);
}

export async function deleteWebhook(key: string | undefined, webhookId: string, settings: WebhookSettings): Promise<Webhook> {
  const caller = await authenticate(key, settings.limits);
  const stored = await readWebhook(caller, webhookId);
  const outcome = await transactWrite([
    { Delete: { Key: webhookKeys.webhook(caller.project, webhookId), ConditionExpression: 'attribute_exists(pk)' } },
    {
      Update: {
        Key: webhookKeys.count(caller.project),
        UpdateExpression: 'ADD webhooks :minus',
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
    ...filterDeletes(stored),
  ]);
  if (!outcome.committed) throw new NotFoundError('Webhook not found');
  return toWebhook(stored);
}

/**
 * Insight's test ping: one sample item (an event or a transaction, whatever the filters) POSTed to
 * `webhook_url` as a delivery is, signed with the fixed secret `test123`, under the delivery's egress
 * rules; `success` says whether the receiver answered 2xx within the timeout.
 */
export async function testWebhook(
  key: string | undefined,
  input: v.InferOutput<typeof testWebhookInput>,
  settings: WebhookSettings,
  delivery: DeliverySettings,
): Promise<{ success: boolean }> {
  await authenticate(key, settings.limits);
  const url = checkedUrl(input.webhook_url, settings.egress);
  const transaction = input.type === 'transaction';
  const outcome = await sendSigned(
    url,
    input.webhook_id ?? 'test',
    TEST_SECRET,
    transaction ? 'v1.transactions' : 'v1.events',
    [transaction ? TEST_TRANSACTION : TEST_EVENT],
    delivery,
  );
  return { success: outcome.ok };
}

/** The test ping's secret, as Insight's. */
export const TEST_SECRET = 'test123';

const TEST_BLOCK = { chain_id: '8453', block_number: 24_000_000, block_hash: `0x${'1'.repeat(64)}`, block_timestamp: 1_767_225_600 };
const TEST_EVENT: WebhookItem = {
  id: '0'.repeat(63) + '1',
  status: 'new',
  type: 'event',
  data: {
    ...TEST_BLOCK,
    transaction_hash: `0x${'2'.repeat(64)}`,
    transaction_index: 0,
    log_index: 0,
    address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    data: '0x00000000000000000000000000000000000000000000000000000000000f4240',
    topics: [
      '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
      `0x000000000000000000000000${'3'.repeat(40)}`,
      `0x000000000000000000000000${'4'.repeat(40)}`,
    ],
  },
};
const TEST_TRANSACTION: WebhookItem = {
  id: '0'.repeat(63) + '2',
  status: 'new',
  type: 'transaction',
  data: {
    ...TEST_BLOCK,
    hash: `0x${'2'.repeat(64)}`,
    nonce: 0,
    transaction_index: 0,
    from_address: `0x${'3'.repeat(40)}`,
    to_address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    value: '0',
    gas: 60_000,
    gas_price: '1000000',
    data: `0xa9059cbb000000000000000000000000${'4'.repeat(40)}00000000000000000000000000000000000000000000000000000000000f4240`,
    function_selector: '0xa9059cbb',
    transaction_type: 2,
    status: 1,
  },
};

/** Insight's filter check: valid, or why not (an invalid filter is an answer here, not an error). */
export async function validateFilters(
  key: string | undefined,
  filters: unknown,
  settings: WebhookSettings,
): Promise<{ valid: boolean; error?: string; details?: FilterIssue[] }> {
  await authenticate(key, settings.limits);
  try {
    await compileFilters(filters);
    return { valid: true };
  } catch (error) {
    if (error instanceof InvalidFiltersError) return { valid: false, error: error.message, details: error.issues };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------

async function readWebhooks(project: string, webhookId: string | undefined): Promise<WebhookRecord[]> {
  if (webhookId !== undefined) {
    const item = await getItem<WebhookRecord>(webhookKeys.webhook(project, webhookId), { consistent: true });
    return item ? [item] : [];
  }
  const { items } = await queryAll<WebhookRecord>({ ...rangeQuery(webhookKeys.projectRange(project)), ConsistentRead: true });
  return items;
}

async function readWebhook(caller: Caller, webhookId: string): Promise<WebhookRecord> {
  const item = await getItem<WebhookRecord>(webhookKeys.webhook(caller.project, webhookId), { consistent: true });
  if (!item) throw new NotFoundError('Webhook not found');
  return item;
}

/** H4: the webhook's compiled filters under each chain they name (`any` for filters without chain ids). */
function filterChains(record: WebhookRecord): (number | 'any')[] {
  const chains = new Set<number | 'any'>();
  for (const part of [record.compiled.events, record.compiled.transactions]) {
    if (!part) continue;
    if (part.chainIds.length === 0) chains.add('any');
    for (const chainId of part.chainIds) chains.add(chainId);
  }
  return [...chains];
}

function filterPuts(record: WebhookRecord): TransactItem[] {
  return filterChains(record).map((chain) => ({
    Put: {
      Item: {
        ...webhookKeys.filter(chain, record.id),
        entity: 'webhookFilter',
        project: record.project,
        webhookId: record.id,
        filters: record.compiled,
        disabled: record.disabled,
      },
    },
  }));
}

function filterDeletes(stored: WebhookRecord, next?: WebhookRecord): TransactItem[] {
  const kept = new Set(next ? filterChains(next) : []);
  return filterChains(stored)
    .filter((chain) => !kept.has(chain))
    .map((chain) => ({ Delete: { Key: webhookKeys.filter(chain, stored.id) } }));
}

/** A receiver's URL, checked as far as it can be without resolving its host (delivery checks the addresses it resolves to). */
function checkedUrl(text: string, egress: WebhookSettings['egress']): string {
  if (text.length > MAX_URL_LENGTH) throw new InvalidRequestError(`webhook_url: at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidRequestError('webhook_url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && egress.allowHttp))
    throw new InvalidRequestError('webhook_url must be an https:// URL');
  if (url.username || url.password) throw new InvalidRequestError('webhook_url may not carry a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const literal = /^[0-9.]+$/.test(host) || host.includes(':');
  if (literal) {
    const refused = refusedAddress(host, egress);
    if (refused) throw new InvalidRequestError(`webhook_url: ${refused}`);
  } else if (!egress.allowLoopback && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')))
    throw new InvalidRequestError('webhook_url must name a public host');
  return url.toString();
}

function toWebhook(record: WebhookRecord): Webhook {
  return {
    id: record.id,
    team_id: record.project,
    project_id: record.project,
    name: record.name,
    webhook_url: record.webhookUrl,
    webhook_secret: record.secret,
    filters: record.filters,
    suspended_at: record.suspendedAt,
    suspended_reason: record.suspendedReason,
    disabled: record.disabled,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
