/**
 * Starts one embedded DynamoDB (dynalite + transactions, in memory) on a free loopback port for the
 * whole run. Workers inherit DYNAMODB_ENDPOINT; each test file creates its own table (see table.ts).
 */
import { startLocalDynamo, type LocalDynamo } from '../../scripts/lib/local-table/server';

let server: LocalDynamo | undefined;

export async function setup(): Promise<void> {
  server = await startLocalDynamo({ host: '127.0.0.1', port: 0 });
  process.env.DYNAMODB_ENDPOINT = server.endpoint;
}

export async function teardown(): Promise<void> {
  await server?.close();
}
