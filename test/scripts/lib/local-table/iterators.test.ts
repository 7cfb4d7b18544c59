/**
 * Regression: dynalite 4 left the LevelDB iterator of every Query and Scan open, attached to its
 * database for good, so the local service's memory grew under load and never came back. The embedded
 * table closes them: after many Queries (whole ranges and pages cut short by a Limit) and Scans, on a
 * LevelDB store as `npm start` runs it, no iterator is left open.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, expect, it } from 'vitest';
import { ensureTable, localClient } from '../../../../scripts/lib/local-table/ensure-table';
import { startLocalDynamo, type LocalDynamo } from '../../../../scripts/lib/local-table/server';

interface Resource {
  close(): unknown;
}
interface Store {
  db: { attachResource(resource: Resource): void; detachResource(resource: Resource): void };
}

const folders: string[] = [];
const servers: LocalDynamo[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

it('closes the iterator of every Query and Scan', async () => {
  // The store dynalite creates for the next server is watched: which resources (iterators) stay attached.
  const stores = createRequire(import.meta.url)('dynalite/db') as { create: (options: object) => Store };
  const create = stores.create;
  const open = new Set<Resource>();
  let opened = 0;
  stores.create = (options) => {
    const store = create(options);
    const attach = store.db.attachResource.bind(store.db);
    const detach = store.db.detachResource.bind(store.db);
    store.db.attachResource = (resource) => {
      opened += 1;
      open.add(resource);
      attach(resource);
    };
    store.db.detachResource = (resource) => {
      open.delete(resource);
      detach(resource);
    };
    return store;
  };
  const folder = await mkdtemp(path.join(tmpdir(), 'iterators-'));
  folders.push(folder);
  let server: LocalDynamo;
  try {
    server = await startLocalDynamo({ path: folder });
  } finally {
    stores.create = create;
  }
  servers.push(server);

  const client = localClient(server.endpoint);
  await ensureTable(client, 'iterators');
  const baseline = open.size;
  for (let round = 0; round < 40; round += 1) {
    await client.send(
      new QueryCommand({
        TableName: 'iterators',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `P#${round % 3}` } },
      }),
    );
    await client.send(
      new QueryCommand({
        TableName: 'iterators',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'P#0' } },
        Limit: 1,
      }),
    );
    await client.send(new ScanCommand({ TableName: 'iterators', Limit: 2 }));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  client.destroy();
  expect(opened - baseline).toBeGreaterThanOrEqual(120);
  expect(open.size).toBeLessThanOrEqual(baseline);
});
