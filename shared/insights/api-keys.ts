/**
 * Secret keys (K1, K2: docs/access-patterns.md) of the routes that act for a project: Insight's webhook
 * routes. An operator issues and revokes them with `npm run keys` (scripts/keys.ts); a client sends one
 * as thirdweb's clients do, in `x-secret-key` or as `Authorization: Bearer <key>`.
 *
 * A key is `sk_<project>_<43 random base64url characters>` (256 bits of randomness). The table holds
 * only its SHA-256, under which the key item records its project: the project written in the key lets
 * a read start beside the key's check (one round trip for both), and is believed only when the item
 * at the key's hash says the same. Rotation, limits: docs/decisions/webhooks.md.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { queryAll, rangeQuery, updateItem, putItem } from '../db/operations';
import { RateLimitedError, UnauthorizedError, NotFoundError } from '../errors';
import { apiKeyKeys } from '../table/keys';

export const KEY_PREFIX = 'sk_';
const PROJECT_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
const KEY_PATTERN = /^sk_([a-z0-9][a-z0-9-]{0,39})_([A-Za-z0-9_-]{43})$/;

export const projectSchema = v.pipe(
  v.string(),
  v.regex(PROJECT_PATTERN, 'a project is 1 to 40 lowercase letters, digits or hyphens, starting with a letter or digit'),
);

/** A key as the operator sees it: never the key itself after its creation. */
export interface ApiKeyInfo {
  keyId: string;
  project: string;
  name: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** What a request's key stands for. */
export interface Caller {
  project: string;
  keyId: string;
}

export interface ApiKeyLimits {
  /** Requests a key may send in one minute; more are answered 429 until the minute ends. */
  requestsPerMinute: number;
}

const hashOf = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The project a key names (not yet checked against the table), or undefined for what is no key of this service. */
export function projectOfKey(key: string | undefined): string | undefined {
  return key === undefined ? undefined : KEY_PATTERN.exec(key)?.[1];
}

/** Issues a key for `project`. The key is in the answer and nowhere else: it cannot be shown again. */
export async function createApiKey(input: { project: string; name?: string }, at = new Date()): Promise<ApiKeyInfo & { key: string }> {
  const project = v.parse(projectSchema, input.project);
  const name = input.name === undefined ? null : v.parse(v.pipe(v.string(), v.minLength(1), v.maxLength(128)), input.name);
  const key = `${KEY_PREFIX}${project}_${randomBytes(32).toString('base64url')}`;
  const keyId = `key_${randomBytes(6).toString('hex')}`;
  const info: ApiKeyInfo = { keyId, project, name, createdAt: at.toISOString(), revokedAt: null };
  const hash = hashOf(key);
  // (No revokedAt attribute until revoked: the check is attribute_not_exists(revokedAt).)
  const { revokedAt: _notYet, ...stored } = info;
  await putItem({
    Item: { ...apiKeyKeys.key(hash), ...apiKeyKeys.listing(project, keyId), entity: 'apiKey', ...stored },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  return { ...info, key };
}

/**
 * Stores a key whose value the caller chose, unless it is stored already: `npm start`'s demo key, which
 * the route examples carry (shared/routes.ts EXAMPLE_SECRET_KEY). Never for a deployment's keys.
 */
export async function registerApiKey(key: string, name: string, at = new Date()): Promise<void> {
  const project = projectOfKey(key);
  if (project === undefined) throw new Error('registerApiKey: not a key of this service');
  const keyId = `key_${createHash('sha256').update(`id:${key}`).digest('hex').slice(0, 12)}`;
  await putItem({
    Item: {
      ...apiKeyKeys.key(hashOf(key)),
      ...apiKeyKeys.listing(project, keyId),
      entity: 'apiKey',
      keyId,
      project,
      name,
      createdAt: at.toISOString(),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
}

/** Every key (of one project when given), by project and key id. */
export async function listApiKeys(project?: string): Promise<ApiKeyInfo[]> {
  const { items } = await queryAll(rangeQuery(apiKeyKeys.listRange(project)));
  return items.map(toInfo);
}

/** Revokes a key by its id: its next request, from any container, is a 401. Revoking twice keeps the first time. */
export async function revokeApiKey(keyId: string, at = new Date()): Promise<ApiKeyInfo> {
  const { items } = await queryAll(rangeQuery(apiKeyKeys.listRange()));
  const item = items.find((candidate) => candidate.keyId === keyId);
  if (!item) throw new NotFoundError(`no key "${keyId}"`);
  const outcome = await updateItem({
    Key: { pk: item.pk as string, sk: item.sk as string },
    UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':at': at.toISOString() },
    ReturnValues: 'ALL_NEW',
  });
  if (!outcome.applied || !outcome.attributes) throw new NotFoundError(`no key "${keyId}"`);
  return toInfo(outcome.attributes);
}

/**
 * The caller a request's secret key stands for, counting the request against the key's minute: one
 * conditional UpdateItem on the key's item (a second one in the first request of a minute). A missing,
 * malformed, unknown or revoked key is an UnauthorizedError (401); past the limit, a RateLimitedError (429).
 */
export async function authenticate(key: string | undefined, limits: ApiKeyLimits, at = Date.now()): Promise<Caller> {
  if (key === undefined || key === '')
    throw new UnauthorizedError('Unauthorized: send a secret key in x-secret-key or Authorization: Bearer');
  const project = projectOfKey(key);
  if (project === undefined) throw new UnauthorizedError('Unauthorized: the secret key is not valid');
  const minute = Math.floor(at / 60_000);
  const hashKey = apiKeyKeys.key(hashOf(key));
  const live = 'attribute_exists(pk) AND attribute_not_exists(revokedAt)';
  // The minute's window already open: count the request in it.
  let outcome = await updateItem<Record<string, unknown>>({
    Key: hashKey,
    UpdateExpression: 'ADD rateCount :one',
    ConditionExpression: `${live} AND rateMinute = :minute`,
    ExpressionAttributeValues: { ':one': 1, ':minute': minute },
    ReturnValues: 'ALL_NEW',
  });
  // The first request of the minute (or no key): open the window.
  if (!outcome.applied)
    outcome = await updateItem<Record<string, unknown>>({
      Key: hashKey,
      UpdateExpression: 'SET rateMinute = :minute, rateCount = :one',
      ConditionExpression: `${live} AND (attribute_not_exists(rateMinute) OR rateMinute <> :minute)`,
      ExpressionAttributeValues: { ':one': 1, ':minute': minute },
      ReturnValues: 'ALL_NEW',
    });
  const item = outcome.applied ? outcome.attributes : undefined;
  if (!item || !sameText(String(item.project), project))
    throw new UnauthorizedError('Unauthorized: the secret key is not valid or was revoked');
  if (Number(item.rateCount) > limits.requestsPerMinute) {
    const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - at) / 1000));
    throw new RateLimitedError(`Rate limit exceeded: at most ${limits.requestsPerMinute} requests a minute per key`, retryAfter);
  }
  return { project, keyId: String(item.keyId) };
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function toInfo(item: Record<string, unknown>): ApiKeyInfo {
  return {
    keyId: String(item.keyId),
    project: String(item.project),
    name: typeof item.name === 'string' ? item.name : null,
    createdAt: String(item.createdAt),
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : null,
  };
}
