/**
 * The backfill worker Lambda as the state machine invokes it (lib/backfill.ts), against the demo chain
 * and the embedded DynamoDB, its RPC URL read from SSM through Powertools and the real AWS SDK
 * (AWS_ENDPOINT_URL_SSM: a tiny local SSM endpoint serving the chain's SecureString parameter).
 * Plan, then every shard in reverse order, one of them out of time (ShardNotFinishedError, run again
 * as the map's retry does); the chain's ingest then numbers it all, as a sequential ingest would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createChainClient } from '../../../shared/chain/client';
import { readPlan, readStagedSegment } from '../../../shared/ingest/backfill';
import { ingestRange } from '../../../shared/ingest/ingest';
import { startDemoChain, type DemoChain } from '../../support/demo-chain';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('backfill-lambda');
const CHAIN_ID = 31337;
const HEAD = 40;
let demo: DemoChain;
let ssm: http.Server;
let handler: (event: unknown, context?: Context) => Promise<unknown>;

const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as Context;

beforeAll(async () => {
  demo = await startDemoChain({ chainId: CHAIN_ID });
  ssm = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { Name: string };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ Parameter: { Name: body.Name, Type: 'SecureString', Value: demo.anvil.rpcUrl, Version: 1 } }));
    });
  });
  await new Promise<void>((resolve) => ssm.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SSM: `http://127.0.0.1:${(ssm.address() as AddressInfo).port}`,
    CHAIN_RPC_PARAMETERS: `1=/chain-data/rpc-url/1,${CHAIN_ID}=/chain-data/rpc-url/${CHAIN_ID}`,
    BACKFILL_SAFETY_MARGIN_MS: '60000',
  });
  ({ handler } = await import('../../../functions/ingest/backfill-chain'));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => ssm?.close(() => resolve()));
  await demo?.stop();
});

test('plan, then every shard in any order (one out of time and run again): the ingest numbers a sequential table', async () => {
  const planned = (await handler(
    { action: 'plan', request: { chainId: CHAIN_ID, to: HEAD, segmentBlocks: 5, maxShards: 3 } },
    context(900_000),
  )) as {
    chainId: number;
    from: number;
    to: number;
    shards: { from: number; to: number }[];
  };
  expect(planned).toMatchObject({ chainId: CHAIN_ID, from: 0, to: HEAD });
  expect(planned.shards.at(0)?.from).toBe(0);
  expect(planned.shards.at(-1)?.to).toBe(HEAD);
  expect(planned.shards.map((shard) => [shard.from, shard.to])).toEqual([
    [0, 14],
    [15, 29],
    [30, 40],
  ]);

  const [last, ...rest] = [...planned.shards].reverse();
  // Out of time from the start: one segment, then the shard asks to be run again.
  const shard = { action: 'stage', chainId: CHAIN_ID, ...last! };
  await expect(handler(shard, context(1_000))).rejects.toMatchObject({ name: 'ShardNotFinishedError' });
  expect(await readStagedSegment(CHAIN_ID, last!.from), 'its first segment is staged').toBeDefined();
  expect(await readStagedSegment(CHAIN_ID, last!.from + 5), 'not the next').toBeUndefined();
  expect(await handler(shard, context(900_000)), 'run again: the rest').toEqual({ staged: 2, skipped: 1 });
  for (const other of rest) await handler({ action: 'stage', chainId: CHAIN_ID, ...other }, context(900_000));

  const result = await ingestRange({ chainId: CHAIN_ID, client: createChainClient(demo.anvil.rpcUrl), to: HEAD });
  expect(result.advanced).toBe(HEAD + 1);
  expect(await readPlan(CHAIN_ID)).toBeUndefined();
  const sequential = `${table.name}-sequential`;
  await inTable(sequential, () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(demo.anvil.rpcUrl), from: 0, to: HEAD }));
  expect(await tableSnapshot(table.name)).toEqual(await tableSnapshot(sequential));
}, 240_000);

test('refuses what the state machine would never send, and chains the stack does not ingest', async () => {
  await expect(handler({ action: 'stage', chainId: CHAIN_ID }, context(900_000))).rejects.toThrow();
  await expect(handler({ action: 'drop', chainId: CHAIN_ID }, context(900_000))).rejects.toThrow();
  await expect(handler({ action: 'plan', request: { chainId: 5, to: 1 } }, context(900_000))).rejects.toMatchObject({
    name: 'BackfillPlanError',
  });
});
