/**
 * Operator CLI: rewrites the cold tier's pointers a table written before 2026-12-02 holds (N17 as
 * `COLD#<range pk>` items, kind `cold-part`, a field an attribute) as pointers under their range's pointer
 * pk (keys.ts coldKeys.part: a digest of the range's pk, the fields in one attribute), and deletes the old
 * ones. Until it has run, a page of history older than the tier's window reads no cold part: the entries
 * the TTL has removed from the table are missing from it. The cold store's objects do not change. Safe to
 * run again, and beside the service (a pointer's new item is written before its old one is deleted).
 *
 *   npm run migrate:cold-pointers
 *
 * Talks to the table of TABLE_NAME (default chain-data) at DYNAMODB_ENDPOINT (unset: AWS) with the
 * caller's credentials: one Scan of the table (the old pointers' kind), 100 items a page. Prints JSON.
 */
import { scanPages, writeItems } from '../shared/db/operations';
import { pointerOfLegacy } from '../shared/table/cold-parts';
import type { ItemKey, TableItem } from '../shared/table/keys';
import { runCli } from './lib/cli';

async function migrateColdPointers(): Promise<{ found: number; moved: number; refused: string[] }> {
  let found = 0;
  let moved = 0;
  const refused: string[] = [];
  for await (const items of scanPages<TableItem>('cold-part')) {
    found += items.length;
    const pointers: TableItem[] = [];
    const old: ItemKey[] = [];
    for (const item of items) {
      const pointer = pointerOfLegacy(item);
      if (pointer === undefined) {
        refused.push(`${item.pk} ${item.sk}`);
        continue;
      }
      pointers.push(pointer);
      old.push({ pk: item.pk, sk: item.sk });
    }
    await writeItems({ put: pointers });
    await writeItems({ delete: old });
    moved += pointers.length;
  }
  return { found, moved, refused };
}

runCli(async () => {
  const result = await migrateColdPointers();
  console.log(JSON.stringify(result));
  return result.refused.length === 0 ? 0 : 1;
});
