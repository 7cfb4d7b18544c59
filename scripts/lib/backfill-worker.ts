/**
 * One backfill worker process of `npm run ingest -- --workers N` (scripts/ingest.ts forks it with IPC):
 * stages the segments the parent sends, one at a time (shared/ingest/backfill.ts), and reports each
 * block written and each segment done or failed. Reads the table and chain configuration from its
 * environment and argv (--rpc-url, --chain-id, --trace-method, --rpc-batch-size), as the parent, and
 * INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS from the environment it inherits (its items must be the parent's).
 */
import { parseArgs } from 'node:util';
import { createChainClient } from '../../shared/chain/client';
import { stageSegment, type Segment } from '../../shared/ingest/backfill';
import { errorMessage } from '../../shared/chain/retry';
import * as v from 'valibot';
import { coldHistoryOfEnv, INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS } from '../../shared/ingest/config';
import type { TraceMethod } from '../../shared/ingest/fetch-block';

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'block'; blockNumber: number }
  | { type: 'staged'; segment: Segment; outcome: string }
  | { type: 'failed'; segment: Segment; error: string };

const { values } = parseArgs({
  options: {
    'rpc-url': { type: 'string' },
    'chain-id': { type: 'string' },
    'trace-method': { type: 'string' },
    'rpc-batch-size': { type: 'string' },
  },
});
const traceMethod = values['trace-method'] as TraceMethod | undefined;
const batchSize = values['rpc-batch-size'] === undefined ? undefined : Number(values['rpc-batch-size']);
const client = createChainClient(values['rpc-url']!, batchSize === undefined ? {} : { batchSize });
const chainId = Number(values['chain-id']);
const zeroValueCallsRetentionDays = v.parse(INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS, process.env.INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS);
const coldHistory = coldHistoryOfEnv();
const send = (message: WorkerMessage) => process.send?.(message);
const log = { info: () => undefined, warn: (message: string) => process.stderr.write(`\nworker ${process.pid}: ${message}\n`) };

process.on('message', async (segment: Segment) => {
  try {
    const outcome = await stageSegment(
      {
        chainId,
        client,
        log,
        traceMethod,
        zeroValueCallsRetentionDays,
        coldHistory,
        onBlockWritten: (blockNumber) => send({ type: 'block', blockNumber }),
      },
      segment,
    );
    send({ type: 'staged', segment, outcome });
  } catch (error) {
    send({ type: 'failed', segment, error: errorMessage(error) });
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
