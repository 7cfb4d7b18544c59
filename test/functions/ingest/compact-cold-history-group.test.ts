/**
 * The cold history job's fan-out as deployed (docs/decisions/cold-history.md): CompactColdHistory with
 * COLD_GROUP_FUNCTION runs each span's groups at once, one invocation of the group worker
 * (functions/ingest/compact-cold-history-group.ts) each, through the AWS SDK's Lambda client, here against a
 * Lambda-compatible endpoint on 127.0.0.1 that runs the worker's handler (the Invoke API's path, payload
 * and X-Amz-Function-Error). On a small Base-profile chain 31 days old, ingested with the tier on into
 * dynalite, parts into a local S3: the groups of a span run at the same time; the pointers are those the
 * job writes in one process; a failed group fails the span and leaves the cold cursor where it was, and
 * the next run completes it; a task that is not one is refused by the worker, naming the field.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3, type LocalS3 } from '../../../scripts/lib/local-s3';
import { s3ColdStore } from '../../../shared/aws/cold-store';
import { writeItems } from '../../../shared/db/operations';
import { compactColdHistory, readColdCursor } from '../../../shared/ingest/cold-history';
import { coldPointerOf } from '../../../shared/table/cold-parts';
import { coldKeys, type ItemKey } from '../../../shared/table/keys';
import { DAY, dayPastTheWindow, ingestedColdChain, setColdJobEnvironment } from '../../support/cold-job';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('compact-cold-history-group');
const BUCKET = 'compact-cold-history-group-test';
const WORKER = 'CompactColdHistoryGroup';
const BLOCKS = 8;
const FIRST_TIMESTAMP = dayPastTheWindow();

let s3: LocalS3;
let lambda: Server;
let chainId: number;
let job: typeof import('../../../functions/ingest/compact-cold-history').handler;
let worker: typeof import('../../../functions/ingest/compact-cold-history-group').handler;
let restoreEnvironment: (() => void) | undefined;

/** What the endpoint saw: each invocation's function and task, the most in flight at once; a group to fail. */
const invocations: { functionName: string; task: Record<string, number> }[] = [];
let inFlight = 0;
let mostInFlight = 0;
let failGroup: number | undefined;

