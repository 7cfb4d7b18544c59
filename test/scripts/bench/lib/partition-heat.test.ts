/**
 * Write heat per partition key (scripts/bench/lib/partition-heat.ts): each write request's units land
 * on the table key and on every GSI key its item carries, twice inside a transaction; scaled from the
 * run's rate to the target rate.
 */
import { describe, expect, it } from 'vitest';
import { hottestPartitions, PartitionHeat, recordPartitionWrites } from '../../../../scripts/bench/lib/partition-heat';

describe('partition heat', () => {
  it('adds write units by partition key, GSI keys too, transactions twice', () => {
    const heat = new PartitionHeat();
    const big = { pk: 'TOPIC0', sk: '1', payload: 'x'.repeat(1500) }; // 2 units
    recordPartitionWrites(heat, 'BatchWriteItem', {
      RequestItems: {
        t: [
          { PutRequest: { Item: big } },
          { PutRequest: { Item: { pk: 'TOPIC0', sk: '2' } } },
          { DeleteRequest: { Key: { pk: 'A', sk: '1' } } },
        ],
      },
    });
    recordPartitionWrites(heat, 'TransactWriteItems', {
      TransactItems: [
        { Put: { Item: { pk: 'BAL', sk: '1', gsi2pk: 'HOLDERS#USDC', gsi2sk: 'x' } } },
        { Update: { Key: { pk: 'ADDR', sk: 'ADDR' } } },
      ],
    });
    recordPartitionWrites(heat, 'UpdateItem', { Key: { pk: 'ADDR', sk: 'ADDR' } });
    expect(Object.fromEntries(heat.units)).toEqual({
      'table TOPIC0': 3,
      'table A': 1,
      'table BAL': 2,
      'gsi2 HOLDERS#USDC': 2,
      'table ADDR': 3,
    });
    expect(heat.hottest(2)).toEqual([
      { key: 'table TOPIC0', units: 3 },
      { key: 'table ADDR', units: 3 },
    ]);
  });

  it('scales units a second from the run rate to the target rate', () => {
    const heat = new PartitionHeat();
    heat.add('table TOPIC0', 1_200); // over 120 s of chain time at 100 tx/s
    expect(hottestPartitions(heat, { chainSeconds: 120, transactionsPerSecond: 100 }, 300)).toEqual([
      { key: 'table TOPIC0', writeUnitsPerSecond: 10, writeUnitsPerSecondAtTarget: 30 },
    ]);
  });
});
