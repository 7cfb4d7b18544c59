/**
 * Gives the calling test file its own table on the shared embedded DynamoDB, so files never see each
 * other's items. Call `useTestTable()` at the top of a file, before the handlers are invoked.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll } from 'vitest';
import { ensureTable, localClient } from '../../scripts/lib/local-table/ensure-table';
import { useTable } from '../../shared/db/client';
import { scanItems } from '../../scripts/lib/local-table/scan';

export function testEndpoint(): string {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: is test/support/global-setup.ts configured?');
  return endpoint;
}

/**
 * Points the table layer (and TABLE_NAME, for handler modules loaded later and child processes) at a
 * fresh table for this file, and creates it before the file's tests run.
 */
export function useTestTable(prefix = 'test'): { readonly name: string } {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  process.env.TABLE_NAME = name;
  useTable(name);
  beforeAll(async () => {
    process.env.TABLE_NAME = name;
    useTable(name);
    await ensureTable(localClient(testEndpoint()), name);
  });
  return { name };
}

/** Runs `work` against another table of the same embedded DynamoDB (created when missing), then switches back. */
export async function inTable<T>(name: string, work: () => Promise<T>): Promise<T> {
  await ensureTable(localClient(testEndpoint()), name);
  const previous = useTable(name);
  try {
    return await work();
  } finally {
    useTable(previous);
  }
}

/**
 * Every item of a table (a Scan: tests only), sorted by key, to compare the table before and after.
 * Chains' ingest status items (shared/ingest/status.ts: wall-clock times, the node's head as last
 * seen) differ between two runs of the same blocks by design: left out unless `withStatus`.
 */
export async function tableSnapshot(tableName: string, options: { withStatus?: boolean } = {}): Promise<Record<string, unknown>[]> {
  const client = localClient(testEndpoint());
  const items = await scanItems(client, tableName);
  client.destroy();
  return items
    .filter((item) => options.withStatus || item.kind !== 'chainStatus')
    .sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}
