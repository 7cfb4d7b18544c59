/**
 * TransactWriteItems for the orders group: all-or-nothing writes whose conditions decide races
 * (an order and its checkout session, an order and its idempotency key). A condition that fails is
 * reported by its position so the caller can say which rule was broken; a transaction cancelled only
 * because another one held the same items (TransactionConflict) is retried a few times.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { db } from '../db/client';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type TransactOutcome = { committed: true } | { committed: false; failedConditions: number[] };

const CONFLICT_RETRIES = 5;

export async function transactWrite(items: TransactItem[]): Promise<TransactOutcome> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return { committed: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
      const failedConditions = codes.flatMap((code, index) => (code === 'ConditionalCheckFailed' ? [index] : []));
      if (failedConditions.length > 0) return { committed: false, failedConditions };
      if (codes.includes('TransactionConflict') && attempt < CONFLICT_RETRIES) {
        await sleep(20 + Math.random() * 80 * (attempt + 1));
        continue;
      }
      throw error;
    }
  }
}
