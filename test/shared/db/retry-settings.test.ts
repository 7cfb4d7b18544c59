/**
 * The DynamoDB client settings of shared/db/retry.ts against a DynamoDB that accepts connections and
 * never answers: each attempt is abandoned after `requestTimeoutMs` (an error, not a warning), the SDK
 * makes `maxAttempts` of them, and the whole call ends well within a route function's timeout with an
 * error the HTTP layer answers as a 503.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isTableBusy, SDK_RETRY, sdkRetrySettings } from '../../../shared/db/retry';

let server: Server;
const sockets: Socket[] = [];
let connections = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections += 1;
    sockets.push(socket); // read the request, never answer
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  server.close();
});

it('a DynamoDB that never answers: maxAttempts attempts of requestTimeoutMs each, then a busy-table error', async () => {
  const { port } = server.address() as { port: number };
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    ...sdkRetrySettings(false),
  });
  const started = Date.now();
  const error = await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } })).catch((e) => e);
  const elapsed = Date.now() - started;
  client.destroy();
  expect(error).toBeInstanceOf(Error);
  expect(error.name).toBe('TimeoutError');
  expect(isTableBusy(error)).toBe(true);
  expect(error.$metadata?.attempts).toBe(SDK_RETRY.maxAttempts);
  expect(elapsed).toBeGreaterThanOrEqual(SDK_RETRY.maxAttempts * SDK_RETRY.requestTimeoutMs - 100);
  // Within the route functions' 15 s timeout, with room for the answer.
  expect(elapsed).toBeLessThan(12_000);
  expect(connections).toBeGreaterThanOrEqual(1);
}, 20_000);

it('calls sent at once each get a socket up to SDK_RETRY.maxSockets (an ingest commit sends hundreds; the SDK pool holds 50)', async () => {
  const { port } = server.address() as { port: number };
  const before = connections;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    ...sdkRetrySettings(false),
    maxAttempts: 1,
  });
  const calls = 200;
  const sent = Array.from({ length: calls }, (_, index) =>
    client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: `a${index}` }, sk: { S: 'b' } } })).catch((e) => e),
  );
  // Every call is in flight before the first attempt times out: the server sees one connection a call.
  await new Promise((resolve) => setTimeout(resolve, SDK_RETRY.requestTimeoutMs / 2));
  const open = connections - before;
  await Promise.all(sent);
  client.destroy();
  expect(open).toBe(calls);
  expect(SDK_RETRY.maxSockets).toBeGreaterThanOrEqual(calls);
}, 20_000);

it.each([
  [{ name: 'ThrottlingException' }, true],
  [{ name: 'ProvisionedThroughputExceededException' }, true],
  [{ name: 'RetriesExhaustedError' }, true],
  [{ name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'TransactionConflict' }] }, true],
  [{ name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }, false],
  [{ name: 'Error', code: 'ECONNRESET' }, true],
  [{ name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 500 } }, true],
  [{ name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400 } }, false],
  [{ name: 'TypeError' }, false],
])('isTableBusy(%j) is %s', (error, busy) => {
  expect(isTableBusy(error)).toBe(busy);
});

it('gives the embedded table (one busy thread) longer to accept a connection than DynamoDB', () => {
  expect(sdkRetrySettings(false).requestHandler.connectionTimeout).toBe(SDK_RETRY.connectionTimeoutMs);
  expect(sdkRetrySettings(true).requestHandler.connectionTimeout).toBe(SDK_RETRY.localConnectionTimeoutMs);
  expect(SDK_RETRY.localConnectionTimeoutMs).toBeGreaterThan(SDK_RETRY.connectionTimeoutMs);
});
