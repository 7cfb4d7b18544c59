/**
 * Parallel backfill on the demo chain: workers stage segments in random order, one of them killed
 * half way and run again, while the ingest numbers what is staged; the table ends item for item as
 * one sequential ingest leaves it (positions, running totals, seek chunks, state, manifests and
 * cursor included; the plan and staged items gone). The ingest answers the staged blocks' chain
 * reads from the workers' recordings, not from the node.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createChainClient } from '../../../shared/chain/client';
import { backfillKeys } from '../../../shared/table/keys';
import {
  BackfillPlanError,
  planBackfill,
  readPlan,
  readStagedSegment,
  stageSegment,
  sweepEndedPlan,
  type Segment,
} from '../../../shared/ingest/backfill';
import { ChainIngest, ingestRange } from '../../../shared/ingest/ingest';
import type { IngestLog } from '../../../shared/ingest/log';
import { readCursor } from '../../../shared/ingest/manifest';
import { prng } from '../../../scripts/bench/dataset/chain';
import { startDemoChain, type DemoChain } from '../../support/demo-chain';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('backfill');
const CHAIN_ID = 31337;
let demo: DemoChain;
let head: number;
/** The table of one sequential ingest of blocks 0..head. */
let reference: Record<string, unknown>[];

const client = () => createChainClient(demo.anvil.rpcUrl);

beforeAll(async () => {
  demo = await startDemoChain({ chainId: CHAIN_ID });
  head = Number(await client().getBlockNumber());
  const name = `${table.name}-reference`;
  const result = await inTable(name, () => ingestRange({ chainId: CHAIN_ID, client: client(), from: 0, to: head }));
  expect(result.advanced).toBe(head + 1);
  reference = await tableSnapshot(name);
}, 180_000);

afterAll(async () => {
  await demo?.stop();
});

function shuffle<T>(values: T[], random: () => number): T[] {
  const copy = [...values];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

/** Stages `segments` with `workers` concurrent workers in the given order; the `killed`-th segment taken is stopped half way once. */
async function runWorkers(segments: Segment[], workers: number, killed: number): Promise<{ killedSegment: Segment; partial: boolean }> {
  const queue = [...segments];
  let taken = 0;
  let killedSegment: Segment | undefined;
  let partial = false;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let segment = queue.shift(); segment; segment = queue.shift()) {
        if (taken++ === killed) {
          killedSegment = segment;
          // Killed after its first block's items are written: they stay, the segment is not staged.
          const controller = new AbortController();
          const run = stageSegment(
            {
              chainId: CHAIN_ID,
              client: client(),
              signal: controller.signal,
              onBlockWritten: () => controller.abort(new Error('worker killed')),
            },
            segment,
          );
          await expect(run).rejects.toThrow('worker killed');
          partial = (await readStagedSegment(CHAIN_ID, segment.from)) === undefined;
          queue.push(segment); // retried by whichever worker is free, after the others
          continue;
        }
        await stageSegment({ chainId: CHAIN_ID, client: client() }, segment);
      }
    }),
  );
  return { killedSegment: killedSegment!, partial };
}

describe.each([
  { seed: 7, segmentBlocks: 7 },
  { seed: 11, segmentBlocks: 13 },
])('backfill in segments of $segmentBlocks, order of seed $seed', ({ seed, segmentBlocks }) => {
  test('4 workers in random order, one killed and run again, while the ingest numbers: the sequential table', async () => {
    const name = `${table.name}-${seed}`;
    const numbered: { replayed: number; live: number; from: number; workerBlocks: number; rewrittenBlocks: number }[] = [];
    const log: IngestLog = {
      info: (message, details) => {
        if (message === 'numbered staged blocks') numbered.push(details as never);
      },
      warn: () => undefined,
    };
    await inTable(name, async () => {
      const { segments } = await planBackfill({ chainId: CHAIN_ID, to: head, head, segmentBlocks });
      expect(segments.length).toBeGreaterThan(4);
      const random = prng(seed);
      const ingest = new ChainIngest({ chainId: CHAIN_ID, client: client(), log, backfillPollMs: 20 });
      const [numbering, workers] = await Promise.all([
        ingest.ingestRange({ from: 0, to: head }),
        runWorkers(shuffle(segments, random), 4, Math.floor(random() * segments.length)),
      ]);
      expect(workers.partial, 'the killed worker left its segment unstaged').toBe(true);
      expect(numbering.advanced).toBe(head + 1);
      expect(await readPlan(CHAIN_ID), 'the plan ends with its last block').toBeUndefined();
      expect((await readCursor(CHAIN_ID))?.blockNumber).toBe(head);
    });
    expect(await tableSnapshot(name)).toEqual(reference);
    // Every staged block's chain reads were answered by the recordings: only the chain's first block,
    // numbered alone before its segment's last block, read its state from the node.
    expect(numbered.reduce((sum, step) => sum + step.replayed, 0)).toBeGreaterThan(head);
    expect(numbered.filter((step) => step.from !== 0).every((step) => step.live === 0)).toBe(true);
    // And the workers' items were the ingest's own: it wrote none of them again.
    expect(numbered.reduce((sum, step) => sum + step.workerBlocks, 0)).toBe(head + 1);
    expect(numbered.reduce((sum, step) => sum + step.rewrittenBlocks, 0)).toBe(0);
  }, 240_000);
});