/** The Invoke API (POST /2015-03-31/functions/{name}/invocations): the worker's handler, its error as Lambda reports one. */
function startLambdaEndpoint(): Promise<Server> {
  const server = createServer(async (request, response) => {
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(request.url ?? '');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || !match) {
      response.writeHead(404).end();
      return;
    }
    const functionName = decodeURIComponent(match[1]!);
    const task = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    invocations.push({ functionName, task });
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      // Held a moment, as a worker's run takes time: the span's groups overlap if they were started together.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (task.index === failGroup) throw new Error(`group ${task.index} ran out of memory`);
      const result = await worker(task);
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(result));
    } catch (error) {
      response
        .writeHead(200, { 'Content-Type': 'application/json', 'X-Amz-Function-Error': 'Unhandled' })
        .end(JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message }));
    } finally {
      inFlight -= 1;
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  s3 = await startLocalS3(BUCKET);
  lambda = await startLambdaEndpoint();
  // The functions' environment as the stack sets it; the SDK's Lambda client sent to the local endpoint.
  restoreEnvironment = setColdJobEnvironment(s3, BUCKET, {
    COLD_SPAN_BLOCKS: '3',
    COLD_RANGE_GROUPS: '3',
    COLD_GROUP_FUNCTION: WORKER,
    AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`,
  });
  ({ handler: job } = await import('../../../functions/ingest/compact-cold-history'));
  ({ handler: worker } = await import('../../../functions/ingest/compact-cold-history-group'));
  chainId = await ingestedColdChain(BLOCKS, 20, FIRST_TIMESTAMP);
}, 120_000);

afterAll(async () => {
  restoreEnvironment?.();
  await new Promise((resolve) => lambda?.close(resolve));
  await s3?.close();
});

const event = () => ({ chainId, rpcUrlParameter: `/chain-data-api/rpc/${chainId}` });
const withTime = (ms: number) => ({ getRemainingTimeInMillis: () => ms });
/** The pointers in the table, decoded (each with its pk). */
const pointerItems = async () =>
  (await tableSnapshot(table.name))
    .filter((item) => String(item.pk).startsWith('COLD#'))
    .map((item) => ({ pk: String(item.pk), ...coldPointerOf(item) }));
const byKey = <T extends ItemKey>(items: T[]) => [...items].sort((a, b) => `${a.pk}\n${a.sk}`.localeCompare(`${b.pk}\n${b.sk}`));

describe("the cold history job's groups, each in a worker of its own", () => {
  it('fails a span when one of its groups fails, leaving the cold cursor where it was; the next run completes it', async () => {
    failGroup = 1;
    try {
      await expect(job(event(), withTime(900_000))).rejects.toThrow(
        new RegExp(
          `chain ${chainId}: blocks 1-3: 1 of 3 groups failed \\(group 1: ${WORKER} failed \\(Unhandled\\): Error: group 1 ran out of memory\\)`,
        ),
      );
    } finally {
      failGroup = undefined;
    }
    expect(await readColdCursor(chainId)).toBeUndefined();
    // Every group of the span was started, and waited for, though one failed.
    expect(invocations.map((call) => call.task.index).sort()).toEqual([0, 1, 2]);
  });

  it('runs every group of a span at once, and writes the pointers the job writes in one process', async () => {
    invocations.length = 0;
    mostInFlight = 0;
    const result = await job(event(), withTime(900_000));
    // Spans 1-3, 4-6, 7-8, in 3 groups each, every invocation the worker's.
    expect(result).toMatchObject({ chainId, from: undefined, to: BLOCKS, due: BLOCKS, spans: 9, behindSeconds: 0 });
    expect(invocations).toHaveLength(9);
    expect(new Set(invocations.map((call) => call.functionName))).toEqual(new Set([WORKER]));
    expect(mostInFlight).toBe(3);
    // A span's groups arrive in any order; the spans one after the other.
    const spanOrder = invocations.map((call) => call.task.fromBlock);
    expect(spanOrder).toEqual([...spanOrder].sort((a, b) => a - b));
    const tasks = invocations.map((call) => [call.task.fromBlock, call.task.toBlock, call.task.index]);
    expect(tasks.sort((a, b) => a[0]! - b[0]! || a[2]! - b[2]!)).toEqual([
      [1, 3, 0],
      [1, 3, 1],
      [1, 3, 2],
      [4, 6, 0],
      [4, 6, 1],
      [4, 6, 2],
      [7, 8, 0],
      [7, 8, 1],
      [7, 8, 2],
    ]);
    expect(await readColdCursor(chainId)).toBe(BLOCKS);
    const fannedOut = byKey(await pointerItems());
    expect(fannedOut.reduce((sum, pointer) => sum + pointer.count, 0)).toBe(result.items);
    expect(result.items).toBeGreaterThan(500);

    // The same job in one process, from nothing compacted: the same pointers, naming the same objects.
    await writeItems({ delete: [...fannedOut.map(({ pk, sk }) => ({ pk, sk })), coldKeys.cursor(chainId)] });
    const store = s3ColdStore({ bucket: BUCKET, endpoint: s3.endpoint, credentials: s3.credentials });
    const inProcess = await compactColdHistory({ chainId, store, afterSeconds: 30 * DAY, spanBlocks: 3, rangeGroups: 3 });
    expect(inProcess.to).toBe(BLOCKS);
    expect(byKey(await pointerItems())).toEqual(fannedOut);
  });

  it('has its worker refuse a task that is not one, naming the field, before anything', async () => {
    const task = { chainId, fromBlock: 1, toBlock: 3, index: 0, count: 3, now: Date.now() };
    await expect(worker({ ...task, index: 3 })).rejects.toThrow(/Invalid cold history group task .*index must be below count/);
    await expect(worker({ ...task, toBlock: 'three' })).rejects.toThrow(/toBlock/);
    await expect(worker({ ...task, chainId: 0 })).rejects.toThrow(/chainId/);
  });
});
