/**
 * The re-ingest path of a table whose cold tier was compacted before the pointers moved under a digest of
 * their range's pk (`npm run migrate:cold-pointers`, scripts/migrate-cold-pointers.ts), as a child process
 * against the test file's table: a small Base-profile chain's first blocks compacted into a local S3 (s3rver
 * on 127.0.0.1), their pointers rewritten as the compactor wrote them before, their hot items gone (the
 * TTL). Before the run a range's reader misses its cold entries; after it, every history range reads what
 * it read with all of it in the table, the pointers are those a compaction writes today, item for item,
 * and a second run finds nothing.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import { startLocalS3, type LocalS3 } from '../../scripts/lib/local-s3';
import { s3ColdStore } from '../../shared/aws/cold-store';
import { useColdStore } from '../../shared/db/cold-query';
import { queryPage, writeItems } from '../../shared/db/operations';
import { compactBlocks } from '../../shared/ingest/cold-history';
import { readManifest } from '../../shared/ingest/manifest';
import { coldPointerOf, isHistoryRange } from '../../shared/table/cold-parts';
import { coldKeys, type ItemKey, keyId, type TableItem } from '../../shared/table/keys';
import { ingestedSmallBaseChain } from '../support/base-chain';
import { tableSnapshot, useTestTable } from '../support/table';

const table = useTestTable('migrate-cold-pointers');
const run = promisify(execFile);
const BUCKET = 'migrate-cold-pointers';
const BLOCKS = 6;
const COLD_TO = 4;

let s3: LocalS3;
/** Every history range of the chain, with its entries' sort keys as the all-hot table gave them. */
const hotRanges = new Map<string, string[]>();

async function migrate(): Promise<{ found: number; moved: number; refused: string[] }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(REPOSITORY_ROOT, 'scripts/migrate-cold-pointers.ts')], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, TABLE_NAME: table.name },
  });
  return JSON.parse(stdout);
}

/** The sort keys of range `pk`'s entries, newest first, as the table layer reads them (cold parts included). */
async function entriesOf(pk: string): Promise<string[]> {
  const keys: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': pk },
      ScanIndexForward: false,
      ExclusiveStartKey: start,
    });
    keys.push(...page.items.map((item) => String(item.sk)));
    start = page.lastKey;
  } while (start !== undefined);
  return keys;
}

const pointerItems = async (): Promise<TableItem[]> =>
  (await tableSnapshot(table.name)).filter((item) => String(item.pk).startsWith('COLD#')) as TableItem[];

beforeAll(async () => {
  s3 = await startLocalS3(BUCKET);
  const { spec } = await ingestedSmallBaseChain(BLOCKS, 20);
  for (const pk of new Set((await tableSnapshot(table.name)).map((item) => String(item.pk)).filter(isHistoryRange))) {
    hotRanges.set(pk, await entriesOf(pk));
  }
  const store = s3ColdStore({ bucket: BUCKET, endpoint: s3.endpoint, credentials: s3.credentials });
  await compactBlocks({ chainId: spec.chainId, fromBlock: 1, toBlock: COLD_TO, store, partEntries: 4 });
  const compacted = new Map<string, ItemKey>();
  for (let number = 1; number <= COLD_TO; number += 1) {
    for (const key of (await readManifest(spec.chainId, number))!.items) if (isHistoryRange(key.pk)) compacted.set(keyId(key), key);
  }
  await writeItems({ delete: [...compacted.values()] });
  useColdStore(store);
}, 120_000);

afterAll(async () => {
  useColdStore(undefined);
  await s3?.close();
});

describe('npm run migrate:cold-pointers', () => {
  it('moves the pointers written before under their ranges, so that cold history reads again, and is then a no-op', async () => {
    const written = await pointerItems();
    expect(written.length).toBeGreaterThan(50);
    const cold = [...hotRanges.keys()].filter((pk) => written.some((item) => item.pk === coldKeys.parts(pk).pk));
    expect(cold.length).toBeGreaterThan(20);
    for (const pk of cold) expect(await entriesOf(pk)).toEqual(hotRanges.get(pk));

    // The same pointers as the compactor wrote them before: under the range's own pk, each field its own
    // attribute, and naming no joins (table/joins.ts: pointers name them since).
    const rangeOf = new Map([...hotRanges.keys()].map((pk) => [coldKeys.parts(pk).pk, pk]));
    const withoutJoins = (item: TableItem) => {
      const { joins: _joins, ...fields } = coldPointerOf(item, rangeOf.get(item.pk));
      return fields;
    };
    expect(written.some((item) => coldPointerOf(item, rangeOf.get(item.pk)).joins !== undefined)).toBe(true);
    const legacy = written.map((item) => ({
      ...withoutJoins(item),
      pk: `COLD#${rangeOf.get(item.pk)!}`,
      kind: 'cold-part',
      chainId: 38_453,
    }));
    await writeItems({ delete: written.map(({ pk, sk }) => ({ pk, sk })) });
    await writeItems({ put: legacy as unknown as TableItem[] });
    // Unmoved, a range misses the entries its cold parts hold.
    const missing = [];
    for (const pk of cold) if ((await entriesOf(pk)).length < hotRanges.get(pk)!.length) missing.push(pk);
    expect(missing).toEqual(cold);

    expect(await migrate()).toEqual({ found: written.length, moved: written.length, refused: [] });
    const byKey = (items: TableItem[]) => [...items].sort((a, b) => keyId(a).localeCompare(keyId(b)));
    const moved = byKey(await pointerItems());
    expect(moved.map(keyId)).toEqual(byKey(written).map(keyId));
    expect(moved.map((item) => coldPointerOf(item, rangeOf.get(item.pk)))).toEqual(byKey(written).map(withoutJoins));
    for (const pk of hotRanges.keys()) expect(await entriesOf(pk)).toEqual(hotRanges.get(pk));
    expect(await migrate()).toEqual({ found: 0, moved: 0, refused: [] });
  }, 120_000);
});
