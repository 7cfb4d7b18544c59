/**
 * The HTTP side of the orders group, shared by its handlers: the success envelope, and Idempotency-Key
 * handling (O3, see docs/access-patterns.md), an HTTP concern since what is stored under a key, and
 * replayed, is the HTTP response.
 *
 * A request with an `Idempotency-Key` header writes the key item (scope, key, hash of the canonical
 * JSON body, the response, ttl = 24 h) with a conditional Put INSIDE the same TransactWriteItems that
 * creates the resource (creation.ts): the key is claimed exactly when the resource is created, never
 * one without the other. So there is no "in progress" state: of many concurrent requests with one key
 * exactly one transaction commits; every other one fails on the key's condition, reads the stored
 * response and replays it (header `Idempotent-Replayed: true`). The same key with another body is 409.
 * A key whose ttl has passed is absent for readers and may be claimed again. A request that fails
 * writes nothing, so it leaves no key behind and may be retried with the same key.
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { getItem, type TransactItem } from '../db/operations';
import { ConflictError, InvalidRequestError } from '../errors';
import type { JsonResult } from '../http/response';
import { orderKeys } from '../table/keys';
import { now } from './clock';
import { IDEMPOTENCY_TTL_SECONDS } from './config';
import type { AlongsideWrite, Creation } from './creation';
import { idempotencyKeySchema } from './schemas';

/** The B3 success envelope of the orders group, with status 200. */
export function ordersResponse(message: string, data: unknown): JsonResult {
  return { statusCode: 200, body: { success: true, message, statusCode: 200, data } };
}

export type IdempotencyScope = 'POST /orders' | 'POST /checkout-sessions';

const REPLAYED_HEADER = 'idempotent-replayed';

interface IdempotencyClaim {
  scope: IdempotencyScope;
  key: string;
  requestHash: string;
}

export interface IdempotentRequest {
  scope: IdempotencyScope;
  /** The `Idempotency-Key` header, if sent. */
  key: string | undefined;
  /** The validated body: requests are the same when their canonical JSON is. */
  body: unknown;
}

/**
 * Answers a POST that creates a resource. Without a key: `create`, then `respond`. With a key: the
 * response stored under it when there is one; else `create` is handed the write that stores its
 * response under the key, to commit in the same transaction, and a creation that lost the key to a
 * concurrent request answers with that request's response.
 */
export async function idempotentCreate<T>(
  request: IdempotentRequest,
  create: (alongside?: AlongsideWrite<T>) => Promise<Creation<T>>,
  respond: (created: T) => JsonResult,
): Promise<JsonResult> {
  const claim = idempotencyClaim(request);
  if (claim) {
    const replay = await storedResponse(claim, now());
    if (replay) return replay;
  }
  const creation = await create(claim && ((created, at) => claimKeyItem(claim, respond(created), at)));
  if (creation.created) return respond(creation.value);
  if (!claim) throw new Error('A creation without an alongside write reported its condition failed');
  return replayAfterLostClaim(claim, now());
}

/** JSON with object keys sorted at every depth: equal for bodies that differ only in key order or spacing. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** The claim a request makes, or undefined without the header. A malformed key is a 400. */
function idempotencyClaim(request: IdempotentRequest): IdempotencyClaim | undefined {
  if (request.key === undefined) return undefined;
  const parsed = v.safeParse(idempotencyKeySchema, request.key);
  if (!parsed.success) throw new InvalidRequestError(parsed.issues[0].message);
  return { scope: request.scope, key: parsed.output, requestHash: requestHash(request.body) };
}

const ttlOf = (at: number): number => Math.floor(at / 1000) + IDEMPOTENCY_TTL_SECONDS;
const isLive = (item: Record<string, unknown>, at: number): boolean => Number(item.ttl) > Math.floor(at / 1000);

/** The conditional Put that claims the key and stores the response; it fails if a live claim exists. */
function claimKeyItem(claim: IdempotencyClaim, response: JsonResult, at: number): TransactItem {
  return {
    Put: {
      Item: {
        ...orderKeys.idempotencyKey(claim.scope, claim.key),
        entity: 'idempotency-key',
        scope: claim.scope,
        requestHash: claim.requestHash,
        statusCode: response.statusCode ?? 200,
        response: JSON.stringify(response.body),
        createdAt: at,
        ttl: ttlOf(at),
      },
      ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :nowSeconds',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':nowSeconds': Math.floor(at / 1000) },
    },
  };
}

/**
 * The first response stored under the key, marked as replayed; undefined when the key is absent (or
 * its ttl has passed). A live key used with a different body is a 409.
 */
async function storedResponse(claim: IdempotencyClaim, at: number): Promise<JsonResult | undefined> {
  const item = await getItem(orderKeys.idempotencyKey(claim.scope, claim.key), { consistent: true });
  if (!item || !isLive(item, at)) return undefined;
  if (item.requestHash !== claim.requestHash) {
    throw new ConflictError('Idempotency-Key was already used with a different request body');
  }
  return { statusCode: Number(item.statusCode), body: JSON.parse(String(item.response)), headers: { [REPLAYED_HEADER]: 'true' } };
}

/** After a transaction lost the race for the key: the winner's response, which must now be there. */
async function replayAfterLostClaim(claim: IdempotencyClaim, at: number): Promise<JsonResult> {
  const replay = await storedResponse(claim, at);
  if (!replay) throw new ConflictError('A request with this Idempotency-Key is being processed; retry it');
  return replay;
}
