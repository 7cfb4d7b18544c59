/**
 * Write heat per partition key (issue 34, item 8): DynamoDB takes at most 1,000 write units a second on
 * one partition, and a key whose sort key only grows (a topic's, a hot token's range) cannot be split
 * for heat. Fed the write requests as they go out (as write-families.ts is), it adds up each request's
 * write units by the partition key it lands on: the table's `pk`, and each GSI's partition key the item
 * carries (a GSI is written at the item's size again). Units as DynamoDB bills them on demand:
 * ceil(size / 1 KB), at least 1, twice inside TransactWriteItems; an update or delete is priced at one
 * unit on the table (its item's size is not in the request, nor the GSI entries it moves), a put at its
 * item's on the table and on each GSI it is in: the GSI figures are estimates. Pure: test/scripts/bench/lib/.
 */
import { TABLE } from '../../../shared/table/definition';
import { itemSize, type Operation, recordWriteCommand, unitsOf, type WriteRecorder } from './write-families';

/** DynamoDB's write throughput limit of one partition, in write units a second. */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;

export class PartitionHeat implements WriteRecorder {
  readonly units = new Map<string, number>();

  add(key: string, units: number): void {
    this.units.set(key, (this.units.get(key) ?? 0) + units);
  }

  /** One write of a request (WriteRecorder): a put at its item's size on the table and its GSIs, an update or delete one unit on the table. */
  record(operation: Operation, itemOrKey: Record<string, unknown>, transactional: boolean): void {
    if (operation === 'conditionCheck') return;
    const factor = transactional ? 2 : 1;
    if (operation !== 'put') {
      this.add(`table ${String(itemOrKey[TABLE.partitionKey])}`, factor);
      return;
    }
    const units = unitsOf(itemSize(itemOrKey)) * factor;
    this.add(`table ${String(itemOrKey[TABLE.partitionKey])}`, units);
    for (const gsi of TABLE.globalSecondaryIndexes) {
      const key = itemOrKey[gsi.partitionKey];
      if (typeof key === 'string') this.add(`${gsi.indexName} ${key}`, units);
    }
  }

  /** The hottest keys, most units first. */
  hottest(count: number): { key: string; units: number }[] {
    return [...this.units]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, units]) => ({ key, units }));
  }
}

/** Records one write command's units by partition key (write-families.ts walks the command). */
export function recordPartitionWrites(heat: PartitionHeat, command: string, input: Record<string, any>): void {
  recordWriteCommand(heat, command, input);
}

/**
 * The hottest partitions of a run over `chainSeconds` of chain time, scaled to `transactionsPerSecond`
 * (write units grow with the transactions): units a second at the run's rate and at the target rate.
 */
export function hottestPartitions(
  heat: PartitionHeat,
  run: { chainSeconds: number; transactionsPerSecond: number },
  targetTransactionsPerSecond: number,
  count = 5,
): { key: string; writeUnitsPerSecond: number; writeUnitsPerSecondAtTarget: number }[] {
  const scale = targetTransactionsPerSecond / run.transactionsPerSecond;
  return heat.hottest(count).map(({ key, units }) => {
    const perSecond = units / run.chainSeconds;
    return {
      key,
      writeUnitsPerSecond: Math.round(perSecond * 10) / 10,
      writeUnitsPerSecondAtTarget: Math.round(perSecond * scale * 10) / 10,
    };
  });
}
