/**
 * The ingest's reads (shared/ingest/table-io.ts) on the embedded DynamoDB: a read of many keys (a Base
 * block's prefetch: balances, addresses, tokens) is one round trip, every BatchGetItem request of it in
 * flight at once, not waves of a few: each wave was one more round trip on a block's commit path.
 */
import { describe, expect, it } from 'vitest';
import { writeItems } from '../../../shared/db/operations';
import { getItems } from '../../../shared/ingest/table-io';
import { keyId, type TableItem } from '../../../shared/table/keys';
import { useTestTable } from '../../support/table';
import { mostInFlight } from '../../support/table-calls';

useTestTable('table-io');

describe('getItems', () => {
  it('reads 1,250 keys (1,000 stored) in one round: 13 BatchGetItem requests at once, every stored item found', async () => {
    const stored: TableItem[] = Array.from({ length: 1_000 }, (_, index) => ({
      pk: `C#1#TEST#${index % 7}`,
      sk: String(index).padStart(6, '0'),
      kind: 'test',
      value: index,
    }));
    await writeItems({ put: stored });
    const missing = Array.from({ length: 250 }, (_, index) => ({ pk: 'C#1#TEST#none', sk: String(index).padStart(6, '0') }));
    const { result: found, peak } = await mostInFlight('BatchGetItemCommand', () =>
      getItems([...stored.map(({ pk, sk }) => ({ pk, sk })), ...missing]),
    );
    expect(found.size).toBe(1_000);
    expect(found.get(keyId(stored[777]!))).toMatchObject({ value: 777 });
    // 1,250 keys are 13 requests of at most 100: all in flight at once (a wave of 4 at a time was 4 round trips).
    expect(peak).toBe(13);
  });
});
