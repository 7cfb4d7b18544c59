/**
 * Closing the embedded table while requests are being served (Ctrl-C of `npm start`, a benchmark
 * build stopped part way): the requests in flight finish or fail, and the process carries on: no
 * uncaught "Database is closed" from dynalite (vitest fails the file on an uncaught exception).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { ensureTable, localClient } from '../../../../scripts/lib/local-table/ensure-table';
import { startLocalDynamo } from '../../../../scripts/lib/local-table/server';

it('lets the requests in flight finish before it closes the store', async () => {
  const server = await startLocalDynamo();
  const client = localClient(server.endpoint);
  await ensureTable(client, 'closing');
  const writes = Array.from({ length: 200 }, (_, index) =>
    client.send(new PutItemCommand({ TableName: 'closing', Item: { pk: { S: `P#${index}` }, sk: { S: 'S' } } })),
  );
  const settled = Promise.allSettled(writes);
  // Close once the first write has been answered: the others are in flight or not yet sent.
  await writes[0];
  await server.close();
  const outcomes = await settled;
  client.destroy();
  expect(outcomes[0]!.status).toBe('fulfilled');
  // Give an uncaught exception from the closed store the time to surface.
  await new Promise((resolve) => setTimeout(resolve, 200));
});
