/**
 * Idempotency keys (O3) for the POST routes of the orders group.
 *
 * A request with an `Idempotency-Key` header writes the key item (scope, key, hash of the canonical
 * JSON body, the response, ttl = 24 h) with a conditional Put INSIDE the same TransactWriteItems that
 * creates the resource: the key is claimed exactly when the resource is created, never one without
 * the other. So there is no "in progress" state: of many concurrent requests with one key exactly one
 * transaction commits; every other one fails on the key's condition, reads the stored response and
 * replays it (header `Idempotent-Replayed: true`). The same key with another body is 409. A key whose
 * ttl has passed is absent for readers and may be claimed again. A request that fails writes nothing,
 * so it leaves no key behind and may be retried with the same key.
 */
import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, tableName } from '../db/client';
import { orderKeys } from '../table/keys';
import { BadRequestError, ConflictError } from '../http/errors';
import type { JsonResult } from '../http/response';
import { IDEMPOTENCY_TTL_SECONDS } from './config';
import { idempotencyKeySchema } from './schemas';
import type { TransactItem } from './transact';

export type IdempotencyScope = 'POST /orders' | 'POST /checkout-sessions';

export const REPLAYED_HEADER = 'idempotent-replayed';

export interface IdempotencyClaim {
  scope: IdempotencyScope;
  key: string;
  requestHash: string;
}

/** JSON with object keys sorted at every depth: equal for bodies that differ only in key order or spacing. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** The claim a request makes, or undefined without the header. A malformed key is a 400. */
export function idempotencyClaim(scope: IdempotencyScope, header: string | undefined, body: unknown): IdempotencyClaim | undefined {
  if (header === undefined) return undefined;
  const parsed = v.safeParse(idempotencyKeySchema, header);
  if (!parsed.success) throw new BadRequestError(parsed.issues[0].message);
  return { scope, key: parsed.output, requestHash: requestHash(body) };
}

const ttlOf = (at: number): number => Math.floor(at / 1000) + IDEMPOTENCY_TTL_SECONDS;
const isLive = (item: Record<string, unknown>, at: number): boolean => Number(item.ttl) > Math.floor(at / 1000);

/** The conditional Put that claims the key and stores the response; it fails if a live claim exists. */
export function claimKeyItem(claim: IdempotencyClaim, response: JsonResult, at: number): TransactItem {
  return {
    Put: {
      TableName: tableName(),
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
export async function storedResponse(claim: IdempotencyClaim, at: number): Promise<JsonResult | undefined> {
  const result = await db.send(new GetCommand({ TableName: tableName(), Key: orderKeys.idempotencyKey(claim.scope, claim.key), ConsistentRead: true }));
  const item = result.Item;
  if (!item || !isLive(item, at)) return undefined;
  if (item.requestHash !== claim.requestHash) {
    throw new ConflictError('Idempotency-Key was already used with a different request body');
  }
  return { statusCode: Number(item.statusCode), body: JSON.parse(String(item.response)), headers: { [REPLAYED_HEADER]: 'true' } };
}

/** After a transaction lost the race for the key: the winner's response, which must now be there. */
export async function replayAfterLostClaim(claim: IdempotencyClaim, at: number): Promise<JsonResult> {
  const replay = await storedResponse(claim, at);
  if (!replay) throw new ConflictError('A request with this Idempotency-Key is being processed; retry it');
  return replay;
}
