/**
 * The table floor of the ingest bench (scripts/bench/ingest.ts spawns it): the writes the ingest sent
 * (lib/floor-writes.ts, read from --input, a v8-serialised FloorInput), put into an EMPTY table of a
 * FRESH embedded DynamoDB in a process of its own (as the ingest's was; --table-in-process: in this
 * one), with nothing else running, through the table layer's own bulk writer (shared/db/operations.ts
 * writeItems: BatchWriteItem of 25, unprocessed items retried) at --concurrency requests in flight.
 * Prints one JSON line: { seconds, puts, deletes, concurrency }. Reading the input is not timed.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { deserialize } from 'node:v8';
import { ensureTable, localClient } from '../lib/local-table/ensure-table';
import { startLocalDynamo } from '../lib/local-table/server';
import { startTableProcess } from '../lib/table-process';
import type { FloorInput } from './lib/floor-writes';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      input: { type: 'string' },
      concurrency: { type: 'string', default: '16' },
      'table-in-process': { type: 'boolean', default: false },
    },
  });
  if (!values.input) throw new Error('usage: floor.ts --input FILE [--concurrency N] [--table-in-process]');
  const concurrency = Number(values.concurrency);
  const input = deserialize(await readFile(values.input)) as FloorInput;
  const table = values['table-in-process'] ? await startLocalDynamo({ host: '127.0.0.1', port: 0 }) : await startTableProcess();
  try {
    const tableName = `bench-floor-${Date.now()}`;
    process.env.DYNAMODB_ENDPOINT = table.endpoint;
    process.env.TABLE_NAME = tableName;
    const admin = localClient(table.endpoint);
    await ensureTable(admin, tableName);
    admin.destroy();
    const { writeItems } = await import('../../shared/db/operations');
    const full = input.chunks.filter((chunk) => chunk.length === 25);
    const partial = input.chunks.filter((chunk) => chunk.length < 25);
    const started = performance.now();
    await writeItems({ put: full.flat() }, { concurrency });
    for (const chunk of partial) await writeItems({ put: chunk }, { concurrency });
    await writeItems({ delete: input.deletes }, { concurrency });
    const seconds = (performance.now() - started) / 1000;
    const puts = input.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    console.log(JSON.stringify({ seconds, puts, deletes: input.deletes.length, concurrency, partialChunks: partial.length }));
  } finally {
    await table.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`floor failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
