/**
 * BatchGetItem for the insights reads (names, token metadata, ABIs, full payloads of index copies):
 * one request per 100 keys, eventually consistent, unprocessed keys retried with a short backoff.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import type { ItemKey } from '../table/keys';

const KEYS_PER_REQUEST = 100;
const MAX_ROUNDS = 8;

export const keyId = (key: ItemKey): string => `${key.pk}\n${key.sk}`;

/** The items stored at `keys` (missing ones absent), by keyId. */
export async function batchGet(keys: readonly ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
  const unique = [...new Map(keys.map((key) => [keyId(key), { pk: key.pk, sk: key.sk }])).values()];
  const found = new Map<string, Record<string, unknown>>();
  const table = tableName();
  const chunks: ItemKey[][] = [];
  for (let start = 0; start < unique.length; start += KEYS_PER_REQUEST) chunks.push(unique.slice(start, start + KEYS_PER_REQUEST));
  await Promise.all(
    chunks.map(async (chunk) => {
      let pending = chunk;
      for (let round = 0; pending.length > 0; round += 1) {
        if (round >= MAX_ROUNDS) throw new Error(`BatchGetItem: ${pending.length} keys still unprocessed after ${round} rounds`);
        if (round > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
        const result = await db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }));
        for (const item of result.Responses?.[table] ?? []) found.set(keyId(item as ItemKey), item);
        pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as ItemKey[];
      }
    }),
  );
  return found;
}
