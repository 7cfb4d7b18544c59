/**
 * The ingest function's table writers as deployed: its handler module bundled as the stack bundles it
 * (ESM, the require banner, the aliases), loaded by a Node process of its own with
 * INGEST_TABLE_WRITERS=1. The writer is the bundle itself run as a worker thread (write-workers.ts): it
 * must start (the handler module's start-up, run again in the writer, must not start writers of its
 * own), write what the main thread hands it to the embedded DynamoDB, and let the process end.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_ALIASES, BUNDLE_TARGET, ESM_REQUIRE_BANNER, REPO_ROOT } from '../../../lib/api-function';
import { testEndpoint, useTestTable } from '../../support/table';

const table = useTestTable('table-writers');
const dir = mkdtempSync(join(tmpdir(), 'table-writers-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the ingest bundle with INGEST_TABLE_WRITERS=1', () => {
  it('starts one writer from the bundle, which writes the items handed to it, and the process ends by itself', async () => {
    const bundle = join(dir, 'index.mjs');
    await build({
      stdin: {
        contents: [
          "export * from './functions/ingest/ingest-chain.ts';",
          "export { batchGetItems, writeItems } from './shared/db/operations.ts';",
          "export { observeWriterWrites, tableWriterCount } from './shared/db/write-workers.ts';",
        ].join('\n'),
        resolveDir: REPO_ROOT,
        loader: 'ts',
      },
      absWorkingDir: REPO_ROOT,
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: BUNDLE_TARGET,
      mainFields: ['module', 'main'],
      alias: { ...BUNDLE_ALIASES },
      banner: { js: ESM_REQUIRE_BANNER },
      logLevel: 'silent',
    });
    const script = `
      const bundle = await import(${JSON.stringify(bundle)});
      const handed = [];
      bundle.observeWriterWrites((_table, chunks) => handed.push(chunks.length));
      const keys = Array.from({ length: 60 }, (_, i) => ({ pk: 'WRITERS#bundle', sk: String(i).padStart(3, '0') }));
      await bundle.writeItems({ put: keys.map((key, i) => ({ ...key, kind: 'test', value: i })) });
      const found = await bundle.batchGetItems(keys);
      console.log(JSON.stringify({ writers: bundle.tableWriterCount(), handed, found: found.size }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        DYNAMODB_ENDPOINT: testEndpoint(),
        TABLE_NAME: table.name,
        DEPOSIT_EVENTS_QUEUE_URL: 'http://127.0.0.1:9/deposit-events.fifo',
        INGEST_TABLE_WRITERS: '1',
      },
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ writers: 1, handed: [3], found: 60 });
  }, 120_000);
});
