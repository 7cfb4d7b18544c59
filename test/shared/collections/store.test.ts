/**
 * Creating a collection, where the domain meets the table layer: a duplicate is a conflict that
 * writes nothing and is never retried (even when other items of its transaction conflicted too);
 * transactions that keep conflicting with other creations mean the table is busy (a 503). Conflicts
 * are injected by a middleware on the real client.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { putNewCollection } from '../../../shared/collections/store';
import type { Collection } from '../../../shared/collections/schemas';
import { db } from '../../../shared/db/client';
import { BusyError, ConflictError } from '../../../shared/errors';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('collections-store');

let cancellationCodes: string[] | undefined;
/** Cancellation codes for the next transaction only (then the real table answers). */
let nextCancellation: ((count: number) => string[]) | undefined;
let transactions = 0;

db.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
    transactions += 1;
    const once = nextCancellation?.((args.input as { TransactItems: unknown[] }).TransactItems.length);
    nextCancellation = undefined;
    const codes = once ?? cancellationCodes;
    if (!codes) return next(args);
    throw new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: codes.map((Code) => ({ Code })),
    });
  },
  { step: 'initialize', name: 'testConflicts', priority: 'high' },
);

afterEach(() => {
  cancellationCodes = undefined;
  transactions = 0;
});

let created = 0;
function collection(): Collection {
  created += 1;
  return {
    uuid: `00000000-0000-4000-8000-${String(created).padStart(12, '0')}`,
    predictedAddress: `0x${String(created).padStart(40, '0')}`,
    creator: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    gameOwner: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    chainId: 8453,
    creatorSignature: `0x${'1'.repeat(130)}`,
    name: 'Stored',
    symbol: 'STORE',
    baseURI: 'https://example.com/meta/',
    maxSupply: '1000',
    mintPrice: '0',
    startTime: '1700000000',
    endTime: '1900000000',
    tokenStandard: 'ERC721',
    maxPerWallet: '5',
    isWhitelistEnabled: false,
    attributes: [],
    createdAt: new Date().toISOString(),
    whitelistMerkleRoot: `0x${'0'.repeat(64)}`,
  };
}

describe('putNewCollection', () => {
  it('refuses a duplicate as a conflict, writing nothing', async () => {
    const first = collection();
    await putNewCollection(first);
    const before = await tableSnapshot(table.name);
    await expect(putNewCollection({ ...first, uuid: collection().uuid })).rejects.toThrow(ConflictError);
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('keeps apart two collections that share a uuid (the creator chooses it) and a creation millisecond', async () => {
    const first = collection();
    const second = { ...collection(), uuid: first.uuid, createdAt: first.createdAt };
    await putNewCollection(first);
    await putNewCollection(second);
    const entries = (await tableSnapshot(table.name)).filter((item) => item.pk === 'COLLECTIONS#ALL');
    const addresses = entries.map((entry) => entry.predictedAddress);
    expect(addresses).toContain(first.predictedAddress);
    expect(addresses).toContain(second.predictedAddress);
    expect(new Set(entries.map((entry) => entry.sk)).size).toBe(entries.length);
  });

  it('retries a creation that lost a list position (a counter moved on) against fresh counters, at the next position', async () => {
    const first = collection();
    const raced = await putNewCollection(first);
    // The counters of the next creation fail their condition once, as when a concurrent creation took the position.
    nextCancellation = (count) => Array.from({ length: count }, (_, index) => (index >= count / 2 ? 'ConditionalCheckFailed' : 'None'));
    const second = await putNewCollection(collection());
    expect(transactions).toBe(3);
    const all = (await tableSnapshot(table.name)).filter((item) => item.pk === 'COLLECTIONS#ALL');
    const positions = new Map(all.map((entry) => [entry.predictedAddress, entry.sk]));
    const [firstPosition, secondPosition] = [positions.get(raced.predictedAddress), positions.get(second.predictedAddress)].map((sk) =>
      Number(String(sk).slice(2)),
    );
    expect(secondPosition).toBe(firstPosition! + 1);
    const counter = (await tableSnapshot(table.name)).find((item) => item.pk === 'COLLECTIONS-COUNT#COLLECTIONS#ALL');
    expect(counter?.count).toBe(all.length);
  });

  it('never retries a failed condition, even alongside conflicts', async () => {
    cancellationCodes = ['ConditionalCheckFailed', 'TransactionConflict', 'None'];
    await expect(putNewCollection(collection())).rejects.toThrow(/already exists/);
    expect(transactions).toBe(1);
  });

  it('answers busy when other creations keep conflicting, writing nothing', async () => {
    const before = await tableSnapshot(table.name);
    cancellationCodes = ['None', 'TransactionConflict', 'None'];
    const failure = putNewCollection(collection());
    await expect(failure).rejects.toThrow(BusyError);
    await expect(failure).rejects.toThrow('Too many collections are being created at once; retry shortly');
    expect(transactions).toBeGreaterThan(1);
    expect(await tableSnapshot(table.name)).toEqual(before);
  });
});