test('the ingest stops at a segment no worker has staged yet, and carries on once it is', async () => {
  const name = `${table.name}-stops`;
  await inTable(name, async () => {
    const { segments } = await planBackfill({ chainId: CHAIN_ID, to: head, head, segmentBlocks: 20 });
    const options = { chainId: CHAIN_ID, client: client(), log: { info: () => undefined, warn: () => undefined } };
    await stageSegment(options, segments[1]!);
    expect((await ingestRange({ ...options, from: 0, to: head })).advanced, 'nothing staged at the start').toBe(0);
    await stageSegment(options, segments[0]!);
    expect(await stageSegment(options, segments[0]!), 'staging is idempotent').toBe('already staged');
    expect((await ingestRange({ ...options, to: head })).advanced).toBe(40);
    expect(await readStagedSegment(CHAIN_ID, segments[0]!.from), 'numbered segments are deleted').toBeUndefined();
    expect(await stageSegment(options, segments[1]!), 'a worker late for an ingested segment does nothing').toBe('already ingested');
    for (const segment of segments.slice(2)) await stageSegment(options, segment);
    expect((await ingestRange({ ...options, to: head })).advanced).toBe(head + 1 - 40);
  });
  expect(await tableSnapshot(name)).toEqual(reference);
}, 240_000);

test('a plan starts after the cursor, reaches only final blocks, and is one per chain', async () => {
  await inTable(`${table.name}-plan`, async () => {
    await ingestRange({ chainId: CHAIN_ID, client: client(), from: 0, to: 3 });
    await expect(planBackfill({ chainId: CHAIN_ID, from: 10, to: 20, head })).rejects.toThrow(BackfillPlanError);
    await expect(planBackfill({ chainId: CHAIN_ID, to: head, head, confirmations: 2 })).rejects.toThrow('not final');
    const { plan, segments } = await planBackfill({ chainId: CHAIN_ID, to: 40, head, segmentBlocks: 10 });
    expect(plan.from).toBe(4);
    expect(segments.map((segment) => [segment.from, segment.to])).toEqual([
      [4, 13],
      [14, 23],
      [24, 33],
      [34, 40],
    ]);
    await expect(planBackfill({ chainId: CHAIN_ID, to: 50, head })).rejects.toThrow('still open');
    await expect(planBackfill({ chainId: CHAIN_ID, to: 40, head, segmentBlocks: 500 })).rejects.toThrow('from 1 to 128');

    // Two workers on one segment at once: one attempt counts, the segment reads whole.
    const options = { chainId: CHAIN_ID, client: client(), log: { info: () => undefined, warn: () => undefined } };
    const outcomes = await Promise.all([stageSegment(options, segments[0]!), stageSegment(options, segments[0]!)]);
    expect(outcomes.sort()).toEqual(['already staged', 'staged']);
    expect((await readStagedSegment(CHAIN_ID, 4))?.blocks.size).toBe(10);

    // Stopped after a segment and started again: the plan resumes where the ingest is.
    await stageSegment(options, segments[1]!);
    expect((await ingestRange({ ...options, to: 40 })).advanced).toBe(20);
    const again = await planBackfill({ chainId: CHAIN_ID, to: 40, head, segmentBlocks: 10 });
    expect(again.plan.from, 'the plan keeps its start').toBe(4);
    expect(again.segments.map((segment) => segment.from)).toEqual([24, 34]);
    expect(backfillKeys.plan(CHAIN_ID).sk).toBe('BACKFILL');
  });
}, 60_000);

test('a worker whose plan a reorg ends while it reads the chain stages nothing and takes back what it wrote', async () => {
  const name = `${table.name}-ended`;
  await inTable(name, async () => {
    const { plan, segments } = await planBackfill({ chainId: CHAIN_ID, to: 30, head, segmentBlocks: 10 });
    const before = await tableSnapshot(name);
    let swept = false;
    const run = stageSegment(
      {
        chainId: CHAIN_ID,
        client: client(),
        // The ingest's sweep runs after the worker's first block is written, before it stages.
        onBlockWritten: () => {
          if (swept) return;
          swept = true;
          void sweepEndedPlan(CHAIN_ID, plan, -1);
        },
      },
      segments[1]!,
    );
    await expect(run).rejects.toThrow(BackfillPlanError);
    expect(swept).toBe(true);
    expect(await readPlan(CHAIN_ID)).toBeUndefined();
    expect(await tableSnapshot(name), 'nothing of the worker or the plan is left').toEqual(
      before.filter((item) => item.pk !== backfillKeys.plan(CHAIN_ID).pk),
    );
  });
}, 60_000);
