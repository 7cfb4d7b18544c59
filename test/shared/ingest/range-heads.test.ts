/**
 * Range heads (shared/ingest/range-heads.ts, issue 34): a follower that starts with nothing in memory
 * (a new Lambda container, a restart) numbers the ranges its addresses own from their heads items, one
 * BatchGetItem for the batch, instead of a Limit-1 Query per range; the positions stay exact and the
 * table is the one an uninterrupted ingest writes, item for item. A chain ingested before range heads
 * (its cursor does not say `rangeHeads`) reads its ranges from the table as before, and is exact too.
 */
import { describe, expect, it } from 'vitest';
import type { BaseChain } from '../../../scripts/bench/dataset/base-profile';
import { deleteItem, updateItem } from '../../../shared/db/operations';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { ownerOfRange } from '../../../shared/ingest/range-heads';
import { compactionFallbacks } from '../../../shared/table/compact';
import { chainKeys } from '../../../shared/table/keys';
import { smallBaseChain } from '../../support/base-chain';
import { observingTable } from '../../support/table-calls';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { expectRangePositions } from './support/truth';

const table = useTestTable('range-heads');

const smallChain = smallBaseChain;

/** Queries of where a range an address owns stands before a block (its last entry, or a count), counted while `work` runs. */
async function ownedRangeLookups<T>(work: () => Promise<T>): Promise<{ result: T; lookups: number }> {
  let lookups = 0;
  const result = await observingTable((command, input) => {
    const pk = String(input.ExpressionAttributeValues?.[':pk'] ?? '');
    // (Where a range stands: its last entry's position; a seek chunk's first keys are another read.)
    const position = String(input.ProjectionExpression ?? '').includes('#pos') || input.Select === 'COUNT';
    if (command === 'QueryCommand' && position && ownerOfRange(pk)) lookups += 1;
  }, work);
  return { result, lookups };
}

const quiet = { info: () => undefined, warn: () => undefined };

function follower(chainId: number, chain: BaseChain): ChainIngest {
  return new ChainIngest({ chainId, client: chain.client(), maxBatchBlocks: 1, prefetch: 1, log: quiet });
}

describe('range heads', () => {
  it('a new follower numbers its addresses’ ranges from their heads, with no lookup of its own, and writes what one follower writes', async () => {
    const { spec, chain } = smallChain(12, 30);
    const head = chain.head;
    // One follower, block by block, start to end.
    const whole = `${table.name}-whole`;
    await inTable(whole, async () => {
      await registerChain(spec.chainId, 1);
      await follower(spec.chainId, chain).ingestRange({ from: 1, to: head });
    });
    // The same blocks, the second half by a follower that starts with nothing in memory.
    const restarted = `${table.name}-restarted`;
    const lookups = await inTable(restarted, async () => {
      await registerChain(spec.chainId, 1);
      const first = await ownedRangeLookups(() => follower(spec.chainId, chain).ingestRange({ from: 1, to: 6 }));
      const second = await ownedRangeLookups(() => follower(spec.chainId, chain).ingestRange({ from: 7, to: head }));
      return { first: first.lookups, second: second.lookups };
    });
    expect(lookups).toEqual({ first: 0, second: 0 });
    const [wholeItems, restartedItems] = await Promise.all([tableSnapshot(whole), tableSnapshot(restarted)]);
    expect(restartedItems).toEqual(wholeItems);
    expect(expectRangePositions(restartedItems)).toBeGreaterThan(100);
    // Returning addresses: heads written more than once, and read back by the second follower.
    expect(restartedItems.filter((item) => item.kind === 'rangeHeads').length).toBeGreaterThan(50);
    // Every item the Base profile's records made expanded back to its record (the proof the ingest leaves out: compact.ts).
    expect(compactionFallbacks()).toBe(0);
  }, 240_000);

  it('a chain ingested before range heads reads its ranges from the table, and numbers them exactly', async () => {
    const { spec, chain } = smallChain(10, 30);
    const legacy = `${table.name}-legacy`;
    const lookups = await inTable(legacy, async () => {
      await registerChain(spec.chainId, 1);
      await follower(spec.chainId, chain).ingestRange({ from: 1, to: 6 });
      // As an ingest before range heads left it: no heads items, a cursor that does not say it writes them.
      for (const item of (await tableSnapshot(legacy)).filter((candidate) => candidate.kind === 'rangeHeads'))
        await deleteItem({ Key: { pk: item.pk, sk: item.sk } });
      const cursor = chainKeys.cursor(spec.chainId);
      await updateItem({ Key: { pk: cursor.pk, sk: cursor.sk }, UpdateExpression: 'REMOVE rangeHeads' });
      return (await ownedRangeLookups(() => follower(spec.chainId, chain).ingestRange({ from: 7, to: chain.head }))).lookups;
    });
    expect(lookups).toBeGreaterThan(0);
    expect(expectRangePositions(await tableSnapshot(legacy))).toBeGreaterThan(50);
  }, 240_000);
});
