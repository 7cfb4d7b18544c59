/**
 * The aggregation catalogues' `record` (shared/insights/fields.ts): an aggregation expands only the
 * record fields its columns name (list.ts RowOf, table/compact.ts `expand(item, wanted)`), so each
 * column's value from that lean expansion must be the one a whole expansion serialises. Checked on
 * every item of a small Base-profile chain the real ingest wrote (deposits, swaps, transfers, NFT mints,
 * ERC-1155 batches: canonical records and every index copy).
 */
import { expect, it } from 'vitest';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { recordFieldsOfColumns, type Row } from '../../../shared/insights/aggregate';
import type { FieldCatalogue } from '../../../shared/insights/aggregate-parser';
import { BLOCK_FIELDS, EVENT_FIELDS, TOKEN_TRANSFER_FIELDS, TRANSACTION_FIELDS, withTopicFields } from '../../../shared/insights/fields';
import { serialiseBlock, serialiseEvent, serialiseTokenTransfer, serialiseTransaction } from '../../../shared/insights/serialise';
import { expandBlock, expandLog, expandTokenTransfer, expandTransaction } from '../../../shared/table/compact';
import { storedEntriesOf } from '../../../shared/table/buckets';
import { smallBaseChain } from '../../support/base-chain';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('insights-fields');

type Family = { fields: FieldCatalogue; row: (item: Record<string, unknown>, wanted?: ReadonlySet<string>) => Row };
const FAMILIES: Record<string, Family> = {
  block: { fields: BLOCK_FIELDS, row: (item, wanted) => ({ ...serialiseBlock(expandBlock(item, wanted)) }) },
  transaction: { fields: TRANSACTION_FIELDS, row: (item, wanted) => ({ ...serialiseTransaction(expandTransaction(item, wanted)) }) },
  log: { fields: EVENT_FIELDS, row: (item, wanted) => withTopicFields(serialiseEvent(expandLog(item, wanted))) },
  tokenTransfer: {
    fields: TOKEN_TRANSFER_FIELDS,
    row: (item, wanted) => ({ ...serialiseTokenTransfer(expandTokenTransfer(item, wanted)) }),
  },
};

it("each aggregation column read from only its record fields equals the whole record's, on every item a Base-profile ingest wrote", async () => {
  const { spec, chain } = smallBaseChain(4, 60);
  await registerChain(spec.chainId, 1);
  const ingest = new ChainIngest({ chainId: spec.chainId, client: chain.client(), log: { info: () => undefined, warn: () => undefined } });
  await ingest.ingestRange({ from: 1, to: chain.head });

  const seen = new Map<string, number>();
  const wrong: string[] = [];
  for (const stored of await tableSnapshot(table.name)) {
    for (const item of storedEntriesOf(stored)) {
      const family = FAMILIES[String(item.kind)];
      if (!family) continue;
      seen.set(String(item.kind), (seen.get(String(item.kind)) ?? 0) + 1);
      const whole = family.row(item);
      for (const column of Object.keys(family.fields)) {
        const wanted = recordFieldsOfColumns([column], family.fields);
        expect(wanted, `${item.kind} ${column} names its record fields`).toBeDefined();
        const lean = family.row(item, wanted)[column];
        if (JSON.stringify(lean) !== JSON.stringify(whole[column] ?? null) && !(lean === undefined && whole[column] === undefined))
          wrong.push(
            `${item.kind} ${column} at ${String(item.pk)} / ${String(item.sk)}: ${JSON.stringify(lean)} for ${JSON.stringify(whole[column])}`,
          );
      }
    }
  }
  // Every family was checked, on many items of each.
  for (const kind of Object.keys(FAMILIES)) expect(seen.get(kind) ?? 0, kind).toBeGreaterThan(3);
  expect(wrong.slice(0, 10)).toEqual([]);
}, 120_000);

it('a column that does not name its record fields leaves the whole record expanded', () => {
  expect(recordFieldsOfColumns(['from_address', 'block_timestamp'], TRANSACTION_FIELDS)).toEqual(new Set(['from', 'blockTimestamp']));
  expect(recordFieldsOfColumns(['from_address', 'custom'], { ...TRANSACTION_FIELDS, custom: { kind: 'string' } })).toBeUndefined();
});
